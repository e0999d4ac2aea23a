// The shapes the API's methods take and return (the map that names them: map.ts).
import type { ProofStep } from '../proof';
import type { ContractSummary, Level, ReconcileResult } from '../reconcile';
import type { BisectPlan, PredicateSpec, ProbeEvent } from '../bisect';
import type { VersionSummary } from '../forensics';
import type { MutationProgress } from '../trust';

export type TransportMode = 'electron' | 'web';

export interface SampleTable {
  name: string;
  path: string;
}

export interface AppInfo {
  version: string;
  mode: TransportMode;
  /** A native folder dialog exists (`pickFolder` works). */
  canPickFolder: boolean;
  /** A dropped File can be turned into a path by the transport itself (Electron); else it is uploaded. */
  canResolveDroppedFiles: boolean;
  /** A native file dialog for a source of truth exists (`pickSource` works); else the page uploads a file. */
  canPickSource: boolean;
  /** The engine writes an exported report through a native save dialog; else the page downloads it. */
  canSaveFiles: boolean;
  /** The folder given on the command line (`lakerec-workbench PATH`), opened at launch. */
  initialTable: string | null;
  /** Bundled sample lakes found on this machine (may be empty). */
  sampleTables: SampleTable[];
}

export interface RecentTable {
  /** Absolute table root. */
  path: string;
  /** The folder's name, for the list. */
  name: string;
  /** ms since epoch of the last successful open. */
  openedAt: number;
}

/**
 * What opening a table answers: the header's part that the log listing already knows (the header
 * is `TableOverview`, below, one shape for the table's latest state), and what only the listing
 * counts.
 */
export type TableSummary = Pick<TableOverview, 'path' | 'name' | 'latestVersion' | 'partitionColumns' | 'minReaderVersion' | 'minWriterVersion'> & {
  /** Oldest version that still has a JSON commit. */
  oldestCommitVersion: number;
  /** Number of versions with a JSON commit. */
  commitCount: number;
  /** ms since epoch of the latest commit. */
  lastCommitAt: number;
  /** Table name from metaData, when written. */
  tableName: string | null;
};

/** A row of the History list: the version's summary (the one per-version model), picked. */
export type VersionRow = Pick<VersionSummary,
  'version' | 'timestamp' | 'operation' | 'operationParameters' | 'writer' | 'who' | 'addedFiles' | 'removedFiles'>;

/** The History list: each version with a commit file, newest first, picked from the one per-version
 *  model (the timeline's summaries), so a commit reads the same on every screen. */
export function versionRows(versions: VersionSummary[]): VersionRow[] {
  return versions
    .filter((v) => v.hasCommitFile)
    .map((v) => ({
      version: v.version, timestamp: v.timestamp, operation: v.operation, operationParameters: v.operationParameters,
      writer: v.writer, who: v.who, addedFiles: v.addedFiles, removedFiles: v.removedFiles,
    }))
    .reverse(); // newest first, as a history list reads
}

/** How many of the newest versions the first page of a history holds (historyHead). */
export const FIRST_PAGE_VERSIONS = 50;

/**
 * The first page of a table's history, from the log's listing and its newest commit files alone
 * (no replay, no older commit read): what the window paints while the rest of the log is read.
 * Nothing here needs the whole log; what does (protocol, partitions, files, rows) is not in it.
 */
export interface TableHead {
  /** Absolute table root. */
  path: string;
  name: string;
  /** The newest version the listing names (a commit file or a complete checkpoint). */
  latestVersion: number;
  /** Commit files the listing holds: the History list's length once the log is read. */
  commitCount: number;
  /** The newest commits, newest first (at most FIRST_PAGE_VERSIONS). */
  versions: VersionRow[];
}

/** The investigation header: the table as its latest version stands (log only). */
export interface TableOverview {
  /** The table's location as shown (a local root, or a remote URL without secrets). */
  path: string;
  name: string;
  /** Latest version. */
  latestVersion: number;
  oldestReadableVersion: number | null;
  minReaderVersion: number | null;
  minWriterVersion: number | null;
  readerFeatures: string[];
  writerFeatures: string[];
  partitionColumns: string[];
  /** Active data files at the latest version. */
  files: number;
  /** Rows at the latest version from stats; null when a file lacks them. */
  rows: number | null;
  /** Bytes of the active data files (add.size). */
  bytes: number;
  /** Whether this reader can read the latest version: when not, files, rows and bytes are what its log records, not a read. */
  latestReadable: boolean;
  /** Why the latest version cannot be read (null when it can). */
  latestUnreadableReason: string | null;
  /** New commits arrived since the table was last shown (the log was re-read for them). */
  logChanged: boolean;
}

// One drill-down type for the CLI and the window (shared/forensics.ts).
export type { CommitDetail, CommitFile, PartitionChange } from '../forensics';

export const COMMIT_FILES_LIMIT = 2000;

export interface BisectRequest extends PredicateSpec {
  path: string;
}

/** Structured data some jobs attach to their progress reports, by method. */
/** Bisect's progress data: the plan once, before the first probe (unreadable versions, walk or
 *  search), then one probe per evaluated version as soon as its result is known. */
export type BisectProgressData = ({ kind: 'plan' } & BisectPlan) | ({ kind: 'probe' } & ProbeEvent);

export interface ProgressDataMap {
  /** The plan, then each evaluated version (the window colours a cell). */
  bisect: BisectProgressData;
  /** A proof step as it starts and as it ends (with its fingerprint). */
  runProof: ProofStep;
  /** Each mutant as it finishes (its outcome per level). */
  mutationScore: MutationProgress;
}

/** One problem in a contract's YAML, with the line it is on (null when the text has no line for it). */
export interface ContractProblem {
  line: number | null;
  message: string;
}

export interface ContractCheck {
  ok: boolean;
  problems: ContractProblem[];
  /** The contract as it would be applied, when valid. */
  summary: ContractSummary | null;
}

export interface ContractText {
  text: string;
  /** Where the text came from: a contract.yaml beside the table (or its lake folder), or a template from the table's schema. */
  origin: 'file' | 'template';
  /** The file it was read from (origin file). */
  path: string | null;
  /** sha256 of `text` (what an acceptance is remembered by, with the path). */
  sha256: string;
  /**
   * False for a contract found beside the table that the user has not accepted yet: it came with
   * the table, i.e. from whoever wrote the table, so it is shown but not run until accepted once.
   */
  accepted: boolean;
}

/** The Trust tab's requests: the open table, the chosen source and the contract's YAML text. */
export interface TrustRequest {
  table: string;
  source: string;
  contract: string;
  version?: number;
}
export interface MutationRequest extends TrustRequest {
  levels?: Level[];
  only?: string[];
  seed?: number;
}

export interface ReconcileRequest {
  /** The source of truth: a Parquet file or folder, CSV, JSON lines, or a Delta table folder (optionally `path@version`). */
  source: string;
  /** The target Delta table folder. */
  table: string;
  /** The contract's YAML text (as edited in the window). */
  contract: string;
  level: Level;
  /** Target version; latest when absent. */
  version?: number;
  /**
   * Keep a baseline for this table, source and contract in the app-data folder: the next run
   * inherits the checksum of every partition whose file set is unchanged (checksum level and deeper).
   */
  baseline?: boolean;
  /** Run a side (or both) pushed to a warehouse connection; absent: everything local. */
  warehouse?: WarehousePick;
}

/** Which side a warehouse connection computes. */
export type WarehouseSideChoice = 'target' | 'source' | 'both';
export const WAREHOUSE_SIDES: readonly WarehouseSideChoice[] = ['target', 'source', 'both'];

/** A reconcile side pushed to a connection: its name, the side, and each pushed side's relation as that engine knows it. */
export interface WarehousePick {
  connection: string;
  side: WarehouseSideChoice;
  /** The source as the engine knows it (catalog.schema.table); default the source path (a `type: duckdb` connection reads it). */
  sourceRelation?: string;
  /** The target as the engine knows it; default the open table's path. */
  targetRelation?: string;
}

/** A warehouse connection as the window sees it: its name and kind only (never a host, user or secret). */
export interface WarehouseConnectionInfo {
  name: string;
  kind: 'databricks' | 'snowflake' | 'trino' | 'duckdb';
  /** It is in a file that came with a repository or table: not used until `lakerec warehouse trust FILE`. */
  needsTrust: boolean;
}

export interface ReconcileRun {
  /** This run in the run history (null when the history could not be written). */
  runId: string | null;
  /** The engine keeps recent results under this id, for exportReport. */
  resultId: string;
  /** Values of confidential columns masked, as in every report. */
  result: ReconcileResult;
}

export interface ExportedReport {
  /** The whole self-contained HTML document. */
  html: string;
  /** A file name to save it under (`lakerec-incident-orders-20261129T171500Z.html`). */
  fileName: string;
  /** Electron: where the save dialog wrote it (null: cancelled, or web mode, where the page downloads `html`). */
  savedTo: string | null;
  /** Section titles present, in order. */
  sections: string[];
}

export interface EngineChoice {
  name: string;
  description: string;
  /** Whether it runs here (false: a native module that does not load, a program not found). */
  available?: boolean;
  /** Why not, in one line; null when available. */
  reason?: string | null;
}

export interface ProofRequest {
  engines: [string, string];
  /** Generated rows (default: the proof's own). */
  rows?: number;
  seed?: number;
}
