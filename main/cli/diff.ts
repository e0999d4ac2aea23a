// `lakerec diff TABLE --from V1 --to V2 [--keys K] [--check] [--json]`: two versions of one table
// compared by the reconcile engine at rows level (V1 the source, V2 the target), said as rows
// inserted, deleted, changed and moved, with the commits between. Two versions differing is what
// a diff shows, not a failure: exit 0, unless --check asks for one (exit 1 when they differ).
// Exit: 2 usage (no keys), 3 unreadable.
import { tableArg } from '../engine/location';
import { LakerecError } from '../../shared/errors';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { renderJson } from '../reconcile/report';
import { diffVersions, renderDiffText } from '../views/diff';
import { maskReconcileResult, schemaSensitivity, sensitivityOf } from '../incident/mask';

const USAGE = 'lakerec diff TABLE --from V1 --to V2 [--keys K[,K2]] [--check] [--json]';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.diff.flags);
  const [table] = requirePositional(p, 1, USAGE);
  const from = int(p, 'from');
  const to = int(p, 'to');
  if (from === undefined || to === undefined) throw new LakerecError('usage', `--from and --to are required; usage: ${USAGE}`);
  const keysArg = str(p, 'keys');
  const keys = keysArg === undefined ? undefined : keysArg.split(',').map((k) => k.trim()).filter((k) => k !== '');
  if (keysArg !== undefined && (!keys || keys.length === 0)) throw new LakerecError('usage', `--keys needs at least one column name; usage: ${USAGE}`);
  const raw = await diffVersions(tableArg(io.cwd, table), { from, to, ...(keys ? { keys } : {}) });
  // Every report masks the values of confidential columns.
  const d = { ...raw, result: maskReconcileResult(raw.result, sensitivityOf(raw.result, await schemaSensitivity(raw.path, raw.to))) };
  if (bool(p, 'json')) io.out(JSON.stringify({ ...d, result: JSON.parse(renderJson(d.result)) as unknown }, null, 2));
  else io.out(renderDiffText(d));
  // --check: the versions must hold the same rows and columns.
  return bool(p, 'check') && !d.changes.identical ? 1 : 0;
}
