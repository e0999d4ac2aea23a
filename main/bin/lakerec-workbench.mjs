#!/usr/bin/env node
// `lakerec-workbench [FOLDER] [--web] [--port N] [--no-open]` (and `npm start`).
// Builds if the build is missing or older than the sources, then opens the Electron window where
// Electron's binary exists (trying its own installer once if it is missing) and a display is
// available; otherwise serves web mode on 127.0.0.1 and prints the URL. Without a folder it
// opens a bundled sample lake (building the sample lakes first when they are not built).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const say = (line) => process.stdout.write(`lakerec: ${line}\n`);
// npm is a .cmd on Windows, which Node (20.12+) runs only through a shell.
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const OUTPUTS = ['dist/main/web.js', 'dist/main/electron.js', 'dist/main/cli.js', 'dist/preload/index.cjs', 'dist/renderer/index.html'];
const SOURCES = ['main', 'preload', 'renderer', 'shared', 'sample-lakes'];

function newest(dir) {
  let t = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (e.name === 'built' || e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (/\.(ts|tsx|css|html)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

function ensureBuilt() {
  const outs = OUTPUTS.map((o) => join(root, o));
  const missing = outs.some((o) => !existsSync(o));
  const hasSources = existsSync(join(root, 'main', 'entries'));
  if (!missing && hasSources) {
    const oldestOut = Math.min(...outs.map((o) => statSync(o).mtimeMs));
    const src = Math.max(...SOURCES.map((s) => newest(join(root, s))));
    if (src <= oldestOut) return;
  } else if (!missing) {
    return;
  }
  say(missing ? 'building the workbench (first run)…' : 'sources changed since the last build; rebuilding…');
  const r = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    process.stderr.write('lakerec: the build failed; see the output above.\n');
    process.exit(3);
  }
}

function hasSampleTable(dir, depth = 0) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    if (e.name === '_delta_log') return true;
    if (depth < 3 && hasSampleTable(join(dir, e.name), depth + 1)) return true;
  }
  return false;
}

/** Builds the sample lakes with the CLI when they are missing; the app falls back to a demo table. */
function ensureSampleLakes() {
  if (hasSampleTable(join(root, 'sample-lakes', 'built'))) return;
  const cli = join(root, 'dist', 'main', 'cli.js');
  const help = spawnSync(process.execPath, [cli, '--help'], { cwd: root, encoding: 'utf8' });
  if (!`${help.stdout}`.includes('build-sample-lakes')) return;
  say('building the sample lakes (first run)…');
  const r = spawnSync(npm, ['run', 'sample-lakes'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) say('the sample lakes could not be built; opening a small demo table instead.');
}

function electronBinary() {
  const dir = join(root, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = process.env.ELECTRON_OVERRIDE_DIST_PATH
    ? join(process.env.ELECTRON_OVERRIDE_DIST_PATH, readFileSync(pathFile, 'utf8'))
    : join(dir, 'dist', readFileSync(pathFile, 'utf8'));
  return existsSync(bin) ? bin : null;
}

/** Electron's own installer, once, with a short timeout: here its download host is unreachable. */
function tryInstallElectron() {
  const installer = join(root, 'node_modules', 'electron', 'install.js');
  if (!existsSync(installer)) return 'Electron is not installed (node_modules/electron is missing)';
  say("Electron's binary is not installed; trying Electron's installer (30 s at most)…");
  const r = spawnSync(process.execPath, [installer], { cwd: join(root, 'node_modules', 'electron'), encoding: 'utf8', timeout: 30_000 });
  if (r.error?.code === 'ETIMEDOUT' || r.signal) return "Electron's binary download timed out";
  if (r.status !== 0) {
    const why = `${r.stderr}`.split('\n').find((l) => /error|ENOTFOUND|EAI_AGAIN|ECONN|403|404/i.test(l))?.trim();
    return `Electron's binary could not be downloaded${why ? ` (${why.slice(0, 160)})` : ''}`;
  }
  return electronBinary() ? null : "Electron's installer finished without a binary";
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write('usage: lakerec-workbench [FOLDER] [--web] [--port N] [--no-open]\n'
      + '  Opens the workbench (Electron, or web mode on 127.0.0.1 where Electron cannot run).\n'
      + '  Without FOLDER it opens a bundled sample lake.\n');
    return;
  }
  ensureBuilt();
  const folder = args.find((a, i) => !a.startsWith('-') && !['--port', '--user-data'].includes(args[i - 1]));
  if (!folder) ensureSampleLakes();
  const appArgs = folder ? args : [...args, '--sample'];

  let reason = null;
  if (args.includes('--web') || process.env.LAKEREC_WEB === '1') reason = 'web mode was asked for';
  let bin = null;
  if (!reason) {
    bin = electronBinary();
    if (!bin && process.env.LAKEREC_SKIP_ELECTRON_INSTALL === '1') {
      reason = "Electron's binary is not installed (LAKEREC_SKIP_ELECTRON_INSTALL=1: not trying its installer)";
    } else if (!bin) {
      const failed = tryInstallElectron();
      bin = failed ? null : electronBinary();
      if (!bin) reason = failed;
    }
  }
  if (!reason && process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    reason = 'there is no display (DISPLAY/WAYLAND_DISPLAY unset) for a window';
  }

  if (!reason && bin) {
    say('opening the Electron window…');
    // The app folder (package.json "main" is dist/main/electron.js), so Electron knows the app's name.
    const child = spawn(bin, [root, ...appArgs.filter((a) => a !== '--web')], { cwd: process.cwd(), stdio: 'inherit' });
    // The window goes with the launcher, whatever stops it (Ctrl+C, kill, a closed terminal).
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
    return;
  }
  say(`${reason}: starting web mode instead.`);
  process.argv = [process.argv[0], join(root, 'dist', 'main', 'web.js'), ...appArgs.filter((a) => a !== '--web')];
  await import(pathToFileURL(join(root, 'dist', 'main', 'web.js')).href);
}

main().catch((e) => {
  process.stderr.write(`lakerec: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(3);
});
