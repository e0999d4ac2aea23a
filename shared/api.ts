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
  /** A dropped File can be turned into a path by the transport itself (Electron). */
  canResolveDroppedFiles: boolean;
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
export interface InvokeOptions {
  onProgress?: (p: Progress) => void;
  /** Aborting cancels the job in the engine (its JobContext signal fires). */
  signal?: AbortSignal;
}

/** What the renderer holds: the same object whatever the transport. */
export interface ApiClient {
  invoke<M extends ApiMethod>(method: M, request: ApiRequest<M>, opts?: InvokeOptions): Promise<ApiResponse<M>>;
  /** The absolute path of a dropped File, when the transport can know it (Electron); else null. */
  pathForDroppedFile(file: object): string | null;
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

export const apiSpec: { [M in ApiMethod]: MethodSpec<M> } = {
  appInfo: { validate: empty('appInfo'), job: false },
  openTable: { validate: pathRequest('openTable'), job: true },
  listVersions: { validate: pathRequest('listVersions'), job: true },
  recentTables: { validate: empty('recentTables'), job: false },
  forgetRecent: { validate: pathRequest('forgetRecent'), job: false },
  pickFolder: { validate: empty('pickFolder'), job: false },
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
