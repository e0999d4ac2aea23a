// The commit drill-down: ONE function, used by the CLI (`forensics --version N`) and the window's
// commit panel, over the reader's history. A remove whose add predates the oldest readable version
// is listed from what the remove action itself carries, marked as such; a file re-added in place
// (a deletion-vector delete) is listed as rewritten, its rows counted net.
import type { RemoveFile } from '../../shared/delta';
import type { CommitDetail, CommitFile, ForensicsResult, PartitionChange } from '../../shared/forensics';
import { LakerecError } from '../../shared/errors';
import { logicalPartitionValues, partitionLabel, removeActionRows, stateOf, type FileEntry, type History } from '../delta/history';
import { canonicalisePath } from '../delta/paths';

export interface CommitDetailOptions {
  /** At most this many files per list (the window); default all (the CLI's --json lists them all). */
  filesLimit?: number;
}

export function commitDetail(h: History, f: ForensicsResult, version: number, opts: CommitDetailOptions = {}): CommitDetail {
  const st = stateOf(h, version);
  const summary = st ? f.versions[st.index] : undefined;
  if (!st || !summary) {
    throw new LakerecError('version_not_found', `version ${version} is not in this table (its versions are ${h.states[0]?.version ?? 0} to ${h.latestVersion})`, { version });
  }
  const cols = f.partitionSource === 'partition_values' ? f.partitionBy : (st.metadata?.partitionColumns ?? []);
  const partOf = (pv: Record<string, string | null> | null | undefined): string => (cols.length && pv ? partitionLabel(logicalPartitionValues(pv, st.metadata), cols) : '');
  const removeOf = (path: string): RemoveFile | undefined => st.change?.removes.find((r) => r.path === path || canonicalisePath(r.path, h.root).key === path);
  const fileOf = (e: FileEntry, kind: 'add' | 'remove'): CommitFile => ({
    path: e.path,
    partition: cols.length ? partitionLabel(e.partitionValues, cols) : '',
    rows: e.numRecords,
    bytes: e.size,
    dataChange: kind === 'add' ? e.add.dataChange !== false : removeOf(e.path)?.dataChange !== false,
    deletionVector: e.deletionVector !== null,
    dvRows: e.deletionVector ? e.deletionVector.cardinality : null,
    addedIn: e.fromSnapshot ? null : e.addedIn,
    addedBeforeOldestReadable: e.fromSnapshot,
  });
  const orphanOf = (r: RemoveFile): CommitFile => ({
    path: canonicalisePath(r.path, h.root).key,
    partition: partOf(r.partitionValues),
    rows: removeActionRows(r),
    bytes: r.size ?? 0,
    dataChange: r.dataChange !== false,
    deletionVector: !!r.deletionVector,
    dvRows: r.deletionVector ? r.deletionVector.cardinality : null,
    addedIn: null,
    addedBeforeOldestReadable: true,
  });
  const addEntries = (st.commitAdded ?? st.added).map((id) => h.files[id]);
  const remEntries = st.commitAdded ? [] : st.removed.map((id) => h.files[id]).filter((e) => e.removedIn === version);
  const rewrittenIds = new Set<number>();
  const rewritten: CommitFile[] = [];
  const added: CommitFile[] = [];
  for (const e of addEntries) {
    if (e.rewrote !== null && h.files[e.rewrote].removedIn === version) {
      rewrittenIds.add(e.rewrote);
      const old = h.files[e.rewrote];
      rewritten.push({ ...fileOf(e, 'add'), rewrittenFrom: old.fromSnapshot ? null : old.addedIn });
    } else {
      added.push(fileOf(e, 'add'));
    }
  }
  const removed = [...remEntries.filter((e) => !rewrittenIds.has(e.id)).map((e) => fileOf(e, 'remove')), ...st.orphanRemoves.map(orphanOf)];

  const parts = new Map<string, PartitionChange>();
  const part = (p: string): PartitionChange => {
    let x = parts.get(p);
    if (!x) {
      x = { partition: p, addedFiles: 0, removedFiles: 0, addedRows: 0, removedRows: 0, addedBytes: 0, removedBytes: 0, rowsKnown: true, rewrittenFiles: 0 };
      parts.set(p, x);
    }
    return x;
  };
  for (const a of added) {
    const x = part(a.partition);
    x.addedFiles++;
    x.addedBytes += a.bytes;
    if (a.rows === null) x.rowsKnown = false; else x.addedRows += a.rows;
  }
  for (const r of removed) {
    const x = part(r.partition);
    x.removedFiles++;
    x.removedBytes += r.bytes;
    if (r.rows === null) x.rowsKnown = false; else x.removedRows += r.rows;
  }
  for (const e of addEntries) {
    if (e.rewrote === null || !rewrittenIds.has(e.rewrote)) continue;
    // A rewrite in place: the rows it deleted (or, rarely, added), net.
    const old = h.files[e.rewrote];
    const x = part(cols.length ? partitionLabel(e.partitionValues, cols) : '');
    x.rewrittenFiles++;
    if (e.numRecords === null || old.numRecords === null) { x.rowsKnown = false; continue; }
    const d = old.numRecords - e.numRecords;
    if (d >= 0) x.removedRows += d; else x.addedRows -= d;
  }
  const limit = opts.filesLimit ?? Infinity;
  const ci = st.change?.commitInfo ?? null;
  return {
    root: h.root,
    summary,
    commitInfo: ci ? (JSON.parse(JSON.stringify(ci)) as Record<string, unknown>) : null,
    added: added.slice(0, limit),
    removed: removed.slice(0, limit),
    rewritten: rewritten.slice(0, limit),
    partitions: [...parts.values()].sort((a, b) => a.partition.localeCompare(b.partition)),
    heuristics: f.heuristics.filter((x) => x.version === version),
    filesLimit: Number.isFinite(limit) ? limit : null,
  };
}
