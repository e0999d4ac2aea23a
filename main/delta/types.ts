// The reader's public shapes. Other modules (reconcile, forensics, bisect, proof, the API) code
// against these; main/delta/table.ts produces them.
import type { TimestampSource, UnreadableCause } from '../../shared/forensics';
import type {
  AddFile, ColumnMappingMode, CommitInfo, DeletionVectorDescriptor, FileStats, Metadata, Protocol,
  RemoveFile, StructType,
} from '../../shared/delta';

/**
 * A file of the snapshot, after add/remove reconciliation. The snapshot's files are thin views
 * over the replayed log (a 300k-file snapshot holds one small object per file): every field is a
 * getter on the prototype, `stats` (and, on `add`, `stats`/`tags` of adds read through the fast
 * path) computed on first read. JSON (`toJSON`) includes them all; a structured clone or
 * `{...file}` does not (use `file.toJSON()` or pick fields). Treat as read-only (partitionValues
 * objects are shared between files).
 */
export interface ActiveFile {
  /** Path as written in the log, URL-decoded and canonical: relative to the table root when inside it
   *  (the Delta `path`, resolved through the table's store where bytes are read); for a file outside
   *  the root (read only with allowOutsidePaths) the absolute path or URL the log names. */
  path: string;
  size: number;
  modificationTime: number;
  /** Raw partition values keyed by LOGICAL column name (null = null partition). */
  partitionValues: Record<string, string | null>;
  stats: FileStats | null;
  deletionVector: DeletionVectorDescriptor | null;
  /** Rows this file contributes: stats.numRecords minus the DV cardinality; null without stats. */
  numRecords: number | null;
  /** The version whose add action put this file in the snapshot (the checkpoint's version for files known only from a checkpoint). */
  addedInVersion: number;
  add: AddFile;
  /** The path resolves outside the table root (absolute elsewhere, `..`, another scheme). */
  outside?: boolean;
}

export interface Snapshot {
  /** Absolute table root. */
  root: string;
  version: number;
  /** Commit timestamp of this version, ms since epoch (in-commit timestamp where enabled). */
  timestamp: number;
  protocol: Protocol;
  metadata: Metadata;
  schema: StructType;
  /** Logical partition column names, in order. */
  partitionColumns: string[];
  columnMapping: ColumnMappingMode;
  files: ActiveFile[];
  /** Sum of files' numRecords; null when any file lacks stats. */
  numRecords: number | null;
}

/** One version's commit as a change set (for the timeline, forensics and bisect). */
export interface VersionChange {
  version: number;
  /** ms since epoch: in-commit timestamp, else commitInfo.timestamp, else the file's mtime. */
  timestamp: number;
  /** Where the timestamp came from: a file's mtime is not a commit time. */
  timestampSource: TimestampSource;
  /** Size of the commit file in bytes (null: only known from a checkpoint). */
  commitBytes: number | null;
  /** The commit file is empty or whitespace only (no action at all). */
  blankCommit: boolean;
  commitInfo: CommitInfo | null;
  adds: AddFile[];
  removes: RemoveFile[];
  protocol: Protocol | null;
  metaData: Metadata | null;
  /** Whether the JSON commit file for this version exists (false: only known from a checkpoint). */
  hasCommitFile: boolean;
  /** Whether a checkpoint exists at this version. */
  hasCheckpoint: boolean;
}

export type { TimestampSource };

export interface VersionInfo {
  version: number;
  hasCommitFile: boolean;
  hasCheckpoint: boolean;
  /** A snapshot at this version can be built from the log that remains. */
  readable: boolean;
  /** Why not, when not readable. */
  reason?: string;
  /** The kind of why (a commit missing between two that exist is `version_missing`, log cleanup `history_expired`). */
  unreadableCause?: UnreadableCause;
  /** Whether every data file (and DV file) of this version's snapshot still exists; null when not checked or not readable. From `table.versionsWithData()`. */
  dataFilesExist?: boolean | null;
  /** How many of the snapshot's files are missing (after VACUUM: history shows it but time travel fails). */
  missingDataFiles?: number;
}
