// The writer's public shapes: what it writes from, its options, its state and results.
import { LAKEREC_VERSION } from '../../shared/version';
import type { AddFile, CommitInfo, Metadata, Protocol, RemoveFile, StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import type { JobContext } from '../../shared/jobs';
import type { Duck } from '../engine/duck';

export const WRITER_ENGINE_INFO = `lakerec/${LAKEREC_VERSION}`;

/** Rows to write: a DuckDB SELECT (run on the writer's connection) or plain objects. */
export type RowSource = { sql: string } | { rows: Record<string, unknown>[] };

export interface WriterOptions {
  /** ms since epoch for commit timestamps and file modification times (tests pin it). */
  clock?: () => number;
  engineInfo?: string;
  /** A DuckDB to borrow (not closed by the writer); otherwise the writer opens its own. */
  duck?: Duck;
  ctx?: JobContext;
  /**
   * Read data and DV files the log names outside the root (absolute paths). Only for a scratch
   * table over another table's files (mutation testing's sandbox): they are read, never written.
   */
  allowOutsidePaths?: boolean;
}

export interface CreateTableOptions extends WriterOptions {
  schema: StructType;
  partitionColumns?: string[];
  name?: string;
  description?: string;
  configuration?: Record<string, string>;
  /** Metadata id; a random UUID by default. */
  id?: string;
  /** Rows of the first commit (CREATE TABLE AS SELECT). */
  data?: RowSource;
}

/** The table as the writer knows it after its last commit. */
export interface WriterState {
  version: number;
  protocol: Protocol;
  metadata: Metadata;
  /** Active files by log path. */
  files: Map<string, AddFile>;
  /** Remove actions still inside the tombstone retention (kept for checkpoints and vacuum). */
  tombstones: Map<string, RemoveFile>;
}

export interface CommitResult {
  version: number;
  commitInfo: CommitInfo;
  adds: AddFile[];
  removes: RemoveFile[];
}

export interface WriteOptions {
  /** Columns in the data and not in the table are added to the schema in the same commit. */
  mergeSchema?: boolean;
  /** Extra commitInfo.operationParameters (e.g. a pipeline's own batch id). */
  extraParameters?: Record<string, string>;
}

export interface OverwriteOptions extends WriteOptions {
  /** SQL predicate over logical columns: only rows matching it are replaced (Delta's replaceWhere). */
  replaceWhere?: string;
}

export interface MergeOptions {
  /** Key columns matching source rows to target rows. */
  on: string[];
  whenMatched?: 'update' | 'delete' | 'ignore';
  whenNotMatched?: 'insert' | 'ignore';
}

export interface VacuumOptions {
  /** Files unreferenced for less than this are kept (default 7 days, Delta's default). */
  retentionMs?: number;
  /** "now" for the retention comparison (default the real clock). */
  now?: number;
  dryRun?: boolean;
}

export interface VacuumResult {
  /** Deleted files, relative to the table root. */
  deleted: string[];
  /** Unreferenced files kept because they are younger than the retention. */
  kept: string[];
}

/** Bad input to the writer: nothing is written. */
export function misuse(message: string, detail?: Record<string, string | number | boolean | null>): LakerecError {
  return new LakerecError('writer_misuse', message, detail);
}
