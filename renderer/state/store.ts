// The window's state (zustand). Screens read slices of it; actions call the ApiClient, never a
// transport. One table is open at a time; a newer open wins over a slower older one.
import { createStore, type StoreApi } from 'zustand/vanilla';
import { ApiCallError, type ApiClient, type AppInfo, type RecentTable, type TableHead, type TableSummary } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import { createJob, errorOf } from './job';

export type TableStatus = 'loading' | 'ready' | 'error';

export interface OpenTableState {
  path: string;
  status: TableStatus;
  /** The first page of the history (the listing and the newest commits), painted while the whole log is read. */
  head: TableHead | null;
  /** The open's answer (the whole log read). The History list is the timeline's versions, picked
   *  (renderer/state/timeline.ts): it is not a second download of the same versions. */
  summary: TableSummary | null;
  progress: Progress | null;
  error: LakerecErrorData | null;
}

export interface WindowState {
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

export function createWindowStore(client: ApiClient): StoreApi<WindowState> {
  const open = createJob();

  return createStore<WindowState>()((set, get) => ({
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
      set({
        notice: null,
        table: { path: trimmed, status: 'loading', head: null, summary: null, progress: null, error: null },
      });
      await open.run(async ({ signal, current, onProgress }) => {
        // First the first page (the listing and the newest commits: no replay), painted at once;
        // then the whole log, its progress counted in commits.
        const { head } = await client.invoke('historyHead', { path: trimmed }, { signal });
        if (!current()) return null;
        // historyHead is not a job the engine can stop, so a Cancel pressed meanwhile is seen here:
        // the log read (which remembers the table as recent) is never asked for.
        if (signal.aborted) throw new ApiCallError({ code: 'cancelled', message: 'The open was cancelled.' });
        // The log's size is known from here: the bar is determinate from the first paint on (the
        // first page's commits are read; the log read's own progress takes over as it comes).
        set((s) => ({ table: s.table && { ...s.table, path: head.path, head, progress: s.table.progress ?? { phase: 'reading log', done: head.versions.length, total: head.commitCount } } }));
        const opened = await client.invoke('openTable', { path: trimmed }, { signal, onProgress });
        if (!current()) return null;
        return opened;
      }, {
        progress: (p) => set((s) => (s.table ? { table: { ...s.table, progress: p } } : {})),
        done: (opened) => set((s) => (opened ? { recent: opened.recent, table: s.table && { ...s.table, path: opened.table.path, summary: opened.table, status: 'ready', progress: null } } : {})),
        error: (error) => set((s) => ({ table: s.table && { ...s.table, status: 'error', progress: null, error } })),
      });
    },

    cancelOpen() {
      open.cancel();
    },

    closeTable() {
      open.drop();
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
