// The window's state (zustand). Screens read slices of it; actions call the ApiClient, never a
// transport. One table is open at a time; a newer open wins over a slower older one.
import { createStore, type StoreApi } from 'zustand/vanilla';
import { ApiCallError, type ApiClient, type AppInfo, type RecentTable, type TableSummary, type VersionRow } from '../../shared/api';
import { toErrorData, type LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';

export type TableStatus = 'loading' | 'ready' | 'error';

export interface OpenTableState {
  path: string;
  status: TableStatus;
  summary: TableSummary | null;
  versions: VersionRow[] | null;
  progress: Progress | null;
  error: LakerecErrorData | null;
}

export interface WorkbenchState {
  info: AppInfo | null;
  /** The window could not even start talking to the engine (e.g. no token in web mode). */
  bootError: LakerecErrorData | null;
  recent: RecentTable[];
  table: OpenTableState | null;
  /** A message about the last drop or dialog that did not lead to an open. */
  notice: LakerecErrorData | null;

  boot(): Promise<void>;
  openTable(path: string): Promise<void>;
  cancelOpen(): void;
  closeTable(): void;
  forgetRecent(path: string): Promise<void>;
  pickFolder(): Promise<void>;
  setNotice(n: LakerecErrorData | null): void;
}

function errorOf(e: unknown): LakerecErrorData {
  return e instanceof ApiCallError ? e.data : toErrorData(e);
}

export function createWorkbenchStore(client: ApiClient): StoreApi<WorkbenchState> {
  let seq = 0;
  let controller: AbortController | null = null;

  return createStore<WorkbenchState>()((set, get) => ({
    info: null,
    bootError: null,
    recent: [],
    table: null,
    notice: null,

    async boot() {
      try {
        const [info, recent] = await Promise.all([client.invoke('appInfo', {}), client.invoke('recentTables', {})]);
        set({ info, recent: recent.tables, bootError: null });
        if (info.initialTable) await get().openTable(info.initialTable);
      } catch (e) {
        set({ bootError: errorOf(e) });
      }
    },

    async openTable(path: string) {
      const trimmed = path.trim();
      if (!trimmed) {
        set({ notice: { code: 'usage', message: 'Type the path of a Delta table folder first.' } });
        return;
      }
      controller?.abort();
      const mine = ++seq;
      const ac = new AbortController();
      controller = ac;
      const current = (): boolean => mine === seq;
      const onProgress = (p: Progress) => {
        if (current()) set((s) => (s.table ? { table: { ...s.table, progress: p } } : {}));
      };
      set({
        notice: null,
        table: { path: trimmed, status: 'loading', summary: null, versions: null, progress: null, error: null },
      });
      try {
        const opened = await client.invoke('openTable', { path: trimmed }, { signal: ac.signal, onProgress });
        if (!current()) return;
        set((s) => ({ recent: opened.recent, table: s.table && { ...s.table, path: opened.table.path, summary: opened.table, progress: null } }));
        const listed = await client.invoke('listVersions', { path: opened.table.path }, { signal: ac.signal, onProgress });
        if (!current()) return;
        set((s) => ({ table: s.table && { ...s.table, status: 'ready', versions: listed.versions, progress: null } }));
      } catch (e) {
        if (!current()) return;
        set((s) => ({ table: s.table && { ...s.table, status: 'error', progress: null, error: errorOf(e) } }));
      } finally {
        if (current()) controller = null;
      }
    },

    cancelOpen() {
      controller?.abort();
    },

    closeTable() {
      controller?.abort();
      seq++;
      set({ table: null });
    },

    async forgetRecent(path: string) {
      try {
        const r = await client.invoke('forgetRecent', { path });
        set({ recent: r.tables });
      } catch (e) {
        set({ notice: errorOf(e) });
      }
    },

    async pickFolder() {
      try {
        const r = await client.invoke('pickFolder', {});
        if (r.path) await get().openTable(r.path);
      } catch (e) {
        set({ notice: errorOf(e) });
      }
    },

    setNotice(n) {
      set({ notice: n });
    },
  }));
}
