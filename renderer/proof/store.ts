// The Proof page's state: the engines to pick from, the two picked, the steps as they run (each
// arrives as progress data with its fingerprint), and the result's checks.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient, EngineChoice, JobProgress } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import { proofsForMode, type ProofMode, type ProofResult, type ProofSettings, type ProofStep } from '../../shared/proof';
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
  /** The proofs of the mode run one after another ("Run the default proofs"): each pair and its verdict (null: not yet). */
  batch: { a: string; b: string; passed: boolean | null }[];
  loadEngines(): Promise<void>;
  loadSettings(): Promise<void>;
  /** Runs the proofs the mode names (generic: the first two engines here; all: every pair), one at a time. */
  runDefault(): Promise<void>;
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
    batch: [],

    async runDefault() {
      const { settings, engines } = get();
      if (!settings || !engines) return;
      const pairs = proofsForMode(settings.mode, engines.filter((e) => e.available !== false).map((e) => e.name));
      set({ batch: pairs.map(([a, b]) => ({ a, b, passed: null })) });
      for (let i = 0; i < pairs.length; i++) {
        set({ a: pairs[i][0], b: pairs[i][1] });
        await get().run();
        const { status, result } = get();
        set((s) => ({ batch: s.batch.map((x, k) => (k === i ? { ...x, passed: status === 'done' && result ? result.passed : false } : x)) }));
        if (status !== 'done') break; // cancelled or an error: the rest do not run
      }
    },

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
