// The Trust tab's state (its own zustand store): the mutation run (each mutant as it finishes,
// progress, cancel, the result), the keys check and the laws check, for the table, source and
// contract the Reconcile screen has chosen.
import { createStore, type StoreApi } from 'zustand/vanilla';
import { ApiCallError, type ApiClient, type TrustRequest } from '../../shared/api';
import { toErrorData, type LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import type { Level } from '../../shared/reconcile';
import type { KeysResult, LawsResult, MutantResult, MutationResult } from '../../shared/trust';

export type JobStatus = 'idle' | 'running' | 'done' | 'error';

export interface Job<R> {
  status: JobStatus;
  progress: Progress | null;
  result: R | null;
  error: LakerecErrorData | null;
}

export interface TrustState {
  levels: Level[];
  seed: number;
  mutation: Job<MutationResult> & { mutants: MutantResult[]; total: number | null; runId: string | null };
  keys: Job<KeysResult>;
  laws: Job<LawsResult>;
  setLevels(l: Level[]): void;
  setSeed(n: number): void;
  runMutation(req: TrustRequest): Promise<void>;
  cancelMutation(): void;
  runKeys(req: TrustRequest): Promise<void>;
  runLaws(req: TrustRequest): Promise<void>;
}

const idle = <R>(): Job<R> => ({ status: 'idle', progress: null, result: null, error: null });

function errorOf(e: unknown): LakerecErrorData {
  return e instanceof ApiCallError ? e.data : toErrorData(e);
}

export function createTrustStore(client: ApiClient): StoreApi<TrustState> {
  let mutationController: AbortController | null = null;
  return createStore<TrustState>()((set, get) => ({
    levels: ['schema', 'counts', 'checksum', 'keys', 'rows'],
    seed: 1729,
    mutation: { ...idle<MutationResult>(), mutants: [], total: null, runId: null },
    keys: idle<KeysResult>(),
    laws: idle<LawsResult>(),
    setLevels: (levels) => set({ levels }),
    setSeed: (seed) => set({ seed }),

    async runMutation(req) {
      mutationController?.abort();
      const ac = new AbortController();
      mutationController = ac;
      set({ mutation: { status: 'running', progress: null, result: null, error: null, mutants: [], total: null, runId: null } });
      try {
        const r = await client.invoke('mutationScore', { ...req, levels: get().levels, seed: get().seed }, {
          signal: ac.signal,
          onProgress: (p) => {
            if (mutationController !== ac) return;
            const d = p.data;
            set((s) => ({
              mutation: {
                ...s.mutation, progress: p,
                ...(d && d.kind === 'mutant' ? { mutants: [...s.mutation.mutants.filter((m) => m.corruption !== d.mutant.corruption), d.mutant], total: d.total } : {}),
              },
            }));
          },
        });
        if (mutationController !== ac) return;
        set({ mutation: { status: 'done', progress: null, result: r.result, error: null, mutants: r.result.mutants, total: r.result.mutants.length, runId: r.runId } });
      } catch (e) {
        if (mutationController !== ac) return;
        set((s) => ({ mutation: { ...s.mutation, status: 'error', progress: null, error: errorOf(e) } }));
      } finally {
        if (mutationController === ac) mutationController = null;
      }
    },

    cancelMutation() {
      mutationController?.abort();
    },

    async runKeys(req) {
      set({ keys: { status: 'running', progress: null, result: null, error: null } });
      try {
        const result = await client.invoke('verifyKeys', req, { onProgress: (p) => set((s) => ({ keys: { ...s.keys, progress: p } })) });
        set({ keys: { status: 'done', progress: null, result, error: null } });
      } catch (e) {
        set({ keys: { status: 'error', progress: null, result: null, error: errorOf(e) } });
      }
    },

    async runLaws(req) {
      set({ laws: { status: 'running', progress: null, result: null, error: null } });
      try {
        const result = await client.invoke('checkLaws', req, { onProgress: (p) => set((s) => ({ laws: { ...s.laws, progress: p } })) });
        set({ laws: { status: 'done', progress: null, result, error: null } });
      } catch (e) {
        set({ laws: { status: 'error', progress: null, result: null, error: errorOf(e) } });
      }
    },
  }));
}

const stores = new WeakMap<ApiClient, StoreApi<TrustState>>();

/** One Trust store per client (the tab keeps its state while another tab is shown). */
export function trustStoreFor(client: ApiClient): StoreApi<TrustState> {
  let s = stores.get(client);
  if (!s) {
    s = createTrustStore(client);
    stores.set(client, s);
  }
  return s;
}
