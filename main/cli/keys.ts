// `lakerec keys TABLE [--contract F] [--source F]`: the contract's keys and relationships verified
// on the data (or candidate keys inferred). Exit: 0 all confirmed, 1 a check failed, 2 usage, 3 unreadable.
import { resolve } from 'node:path';
import { tableArg } from '../engine/location';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { verifyKeys } from '../trust/keys';
import { keysLines } from '../trust/report';

const USAGE = 'lakerec keys TABLE [--contract FILE] [--source F] [--version N] [--json]';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.keys.flags);
  const [table] = requirePositional(p, 1, USAGE);
  const contract = str(p, 'contract');
  const version = int(p, 'version');
  const r = await verifyKeys({
    table: tableArg(io.cwd, table), cwd: io.cwd, contract: contract ? resolve(io.cwd, contract) : null,
    source: str(p, 'source') ?? null, ...(version !== undefined ? { version } : {}),
  });
  io.out(bool(p, 'json') ? JSON.stringify(r, null, 2) + '\n' : keysLines(r).join('\n') + '\n');
  return r.summary.keysFailed + r.summary.relationshipsFailed > 0 ? 1 : 0;
}
