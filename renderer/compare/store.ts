// The Compare tab's state: two versions of the open table, the keys (from the contract beside
// the table, or typed), and the engine's comparison.
import { createStore } from 'zustand/vanilla';
import type { ApiClient } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import type { DiffResult } from '../../shared/views';
import { useClientStore } from '../state/context';
import { createJob, perClient } from '../state/job';

export interface CompareState {
  path: string | null;
  from: string;
  to: string;
  keys: string;
  /** Keys of the contract beside the table, when there is one. */
  contractKeys: string[] | null;
  status: 'idle' | 'running' | 'done' | 'error';
  progress: Progress | null;
  result: DiffResult | null;
  error: LakerecErrorData | null;
  /** The form's own refusal (no key, same version twice) before anything runs. */
  formError: { field: 'keys' | 'versions'; message: string } | null;
  enter(path: string, from?: number | null, to?: number | null): Promise<void>;
  set(field: 'from' | 'to' | 'keys', value: string): void;
  run(): Promise<void>;
  cancel(): void;
}

export function createCompareStore(client: ApiClient) {
  const job = createJob();
  const keysJob = createJob();
  return createStore<CompareState>()((set, get) => ({
    path: null,
    from: '',
    to: '',
    keys: '',
    contractKeys: null,
    status: 'idle',
    progress: null,
    result: null,
    error: null,
    formError: null,

    async enter(path, from, to) {
      const same = get().path === path;
      set({
        path, ...(same ? {} : { keys: '', contractKeys: null, result: null, status: 'idle', error: null }),
        ...(from !== undefined && from !== null ? { from: String(from) } : {}),
        ...(to !== undefined && to !== null ? { to: String(to) } : {}),
        formError: null,
      });
      if (same && get().contractKeys !== null) return;
      // The keys of the contract beside the table, when one exists (a template's guess is not offered).
      await keysJob.run(async () => {
        const c = await client.invoke('defaultContract', { path });
        if (c.origin !== 'file') return null;
        const check = await client.invoke('validateContract', { text: c.text });
        return check.summary?.keys ?? null;
      }, {
        done: (keys) => set({ contractKeys: keys, ...(keys && get().keys === '' ? { keys: keys.join(', ') } : {}) }),
        error: () => set({ contractKeys: null }),
      });
    },

    set(field, value) {
      if (field === 'from') set({ from: value, formError: null });
      else if (field === 'to') set({ to: value, formError: null });
      else set({ keys: value, formError: null });
    },

    async run() {
      const { path, from, to, keys } = get();
      if (!path) return;
      const f = Number(from);
      const t = Number(to);
      if (from.trim() === '' || to.trim() === '' || !Number.isInteger(f) || !Number.isInteger(t) || f < 0 || t < 0) {
        set({ formError: { field: 'versions', message: 'Give two versions to compare (whole numbers).' } });
        return;
      }
      if (f === t) {
        set({ formError: { field: 'versions', message: `Both versions are ${f}: pick two different versions.` } });
        return;
      }
      const list = keys.split(',').map((k) => k.trim()).filter((k) => k !== '');
      if (list.length === 0) {
        set({ formError: { field: 'keys', message: 'Comparing two versions matches rows by their key: name the key column(s), e.g. order_id (no contract.yaml with keys sits beside this table).' } });
        return;
      }
      set({ status: 'running', progress: null, error: null, formError: null });
      await job.run(({ signal, onProgress }) => client.invoke('compareVersions', { path, from: f, to: t, keys: list }, { signal, onProgress }), {
        progress: (progress) => set({ progress }),
        done: (result) => set({ status: 'done', result, progress: null }),
        error: (error) => {
          if (error.code === 'usage' && error.detail?.field === 'keys') set({ status: 'idle', progress: null, formError: { field: 'keys', message: error.message } });
          else set({ status: error.code === 'cancelled' ? 'idle' : 'error', error: error.code === 'cancelled' ? null : error, progress: null });
        },
      });
    },

    cancel() {
      job.cancel();
    },
  }));
}

export const compareStoreFor = perClient(createCompareStore);

export function useCompare<T>(selector: (s: CompareState) => T): T {
  return useClientStore(compareStoreFor, selector);
}
