// Web mode's process: parse the launch arguments, start the server on 127.0.0.1, print the URL,
// open the system browser when there is one, stop cleanly on SIGINT/SIGTERM.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LakerecError } from '../../shared/errors';
import { bool, int, parseArgs, str } from '../engine/args';
import { Dispatcher } from './dispatch';
import { defaultSample, defaultUserDataDir, resolveSamples } from './samples';
import { runHistoryDir } from './screens';
import { createService } from './service';
import { startWebServer } from './web-server';

const USAGE = 'lakerec-workbench --web [FOLDER] [--sample] [--port N] [--no-open] [--user-data DIR]';

function onPath(cmd: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** Opens `url` in the system browser if this machine has one and a display; false otherwise. */
export function openBrowser(url: string): boolean {
  let cmd: string;
  let args: string[];
  if (process.platform === 'darwin') {
    cmd = 'open'; args = [url];
  } else if (process.platform === 'win32') {
    cmd = 'cmd'; args = ['/c', 'start', '""', url];
  } else {
    if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false;
    cmd = 'xdg-open'; args = [url];
    if (!onPath(cmd)) return false;
  }
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

export async function runWebMode(argv: string[], entryUrl: string): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs(argv, { port: 'string', 'no-open': 'boolean', 'user-data': 'string', sample: 'boolean', web: 'boolean' });
    if (parsed.positional.length > 1) throw new LakerecError('usage', 'give at most one folder');
  } catch (e) {
    process.stderr.write(`lakerec web: ${e instanceof Error ? e.message : String(e)}\nusage: ${USAGE}\n`);
    process.exit(2);
  }
  // dist/main/web.js -> the app root holding dist/ and sample-lakes/
  const appRoot = resolve(dirname(fileURLToPath(entryUrl)), '..', '..');
  const userDataDir = resolve(str(parsed, 'user-data') ?? defaultUserDataDir());
  const port = int(parsed, 'port') ?? 0;
  const wantSample = bool(parsed, 'sample');
  const samples = await resolveSamples(appRoot, userDataDir, wantSample);
  const initialTable = parsed.positional[0] ?? (wantSample ? defaultSample(samples)?.path ?? null : null);

  const staticDir = join(appRoot, 'dist', 'renderer');
  if (!existsSync(join(staticDir, 'index.html'))) {
    process.stderr.write(`lakerec web: the renderer is not built (${staticDir}); run \`npm run build\`.\n`);
    process.exit(3);
  }
  const log = (line: string) => process.stderr.write(line + '\n');
  const service = createService({
    mode: 'web', userDataDir, initialTable, sampleTables: samples, log,
    runsDir: runHistoryDir(str(parsed, 'user-data') ? userDataDir : null),
  });
  const server = await startWebServer({ dispatcher: new Dispatcher(service, log), staticDir, port, log });

  process.stdout.write(`lakerec workbench (web mode) is serving on ${server.origin}\n`);
  process.stdout.write(`  open: ${server.pageUrl}\n`);
  if (initialTable) process.stdout.write(`  table: ${resolve(initialTable)}\n`);
  process.stdout.write('  the URL carries this launch\'s token; requests without it are refused. Ctrl+C stops.\n');
  if (!bool(parsed, 'no-open') && !process.env.CI) {
    if (openBrowser(server.pageUrl)) process.stdout.write('  (opened in the system browser)\n');
  }

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void server.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
