// How forensics names a file's partition: the table's partition values, or (--partition-by a data
// column) the column's stats where min = max. One label per file entry, computed once.
import { LakerecError } from '../../shared/errors';
import type { ForensicsResult } from '../../shared/forensics';
import { partitionLabel, type FileEntry, type History } from '../delta/history';
import { fieldsOf } from './helpers';

export interface Partitioner {
  partitionBy: string[];
  partitionSource: ForensicsResult['partitionSource'];
  notes: string[];
  partOf(f: FileEntry): string;
}

export function partitionerOf(h: History, asked?: string): Partitioner {
  const latest = h.states[h.states.length - 1];
  const md = latest?.metadata ?? null;
  const tablePartitionCols = md?.partitionColumns ?? [];
  let partitionBy: string[] = tablePartitionCols;
  let partitionSource: ForensicsResult['partitionSource'] = tablePartitionCols.length ? 'partition_values' : 'none';
  const notes: string[] = [];
  if (asked) {
    const col = asked;
    const known = fieldsOf(md).some((f) => f.name === col);
    if (!known) throw new LakerecError('usage', `--partition-by ${col}: the table has no column "${col}" (columns: ${fieldsOf(md).map((f) => f.name).join(', ')})`);
    partitionBy = [col];
    partitionSource = tablePartitionCols.includes(col) ? 'partition_values' : 'stats';
    if (partitionSource === 'stats') notes.push(`"${col}" is not a partition column: a file's partition is read from its stats where min = max, else "mixed".`);
  }
  // Stats carry LOGICAL names (the reader maps column-mapped physical names back).
  // One label per file entry, computed once (a 300,000-file log asks for each several times).
  const partCache: (string | undefined)[] = new Array<string | undefined>(h.files.length);
  const partOf = (f: FileEntry): string => {
    if (partitionSource === 'none') return '';
    const hit = partCache[f.id];
    if (hit !== undefined) return hit;
    if (partitionSource === 'partition_values') return (partCache[f.id] = partitionLabel(f.partitionValues, partitionBy));
    const col = partitionBy[0];
    const lo = f.stats?.minValues?.[col];
    const hi = f.stats?.maxValues?.[col];
    let label = `${col}=mixed`;
    if (lo !== undefined && lo !== null && JSON.stringify(lo) === JSON.stringify(hi)) label = `${col}=${String(lo)}`;
    else if (f.stats?.nullCount?.[col] === f.stats?.numRecords && f.stats?.numRecords) label = `${col}=__null__`;
    partCache[f.id] = label;
    return label;
  };

  return { partitionBy, partitionSource, notes, partOf };
}
