// Compare two versions of one table: the reconcile engine at rows level with the table at `from`
// as the source (a Delta source at a version, as sides.ts reads `path@version`) and the table at
// `to` as the target, keyed by the contract beside the table or by keys the user gives; plus the
// commits in between with their operations. Values of confidential columns masked as in every report.
import { readFileSync } from 'node:fs';
import { LakerecError } from '../../shared/errors';
import type { JobContext } from '../../shared/jobs';
import type { ReconcileResult } from '../../shared/reconcile';
import type { DiffCommit, DiffResult, VersionChanges } from '../../shared/views';
import { openTable, type TableHandle } from '../delta/open';
import { forensicsOfHistory } from '../forensics/forensics';
import { parseContract, type Contract } from '../reconcile/contract';
import { reconcile } from '../reconcile/reconcile';
import { contractFileFor } from './contract-file';

export interface DiffOptions {
  from: number;
  to: number;
  keys?: string[];
  ctx?: JobContext;
  /** The open table (the window's): both versions, the commits between and the source side are read from its one parsed log. */
  table?: TableHandle;
}

export const DIFF_NEEDS_KEYS = 'Comparing two versions matches rows by their key columns: give the keys (--keys K[,K2] on the command line, the Keys field in the window), or put a contract.yaml with `keys` beside the table.';

/** The contract a diff runs with: the one beside the table (keys overridden when given), else keys alone. */
export function diffContract(root: string, keys: string[] | undefined, partitionColumns: string[], floatColumns: string[] = []): { contract: Contract; keysFrom: 'request' | 'contract' } {
  const file = contractFileFor(root);
  if (file) {
    const c = parseContract(readFileSync(file, 'utf8'), file);
    if (keys && keys.length) return { contract: { ...c, keys }, keysFrom: 'request' };
    return { contract: c, keysFrom: 'contract' };
  }
  if (!keys || keys.length === 0) throw new LakerecError('usage', DIFF_NEEDS_KEYS, { field: 'keys' });
  const lines = ['version: 1', 'name: compare', `keys: [${keys.map((k) => JSON.stringify(k)).join(', ')}]`];
  if (partitionColumns.length) lines.push(`partitioning: { column: ${JSON.stringify(partitionColumns[0])} }`);
  // Two versions of one table: a float written once is the same bits in both, so equal means
  // exactly equal (tolerance 0), which the contract has to say.
  if (floatColumns.length) {
    lines.push('columns:');
    for (const c of floatColumns) lines.push(`  ${JSON.stringify(c)}: { float: { tolerance: 0 } }`);
  }
  return { contract: parseContract(lines.join('\n') + '\n', null), keysFrom: 'request' };
}

/** The comparison; `result` is the engine's, unmasked: every caller masks it as reports do (maskDiff in main/app/views.ts). */
export async function diffVersions(root: string, o: DiffOptions): Promise<DiffResult> {
  const table = o.table ?? await openTable(root);
  for (const [name, v] of [['from', o.from], ['to', o.to]] as const) {
    if (v < 0 || v > table.latestVersion) {
      throw new LakerecError('version_not_found', `--${name} ${v}: ${root} has versions 0 to ${table.latestVersion}.`, { version: v });
    }
  }
  if (o.from === o.to) throw new LakerecError('usage', `--from and --to are both ${o.from}: compare two different versions.`);
  const snap = await table.snapshot({ version: o.to }, o.ctx);
  const floats = snap.schema.fields.filter((f) => f.type === 'double' || f.type === 'float').map((f) => f.name);
  const { contract, keysFrom } = diffContract(root, o.keys, snap.partitionColumns, floats);
  const result = await reconcile({ source: `${root}@${o.from}`, sourceTable: table, target: { root, version: o.to, table }, contract, level: 'rows', ctx: o.ctx });
  const lo = Math.min(o.from, o.to);
  const hi = Math.max(o.from, o.to);
  // The commits between, as the timeline summarises them (one model of a version's rows).
  const summary = await forensicsOfHistory(await table.history(o.ctx), { ctx: o.ctx });
  const commits: DiffCommit[] = summary.versions
    .filter((v) => v.version > lo && v.version <= hi)
    .map((v) => ({
      version: v.version, timestamp: v.timestamp, operation: v.operation, operationParameters: v.operationParameters,
      addedFiles: v.addedFiles, removedFiles: v.removedFiles, addedRows: v.addedRows, removedRows: v.removedRows,
    }));
  return {
    path: root, from: o.from, to: o.to, keys: contract.keys, keysFrom, result, commits, changes: versionChanges(result),
  };
}

/** The engine's key diff (from = source, to = target) in a diff's words. */
export function versionChanges(r: ReconcileResult): VersionChanges {
  const k = r.keyDiff;
  const changes: VersionChanges = {
    inserted: k ? k.extra : null,
    deleted: k ? k.missing : null,
    changed: k ? k.changed : null,
    moved: k ? k.moved : null,
    repeatedKeys: k ? k.duplicatedInTarget : null,
    columnsAdded: r.schema.onlyInTarget,
    columnsRemoved: r.schema.onlyInSource,
    typeChanges: r.schema.typeChanges.map((t) => ({ column: t.column, from: t.source, to: t.target })),
    identical: false,
  };
  const rowsSame = k !== null && k.extra + k.missing + k.changed + k.moved + k.duplicatedInTarget + k.duplicatedInSource === 0 && r.source.rows === r.target.rows;
  changes.identical = rowsSame && !changes.columnsAdded.length && !changes.columnsRemoved.length && !changes.typeChanges.length;
  return changes;
}

/** The changes as lines: counts of each kind, schema changes, a few example keys per kind. */
export function changesLines(d: DiffResult): string[] {
  const c = d.changes;
  const n = (x: number | null) => (x === null ? 'not compared' : x.toLocaleString('en-US'));
  const lines = [`rows: ${n(c.inserted)} inserted, ${n(c.deleted)} deleted, ${n(c.changed)} changed, ${n(c.moved)} moved`
    + (c.repeatedKeys ? `, ${n(c.repeatedKeys)} key(s) now repeated` : '')
    + ` (version ${d.from}: ${n(d.result.source.rows)} rows, version ${d.to}: ${n(d.result.target.rows)} rows)`];
  if (c.columnsAdded.length) lines.push(`columns added: ${c.columnsAdded.join(', ')}`);
  if (c.columnsRemoved.length) lines.push(`columns removed: ${c.columnsRemoved.join(', ')}`);
  for (const t of c.typeChanges) lines.push(`column ${t.column}: ${t.from} -> ${t.to}`);
  const words: Record<string, string> = { extra: 'inserted', missing: 'deleted', changed: 'changed', moved: 'moved', duplicate: 'repeated' };
  const byKind = new Map<string, string[]>();
  for (const r of d.result.rowDiffs) {
    const w = words[r.kind];
    if (!w) continue;
    const list = byKind.get(w) ?? [];
    if (list.length < 3) list.push(Object.entries(r.key).map(([k, v]) => `${k}=${v ?? 'null'}`).join(', ') + (r.kind === 'changed' && r.columns.length ? ` (${r.columns.join(', ')})` : ''));
    byKind.set(w, list);
  }
  for (const [w, keys] of byKind) lines.push(`  e.g. ${w}: ${keys.join('; ')}`);
  if (c.identical) lines.push('the two versions hold the same rows and columns');
  return lines;
}

/** The diff as terminal text: the commits in between, then what changed. */
export function renderDiffText(d: DiffResult): string {
  const lines = [`compare ${d.path}: version ${d.from} -> version ${d.to}, rows matched by keys ${d.keys.join(', ')} (from the ${d.keysFrom === 'contract' ? 'contract beside the table' : 'request'})`, ''];
  lines.push(d.commits.length === 1 ? '1 commit in between:' : `${d.commits.length} commits in between:`);
  for (const c of d.commits) {
    const rows = `+${c.addedRows ?? '?'} -${c.removedRows ?? '?'} rows`;
    const params = Object.entries(c.operationParameters).filter(([, v]) => v !== '' && v !== 'null').slice(0, 3).map(([k, v]) => `${k}=${v.length > 60 ? `${v.slice(0, 57)}...` : v}`).join(' ');
    lines.push(`  v${c.version}  ${new Date(c.timestamp).toISOString()}  ${(c.operation ?? '(no commitInfo)').padEnd(14)} ${rows}, +${c.addedFiles} -${c.removedFiles} files${params ? `  ${params}` : ''}`);
  }
  lines.push('', ...changesLines(d));
  return lines.join('\n') + '\n';
}
