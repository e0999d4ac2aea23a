// What one level hands the next (schema -> counts -> the pass -> the key diff), in a module of its
// own so the levels import each other's results without importing each other.
import type { SchemaComparison } from '../../shared/reconcile';
import type { Evidence, PartitionRemoval, StatsDuplicate } from './classify';
import type { PartitionSpec } from './sql';

/** The schema level: the partition spec, the schema comparison, each side's column types; the keys must exist and compare. */
export interface SchemaLevel {
  part: PartitionSpec & { srcHasCol: boolean };
  schema: SchemaComparison;
  srcType: Map<string, string>;
  tgtType: Map<string, string>;
}

/** What the counts level found in the log (its empty values below counts level). */
export interface CountsLevel {
  removals: Map<string, PartitionRemoval>;
  logConsulted: boolean;
  statsDuplicates: StatsDuplicate[];
  statsNullKeys: number | null;
  late: Evidence['late'];
  /** The source's per-partition sums when its one pass ran here (checksum and deeper), else null. */
  sourceSumRows: Record<string, unknown>[] | null;
  /** The source's counts came from its Parquet footers (no data page read). */
  sourceFromFooters: boolean;
}

/** Which optional columns the pass stored (pass.ts): md5's second half, the ordering value. */
export interface StoredColumns {
  h2: boolean;
  o: boolean;
  /** The type p is stored in (one DuckDB printed), or null when p is text. */
  pType: string | null;
}
