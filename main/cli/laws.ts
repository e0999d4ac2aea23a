// `lakerec laws SOURCE TABLE --contract F`: conservation of additive measures per day, source ->
// target. Exit: 0 every law held, 1 a law is broken, 2 usage, 3 unreadable.
import { resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { checkLaws } from '../trust/laws';
import { lawsLines } from '../trust/report';
import { tableArg } from '../engine/location';

const USAGE = 'lakerec laws SOURCE TABLE --contract FILE [--version N] [--json]';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.laws.flags);
  const [source, table] = requirePositional(p, 2, USAGE);
  const contract = str(p, 'contract');
  if (!contract) throw new LakerecError('usage', `--contract FILE is required (keys, the day column, the measures); usage: ${USAGE}`);
  const version = int(p, 'version');
  const r = await checkLaws({ source, table: tableArg(io.cwd, table), contract: resolve(io.cwd, contract), cwd: io.cwd, ...(version !== undefined ? { version } : {}) });
  io.out(bool(p, 'json') ? JSON.stringify(r, null, 2) + '\n' : lawsLines(r).join('\n') + '\n');
  return r.summary.broken > 0 ? 1 : 0;
}
