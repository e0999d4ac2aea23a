// The Proof page's state: the engines to pick from, the two picked, the steps as they run (each
// arrives as progress data with its fingerprint), and the result's checks.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient, EngineChoice, JobProgress } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import type { ProofMode, ProofResult, ProofSettings, ProofStep } from '../../shared/proof';
import { useClientStore } from '../state/context';
import { createJob, errorOf, perClient, type JobStatus } from '../state/job';

export interface ProofState {
  engines: EngineChoice[] | null;
  enginesError: LakerecErrorData | null;
  a: string;
  b: string;
  status: JobStatus;
  steps: ProofStep[];
  progress: Progress | null;
  result: ProofResult | null;
  error: LakerecErrorData | null;
  /** The proof settings (mode generic / off / all) and where they are kept; null until loaded. */
  settings: ProofSettings | null;
  settingsFile: string | null;
  settingsError: LakerecErrorData | null;
  loadEngines(): Promise<void>;
  loadSettings(): Promise<void>;
  setMode(mode: ProofMode): Promise<void>;
  pick(side: 'a' | 'b', name: string): void;
  run(): Promise<void>;
  cancel(): void;
}

export function createProofStore(client: ApiClient): StoreApi<ProofState> {
  const proof = createJob<JobProgress<'runProof'>>();
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
    settings: null,
    settingsFile: null,
    settingsError: null,

    async loadSettings() {
      try {
        const { settings, file } = await client.invoke('proofSettings', {});
        set({ settings, settingsFile: file, settingsError: null });
      } catch (e) {
        set({ settingsError: errorOf(e) });
      }
    },

    async setMode(mode) {
      try {
        const { settings } = await client.invoke('setProofMode', { mode });
        set({ settings, settingsError: null });
      } catch (e) {
        set({ settingsError: errorOf(e) });
      }
    },

    async loadEngines() {
      try {
        const { engines } = await client.invoke('proofEngines', {});
        // The defaults are the first two engines that run here.
        const here = engines.filter((e) => e.available !== false);
        const a = get().a || here[0]?.name || '';
        const b = get().b || here[1]?.name || here[0]?.name || '';
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
      set({ status: 'running', steps: [], progress: null, result: null, error: null });
      await proof.run(({ signal, onProgress }) => client.invoke('runProof', { engines: [a, b] }, { signal, onProgress }), {
        progress: (p) => {
          const step = p.data;
          set((s) => ({
            progress: p,
            steps: step ? [...s.steps.filter((x) => x.id !== step.id), step] : s.steps,
          }));
        },
        done: (r) => set({ status: 'done', result: r.result, steps: r.result.steps, progress: null }),
        error: (error) => set({ status: 'error', error, progress: null }),
      });
    },

    cancel() {
      proof.cancel();
    },
  }));
}

/** The Proof store of this window. */
export const proofStoreFor = perClient(createProofStore);

export function useProof<T>(selector: (s: ProofState) => T): T {
  return useClientStore(proofStoreFor, selector);
}
