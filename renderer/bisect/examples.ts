// The bisect form's examples (its placeholders) come from the open table: its row count at the
// latest version and a partition it has, never a fixed table's figures.
import type { TableOverview } from '../../shared/api';
import type { ForensicsResult } from '../../shared/forensics';

export interface FormExamples {
  /** Expected rows: the latest version's row count, when the log knows it. */
  rows: string;
  /** A partition the table has (the newest one written to), or what to type when it has none. */
  partition: string;
}

export function formExamples(overview: TableOverview | null, forensics: ForensicsResult | null): FormExamples {
  const rows = overview?.rows != null ? String(overview.rows) : 'rows expected';
  let partition = overview && overview.partitionColumns.length === 0 ? 'not partitioned' : 'column=value';
  const vs = forensics?.versions ?? [];
  for (let i = vs.length - 1; i >= 0; i--) {
    if (vs[i].partitions.length) { partition = vs[i].partitions[0]; break; }
  }
  return { rows, partition };
}
