// Rows behind a finding: which commit wrote a target row. The ONE place that maps a data file to
// the commit that added it (the snapshot's file -> addedInVersion, and the commit's commitInfo
// from the reader's change list). When main/delta grows a single file-history model, only this
// file changes.
import type { ReconcileResult, RowDiff } from '../../shared/reconcile';
import type { CommitRef, RowProvenance } from '../../shared/trust';
import { DeltaTable } from '../delta/table';
import type { Snapshot, VersionChange } from '../delta/types';

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
    const table = await DeltaTable.open(root, { allowOutsidePaths: opts.allowOutsidePaths ?? false });
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
export async function withProvenance(result: ReconcileResult, root: string, opts: { allowOutsidePaths?: boolean } = {}): Promise<ReconcileResult> {
  if (result.target.kind !== 'delta') return result;
  const has = result.rowDiffs.some((d) => d.targetFile) || result.findings.some((f) => f.evidence.exampleRows.some((d) => d.targetFile));
  if (!has) return result;
  return attachProvenance(result, await provenanceFor(root, result.target.version, opts));
}

/** "v7 2026-08-17T02:00:00Z WRITE by lakerec/0.1.0" */
export function commitText(c: CommitRef | null | undefined): string {
  if (!c) return 'commit unknown';
  const when = c.timestamp === null ? '' : ` ${new Date(c.timestamp).toISOString().replace(/\.000Z$/, 'Z')}`;
  const op = c.operation ? ` ${c.operation}` : '';
  const by = c.writer ? ` by ${c.writer}` : '';
  return `v${c.version}${when}${op}${by}${c.fromCheckpoint ? ' (known from a checkpoint)' : ''}`;
}
