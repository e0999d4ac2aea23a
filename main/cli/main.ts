// The CLI's one entry: dispatch, and turn every failure into one line on stderr and a
// documented exit code. No stack trace ever reaches the user (set LAKEREC_DEBUG=1 to see one).
import { LAKEREC_VERSION } from '../../shared/version';
import { LakerecError, ExitCode, exitCodeFor, toErrorData } from '../../shared/errors';
import { oneLine } from '../../shared/escape';
import { commands } from './commands';
import { guardCommandLine } from './guard';
import { setOutputRoots } from '../engine/outputs';
import type { CliIO } from './io';
import { withStoreSettings } from '../storage/settings';


function help(): string {
  const w = Math.max(...commands.map((c) => c.name.length));
  return [
    'lakerec: forensic workbench for Delta Lake tables',
    '',
    ...commands.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    '',
    'Exit codes: 0 nothing blocking, 1 a blocking finding, 2 the invocation was wrong, 3 a side could not be read.',
    'Run `lakerec COMMAND --help` for a command\'s usage.',
  ].join('\n');
}

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(help() + '\n');
    return name ? ExitCode.Ok : ExitCode.Usage;
  }
  if (name === '--version') { io.out(LAKEREC_VERSION + '\n'); return ExitCode.Ok; }
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) {
    io.err(`lakerec: unknown command "${oneLine(name, 200)}" (try lakerec --help)\n`);
    return ExitCode.Usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) { io.out(`usage: ${cmd.usage}\n`); return ExitCode.Ok; }
  try {
    // --anonymous is the run's choice for every remote location (a public bucket), taken off the
    // command line here; the stores read io.env, not the process's environment (storage/settings.ts).
    const end = rest.indexOf('--') < 0 ? rest.length : rest.indexOf('--');
    const anonymous = cmd.takesTable === true && rest.slice(0, end).includes('--anonymous');
    const args = anonymous ? rest.filter((a, i) => i >= end || a !== '--anonymous') : rest;
    // Every output the command may write is checked before it runs (docs/security.md).
    guardCommandLine(cmd.name, args, io.cwd);
    const mod = await cmd.load();
    return await withStoreSettings({ env: io.env as NodeJS.ProcessEnv, anonymous }, () => mod.run(args, io));
  } catch (e) {
    const data = toErrorData(e);
    if (io.env.LAKEREC_DEBUG && e instanceof Error) io.err(String(e.stack) + '\n');
    // One line, whatever the message holds: paths and values from a table may carry newlines,
    // escape sequences or NULs, which are written escaped.
    io.err(`lakerec ${name}: ${data.code === 'internal' ? 'error' : data.code.replace(/_/g, ' ')}: ${oneLine(data.message)}\n`);
    return e instanceof LakerecError ? e.exitCode : exitCodeFor(data.code);
  } finally {
    setOutputRoots([]);
  }
}
