// Forensics: the Delta log read as an incident record. Serialisable shapes shared by the engine
// (main/forensics/), the CLI and the window's timeline (renderer imports these).

/** One version of the table as the log tells it. Rows and bytes come from add/remove stats. */
export interface VersionSummary {
  version: number;
  /** ms since epoch (in-commit timestamp, else commitInfo.timestamp, else the commit file's mtime). */
  timestamp: number;
  /** ISO 8601 UTC, for display. */
  when: string;
  /** commitInfo.operation, or null when the commit has no commitInfo (or only a checkpoint covers it). */
  operation: string | null;
  operationParameters: Record<string, unknown>;
  /** commitInfo.engineInfo. */
  writer: string | null;
  isolationLevel: string | null;
  isBlindAppend: boolean | null;
  readVersion: number | null;
  /** data-changing adds/removes (dataChange=false rewrites such as OPTIMIZE are counted too; see `rearrangeOnly`). */
  addedFiles: number;
  removedFiles: number;
  /** Rows added: sum of the adds' stats.numRecords (null when any add lacks stats). */
  addedRows: number | null;
  /** Rows removed: the removed files' numRecords (from the remove's stats or the add that wrote the file). */
  removedRows: number | null;
  /** Rows hidden by deletion vectors this version added (cardinality growth on re-added files). */
  dvDeletedRows: number;
  addedBytes: number;
  removedBytes: number;
  /** Rows in the table after this version (from stats; null when unknown). */
  tableRows: number | null;
  /** Active files after this version. */
  tableFiles: number;
  /** Partitions this version added or removed files in, rendered `col=value[/col2=value2]`. */
  partitions: string[];
  /** Every add and remove had dataChange=false (compaction, checkpoint-style rewrites). */
  rearrangeOnly: boolean;
  hasCommitFile: boolean;
  hasCheckpoint: boolean;
  /** The log still lets this version be read. */
  readable: boolean;
  unreadableReason?: string;
  protocolChanged: boolean;
  metadataChanged: boolean;
}

export type HeuristicName =
  | 'partition_emptied'
  | 'overwrite_shrank_the_table'
  | 'overwrite_wider_than_predicate'
  | 'duplicate_batch'
  | 'schema_changed'
  | 'protocol_upgraded'
  | 'vacuumed_history'
  | 'data_files_missing'
  | 'dv_heavy_delete'
  | 'large_delete'
  | 'clock_went_backwards'
  | 'blind_append_after_overwrite'
  | 'stats_missing'
  | 'writer_changed'
  | 'nulls_appeared'
  | 'partition_outside_its_day'
  | 'predicate_not_evaluable';

/** A plain value a human reads in the evidence table. */
export type EvidenceValue = string | number | boolean | null | string[] | number[];

export interface HeuristicHit {
  name: HeuristicName;
  /** The version it fired at (for `vacuumed_history`, the newest unreadable version). */
  version: number;
  /** One line: what the log shows. */
  message: string;
  /** 'warn' = could be an incident; 'info' = worth knowing. */
  severity: 'warn' | 'info';
  /** The facts that fired it, by name (partitions, versions, counts, paths). */
  evidence: Record<string, EvidenceValue>;
}

export interface ForensicsResult {
  root: string;
  /** Partition columns used for `partitions` (the table's, or the one asked with --partition-by). */
  partitionBy: string[];
  /** How partitions were derived: the table's partition values, or stats (min = max) of a data column. */
  partitionSource: 'partition_values' | 'stats' | 'none';
  latestVersion: number;
  oldestReadableVersion: number | null;
  versions: VersionSummary[];
  heuristics: HeuristicHit[];
  /** Data files never opened: everything here comes from the log. */
  dataFilesRead: 0;
  notes: string[];
}

/** One file of a commit, for the per-commit drill-down. */
export interface CommitFile {
  path: string;
  /** `col=value[/...]`, '' for an unpartitioned table. */
  partition: string;
  /** Rows the file contributes (numRecords minus DV cardinality); null without stats. */
  rows: number | null;
  bytes: number;
  /** The file carries a deletion vector (how many rows it hides). */
  dvRows: number | null;
  /** The version whose add put this file in (for removed files: when it was written); null when the log no longer says. */
  addedIn: number | null;
}

/** A commit opened: its summary, its files, and the heuristics that fired at it. */
export interface CommitDetail {
  root: string;
  summary: VersionSummary;
  added: CommitFile[];
  removed: CommitFile[];
  /** Per partition: files and rows added and removed by this commit. */
  partitions: { partition: string; addedFiles: number; removedFiles: number; addedRows: number | null; removedRows: number | null }[];
  heuristics: HeuristicHit[];
}
