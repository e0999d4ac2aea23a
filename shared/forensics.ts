// Forensics: the Delta log read as an incident record. Serialisable shapes shared by the engine
// (main/forensics/), the CLI and the window's timeline (renderer imports these).

/** Where a version's timestamp came from: a file's mtime is not a commit time. */
export type TimestampSource = 'inCommitTimestamp' | 'commitInfo' | 'file_mtime' | 'checkpoint_mtime';

/**
 * commitInfo.operationParameters in one encoding, the protocol's: Delta's CommitInfo names it a
 * map of string to string (Spark writes `"partitionBy": "[]"`). A string is kept as written, any
 * other JSON value (a writer may put numbers, booleans, null, arrays) is its JSON text.
 */
export type OperationParameters = Record<string, string>;

export function operationParametersOf(raw: unknown): OperationParameters {
  const out: OperationParameters = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out[k] = typeof v === 'string' ? v : JSON.stringify(v) ?? 'null';
  return out;
}

/**
 * One version of the table as the log tells it. Rows and bytes come from add/remove stats. The
 * one per-version model the screens, the CLI and the reports read: the History list's row
 * (`VersionRow`, shared/api/shapes.ts), Compare's commit (`DiffCommit`, shared/views.ts) and
 * bisect's culprit (`CulpritCommit`, shared/bisect.ts) are picks of it, never computed again.
 */
export interface VersionSummary {
  version: number;
  /** ms since epoch (in-commit timestamp, else commitInfo.timestamp, else the commit file's mtime). */
  timestamp: number;
  /** ISO 8601 UTC, for display. */
  when: string;
  /** commitInfo.operation, or null when the commit has no commitInfo (or only a checkpoint covers it). */
  operation: string | null;
  operationParameters: OperationParameters;
  /** commitInfo.engineInfo. */
  writer: string | null;
  /** Who wrote it and why (commitInfo's userName, userId, userMetadata, clusterId, job, notebook, engineInfo, txnId). */
  who: CommitWho;
  /** Where `timestamp` came from: a file's mtime is marked, it is not a commit time. */
  timestampSource: TimestampSource | 'none';
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
  /** Rows hidden by deletion vectors this version added (cardinality growth on re-added files); included in removedRows. */
  dvDeletedRows: number;
  /** Files re-added in place (same path, new deletion vector): neither added nor removed files. */
  rewrittenFiles: number;
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
  /** Why it is unreadable, as a kind (a commit missing in the middle is not log cleanup). */
  unreadableCause?: UnreadableCause;
  protocolChanged: boolean;
  metadataChanged: boolean;
}

export interface CommitWho {
  userName: string | null;
  userId: string | null;
  userMetadata: string | null;
  clusterId: string | null;
  job: { id: string | null; name: string | null; run: string | null } | null;
  notebook: string | null;
  engineInfo: string | null;
  txnId: string | null;
}

/** Who wrote a commit and why, in one short phrase (empty when the log does not say). */
export function whoText(w: CommitWho | null | undefined): string {
  if (!w) return '';
  const parts: string[] = [];
  if (w.userName || w.userId) parts.push(`by ${w.userName ?? ''}${w.userName && w.userId ? ` (${w.userId})` : w.userId ?? ''}`);
  if (w.job) parts.push(`job ${[w.job.name, w.job.id && `#${w.job.id}`, w.job.run && `run ${w.job.run}`].filter(Boolean).join(' ')}`);
  if (w.notebook) parts.push(`notebook ${w.notebook}`);
  if (w.clusterId) parts.push(`cluster ${w.clusterId}`);
  if (w.txnId) parts.push(`txn ${w.txnId}`);
  if (w.userMetadata) parts.push(`"${w.userMetadata}"`);
  return parts.join(' · ');
}

/** A commit that says nothing about who wrote it. */
export const NO_WHO: CommitWho = Object.freeze({ userName: null, userId: null, userMetadata: null, clusterId: null, job: null, notebook: null, engineInfo: null, txnId: null });

/**
 * The timeline's and the CLI's filters over versions (all optional, all must match). Every text
 * field matches by one rule, `containsText`: a case-insensitive substring.
 */
export interface VersionFilter {
  /** Part of commitInfo.operation. */
  operation?: string;
  /** ISO 8601 bounds on the commit timestamp (inclusive). */
  since?: string;
  until?: string;
  /** Part of a partition the version added or removed files in (`col=value`). */
  partition?: string;
  /** Part of userName or userId. */
  user?: string;
  /** Part of engineInfo. */
  writer?: string;
  /** Part of userMetadata, operationParameters, or the job, notebook, cluster and txn the Who column shows. */
  text?: string;
}

/** The one matching rule of the versions filter: `needle` is part of one of `hay`, ignoring case. */
export function containsText(needle: string, ...hay: (string | null | undefined)[]): boolean {
  const n = needle.toLowerCase();
  return hay.some((h) => h != null && h.toLowerCase().includes(n));
}

/** Whether a version passes the filter: one predicate for the CLI and the timeline. */
export function matchesFilter(v: VersionSummary, f: VersionFilter): boolean {
  if (f.operation && !containsText(f.operation, v.operation)) return false;
  if (f.since) { const t = Date.parse(f.since); if (!Number.isNaN(t) && !(v.timestamp >= t)) return false; }
  if (f.until) { const t = Date.parse(f.until); if (!Number.isNaN(t) && !(v.timestamp <= t)) return false; }
  if (f.partition && !containsText(f.partition, ...v.partitions)) return false;
  if (f.user && !containsText(f.user, v.who.userName, v.who.userId)) return false;
  if (f.writer && !containsText(f.writer, v.who.engineInfo)) return false;
  if (f.text && !containsText(f.text, v.who.userMetadata, JSON.stringify(v.operationParameters), whoText(v.who))) return false;
  return true;
}

/**
 * Why the reader cannot read a version: `version_missing` a commit is missing between versions that
 * exist (PROTOCOL.md: versions are contiguous) and no checkpoint covers it; `history_expired` the
 * oldest commits were cleaned up before a checkpoint (metadata cleanup); `unsupported_feature` the
 * protocol needs what this reader does not support; `checkpoint_unreadable` the checkpoint that
 * would rebuild it cannot be read; `unreadable` anything else (the reason says what).
 */
export type UnreadableCause = 'version_missing' | 'history_expired' | 'unsupported_feature' | 'checkpoint_unreadable' | 'unreadable';

export type HeuristicName =
  | 'partition_emptied'
  | 'overwrite_shrank_the_table'
  | 'overwrite_wider_than_predicate'
  | 'duplicate_batch'
  | 'schema_changed'
  | 'protocol_upgraded'
  | 'vacuumed_history'
  | 'version_missing'
  | 'versions_unreadable'
  | 'data_files_missing'
  | 'dv_heavy_delete'
  | 'large_delete'
  | 'clock_went_backwards'
  | 'blind_append_after_overwrite'
  | 'stats_missing'
  | 'writer_changed'
  | 'nulls_appeared'
  | 'partition_outside_its_day'
  | 'predicate_not_evaluable'
  | 'empty_commit'
  | 'metrics_disagree'
  | 'checksum_disagrees'
  | 'timestamp_from_file_time';

/** Each finding's name for a person (the CLI's text, the window's findings list). */
export const HEURISTIC_LABELS: Record<HeuristicName, string> = {
  partition_emptied: 'A partition was emptied',
  overwrite_shrank_the_table: 'An overwrite shrank the table',
  overwrite_wider_than_predicate: 'An overwrite removed files outside its predicate',
  duplicate_batch: 'A batch repeats files already in the table',
  schema_changed: 'The schema changed',
  protocol_upgraded: 'The protocol was upgraded',
  vacuumed_history: 'Versions lost to log cleanup',
  versions_unreadable: 'Versions this reader cannot read',
  version_missing: 'A version is missing from the log',
  data_files_missing: 'Data files are missing',
  dv_heavy_delete: 'Deletion vectors hide half or more of their files',
  large_delete: 'A commit took away a quarter or more of the rows',
  clock_went_backwards: 'The commit clock went backwards',
  blind_append_after_overwrite: 'An append into partitions just overwritten',
  stats_missing: 'Added files carry no row counts',
  writer_changed: 'The writer changed',
  nulls_appeared: 'Nulls appeared in a column',
  partition_outside_its_day: 'Files hold timestamps outside their partition\'s day',
  predicate_not_evaluable: 'An overwrite predicate cannot be judged from the log',
  empty_commit: 'An empty commit file',
  metrics_disagree: 'Commit metrics disagree with its actions',
  checksum_disagrees: 'The version checksum disagrees',
  timestamp_from_file_time: "A commit time taken from the file's mtime",
};

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

/** One file of a commit, for the per-commit drill-down (the CLI's --version N and the window's panel). */
export interface CommitFile {
  path: string;
  /** `col=value[/...]`, '' for an unpartitioned table. */
  partition: string;
  /** Rows the file contributes (numRecords minus DV cardinality); null without stats. */
  rows: number | null;
  bytes: number;
  dataChange: boolean;
  /** The file carries a deletion vector. */
  deletionVector: boolean;
  /** Rows its deletion vector hides; null without one. */
  dvRows: number | null;
  /** The version whose add put this file in (for removed files: when it was written); null when the log no longer says. */
  addedIn: number | null;
  /** A removed file whose add is older than the oldest readable version: listed from the remove action itself. */
  addedBeforeOldestReadable: boolean;
  /** A file re-added in place (same path, e.g. a new deletion vector): the version of the entry it replaced. */
  rewrittenFrom?: number | null;
}

/** What one commit changed in one partition (rows net of in-place rewrites: a DV delete is its deleted rows). */
export interface PartitionChange {
  partition: string;
  addedFiles: number;
  removedFiles: number;
  /** Rows with stats only; `rowsKnown` false when some file lacked them. */
  addedRows: number;
  removedRows: number;
  addedBytes: number;
  removedBytes: number;
  rowsKnown: boolean;
  /** Files rewritten in place here (a deletion vector added or changed). */
  rewrittenFiles: number;
}

/** A commit opened: its summary, its files, and the heuristics that fired at it. One type for the CLI and the window. */
export interface CommitDetail {
  root: string;
  summary: VersionSummary;
  /** The commit's commitInfo as written (operationMetrics included); null when it has none. */
  commitInfo: Record<string, unknown> | null;
  /** Up to `filesLimit` files each; the totals are in `summary`. */
  added: CommitFile[];
  removed: CommitFile[];
  /** Files rewritten in place (a DV delete re-adds the file with its new deletion vector). */
  rewritten: CommitFile[];
  /** Sorted by partition. */
  partitions: PartitionChange[];
  heuristics: HeuristicHit[];
  /** The most files listed per kind (null: all). */
  filesLimit: number | null;
}
