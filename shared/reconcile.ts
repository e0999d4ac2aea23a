// The reconcile result as plain, serialisable data: the CLI prints it, the window renders it,
// the reports (markdown, HTML, JSON) are made from it. Nothing here needs node or a DOM.

import type { CommitRef, RowProvenance } from './provenance';

export const LEVELS = ['schema', 'counts', 'checksum', 'keys', 'rows'] as const;
export type Level = (typeof LEVELS)[number];

/** The 11 corruption modes, plus `late_arriving` (reported, never blocking). */
export const FINDING_MODES = [
  'double_load', 'missing_rows', 'extra_rows', 'partition_wipe', 'overwrite_too_wide',
  'timezone_partition_shift', 'stale_rows', 'content_divergence', 'schema_drift', 'null_keys',
  'unicode_normalisation', 'late_arriving',
] as const;
export type FindingMode = (typeof FINDING_MODES)[number];

export function levelIndex(l: Level): number {
  return LEVELS.indexOf(l);
}

/** One value of a row, as text for display (null stays null). */
export type CellText = string | null;

/** Two versions of one row (by key) and the columns where they disagree. */
export interface RowDiff {
  key: Record<string, CellText>;
  /** Partition label on each side (e.g. "dt=2026-08-10"); null when the row is absent there. */
  sourcePartition: string | null;
  targetPartition: string | null;
  kind: 'missing' | 'extra' | 'duplicate' | 'changed' | 'moved' | 'null_key';
  /** Columns whose values differ (changed rows only). */
  columns: string[];
  source: Record<string, CellText> | null;
  target: Record<string, CellText> | null;
  /** Where the target row lives (data file, row index inside it), when known. */
  targetFile?: string | null;
  targetRow?: number | null;
  /** The commit that added targetFile (version, timestamp, operation, writer): main/trust/provenance.ts. */
  targetCommit?: CommitRef | null;
  /** A duplicated key: every target row holding it, each with its file, row and commit. */
  targetRows?: RowProvenance[];
}

export interface FindingEvidence {
  /** Named counts ("duplicate rows": 900, ...). */
  counts: Record<string, number>;
  /** Partition labels the finding is about. */
  partitions: string[];
  /** Example keys, as "col=value" text. */
  exampleKeys: string[];
  /** Example rows (a few). */
  exampleRows: RowDiff[];
  /** Plain sentences of evidence that is not a count (a log version, a column, a comparison). */
  notes: string[];
}

export interface Finding {
  mode: FindingMode;
  blocking: boolean;
  /** One line: what was seen, with numbers ("900 duplicate row(s) across 900 key(s)"). */
  summary: string;
  /** What this mode means (fixed text per mode). */
  meaning: string;
  evidence: FindingEvidence;
  /** What a human should do (fixed text per mode). */
  action: string;
  /** The level whose evidence named it. */
  level: Level;
}

export type PartitionState =
  | 'match'
  | 'differs'
  | 'missing_in_target'
  | 'missing_in_source'
  | 'late'
  /** Counts agree but the level read no rows (schema/counts). */
  | 'counts_match';

export interface PartitionResult {
  /** "dt=2026-08-10", or "(table)" when the contract has no partitioning. */
  partition: string;
  /** The partition value alone ("2026-08-10"); null for the null partition or "(table)". */
  value: string | null;
  sourceRows: number;
  targetRows: number;
  /** 32 hex digits (sum mod 2^128) when the level computed it. */
  sourceChecksum: string | null;
  targetChecksum: string | null;
  /** The target checksum came from the baseline (its file set was unchanged). */
  inherited: boolean;
  state: PartitionState;
}

export interface FloatColumnResult {
  column: string;
  rule: 'tolerance' | 'exclude';
  tolerance: number | null;
  /** Per partition: exact sums (correctly rounded, as text) on each side and whether they agree. */
  partitions: { partition: string; source: string; target: string; agree: boolean }[];
}

export interface ColumnDiffCount {
  column: string;
  /** Changed rows (matched by key) whose value in this column differs. */
  rows: number;
}

export interface SchemaColumn {
  name: string;
  type: string;
}

export interface SchemaComparison {
  source: SchemaColumn[];
  target: SchemaColumn[];
  /** Columns compared (target names), in canonical order. */
  compared: string[];
  onlyInSource: string[];
  onlyInTarget: string[];
  typeChanges: { column: string; source: string; target: string }[];
  ignored: string[];
  renamed: { source: string; target: string }[];
}

export interface ReadStats {
  /** Target rows whose data was read (0 at schema and counts). */
  targetRowsRead: number;
  /** Target rows not read because the baseline supplied their partition's checksum. */
  targetRowsAvoided: number;
  targetFilesRead: number;
  targetFilesTotal: number;
  /** The source has no log: it is re-read in full whenever a level reads data. */
  sourceRowsRead: number;
  /** Rows fetched again only to show example rows (a targeted read by file and row index). */
  exampleRowsFetched: number;
}

export interface SideSummary {
  /** What the user named (path; a Delta table with @version). */
  description: string;
  /** 'warehouse': the side was computed where it lives (see ReconcileResult.pushed). */
  kind: 'parquet' | 'csv' | 'json' | 'delta' | 'warehouse';
  /** Rows on this side; null when the level read none (schema): unknown, not zero. */
  rows: number | null;
  /** Table checksum, 32 hex digits; null below checksum level. */
  checksum: string | null;
  /** Delta version, when the side is a Delta table. */
  version: number | null;
  /** A file uploaded in web mode (its temporary path is not a place to find it again). */
  upload?: UploadedFile | null;
}

/** A source file uploaded in web mode: the name it was uploaded under, its size and sha256. */
export interface UploadedFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** The contract as it was applied (normalised), so a report says what "equal" meant. */
export interface ContractSummary {
  name: string;
  path: string | null;
  /** sha256 of the file's bytes. */
  sha256: string | null;
  keys: string[];
  partitionColumn: string | null;
  partitionExpression: string | null;
  ignore: string[];
  floats: Record<string, { tolerance: number } | 'exclude'>;
  naiveIsUtc: boolean;
  lateness: { column: string; allow: string } | null;
  ordering: string | null;
  renames: Record<string, string>;
  tags: Record<string, { sensitivity?: string; description?: string }>;
}

export interface BaselineUse {
  path: string;
  /** Partitions whose checksum was inherited. */
  inherited: string[];
  /** Partitions that had to be read (file set changed, new, or disagreeing). */
  reread: string[];
  /** Why the baseline could not be used at all, if so. */
  refused: string | null;
}

export type Verdict = 'matches' | 'diverges';

export interface ReconcileResult {
  verdict: Verdict;
  level: Level;
  /** 0 nothing blocking, 1 a blocking finding or an unnamed divergence. */
  exitCode: 0 | 1;
  source: SideSummary;
  target: SideSummary;
  contract: ContractSummary;
  schema: SchemaComparison;
  partitions: PartitionResult[];
  findings: Finding[];
  /** Divergence the evidence could not name (always shown; blocking). */
  unnamed: string[];
  floats: FloatColumnResult[];
  /** Rows level: per column, how many matched rows differ there. */
  columnDiffs: ColumnDiffCount[];
  /** Example row diffs (rows level; keys level shows keys only). */
  rowDiffs: RowDiff[];
  /** Keys level and deeper: totals of the key diff. */
  keyDiff: {
    missing: number;
    extra: number;
    duplicatedInTarget: number;
    duplicatedInSource: number;
    changed: number;
    moved: number;
    nullKeysTarget: number;
    nullKeysSource: number;
  } | null;
  reads: ReadStats;
  baseline: BaselineUse | null;
  /** How the row digest was made ("md5-canonical-v1"). */
  digest: string;
  engine: { duckdb: string; lakerec: string };
  startedAt: string;
  durationMs: number;
  /** Things the reader should know about this run (e.g. the source was re-read in full). */
  notes: string[];
  /** A pushed run (a side computed by a warehouse, or by DuckDB over its files): what ran where. */
  pushed?: PushedRun;
}

/** One pushed statement as it ran: its level, SQL identity, engine, query id, bytes back. */
export interface PushedStatementRun {
  level: string;
  purpose: string;
  sqlId: string;
  where: string;
  connection: string;
  queryId: string | null;
  bytes: number;
  rows: number;
  ms: number;
}

/** What a pushed run did: where each side was computed, every statement, and what it could not examine. */
export interface PushedRun {
  source: { label: string; where: string };
  target: { label: string; where: string };
  ran: PushedStatementRun[];
  bytesTransferred: number;
  /** The key-level rows fetched from the disagreeing partitions, and the cap on them. */
  keyRowsFetched: number;
  keyRowCap: number;
  capped: boolean;
  /** Evidence the local engine reads that a pushed run does not (each a sentence). */
  notExamined: string[];
}

/**
 * The sentence for a run without findings, the same in the terminal, the reports and the window:
 * it never says partitions agree when none was compared (the schema level reads no rows; two
 * empty sides hold no partition).
 */
export function nothingFoundSentence(r: Pick<ReconcileResult, 'level' | 'partitions'>): string {
  if (r.level === 'schema') return 'Nothing found at the schema level: the columns and types agree. No partition was compared: the schema level reads no rows.';
  if (r.partitions.length === 0) return `Nothing found at level ${r.level}: neither side holds a row, so no partition was compared.`;
  return `Nothing found: every partition agrees at level ${r.level}.`;
}

/** What the partition table says when it is empty. */
export function noPartitionsSentence(level: Level): string {
  return level === 'schema' ? 'No partition was compared at the schema level (it reads no rows).' : 'No partition holds a row on either side.';
}
