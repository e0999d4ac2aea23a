// THE contract between the window and the engine. One map of method name -> request and
// response; both transports (Electron IPC via preload, and web mode over HTTP on 127.0.0.1)
// carry exactly these shapes, so the renderer cannot tell which one it has (GitHub Desktop's
// typed IPC map, Tad's transport-agnostic client).
//
// Adding a method: add it to `ApiMap`, give it a request validator in `apiSpec` (the compiler
// refuses the map without one), implement it in main/app/service.ts. Nothing else changes:
// preload, the IPC handlers and the web server are generic over this file.
import { LakerecError, type LakerecErrorData, type ErrorCode } from './errors';
import type { JobContext, Progress } from './jobs';
import type { ProofResult, ProofStep, RunKind, RunRecord } from './proof';
import { LEVELS, type ContractSummary, type Level, type ReconcileResult } from './reconcile';
import { PREDICATE_NAMES, type BisectPlan, type BisectResult, type PredicateName, type PredicateSpec, type ProbeEvent } from './bisect';
import type { ForensicsResult, HeuristicHit, VersionSummary } from './forensics';
import {
  MAX_PAGE_ROWS, type DiffRequest, type DiffResult, type PartitionHealth, type PartitionHealthRequest, type RowsPage,
  type RowsRequest, type SchemaAt, type SchemaHistory,
} from './workbench';

// ---------------------------------------------------------------------------------------------
// Shapes the methods return
// ---------------------------------------------------------------------------------------------

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

export interface TableSummary {
  /** Absolute table root. */
  path: string;
  name: string;
  /** Latest version. */
  version: number;
  /** Oldest version that still has a JSON commit. */
  oldestVersion: number;
  /** Number of versions with a JSON commit. */
  commitCount: number;
  /** ms since epoch of the latest commit. */
  lastCommitAt: number;
  partitionColumns: string[];
  /** Table name from metaData, when written. */
  tableName: string | null;
  minReaderVersion: number | null;
  minWriterVersion: number | null;
}

export interface VersionRow {
  version: number;
  /** ms since epoch (in-commit timestamp, else commitInfo.timestamp, else the file's mtime). */
  timestamp: number;
  /** commitInfo.operation; null when the commit has no commitInfo. */
  operation: string | null;
  /** commitInfo.operationParameters, values as written in the log. */
  operationParameters: Record<string, string | number | boolean | null>;
  engineInfo: string | null;
  addedFiles: number;
  removedFiles: number;
}

/** The investigation header: the table as its latest version stands (log only). */
export interface TableOverview {
  path: string;
  name: string;
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
}

/** One data file a commit added or removed. */
export interface CommitFile {
  path: string;
  /** `col=value[/col2=value2]`; '' for an unpartitioned table. */
  partition: string;
  rows: number | null;
  bytes: number;
  dataChange: boolean;
  /** The file carries a deletion vector. */
  deletionVector: boolean;
}

/** What one commit changed in one partition. */
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
}

/** One version opened in the investigation view. */
export interface CommitDetail {
  summary: VersionSummary;
  /** The commit's commitInfo as written (operationMetrics included); null when it has none. */
  commitInfo: Record<string, unknown> | null;
  /** Up to COMMIT_FILES_LIMIT files each; the totals are in `summary`. */
  added: CommitFile[];
  removed: CommitFile[];
  /** Sorted by partition. */
  partitions: PartitionChange[];
  /** The heuristics that fired at this version. */
  heuristics: HeuristicHit[];
}

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
}
export type ProgressData<M extends ApiMethod> = M extends keyof ProgressDataMap ? ProgressDataMap[M] : never;
/** A progress report as a method's caller receives it: `data` typed per method (absent for most). */
export type JobProgress<M extends ApiMethod = ApiMethod> = Progress & { data?: ProgressData<M> };

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
}

export interface ProofRequest {
  engines: [string, string];
  /** Generated rows (default: the proof's own). */
  rows?: number;
  seed?: number;
}

// ---------------------------------------------------------------------------------------------
// The map
// ---------------------------------------------------------------------------------------------

export type Empty = Record<string, never>;

export interface ApiMap {
  /** What this window runs on and what it can do. */
  appInfo: { request: Empty; response: AppInfo };
  /** Read the table's log head, remember it in recent tables. */
  openTable: { request: { path: string }; response: { table: TableSummary; recent: RecentTable[] } };
  /** Every version's timestamp and operation from the `_delta_log` JSON commits (a job: progress, cancel). */
  listVersions: { request: { path: string }; response: { versions: VersionRow[] } };
  /** The recent tables list, newest first (persisted in the user's app-data folder). */
  recentTables: { request: Empty; response: { tables: RecentTable[] } };
  /** Drop one entry from recent tables. */
  forgetRecent: { request: { path: string }; response: { tables: RecentTable[] } };
  /** The native folder dialog (Electron). `path` null when the user cancelled. */
  pickFolder: { request: Empty; response: { path: string | null } };
  /** Every version summarised from the log, the heuristics that fired, and the header (a job). */
  forensics: { request: { path: string }; response: { overview: TableOverview; forensics: ForensicsResult } };
  /** One version: its commit, the files it added and removed, what changed per partition (a job). */
  commitDetail: { request: { path: string; version: number }; response: CommitDetail };
  /** Search the history for the first bad version (a job: each probe arrives as progress `data`). */
  bisect: { request: BisectRequest; response: BisectResult };
  /** The native file dialog for a source of truth (Parquet, CSV, JSON lines). Electron only. */
  pickSource: { request: Empty; response: { path: string | null } };
  /** Parses contract YAML; each problem carries its line (inline errors in the editor). */
  validateContract: { request: { text: string }; response: ContractCheck };
  /** The contract for a table: a contract.yaml beside it (or beside its lake folder), else a template from its schema. */
  defaultContract: { request: { path: string }; response: ContractText };
  /** Reconcile a source against the table (a job: progress, cancel). Recorded in the run history. */
  reconcile: { request: ReconcileRequest; response: ReconcileRun };
  /** The incident report of a kept reconcile result, with the table's timeline excerpt and a bisect: one self-contained HTML file (a job). Electron with `save`: a save dialog writes it. */
  exportReport: { request: { resultId: string; save: boolean }; response: ExportedReport };
  /** The engines a round-trip proof can pick. */
  proofEngines: { request: Empty; response: { engines: EngineChoice[] } };
  /** A round-trip proof (a job; each step arrives as progress `data`). Recorded in the run history. */
  runProof: { request: ProofRequest; response: { runId: string | null; result: ProofResult } };
  /** The run history (proof, reconcile, bisect), newest first, without the result bodies. */
  listRuns: { request: { kind?: RunKind }; response: { runs: RunRecord[] } };
  /** One run of the history with its result summary (masked as every report is). */
  getRun: { request: { id: string }; response: { run: RunRecord } };
  /** One page of a version's rows (the Data tab): sorted, filtered (column = value, a checked WHERE), confidential columns masked (a job). */
  rows: { request: RowsRequest; response: RowsPage };
  /** The columns of a version: types, nullability, field metadata, column-mapping ids and physical names. */
  schemaAt: { request: { path: string; version?: number }; response: SchemaAt };
  /** Every version that changed the schema: columns added, dropped, retyped, renamed (a job). */
  schemaHistory: { request: { path: string }; response: SchemaHistory };
  /** Two versions compared by the reconcile engine at rows level, and the commits between (a job). */
  compareVersions: { request: DiffRequest; response: DiffResult };
  /** The contract checked against both sides' columns and key types: every problem with its line (a job). */
  checkContractColumns: { request: { text: string; table: string; source: string; version?: number }; response: ContractCheck };
  /** Per partition rows, files, bytes and small files at every version, from the log (a job). */
  partitionHealth: { request: PartitionHealthRequest; response: PartitionHealth };
}

export type ApiMethod = keyof ApiMap;
export type ApiRequest<M extends ApiMethod> = ApiMap[M]['request'];
export type ApiResponse<M extends ApiMethod> = ApiMap[M]['response'];

/** What the wire carries back for every call: errors travel as data, never as thrown objects. */
export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: LakerecErrorData };

/** Progress of a long job, pushed while the call is pending (IPC event / SSE). */
export interface ProgressEvent {
  jobId: string;
  method: ApiMethod;
  progress: Progress;
}

/** The engine side: one implementation, called by both transports. */
export type ApiHandlers = {
  [M in ApiMethod]: (request: ApiRequest<M>, ctx: JobContext) => Promise<ApiResponse<M>>;
};

/** Options of a single call on the renderer side. */
export interface InvokeOptions<M extends ApiMethod = ApiMethod> {
  onProgress?: (p: JobProgress<M>) => void;
  /** Aborting cancels the job in the engine (its JobContext signal fires). */
  signal?: AbortSignal;
}

/** What the renderer holds: the same object whatever the transport. */
export interface ApiClient {
  invoke<M extends ApiMethod>(method: M, request: ApiRequest<M>, opts?: InvokeOptions<M>): Promise<ApiResponse<M>>;
  /** The absolute path of a dropped File, when the transport can know it (Electron); else null. */
  pathForDroppedFile(file: object): string | null;
  /**
   * Web mode: sends a dropped or picked file to the local engine, which keeps it in a per-launch
   * temp sandbox (deleted at exit) and answers its path there. Electron: a `usage` error (the
   * path of a dropped file is known there).
   */
  uploadFile(file: UploadableFile, opts?: { signal?: AbortSignal }): Promise<{ path: string }>;
}

/** A File (the DOM type is not visible to shared/). */
export interface UploadableFile {
  readonly name: string;
  readonly size: number;
}

/** What preload exposes as `window.lakerec` (contextBridge). Untyped at the wire, typed by the client. */
export interface LakerecBridge {
  invoke(method: string, request: unknown, jobId: string | null): Promise<ApiResult<unknown>>;
  cancel(jobId: string): Promise<void>;
  onProgress(listener: (e: ProgressEvent) => void): () => void;
  pathForFile(file: object): string;
}

/** IPC channel names (Electron). One channel per method, so main can allow-list them. */
export const ipcChannel = (method: ApiMethod): string => `lakerec:${method}`;
export const IPC_PROGRESS = 'lakerec:progress';
export const IPC_CANCEL = 'lakerec:cancel';

/** Web mode paths. */
export const HTTP_API_PREFIX = '/api/';
export const HTTP_EVENTS_PATH = '/api/events';
export const HTTP_CANCEL_PATH = '/api/cancel';
export const HTTP_TOKEN_HEADER = 'authorization';
/** Header carrying the job id of a call, so progress events can be matched to it. */
export const HTTP_JOB_HEADER = 'x-lakerec-job';
/** Web mode: POST a file's bytes (application/octet-stream) here with `?name=FILE`; answers `{ ok, value: { path } }`. */
export const HTTP_UPLOAD_PATH = '/api/upload';
/** Largest upload web mode accepts (a larger source is read by path). */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
/** Source files the workbench reads; an upload must have one of these names. */
export const SOURCE_FILE_PATTERN = /\.(parquet|csv|tsv|json|jsonl|ndjson)$/i;

// ---------------------------------------------------------------------------------------------
// Request validation: every transport validates what crosses the boundary before the engine
// sees it. A bad request is a `usage` error, as data.
// ---------------------------------------------------------------------------------------------

type Validator<M extends ApiMethod> = (v: unknown) => ApiRequest<M>;

interface MethodSpec<M extends ApiMethod> {
  validate: Validator<M>;
  /** A job: reports progress and can be cancelled. */
  job: boolean;
}

function bad(method: string, why: string): LakerecError {
  return new LakerecError('usage', `Bad request to ${method}: ${why}.`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function empty(method: string): (v: unknown) => Empty {
  return (v) => {
    if (v !== undefined && v !== null && !isPlainObject(v)) throw bad(method, 'expected an object');
    if (isPlainObject(v) && Object.keys(v).length > 0) throw bad(method, `unexpected field "${Object.keys(v)[0]}"`);
    return {};
  };
}

function pathRequest(method: string): (v: unknown) => { path: string } {
  return (v) => {
    if (!isPlainObject(v)) throw bad(method, 'expected an object with "path"');
    for (const k of Object.keys(v)) if (k !== 'path') throw bad(method, `unexpected field "${k}"`);
    const p = v.path;
    if (typeof p !== 'string' || p.trim() === '') throw bad(method, '"path" must be a non-empty string');
    if (p.length > 4096) throw bad(method, '"path" is longer than 4096 characters');
    if (p.includes('\0')) throw bad(method, '"path" contains a NUL character');
    return { path: p.trim() };
  };
}

function pathString(method: string, field: string, p: unknown): string {
  if (typeof p !== 'string' || p.trim() === '') throw bad(method, `"${field}" must be a non-empty string`);
  if (p.length > 4096) throw bad(method, `"${field}" is longer than 4096 characters`);
  if (p.includes('\0')) throw bad(method, `"${field}" contains a NUL character`);
  return p.trim();
}

function onlyFields(method: string, v: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(v)) if (!allowed.includes(k)) throw bad(method, `unexpected field "${k}"`);
}

function commitDetailRequest(v: unknown): { path: string; version: number } {
  if (!isPlainObject(v)) throw bad('commitDetail', 'expected an object with "path" and "version"');
  onlyFields('commitDetail', v, ['path', 'version']);
  const version = v.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) throw bad('commitDetail', '"version" must be a non-negative integer');
  return { path: pathString('commitDetail', 'path', v.path), version };
}

function bisectRequest(v: unknown): BisectRequest {
  const m = 'bisect';
  if (!isPlainObject(v)) throw bad(m, 'expected an object with "path" and "predicate"');
  onlyFields(m, v, ['path', 'predicate', 'keys', 'expect', 'partition', 'source']);
  const predicate = v.predicate;
  if (typeof predicate !== 'string' || !(PREDICATE_NAMES as readonly string[]).includes(predicate)) {
    throw bad(m, `"predicate" must be one of ${PREDICATE_NAMES.join(', ')}`);
  }
  const out: BisectRequest = { path: pathString(m, 'path', v.path), predicate: predicate as PredicateName };
  if (v.keys !== undefined) {
    if (!Array.isArray(v.keys) || v.keys.length === 0 || v.keys.length > 32) throw bad(m, '"keys" must be a list of 1 to 32 column names');
    out.keys = v.keys.map((k) => {
      if (typeof k !== 'string' || k.trim() === '' || k.length > 256) throw bad(m, '"keys" must hold non-empty column names');
      return k.trim();
    });
  }
  if (v.expect !== undefined) {
    if (typeof v.expect !== 'number' || !Number.isSafeInteger(v.expect) || v.expect < 0) throw bad(m, '"expect" must be a non-negative integer');
    out.expect = v.expect;
  }
  if (v.partition !== undefined) {
    if (typeof v.partition !== 'string' || !/^[^=]+=.*$/.test(v.partition) || v.partition.length > 1024) throw bad(m, '"partition" must read col=value');
    out.partition = v.partition.trim();
  }
  if (v.source !== undefined) out.source = pathString(m, 'source', v.source);
  return out;
}

function objectWith(method: string, v: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(v)) throw bad(method, 'expected an object');
  onlyFields(method, v, allowed);
  return v;
}

function optionalInt(method: string, name: string, v: unknown, min: number, max: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(method, `"${name}" must be an integer from ${min} to ${max}`);
  return v;
}

function contractYaml(method: string, v: unknown): string {
  if (typeof v !== 'string') throw bad(method, 'the contract must be YAML text');
  if (v.length > 256 * 1024) throw bad(method, 'the contract is longer than 256 KB');
  return v;
}

function columnName(method: string, field: string, v: unknown): string {
  if (typeof v !== 'string' || v === '' || v.length > 256 || v.includes('\0')) throw bad(method, `"${field}" must be a column name`);
  return v;
}

function rowsRequest(v: unknown): RowsRequest {
  const m = 'rows';
  const o = objectWith(m, v, ['path', 'version', 'addedIn', 'offset', 'limit', 'sort', 'equals', 'where']);
  const out: RowsRequest = { path: pathString(m, 'path', o.path) };
  const version = optionalInt(m, 'version', o.version, 0, Number.MAX_SAFE_INTEGER);
  const addedIn = optionalInt(m, 'addedIn', o.addedIn, 0, Number.MAX_SAFE_INTEGER);
  const offset = optionalInt(m, 'offset', o.offset, 0, Number.MAX_SAFE_INTEGER);
  const limit = optionalInt(m, 'limit', o.limit, 1, MAX_PAGE_ROWS);
  if (version !== undefined) out.version = version;
  if (addedIn !== undefined) out.addedIn = addedIn;
  if (offset !== undefined) out.offset = offset;
  if (limit !== undefined) out.limit = limit;
  if (o.sort !== undefined && o.sort !== null) {
    const so = objectWith(m, o.sort, ['column', 'direction']);
    if (so.direction !== 'asc' && so.direction !== 'desc') throw bad(m, '"sort.direction" must be asc or desc');
    out.sort = { column: columnName(m, 'sort.column', so.column), direction: so.direction };
  }
  if (o.equals !== undefined) {
    if (!Array.isArray(o.equals) || o.equals.length > 16) throw bad(m, '"equals" must be a list of at most 16 { column, value }');
    out.equals = o.equals.map((e) => {
      const eo = objectWith(m, e, ['column', 'value']);
      if (eo.value !== null && (typeof eo.value !== 'string' || eo.value.length > 4096)) throw bad(m, '"equals[].value" must be text or null');
      return { column: columnName(m, 'equals[].column', eo.column), value: eo.value as string | null };
    });
  }
  if (o.where !== undefined) {
    if (typeof o.where !== 'string' || o.where.length > 4000) throw bad(m, '"where" must be text of at most 4000 characters');
    out.where = o.where;
  }
  return out;
}

function diffRequest(v: unknown): DiffRequest {
  const m = 'compareVersions';
  const o = objectWith(m, v, ['path', 'from', 'to', 'keys']);
  const from = optionalInt(m, 'from', o.from, 0, Number.MAX_SAFE_INTEGER);
  const to = optionalInt(m, 'to', o.to, 0, Number.MAX_SAFE_INTEGER);
  if (from === undefined || to === undefined) throw bad(m, '"from" and "to" are required versions');
  const out: DiffRequest = { path: pathString(m, 'path', o.path), from, to };
  if (o.keys !== undefined) {
    if (!Array.isArray(o.keys) || o.keys.length > 32) throw bad(m, '"keys" must be a list of at most 32 column names');
    out.keys = o.keys.map((k) => columnName(m, 'keys', k).trim()).filter((k) => k !== '');
  }
  return out;
}

const RUN_KINDS: readonly RunKind[] = ['proof', 'reconcile', 'bisect'];

function reconcileRequest(v: unknown): ReconcileRequest {
  const m = 'reconcile';
  const o = objectWith(m, v, ['source', 'table', 'contract', 'level', 'version', 'baseline']);
  if (o.baseline !== undefined && typeof o.baseline !== 'boolean') throw bad(m, '"baseline" must be true or false');
  if (typeof o.level !== 'string' || !(LEVELS as readonly string[]).includes(o.level)) throw bad(m, `"level" must be one of ${LEVELS.join(', ')}`);
  const version = optionalInt(m, 'version', o.version, 0, Number.MAX_SAFE_INTEGER);
  return {
    source: pathString(m, 'source', o.source),
    table: pathString(m, 'table', o.table),
    contract: contractYaml(m, o.contract),
    level: o.level as Level,
    ...(version !== undefined ? { version } : {}),
    ...(o.baseline === true ? { baseline: true } : {}),
  };
}

function proofRequest(v: unknown): ProofRequest {
  const m = 'runProof';
  const o = objectWith(m, v, ['engines', 'rows', 'seed']);
  const e = o.engines;
  if (!Array.isArray(e) || e.length !== 2 || !e.every((x) => typeof x === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(x))) {
    throw bad(m, '"engines" must be two engine names');
  }
  const rows = optionalInt(m, 'rows', o.rows, 6, 20_000);
  const seed = optionalInt(m, 'seed', o.seed, 0, 2 ** 31);
  return { engines: [e[0] as string, e[1] as string], ...(rows !== undefined ? { rows } : {}), ...(seed !== undefined ? { seed } : {}) };
}

export const apiSpec: { [M in ApiMethod]: MethodSpec<M> } = {
  rows: { validate: rowsRequest, job: true },
  schemaAt: {
    validate: (v) => {
      const o = objectWith('schemaAt', v, ['path', 'version']);
      const version = optionalInt('schemaAt', 'version', o.version, 0, Number.MAX_SAFE_INTEGER);
      return { path: pathString('schemaAt', 'path', o.path), ...(version !== undefined ? { version } : {}) };
    },
    job: false,
  },
  schemaHistory: { validate: pathRequest('schemaHistory'), job: true },
  compareVersions: { validate: diffRequest, job: true },
  checkContractColumns: {
    validate: (v) => {
      const m = 'checkContractColumns';
      const o = objectWith(m, v, ['text', 'table', 'source', 'version']);
      const version = optionalInt(m, 'version', o.version, 0, Number.MAX_SAFE_INTEGER);
      return { text: contractYaml(m, o.text), table: pathString(m, 'table', o.table), source: pathString(m, 'source', o.source), ...(version !== undefined ? { version } : {}) };
    },
    job: true,
  },
  partitionHealth: {
    validate: (v) => {
      const o = objectWith('partitionHealth', v, ['path', 'smallFileBytes']);
      const small = optionalInt('partitionHealth', 'smallFileBytes', o.smallFileBytes, 1, 2 ** 50);
      return { path: pathString('partitionHealth', 'path', o.path), ...(small !== undefined ? { smallFileBytes: small } : {}) };
    },
    job: true,
  },
  appInfo: { validate: empty('appInfo'), job: false },
  openTable: { validate: pathRequest('openTable'), job: true },
  listVersions: { validate: pathRequest('listVersions'), job: true },
  recentTables: { validate: empty('recentTables'), job: false },
  forgetRecent: { validate: pathRequest('forgetRecent'), job: false },
  pickFolder: { validate: empty('pickFolder'), job: false },
  forensics: { validate: pathRequest('forensics'), job: true },
  commitDetail: { validate: commitDetailRequest, job: true },
  bisect: { validate: bisectRequest, job: true },
  pickSource: { validate: empty('pickSource'), job: false },
  validateContract: { validate: (v) => ({ text: contractYaml('validateContract', objectWith('validateContract', v, ['text']).text) }), job: false },
  defaultContract: { validate: pathRequest('defaultContract'), job: false },
  reconcile: { validate: reconcileRequest, job: true },
  exportReport: {
    validate: (v) => {
      const o = objectWith('exportReport', v, ['resultId', 'save']);
      if (!isJobId(o.resultId)) throw bad('exportReport', '"resultId" is missing or malformed');
      if (typeof o.save !== 'boolean') throw bad('exportReport', '"save" must be true or false');
      return { resultId: o.resultId, save: o.save };
    },
    job: true,
  },
  proofEngines: { validate: empty('proofEngines'), job: false },
  runProof: { validate: proofRequest, job: true },
  getRun: {
    validate: (v) => {
      const o = objectWith('getRun', v, ['id']);
      if (typeof o.id !== 'string' || !/^[A-Za-z0-9-]{8,64}$/.test(o.id)) throw bad('getRun', '"id" is missing or malformed');
      return { id: o.id };
    },
    job: false,
  },
  listRuns: {
    validate: (v) => {
      if (v === undefined || v === null) return {};
      const o = objectWith('listRuns', v, ['kind']);
      if (o.kind === undefined) return {};
      if (!RUN_KINDS.includes(o.kind as RunKind)) throw bad('listRuns', `"kind" must be one of ${RUN_KINDS.join(', ')}`);
      return { kind: o.kind as RunKind };
    },
    job: false,
  },
};

export const apiMethods = Object.keys(apiSpec) as ApiMethod[];

export function isApiMethod(name: unknown): name is ApiMethod {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(apiSpec, name);
}

/** Validates a request for `method`; throws a `usage` LakerecError describing what is wrong. */
export function validateRequest<M extends ApiMethod>(method: M, request: unknown): ApiRequest<M> {
  return apiSpec[method].validate(request);
}

/** A job id from a client: short, URL-safe, so it can live in a header and a log line. */
export function isJobId(v: unknown): v is string {
  return typeof v === 'string' && /^[A-Za-z0-9_-]{8,64}$/.test(v);
}

/** HTTP status for an error code in web mode (the body carries the typed error either way). */
export function httpStatusFor(code: ErrorCode): number {
  switch (code) {
    case 'usage':
    case 'contract_invalid':
    case 'contract_mismatch':
    case 'predicate_refused':
    case 'writer_misuse':
      return 400;
    case 'cancelled':
      return 409;
    case 'internal':
      return 500;
    default:
      // The request was well formed but the thing it names could not be read.
      return 422;
  }
}

/** Thrown by ApiClient.invoke: the typed error as data, plus a readable message. */
export class ApiCallError extends Error {
  readonly data: LakerecErrorData;
  constructor(data: LakerecErrorData) {
    super(data.message);
    this.name = 'ApiCallError';
    this.data = data;
  }
}
