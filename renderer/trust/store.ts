// The Trust tab's state (its own store, one per client): the mutation run (each mutant as it
// finishes, progress, cancel, the result), the keys check and the laws check, for the table,
// source and contract the Reconcile screen has chosen. Every call goes through createJob.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient, JobProgress, TrustRequest } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import type { Level } from '../../shared/reconcile';
import type { KeysResult, LawsResult, MutantResult, MutationResult } from '../../shared/trust';
import { useClientStore } from '../state/context';
import { createJob, perClient, type JobStatus } from '../state/job';

export interface TrustJob<R> {
  status: JobStatus;
  progress: Progress | null;
  result: R | null;
  error: LakerecErrorData | null;
}

export interface TrustState {
  levels: Level[];
  seed: number;
  mutation: TrustJob<MutationResult> & { mutants: MutantResult[]; total: number | null; runId: string | null };
  keys: TrustJob<KeysResult>;
  laws: TrustJob<LawsResult>;
  setLevels(l: Level[]): void;
  setSeed(n: number): void;
  runMutation(req: TrustRequest): Promise<void>;
  cancelMutation(): void;
  runKeys(req: TrustRequest): Promise<void>;
  runLaws(req: TrustRequest): Promise<void>;
}

const idle = <R>(): TrustJob<R> => ({ status: 'idle', progress: null, result: null, error: null });

export function createTrustStore(client: ApiClient): StoreApi<TrustState> {
  const mutationJob = createJob<JobProgress<'mutationScore'>>();
  const keysJob = createJob();
  const lawsJob = createJob();
  return createStore<TrustState>()((set, get) => ({
    levels: ['schema', 'counts', 'checksum', 'keys', 'rows'],
    seed: 1729,
    mutation: { ...idle<MutationResult>(), mutants: [], total: null, runId: null },
    keys: idle<KeysResult>(),
    laws: idle<LawsResult>(),
    setLevels: (levels) => set({ levels }),
    setSeed: (seed) => set({ seed }),

    async runMutation(req) {
      set({ mutation: { status: 'running', progress: null, result: null, error: null, mutants: [], total: null, runId: null } });
      await mutationJob.run(({ signal, onProgress }) => client.invoke('mutationScore', { ...req, levels: get().levels, seed: get().seed }, { signal, onProgress }), {
        // Each mutant's row arrives as it finishes (progress data), before the whole result.
        progress: (p) => set((s) => {
          const d = p.data;
          return { mutation: { ...s.mutation, progress: p, ...(d && d.kind === 'mutant' ? { mutants: [...s.mutation.mutants.filter((m) => m.corruption !== d.mutant.corruption), d.mutant], total: d.total } : {}) } };
        }),
        done: (r) => set({ mutation: { status: 'done', progress: null, result: r.result, error: null, mutants: r.result.mutants, total: r.result.mutants.length, runId: r.runId } }),
        error: (error) => set((s) => ({ mutation: { ...s.mutation, status: 'error', progress: null, error } })),
      });
    },

    cancelMutation() {
      mutationJob.cancel();
    },

    async runKeys(req) {
      set({ keys: { status: 'running', progress: null, result: null, error: null } });
      await keysJob.run(({ signal, onProgress }) => client.invoke('verifyKeys', req, { signal, onProgress }), {
        progress: (p) => set((s) => ({ keys: { ...s.keys, progress: p } })),
        done: (result) => set({ keys: { status: 'done', progress: null, result, error: null } }),
        error: (error) => set({ keys: { status: 'error', progress: null, result: null, error } }),
      });
    },

    async runLaws(req) {
      set({ laws: { status: 'running', progress: null, result: null, error: null } });
      await lawsJob.run(({ signal, onProgress }) => client.invoke('checkLaws', req, { signal, onProgress }), {
        progress: (p) => set((s) => ({ laws: { ...s.laws, progress: p } })),
        done: (result) => set({ laws: { status: 'done', progress: null, result, error: null } }),
        error: (error) => set({ laws: { status: 'error', progress: null, result: null, error } }),
      });
    },
  }));
}

export const trustStoreFor = perClient(createTrustStore);

export function useTrust<T>(selector: (s: TrustState) => T): T {
  return useClientStore(trustStoreFor, selector);
}
