// The Runs screen's state: the run list for the chosen kind and the one run opened in it. Each
// visit of the tab starts fresh (enter), so the list is what the app-data folder holds now.
import { createStore } from 'zustand/vanilla';
import type { ApiClient } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { RunKind, RunRecord } from '../../shared/proof';
import { useClientStore } from '../state/context';
import { createJob, perClient } from '../state/job';

export type RunsFilter = RunKind | 'all';

export type LoadedRun = { status: 'loading' } | { status: 'error'; error: LakerecErrorData } | { status: 'ready'; run: RunRecord };

export interface RunsState {
  filter: RunsFilter;
  runs: RunRecord[] | null;
  error: LakerecErrorData | null;
  loading: boolean;
  open: { id: string; loaded: LoadedRun } | null;

  /** The tab was opened: forget the last visit and list the runs. */
  enter(): Promise<void>;
  setFilter(filter: RunsFilter): Promise<void>;
  load(): Promise<void>;
  /** Open a run's detail, or close it when it is the open one. */
  toggle(id: string): Promise<void>;
}

export function createRunsStore(client: ApiClient) {
  // Quick reads, not engine jobs: no signal is sent; the newest answer wins.
  const list = createJob();
  const detail = createJob();
  return createStore<RunsState>()((set, get) => ({
    filter: 'all',
    runs: null,
    error: null,
    loading: false,
    open: null,

    async enter() {
      list.drop();
      detail.drop();
      set({ filter: 'all', runs: null, error: null, loading: false, open: null });
      await get().load();
    },

    async setFilter(filter) {
      if (filter === get().filter) return;
      set({ filter });
      await get().load();
    },

    async load() {
      const filter = get().filter;
      set({ loading: true, error: null });
      await list.run(() => client.invoke('listRuns', filter === 'all' ? {} : { kind: filter }), {
        done: (r) => set({ runs: r.runs, loading: false }),
        error: (error) => set({ error, loading: false }),
      });
    },

    async toggle(id) {
      if (get().open?.id === id) {
        detail.drop();
        set({ open: null });
        return;
      }
      set({ open: { id, loaded: { status: 'loading' } } });
      await detail.run(() => client.invoke('getRun', { id }), {
        done: (r) => set({ open: { id, loaded: { status: 'ready', run: r.run } } }),
        error: (error) => set({ open: { id, loaded: { status: 'error', error } } }),
      });
    },
  }));
}

/** The Runs store of this window. */
export const runsStoreFor = perClient(createRunsStore);

export function useRuns<T>(selector: (s: RunsState) => T): T {
  return useClientStore(runsStoreFor, selector);
}
