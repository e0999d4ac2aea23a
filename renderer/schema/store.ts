// The Schema tab's state: the columns at one version and the table's schema history.
import { createStore } from 'zustand/vanilla';
import type { ApiClient } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import type { SchemaAt, SchemaHistory } from '../../shared/views';
import { useClientStore } from '../state/context';
import { createJob, perClient } from '../state/job';

export interface SchemaState {
  path: string | null;
  at: SchemaAt | null;
  atError: LakerecErrorData | null;
  atLoading: boolean;
  history: SchemaHistory | null;
  historyError: LakerecErrorData | null;
  progress: Progress | null;
  load(path: string): Promise<void>;
  show(version: number | null): Promise<void>;
}

export function createSchemaStore(client: ApiClient) {
  const atJob = createJob();
  const histJob = createJob();
  return createStore<SchemaState>()((set, get) => ({
    path: null,
    at: null,
    atError: null,
    atLoading: false,
    history: null,
    historyError: null,
    progress: null,

    async load(path) {
      set({ path, at: null, atError: null, history: null, historyError: null, progress: null });
      await Promise.all([
        get().show(null),
        histJob.run(({ signal, onProgress }) => client.invoke('schemaHistory', { path }, { signal, onProgress }), {
          progress: (progress) => set({ progress }),
          done: (history) => set({ history, progress: null }),
          error: (historyError) => set({ historyError, progress: null }),
        }),
      ]);
    },

    async show(version) {
      const path = get().path;
      if (!path) return;
      set({ atLoading: true, atError: null });
      await atJob.run(({ signal }) => client.invoke('schemaAt', { path, ...(version !== null ? { version } : {}) }, { signal }), {
        done: (at) => set({ at, atLoading: false }),
        error: (atError) => set({ atError, atLoading: false }),
      });
    },
  }));
}

export const schemaStoreFor = perClient(createSchemaStore);

export function useSchema<T>(selector: (s: SchemaState) => T): T {
  return useClientStore(schemaStoreFor, selector);
}
