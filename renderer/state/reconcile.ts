// The Reconcile screen's state (its own zustand store): the source of truth, the contract being
// edited and its problems, the level, the run (progress, cancel, result) and the exported report.
import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  SOURCE_FILE_PATTERN, type ApiClient, type ContractCheck, type ExportedReport, type UploadableFile, type WarehouseConnectionInfo, type WarehouseSideChoice,
} from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import type { Level, ReconcileResult } from '../../shared/reconcile';
import { useClientStore } from './context';
import { createJob, errorOf, perClient, type JobStatus } from './job';

export type SourceVia = 'path' | 'drop' | 'upload' | 'dialog';

export interface SourceChoice {
  /** What the engine reads: an absolute path (in web mode's upload sandbox for an uploaded file). */
  path: string;
  /** What the user sees: the file's own name. */
  label: string;
  via: SourceVia;
}

export type RunStatus = JobStatus;

export interface ReconcileState {
  source: SourceChoice | null;
  /** 'uploading' while a dropped file travels to the local engine. */
  sourceBusy: { name: string; size: number } | null;
  sourceError: LakerecErrorData | null;

  /** The table the contract was loaded for. */
  contractFor: string | null;
  contractText: string;
  contractOrigin: 'file' | 'template' | 'edited' | null;
  contractPath: string | null;
  /** The text as loaded (an edit back to it is no longer "edited"). */
  contractLoaded: { text: string; origin: 'file' | 'template' } | null;
  contractLoading: boolean;
  contractLoadError: LakerecErrorData | null;
  /**
   * False while the loaded text is a contract found beside the table that the user has not
   * accepted: it came with the table, so the engine will not run it until accepted once.
   */
  contractAccepted: boolean;
  contractSha: string | null;
  acceptError: LakerecErrorData | null;
  check: ContractCheck | null;

  level: Level;
  /** Target version; null: the latest. */
  version: number | null;
  /** Keep and reuse a baseline (in the app-data folder). */
  useBaseline: boolean;

  status: RunStatus;
  progress: Progress | null;
  result: ReconcileResult | null;
  resultId: string | null;
  /** The table and source of the result shown. */
  ranOn: { table: string; source: string } | null;
  error: LakerecErrorData | null;

  report: { status: JobStatus; progress: Progress | null; exported: ExportedReport | null; error: LakerecErrorData | null };

  /** The warehouse connections the engine found (names and kinds only); null until asked. */
  connections: WarehouseConnectionInfo[] | null;
  connectionProblems: string[];
  connectionsError: LakerecErrorData | null;
  /** Where the run goes: no connection is everything local; else the side(s) pushed and their relations. */
  warehouse: { connection: string | null; side: WarehouseSideChoice; sourceRelation: string; targetRelation: string };

  loadConnections(): Promise<void>;
  setWarehouse(w: Partial<ReconcileState['warehouse']>): void;
  loadContract(table: string, force?: boolean): Promise<void>;
  setContractText(text: string): void;
  acceptContract(): Promise<void>;
  setLevel(l: Level): void;
  setVersion(v: number | null): void;
  setUseBaseline(on: boolean): void;
  setSourcePath(path: string, via: SourceVia, label?: string): void;
  uploadSource(file: UploadableFile): Promise<void>;
  pickSource(): Promise<void>;
  clearSource(): void;
  run(table: string): Promise<void>;
  cancel(): void;
  exportReport(save: boolean): Promise<ExportedReport | null>;
}

function baseName(p: string): string {
  const parts = p.replace(/[\\/]+$/, '').split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

export function createReconcileStore(client: ApiClient): StoreApi<ReconcileState> {
  const runJob = createJob();
  const uploadJob = createJob();
  const reportJob = createJob();
  // Quick calls, not jobs in the engine: the signal is not sent, the newest answer wins.
  const contractJob = createJob();
  const checkJob = createJob();
  let checkTimer: ReturnType<typeof setTimeout> | null = null;

  return createStore<ReconcileState>()((set, get) => {
    // With a source chosen, the contract is checked against both sides' columns and key types
    // too (every problem with its line); before that, as text.
    const validate = (text: string) => checkJob.run(() => {
      const { source, contractFor, version } = get();
      return source && contractFor
        ? client.invoke('checkContractColumns', { text, table: contractFor, source: source.path, ...(version !== null ? { version } : {}) })
        : client.invoke('validateContract', { text });
    }, {
      done: (check) => set({ check }),
      error: (e) => set({ check: { ok: false, problems: [{ line: null, message: e.message }], summary: null } }),
    });
    const revalidate = () => { void validate(get().contractText); };

    return {
      source: null,
      sourceBusy: null,
      sourceError: null,
      contractFor: null,
      contractText: '',
      contractOrigin: null,
      contractPath: null,
      contractLoaded: null,
      contractLoading: false,
      contractLoadError: null,
      contractAccepted: true,
      contractSha: null,
      acceptError: null,
      check: null,
      level: 'rows',
      version: null,
      useBaseline: false,
      status: 'idle',
      progress: null,
      result: null,
      resultId: null,
      ranOn: null,
      error: null,
      report: { status: 'idle', progress: null, exported: null, error: null },
      connections: null,
      connectionProblems: [],
      connectionsError: null,
      warehouse: { connection: null, side: 'target', sourceRelation: '', targetRelation: '' },

      async loadConnections() {
        try {
          const r = await client.invoke('warehouseConnections', {});
          set({ connections: r.connections, connectionProblems: r.problems, connectionsError: null });
        } catch (e) {
          set({ connections: [], connectionsError: errorOf(e) });
        }
      },

      setWarehouse(w) {
        set((st) => ({ warehouse: { ...st.warehouse, ...w } }));
      },

      async loadContract(table, force = false) {
        const s = get();
        // An edited contract for the same table is the user's work: keep it.
        if (!force && s.contractFor === table && (s.contractText !== '' || s.contractLoading)) return;
        set({ contractFor: table, contractLoading: true, contractLoadError: null });
        await contractJob.run(() => client.invoke('defaultContract', { path: table }), {
          done: async (c) => {
            set({
              contractText: c.text, contractOrigin: c.origin, contractPath: c.path, contractLoaded: { text: c.text, origin: c.origin }, contractLoading: false,
              contractAccepted: c.accepted, contractSha: c.sha256, acceptError: null,
            });
            await validate(c.text);
          },
          error: (contractLoadError) => set({ contractLoading: false, contractLoadError }),
        });
      },

      async acceptContract() {
        const s = get();
        if (!s.contractPath || !s.contractSha) return;
        try {
          await client.invoke('acceptContract', { path: s.contractPath, sha256: s.contractSha });
          set({ contractAccepted: true, acceptError: null });
        } catch (e) {
          set({ acceptError: errorOf(e) });
        }
      },

      setContractText(text) {
        const loaded = get().contractLoaded;
        set({ contractText: text, contractOrigin: loaded && loaded.text === text ? loaded.origin : 'edited' });
        if (checkTimer) clearTimeout(checkTimer);
        // Check as the user types, not on every key.
        checkTimer = setTimeout(() => void validate(text), 250);
      },

      setLevel(level) {
        set({ level });
      },

      setVersion(version) {
        set({ version });
        if (get().source) revalidate();
      },

      setUseBaseline(useBaseline) {
        set({ useBaseline });
      },

      setSourcePath(path, via, label) {
        const p = path.trim();
        if (!p) {
          set({ sourceError: { code: 'usage', message: 'Type or paste the path of the source file (or Delta folder) first.' } });
          return;
        }
        set({ source: { path: p, label: label ?? baseName(p), via }, sourceError: null });
        revalidate();
      },

      async uploadSource(file) {
        if (!SOURCE_FILE_PATTERN.test(file.name)) {
          set({ sourceError: { code: 'usage', message: `"${file.name}" is not a source the workbench reads: drop a .parquet, .csv or .jsonl file, or type a Delta folder's path.` } });
          return;
        }
        set({ sourceBusy: { name: file.name, size: file.size }, sourceError: null });
        await uploadJob.run(({ signal }) => client.uploadFile(file, { signal }), {
          done: ({ path }) => { set({ source: { path, label: file.name, via: 'upload' }, sourceBusy: null }); revalidate(); },
          error: (sourceError) => set({ sourceBusy: null, sourceError }),
        });
      },

      async pickSource() {
        try {
          const r = await client.invoke('pickSource', {});
          if (r.path) get().setSourcePath(r.path, 'dialog');
        } catch (e) {
          set({ sourceError: errorOf(e) });
        }
      },

      clearSource() {
        uploadJob.drop();
        set({ source: null, sourceBusy: null, sourceError: null });
        revalidate();
      },

      async run(table) {
        const s = get();
        if (!s.source) {
          set({ status: 'error', error: { code: 'usage', message: 'Choose the source of truth first: drop its file on the window, upload it, or type its path.' } });
          return;
        }
        const source = s.source.path;
        set({ status: 'running', progress: null, error: null, result: null, resultId: null, ranOn: { table, source }, report: { status: 'idle', progress: null, exported: null, error: null } });
        const w = s.warehouse;
        const pushed = w.connection !== null;
        const warehouse = pushed ? {
          connection: w.connection!, side: w.side,
          ...(w.side !== 'target' && w.sourceRelation.trim() ? { sourceRelation: w.sourceRelation.trim() } : {}),
          ...(w.side !== 'source' && w.targetRelation.trim() ? { targetRelation: w.targetRelation.trim() } : {}),
        } : null;
        const request = {
          source, table, contract: s.contractText, level: s.level, ...(s.version !== null ? { version: s.version } : {}),
          ...(!pushed && s.useBaseline && s.level !== 'schema' && s.level !== 'counts' ? { baseline: true } : {}),
          ...(warehouse ? { warehouse } : {}),
        };
        await runJob.run(({ signal, onProgress }) => client.invoke('reconcile', request, { signal, onProgress }), {
          progress: (progress) => set({ progress }),
          done: (r) => set({ status: 'done', result: r.result, resultId: r.resultId, progress: null }),
          error: (error) => set({ status: 'error', error, progress: null }),
        });
      },

      cancel() {
        runJob.cancel();
      },

      async exportReport(save) {
        const id = get().resultId;
        if (!id) return null;
        set({ report: { status: 'running', progress: null, exported: null, error: null } });
        let out: ExportedReport | null = null;
        await reportJob.run(({ onProgress }) => client.invoke('exportReport', { resultId: id, save }, { onProgress }), {
          progress: (p) => set((st) => ({ report: { ...st.report, progress: p } })),
          done: (exported) => {
            out = exported;
            set({ report: { status: 'done', progress: null, exported, error: null } });
          },
          error: (error) => set({ report: { status: 'error', progress: null, exported: null, error } }),
        });
        return out;
      },
    };
  });
}

/** One Reconcile store per client (per window). */
export const reconcileStoreFor = perClient(createReconcileStore);

export function useReconcile<T>(selector: (s: ReconcileState) => T): T {
  return useClientStore(reconcileStoreFor, selector);
}
