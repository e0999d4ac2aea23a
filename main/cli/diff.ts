// `lakerec diff TABLE --from V1 --to V2 [--keys K] [--json]`: two versions of one table compared
// by the reconcile engine at rows level (V1 the source, V2 the target), and the commits between.
// Exit: 0 nothing blocking, 1 a blocking finding, 2 usage (no keys), 3 unreadable.
import { tableArg } from '../engine/location';
import { LakerecError } from '../../shared/errors';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import type { CliIO } from './io';
import { renderJson, renderTerminal } from '../reconcile/report';
import { diffVersions, renderDiffText } from '../workbench/diff';
import { maskReconcileResult, schemaSensitivity, sensitivityOf } from '../incident/mask';

const USAGE = 'lakerec diff TABLE --from V1 --to V2 [--keys K[,K2]] [--json]';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, { from: 'string', to: 'string', keys: 'string', json: 'boolean' });
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
  else io.out(renderDiffText(d, renderTerminal(d.result)));
  return d.result.exitCode;
}
