// The workbench screens' shapes: rows of a version (the Data tab), schema at a version and its
// history, compare two versions, partition health over time. Produced by main/views/.
import type { DataType } from './delta';
import type { ReconcileResult } from './reconcile';
import type { Sensitivity } from './sensitivity';
import type { PredicateSpec } from './bisect';
import type { VersionSummary } from './forensics';

export type SortDirection = 'asc' | 'desc';

export interface RowsRequest {
  path: string;
  /** Latest when absent. */
  version?: number;
  /** Only the rows of the files this commit added (the commit panel's "Rows added by this commit"). */
  addedIn?: number;
  offset?: number;
  /** Rows per page (1..1000, default 200). */
  limit?: number;
  sort?: { column: string; direction: SortDirection } | null;
  /** column = value pickers (value null: IS NULL); values compared as text. */
  equals?: { column: string; value: string | null }[];
  /** A SQL boolean expression over the columns, checked before it runs (main/views/where.ts). */
  where?: string;
}

export interface GridColumn {
  name: string;
  /** Delta type as text (`long`, `decimal(10,2)`, `struct<...>`). */
  type: string;
  nullable: boolean;
  partition: boolean;
  sensitivity: Sensitivity | null;
  /** Values are never sent: counts only, as in every report. */
  masked: boolean;
}

export interface RowsPage {
  path: string;
  version: number;
  addedIn: number | null;
  columns: GridColumn[];
  /** Values as text (DuckDB's rendering), null for SQL NULL; masked columns hold the mask text. */
  rows: (string | null)[][];
  offset: number;
  /** Rows matching the filters (all rows without a filter). */
  matchingRows: number;
  /** Rows of the snapshot (or of the commit's files with addedIn). */
  totalRows: number;
  /** The filter as it ran (DuckDB's rendering of the checked expression), null without one. */
  where: string | null;
  /** Files read for this view. */
  files: number;
  /** Of those, the files carrying a deletion vector (whose deleted rows the view leaves out). */
  deletionVectorFiles: number;
  elapsedMs: number;
}

export interface SchemaField {
  name: string;
  type: string;
  /** The type as written in the log (nested types as objects). */
  dataType: DataType;
  nullable: boolean;
  /** Field metadata as written (tags, comment, column-mapping keys). */
  metadata: Record<string, unknown>;
  description: string | null;
  sensitivity: Sensitivity | null;
  tags: string[];
  /** delta.columnMapping.id, when column mapping is on. */
  columnMappingId: number | null;
  /** delta.columnMapping.physicalName (the name in the Parquet files). */
  physicalName: string | null;
  partition: boolean;
}

export interface SchemaAt {
  version: number;
  columnMapping: string;
  partitionColumns: string[];
  fields: SchemaField[];
}

export type SchemaChangeKind = 'added' | 'dropped' | 'retyped' | 'renamed' | 'nullability' | 'metadata';

export interface SchemaChange {
  kind: SchemaChangeKind;
  /** The column's name after the change (before, for dropped). */
  column: string;
  /** renamed: the old name; retyped: the old type; nullability: 'nullable' / 'not null'. */
  from: string | null;
  to: string | null;
}

export interface SchemaVersion {
  version: number;
  timestamp: number;
  operation: string | null;
  changes: SchemaChange[];
  /** Fields after this version's metaData. */
  fieldCount: number;
}

export interface SchemaHistory {
  path: string;
  /** Versions whose commit carries a metaData action with a schema change, oldest first. */
  versions: SchemaVersion[];
  /** How the rename detection worked: by column-mapping id, or by position and type without it. */
  identity: 'column_mapping' | 'name';
}

export interface DiffRequest {
  path: string;
  from: number;
  to: number;
  /** Keys chosen in the form; else the contract beside the table. */
  keys?: string[];
}

/** A commit between the two versions Compare reads: the version's summary (the one per-version model), picked. */
export type DiffCommit = Pick<VersionSummary,
  'version' | 'timestamp' | 'operation' | 'operationParameters' | 'addedFiles' | 'removedFiles' | 'addedRows' | 'removedRows'>;

export interface DiffResult {
  path: string;
  from: number;
  to: number;
  keys: string[];
  keysFrom: 'request' | 'contract';
  /** The reconcile engine's result at rows level: the table at `from` as the source, at `to` as the target. */
  result: ReconcileResult;
  /** The commits after `from` up to `to`, oldest first. */
  commits: DiffCommit[];
  /** What changed from `from` to `to`, in a diff's words (not a reconcile's findings). */
  changes: VersionChanges;
  /** The engine keeps the result under this id (exportReport), when the window ran it. */
  resultId?: string;
}

/**
 * Two versions of one table compared by key: rows inserted (key only in `to`), deleted (only in
 * `from`), changed (same key, other values), moved (same key, other partition), and keys that
 * repeat in `to` where `from` held them once. Null counts: the rows were not compared.
 */
export interface VersionChanges {
  inserted: number | null;
  deleted: number | null;
  changed: number | null;
  moved: number | null;
  repeatedKeys: number | null;
  columnsAdded: string[];
  columnsRemoved: string[];
  typeChanges: { column: string; from: string; to: string }[];
  /** Nothing changed in the rows and the schema. */
  identical: boolean;
}

export interface PartitionPoint {
  partition: string;
  rows: number | null;
  files: number;
  bytes: number;
  /** Files under the small-file threshold. */
  smallFiles: number;
}

export interface PartitionVersion {
  version: number;
  timestamp: number;
  operation: string | null;
  files: number;
  bytes: number;
  rows: number | null;
  smallFiles: number;
  partitions: PartitionPoint[];
}

export interface PartitionHealthRequest {
  path: string;
  /** Bytes: files below count as small (default 32 MiB). */
  smallFileBytes?: number;
}

export interface PartitionHealth {
  path: string;
  partitionColumns: string[];
  smallFileBytes: number;
  /** Every version from the log, oldest first (no data read). */
  versions: PartitionVersion[];
  /** Distinct partitions seen over the history, sorted. */
  partitions: string[];
}

export const DEFAULT_SMALL_FILE_BYTES = 32 * 1024 * 1024;
export const MAX_PAGE_ROWS = 1000;

/** A Delta type as one line of text. */
export function typeText(t: DataType): string {
  if (typeof t === 'string') return t;
  if (t.type === 'struct') return `struct<${t.fields.map((f) => `${f.name}: ${typeText(f.type)}`).join(', ')}>`;
  if (t.type === 'array') return `array<${typeText(t.elementType)}>`;
  return `map<${typeText(t.keyType)}, ${typeText(t.valueType)}>`;
}

/** Every partition's state at `version`: the latest point of each partition at or before it (empty partitions left out). */
export function partitionsAt(h: PartitionHealth, version: number): PartitionPoint[] {
  const state = new Map<string, PartitionPoint>();
  for (const v of h.versions) {
    if (v.version > version) break;
    for (const p of v.partitions) state.set(p.partition, p);
  }
  return [...state.values()].filter((p) => p.files > 0).sort((a, b) => (a.partition < b.partition ? -1 : a.partition > b.partition ? 1 : 0));
}

/**
 * The bisect a finding leads to, with its predicate and arguments filled in: a timeline
 * heuristic (duplicate_batch, nulls_appeared, partition_emptied) or a reconcile finding mode
 * (double_load, null_keys). `keys` are the table's key columns when known (its contract).
 */
export function bisectForFinding(name: string, evidence: Record<string, unknown>, keys: string[] | null): PredicateSpec | null {
  const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : null);
  switch (name) {
    case 'duplicate_batch':
    case 'double_load':
      return { predicate: 'unique-keys', ...(keys && keys.length ? { keys } : {}) };
    case 'nulls_appeared': {
      const col = str(evidence.column);
      return { predicate: 'no-null-keys', ...(col ? { keys: [col] } : keys && keys.length ? { keys } : {}) };
    }
    case 'null_keys':
      return { predicate: 'no-null-keys', ...(keys && keys.length ? { keys } : {}) };
    case 'partition_emptied': {
      const partition = str(evidence.partition);
      const rows = typeof evidence.rowsRemoved === 'number' ? evidence.rowsRemoved : null;
      // Good while the partition still holds the rows the wipe removed.
      return { predicate: 'row-count', ...(partition && !partition.includes('/') ? { partition } : {}), ...(rows !== null ? { expect: rows } : {}) };
    }
    default:
      return null;
  }
}
