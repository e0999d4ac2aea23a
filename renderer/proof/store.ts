// The Proof page's state: the engines to pick from, the two picked, the steps as they run (each
// arrives as progress data with its fingerprint), and the result's checks.
import { createStore, type StoreApi } from 'zustand/vanilla';
import { ApiCallError, type ApiClient, type EngineChoice } from '../../shared/api';
import { toErrorData, type LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import type { ProofResult, ProofStep } from '../../shared/proof';

export interface ProofState {
  engines: EngineChoice[] | null;
  enginesError: LakerecErrorData | null;
  a: string;
  b: string;
  status: 'idle' | 'running' | 'done' | 'error';
  steps: ProofStep[];
  progress: Progress | null;
  result: ProofResult | null;
  error: LakerecErrorData | null;
  loadEngines(): Promise<void>;
  pick(side: 'a' | 'b', name: string): void;
  run(): Promise<void>;
  cancel(): void;
}

function errorOf(e: unknown): LakerecErrorData {
  return e instanceof ApiCallError ? e.data : toErrorData(e);
}

export function createProofStore(client: ApiClient): StoreApi<ProofState> {
  let controller: AbortController | null = null;
  return createStore<ProofState>()((set, get) => ({
    engines: null,
    enginesError: null,
    a: '',
    b: '',
    status: 'idle',
    steps: [],
    progress: null,
    result: null,
    error: null,

    async loadEngines() {
      try {
        const { engines } = await client.invoke('proofEngines', {});
        const a = get().a || engines[0]?.name || '';
        const b = get().b || engines[1]?.name || engines[0]?.name || '';
        set({ engines, enginesError: null, a, b });
      } catch (e) {
        set({ enginesError: errorOf(e) });
      }
    },

    pick(side, name) {
      set(side === 'a' ? { a: name } : { b: name });
    },

    async run() {
      const { a, b } = get();
      controller?.abort();
      const ac = new AbortController();
      controller = ac;
      set({ status: 'running', steps: [], progress: null, result: null, error: null });
      try {
        const r = await client.invoke('runProof', { engines: [a, b] }, {
          signal: ac.signal,
          onProgress: (p) => {
            if (controller !== ac) return;
            const step = p.data;
            set((s) => ({
              progress: p,
              steps: step ? [...s.steps.filter((x) => x.id !== step.id), step] : s.steps,
            }));
          },
        });
        if (controller !== ac) return;
        set({ status: 'done', result: r.result, steps: r.result.steps, progress: null });
      } catch (e) {
        if (controller !== ac) return;
        set({ status: 'error', error: errorOf(e), progress: null });
      } finally {
        if (controller === ac) controller = null;
      }
    },

    cancel() {
      controller?.abort();
    },
  }));
}

const stores = new WeakMap<ApiClient, StoreApi<ProofState>>();

export function proofStoreFor(client: ApiClient): StoreApi<ProofState> {
  let s = stores.get(client);
  if (!s) {
    s = createProofStore(client);
    stores.set(client, s);
  }
  return s;
}
