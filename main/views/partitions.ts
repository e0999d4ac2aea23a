// Partition health over time, from the log alone (no data read): per partition its rows (from
// the adds' stats, DVs subtracted), files and bytes at every version, and how many files are
// under the small-file threshold. It reads the reader's one history of the log
// (main/delta/history.ts: files keyed by path + DV id as the snapshot replay keys them), so its
// counts are the snapshot's and the forensics' at every version. Each version carries the
// partitions its commit touched; `partitionsAt` (shared/views.ts) carries them forward.
import type { JobContext } from '../../shared/jobs';
import { throwIfCancelled } from '../../shared/jobs';
import {
  DEFAULT_SMALL_FILE_BYTES, type PartitionHealth, type PartitionPoint, type PartitionVersion,
} from '../../shared/views';
import { logicalPartitionValues, partitionLabel, type FileEntry, type History } from '../delta/history';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';

/** Partition health of a root; pass the open table (the service's) so its cached history is reused. */
export async function partitionHealth(root: string, opts: { smallFileBytes?: number } = {}, ctx?: JobContext, table?: DeltaTable): Promise<PartitionHealth> {
  const h = await (table ?? (await openTable(root))).history(ctx);
  return partitionHealthOf(h, root, opts, ctx);
}

export function partitionHealthOf(h: History, root: string, opts: { smallFileBytes?: number } = {}, ctx?: JobContext): PartitionHealth {
  const small = opts.smallFileBytes ?? DEFAULT_SMALL_FILE_BYTES;
  /** active entries by id, with the partition label they were filed under */
  const live = new Map<number, { e: FileEntry; partition: string }>();
  let cols: string[] = [];
  const seen = new Set<string>();
  const versions: PartitionVersion[] = [];
  for (const st of h.states) {
    if ((st.index & 255) === 0) throwIfCancelled(ctx);
    // A version the log does not hold (a gap's missing commit) has no state to show.
    if (!st.change && !st.fromSnapshot) continue;
    if (st.metadata) cols = st.metadata.partitionColumns ?? [];
    const touched = new Set<string>();
    for (const id of st.removed) {
      const l = live.get(id);
      if (l) { touched.add(l.partition); live.delete(id); }
    }
    for (const id of st.added) {
      const e = h.files[id];
      const partition = partitionLabel(e.partitionValues, cols);
      live.set(id, { e, partition });
      touched.add(partition);
    }
    // Where the commit's own removes name files added before the oldest readable version, their partitions were touched too.
    for (const r of st.orphanRemoves) touched.add(partitionLabel(logicalPartitionValues(r.partitionValues, st.metadata), cols));
    const per = new Map<string, PartitionPoint>();
    let files = 0;
    let bytes = 0;
    let rows: number | null = 0;
    let smallFiles = 0;
    for (const { e, partition } of live.values()) {
      files++;
      bytes += e.size;
      rows = rows === null || e.numRecords === null ? null : rows + e.numRecords;
      if (e.size < small) smallFiles++;
      if (!touched.has(partition)) continue;
      const pt = per.get(partition) ?? { partition, rows: 0, files: 0, bytes: 0, smallFiles: 0 };
      pt.files++;
      pt.bytes += e.size;
      pt.rows = pt.rows === null || e.numRecords === null ? null : pt.rows + e.numRecords;
      if (e.size < small) pt.smallFiles++;
      per.set(partition, pt);
    }
    // A partition the commit emptied is reported with zeros (partition_emptied reads as such).
    for (const p of touched) if (!per.has(p)) per.set(p, { partition: p, rows: 0, files: 0, bytes: 0, smallFiles: 0 });
    for (const p of per.keys()) seen.add(p);
    const op = st.change?.commitInfo?.operation;
    versions.push({
      version: st.version, timestamp: st.change?.timestamp ?? 0,
      operation: typeof op === 'string' ? op : null,
      // A state the history cannot vouch for (a commit over a gap) has no row total.
      files, bytes, rows: st.exact ? rows : null, smallFiles,
      partitions: [...per.values()].sort((x, y) => (x.partition < y.partition ? -1 : x.partition > y.partition ? 1 : 0)),
    });
  }
  return { path: root, partitionColumns: cols, smallFileBytes: small, versions, partitions: [...seen].sort() };
}
