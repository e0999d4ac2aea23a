// Rows behind a finding: which commit wrote a target row. The ONE place that maps a data file to
// the commit that added it (the snapshot's file -> addedInVersion, and the commit's commitInfo
// from the reader's change list). When main/delta grows a single file-history model, only this
// file changes.
import type { ReconcileResult, RowDiff } from '../../shared/reconcile';
import type { CommitRef, RowProvenance } from '../../shared/trust';
import { openDuck, sqlIdent, sqlString } from '../engine/duck';
import { registerSnapshotView } from '../delta/scan';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import type { Snapshot, VersionChange } from '../delta/types';
import { pushTo } from '../../shared/group';

export interface ProvenanceIndex {
  /** The commit that added `file` (a snapshot file path as `_lakerec_file` gives it), or null when the file is not in the snapshot. */
  commitOf(file: string): CommitRef | null;
  rowOf(file: string, row: number | null): RowProvenance;
}

/** Builds the file -> commit index of one snapshot (reads the log once, lazily per table). */
export async function provenanceIndex(table: DeltaTable, snapshot: Snapshot): Promise<ProvenanceIndex> {
  const added = new Map<string, number>();
  for (const f of snapshot.files) added.set(f.path, f.addedInVersion);
  let changes: Map<number, VersionChange> = new Map();
  try {
    changes = new Map((await table.changes({ to: snapshot.version })).map((c) => [c.version, c]));
  } catch {
    /* the log cannot be listed commit by commit: versions only */
  }
  const refs = new Map<number, CommitRef>();
  const ref = (version: number): CommitRef => {
    let r = refs.get(version);
    if (!r) {
      const c = changes.get(version);
      const info = c?.commitInfo ?? null;
      r = {
        version,
        timestamp: c && c.hasCommitFile ? c.timestamp : null,
        operation: info?.operation ?? null,
        writer: info?.engineInfo ?? null,
        fromCheckpoint: !c || !c.hasCommitFile,
      };
      refs.set(version, r);
    }
    return r;
  };
  const commitOf = (file: string): CommitRef | null => {
    const v = added.get(file);
    return v === undefined ? null : ref(v);
  };
  return { commitOf, rowOf: (file, row) => ({ file, row, commit: commitOf(file) }) };
}

/** Opens a table at a version and builds its index (a table that cannot be read gives no provenance). */
export async function provenanceFor(root: string, version: number | null, opts: { allowOutsidePaths?: boolean } = {}): Promise<ProvenanceIndex | null> {
  try {
    const table = await openTable(root, { allowOutsidePaths: opts.allowOutsidePaths ?? false });
    const snapshot = await table.snapshot(version === null ? {} : { version });
    return await provenanceIndex(table, snapshot);
  } catch {
    return null;
  }
}

/**
 * A post-processing step over a reconcile result: every example row with a target file gets the
 * commit that added that file. The reconcile pass itself is untouched.
 */
export function attachProvenance(result: ReconcileResult, index: ProvenanceIndex | null): ReconcileResult {
  if (!index) return result;
  const withCommit = (d: RowDiff): RowDiff => (d.targetFile ? { ...d, targetCommit: index.commitOf(d.targetFile) } : d);
  return {
    ...result,
    rowDiffs: result.rowDiffs.map(withCommit),
    findings: result.findings.map((f) => ({ ...f, evidence: { ...f.evidence, exampleRows: f.evidence.exampleRows.map(withCommit) } })),
  };
}

/** Provenance of a reconcile result's target (its root and version, as the result names them). */
export async function withProvenance(result: ReconcileResult, root: string, opts: { allowOutsidePaths?: boolean; table?: DeltaTable } = {}): Promise<ReconcileResult> {
  if (result.target.kind !== 'delta') return result;
  const all = [...result.rowDiffs, ...result.findings.flatMap((f) => f.evidence.exampleRows)];
  if (!all.some((d) => d.targetFile)) return result;
  let table: DeltaTable;
  let snapshot: Snapshot;
  try {
    // The reconcile's own open table when given: its snapshot is cached, the log is not read again.
    table = opts.table ?? await openTable(root, { allowOutsidePaths: opts.allowOutsidePaths ?? false });
    snapshot = await table.snapshot(result.target.version === null ? {} : { version: result.target.version });
  } catch {
    return result;
  }
  const index = await provenanceIndex(table, snapshot);
  const out = attachProvenance(result, index);
  // A duplicated key lives in several rows (the retried batch's and the original's): find them all,
  // a targeted read by key over the snapshot, so the commit that added the copy is shown too.
  const dupKeys = new Map<string, Record<string, string | null>>();
  for (const d of all) if (d.kind === 'duplicate') dupKeys.set(JSON.stringify(d.key), d.key);
  if (dupKeys.size === 0) return out;
  const rowsByKey = await rowsOfKeys(snapshot, [...dupKeys.values()], index, opts.allowOutsidePaths ?? false);
  const withRows = (d: RowDiff): RowDiff => (d.kind === 'duplicate' ? { ...d, targetRows: rowsByKey.get(JSON.stringify(d.key)) ?? [] } : d);
  return {
    ...out,
    rowDiffs: out.rowDiffs.map(withRows),
    findings: out.findings.map((f) => ({ ...f, evidence: { ...f.evidence, exampleRows: f.evidence.exampleRows.map(withRows) } })),
  };
}

/** Every target row holding one of `keys` (key values as text), with its file, row and commit. */
async function rowsOfKeys(snapshot: Snapshot, keys: Record<string, string | null>[], index: ProvenanceIndex, allowOutsidePaths: boolean): Promise<Map<string, RowProvenance[]>> {
  const out = new Map<string, RowProvenance[]>();
  const cols = Object.keys(keys[0] ?? {});
  if (cols.length === 0) return out;
  const duck = await openDuck({ threads: 2 });
  try {
    await registerSnapshotView(duck.conn, snapshot, 'lk_prov_t', { provenance: true, allowOutsidePaths });
    const match = keys.map((k) => `(${cols.map((c) => (k[c] === null ? `${sqlIdent(c)} IS NULL` : `CAST(${sqlIdent(c)} AS VARCHAR) = ${sqlString(k[c]!)}`)).join(' AND ')})`).join(' OR ');
    const r = await duck.conn.runAndReadAll(`SELECT ${cols.map((c, i) => `CAST(${sqlIdent(c)} AS VARCHAR) AS _k${i}`).join(', ')}, _lakerec_file AS f, _lakerec_row AS r FROM lk_prov_t WHERE ${match} ORDER BY f, r LIMIT 1000`);
    for (const row of r.getRowObjectsJS() as Record<string, unknown>[]) {
      const key: Record<string, string | null> = {};
      cols.forEach((c, i) => { key[c] = row[`_k${i}`] === null ? null : String(row[`_k${i}`]); });
      const id = JSON.stringify(key);
      pushTo(out, id, index.rowOf(String(row.f), row.r === null ? null : Number(row.r)));
    }
  } catch {
    /* provenance is evidence on top of the result: a failed lookup leaves the rows as they were */
  } finally {
    duck.close();
  }
  return out;
}

/** "v7 2026-08-17T02:00:00Z WRITE by lakerec/0.1.0" */
export function commitText(c: CommitRef | null | undefined): string {
  if (!c) return 'commit unknown';
  const when = c.timestamp === null ? '' : ` ${new Date(c.timestamp).toISOString().replace(/\.000Z$/, 'Z')}`;
  const op = c.operation ? ` ${c.operation}` : '';
  const by = c.writer ? ` by ${c.writer}` : '';
  return `v${c.version}${when}${op}${by}${c.fromCheckpoint ? ' (known from a checkpoint)' : ''}`;
}
