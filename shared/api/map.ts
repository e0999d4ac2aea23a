// The map: method name -> request and response, and what each side holds (the engine's handlers,
// the renderer's client, preload's bridge). Adding a method starts here.
import type { LakerecErrorData } from '../errors';
import type { JobContext, Progress } from '../jobs';
import type { ProofMode, ProofResult, ProofSettings, RunKind, RunRecord } from '../proof';
import type { BisectResult } from '../bisect';
import type { ForensicsResult } from '../forensics';
import type { PackedRows } from './packed';

/** A ForensicsResult whose `versions` travel packed (unpackRows gives the VersionSummary list back). */
export type PackedForensics = Omit<ForensicsResult, 'versions'> & { versions: PackedRows };
import type {
  AppInfo, RecentTable, TableHead, TableSummary, VersionRow, TableOverview, CommitDetail, BisectRequest, ProgressDataMap, ContractCheck, ContractText, ReconcileRequest, ReconcileRun, WarehouseConnectionInfo, ExportedReport, EngineChoice, ProofRequest, TrustRequest, MutationRequest,
} from './shapes';
import type { KeysResult, LawsResult, MutationResult } from '../trust';
import type { LineageAttachment, LineageRequest, LineageRun } from '../lineage';
import type { DiffRequest, DiffResult, PartitionHealth, PartitionHealthRequest, RowsPage, RowsRequest, SchemaAt, SchemaHistory } from '../views';

export type Empty = Record<string, never>;

export interface ApiMap {
  /** What this window runs on and what it can do. */
  appInfo: { request: Empty; response: AppInfo };
  /** The first page of the history: the log's listing and its newest commits (FIRST_PAGE_VERSIONS), no replay. What the window paints first. */
  historyHead: { request: { path: string }; response: { head: TableHead } };
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
  /** The same as `forensics`, its versions packed by column (PackedRows): what the timeline loads. */
  timeline: { request: { path: string }; response: { overview: TableOverview; forensics: PackedForensics } };
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
  /** Remembers that the user accepted the contract file at `path` with this content (sha256), in the app-data folder. */
  acceptContract: { request: { path: string; sha256: string }; response: { accepted: true } };
  /** Reconcile a source against the table (a job: progress, cancel). Recorded in the run history. */
  reconcile: { request: ReconcileRequest; response: ReconcileRun };
  /** The warehouse connections found (settings file, databrickscfg, connections.toml, dbt profiles): names and kinds only. */
  warehouseConnections: { request: Empty; response: { connections: WarehouseConnectionInfo[]; problems: string[] } };
  /** The incident report of a kept reconcile result, with the table's timeline excerpt and a bisect: one self-contained HTML file (a job). Electron with `save`: a save dialog writes it. */
  exportReport: { request: { resultId: string; save: boolean }; response: ExportedReport };
  /** The engines a round-trip proof can pick. */
  proofEngines: { request: Empty; response: { engines: EngineChoice[] } };
  /** A round-trip proof (a job; each step arrives as progress `data`). Recorded in the run history. */
  runProof: { request: ProofRequest; response: { runId: string | null; result: ProofResult } };
  /** The proof settings (settings.json in the app-data folder): the mode generic / off / all, and a Dagster instance. */
  proofSettings: { request: Empty; response: { settings: ProofSettings; file: string } };
  /** Sets the proof mode (which proofs run when none is named), kept in settings.json. */
  setProofMode: { request: { mode: ProofMode }; response: { settings: ProofSettings } };
  /** Mutation score of the contract on the table (a job: each mutant arrives as progress `data`; cancel). Recorded in the run history. */
  mutationScore: { request: MutationRequest; response: { runId: string | null; result: MutationResult } };
  /** The contract's keys and relationships verified on the table and the source (a job). */
  verifyKeys: { request: TrustRequest; response: KeysResult };
  /** Data laws: totals per day from source to table (a job). */
  checkLaws: { request: TrustRequest; response: LawsResult };
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
  /** The dbt project (or DuckDB file) attached to a table, and the model that writes it. */
  lineageAttachment: { request: { table: string }; response: LineageAttachment };
  /** Attaches a dbt project (or DuckDB file) to a table, optionally naming its model; null project detaches. Kept in the app-data folder. */
  attachLineage: { request: { table: string; project: string | null; model: string | null }; response: LineageAttachment };
  /** The attached project's lineage verified by perturbation (a job: progress, cancel). */
  verifyLineage: { request: LineageRequest; response: LineageRun };
}

export type ApiMethod = keyof ApiMap;
/** What a method's progress carries besides the line (ProgressDataMap in shapes.ts), per method. */
export type ProgressData<M extends ApiMethod> = M extends keyof ProgressDataMap ? ProgressDataMap[M] : never;
/** A progress report as a method's caller receives it: `data` typed per method (absent for most). */
export type JobProgress<M extends ApiMethod = ApiMethod> = Progress & { data?: ProgressData<M> };
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

/** Thrown by ApiClient.invoke: the typed error as data, plus a readable message. */
export class ApiCallError extends Error {
  readonly data: LakerecErrorData;
  constructor(data: LakerecErrorData) {
    super(data.message);
    this.name = 'ApiCallError';
    this.data = data;
  }
}
