// Partition health over time, from the log alone (no data read): per partition its rows (from
// the adds' stats, DVs subtracted), files and bytes at every version, and how many files are
// under the small-file threshold. Each version carries the partitions its commit touched;
// `partitionsAt` (shared/workbench.ts) carries them forward to the state at any version.
import type { AddFile } from '../../shared/delta';
import type { JobContext } from '../../shared/jobs';
import { throwIfCancelled } from '../../shared/jobs';
import {
  DEFAULT_SMALL_FILE_BYTES, type PartitionHealth, type PartitionPoint, type PartitionVersion,
} from '../../shared/workbench';
import { numRecordsOfAdd } from '../delta/replay';
import { partitionLabel } from '../delta/history';
import { readLogHistory } from './log';

interface Live {
  partition: string;
  size: number;
  rows: number | null;
}

function rowsOf(add: AddFile): number | null {
  const n = numRecordsOfAdd(add);
  return n === null ? null : Math.max(0, n - (add.deletionVector?.cardinality ?? 0));
}

export async function partitionHealth(root: string, opts: { smallFileBytes?: number } = {}, ctx?: JobContext): Promise<PartitionHealth> {
  const small = opts.smallFileBytes ?? DEFAULT_SMALL_FILE_BYTES;
  const h = await readLogHistory(root, ctx);
  const live = new Map<string, Live>();
  let cols: string[] = [];
  const seen = new Set<string>();
  const versions: PartitionVersion[] = [];
  for (const c of h.changes) {
    throwIfCancelled(ctx);
    const touched = new Set<string>();
    if (!c.hasCommitFile) {
      // Known only from a checkpoint (the commits before it cleaned up): its state, whole.
      for (const l of live.values()) touched.add(l.partition);
      live.clear();
      const snap = await h.checkpointState(c.version);
      cols = snap.partitionColumns;
      for (const f of snap.files) {
        const p = partitionLabel(f.partitionValues, cols);
        live.set(f.path, { partition: p, size: f.size, rows: f.numRecords });
        touched.add(p);
      }
    } else {
      if (c.metaData) cols = c.metaData.partitionColumns ?? [];
      for (const r of c.removes) {
        const l = live.get(r.path);
        if (l) { touched.add(l.partition); live.delete(r.path); }
      }
      for (const a of c.adds) {
        const p = partitionLabel(a.partitionValues ?? {}, cols);
        live.set(a.path, { partition: p, size: a.size, rows: rowsOf(a) });
        touched.add(p);
      }
    }
    const per = new Map<string, PartitionPoint>();
    let files = 0;
    let bytes = 0;
    let rows: number | null = 0;
    let smallFiles = 0;
    for (const l of live.values()) {
      files++;
      bytes += l.size;
      rows = rows === null || l.rows === null ? null : rows + l.rows;
      if (l.size < small) smallFiles++;
      if (!touched.has(l.partition)) continue;
      const pt = per.get(l.partition) ?? { partition: l.partition, rows: 0, files: 0, bytes: 0, smallFiles: 0 };
      pt.files++;
      pt.bytes += l.size;
      pt.rows = pt.rows === null || l.rows === null ? null : pt.rows + l.rows;
      if (l.size < small) pt.smallFiles++;
      per.set(l.partition, pt);
    }
    // A partition the commit emptied is reported with zeros (partition_emptied reads as such).
    for (const p of touched) if (!per.has(p)) per.set(p, { partition: p, rows: 0, files: 0, bytes: 0, smallFiles: 0 });
    for (const p of per.keys()) seen.add(p);
    versions.push({
      version: c.version, timestamp: c.timestamp,
      operation: typeof c.commitInfo?.operation === 'string' ? c.commitInfo.operation : null,
      files, bytes, rows, smallFiles,
      partitions: [...per.values()].sort((x, y) => (x.partition < y.partition ? -1 : x.partition > y.partition ? 1 : 0)),
    });
  }
  return { path: root, partitionColumns: cols, smallFileBytes: small, versions, partitions: [...seen].sort() };
}
