// The bisect screen's state: the predicate form, the probes as they arrive (progress `data`),
// and the result. One search at a time; Cancel aborts it in the engine.
import { createStore } from 'zustand/vanilla';
import type { ApiClient, BisectRequest, JobProgress } from '../../shared/api';
import type { BisectPlan, BisectResult, PredicateName, ProbeEvent } from '../../shared/bisect';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import { useClientStore } from './context';
import { createJob, perClient, type JobStatus } from './job';

export type BisectStatus = JobStatus;

export interface BisectForm {
  predicate: PredicateName;
  keys: string;
  expect: string;
  partition: string;
  source: string;
  /** row-count without a partition: accept the table's moving total (a walk, not a search). */
  allowMoving: boolean;
}

export interface BisectState {
  form: BisectForm;
  status: BisectStatus;
  /** The table the search ran on and its latest version when it started (the strip's length). */
  path: string | null;
  latest: number;
  /** What the engine will do, before the first probe (unreadable versions, walk or search). */
  plan: BisectPlan | null;
  probes: ProbeEvent[];
  progress: Progress | null;
  result: BisectResult | null;
  error: LakerecErrorData | null;
  startedAt: number;
  finishedAt: number;

  setForm(patch: Partial<BisectForm>): void;
  run(path: string, latest: number): Promise<void>;
  cancel(): void;
  reset(): void;
}

/** The request the form describes, or a sentence saying what is missing. */
export function requestOf(path: string, f: BisectForm): BisectRequest | string {
  const req: BisectRequest = { path, predicate: f.predicate };
  const keys = f.keys.split(',').map((k) => k.trim()).filter(Boolean);
  if (f.predicate === 'unique-keys' || f.predicate === 'no-null-keys') {
    if (keys.length === 0) return 'Name the key column(s), separated by commas.';
    req.keys = keys;
  }
  if (f.predicate === 'row-count') {
    const t = f.expect.trim();
    if (!/^\d+$/.test(t)) return 'Expected rows must be a whole number (0 or more).';
    req.expect = Number(t);
    if (f.partition.trim()) req.partition = f.partition.trim();
    else if (f.allowMoving) req.allowMoving = true;
  }
  if (f.predicate === 'matches-source') {
    if (!f.source.trim()) return 'Give the source file (Parquet, CSV or JSON lines).';
    req.source = f.source.trim();
    // Sent even when empty: the engine's refusal explains why a partition is required.
    if (f.partition.trim()) req.partition = f.partition.trim();
  }
  if (f.partition.trim() && !/^[^=]+=/.test(f.partition.trim())) return 'The partition reads column=value, e.g. dt=2026-08-12.';
  return req;
}

const blankForm: BisectForm = { predicate: 'unique-keys', keys: '', expect: '', partition: '', source: '', allowMoving: false };

export function createBisectStore(client: ApiClient) {
  const search = createJob<JobProgress<'bisect'>>();
  return createStore<BisectState>()((set, get) => ({
    form: blankForm,
    status: 'idle',
    path: null,
    latest: -1,
    plan: null,
    probes: [],
    progress: null,
    result: null,
    error: null,
    startedAt: 0,
    finishedAt: 0,

    setForm(patch) {
      set((s) => ({ form: { ...s.form, ...patch } }));
    },

    async run(path, latest) {
      const req = requestOf(path, get().form);
      if (typeof req === 'string') {
        set({ status: 'error', path, latest, plan: null, probes: [], result: null, error: { code: 'usage', message: req } });
        return;
      }
      set({ status: 'running', path, latest, plan: null, probes: [], progress: null, result: null, error: null, startedAt: Date.now(), finishedAt: 0 });
      await search.run(({ signal, onProgress }) => client.invoke('bisect', req, { signal, onProgress }), {
        progress: (p) => {
          const d = p.data;
          if (d?.kind === 'probe') {
            const probe: ProbeEvent = { version: d.version, state: d.state, probeIndex: d.probeIndex, ...(d.detail ? { detail: d.detail } : {}) };
            set((s) => ({ probes: [...s.probes, probe], progress: p }));
          } else if (d?.kind === 'plan') {
            set({ plan: { latestVersion: d.latestVersion, unreadableVersions: d.unreadableVersions, unreadable: d.unreadable, partitionAppearsAt: d.partitionAppearsAt, exhaustive: d.exhaustive }, progress: p });
          } else set({ progress: p });
        },
        done: (result) => {
          // The result is the record: it also holds any probe whose event a dropped stream lost.
          const have = new Set(get().probes.map((p) => p.probeIndex));
          const missing = result.probes.filter((p) => !have.has(p.probeIndex));
          const probes = [...get().probes, ...missing].sort((a, b) => a.probeIndex - b.probeIndex);
          set({ status: 'done', result, probes, latest: Math.max(latest, result.latestVersion), progress: null, finishedAt: Date.now() });
        },
        error: (error) => set({ status: 'error', progress: null, error, finishedAt: Date.now() }),
      });
    },

    cancel() {
      search.cancel();
    },

    reset() {
      search.drop();
      set({ status: 'idle', path: null, plan: null, probes: [], progress: null, result: null, error: null });
    },
  }));
}

/** The bisect store of this window. */
export const bisectStoreFor = perClient(createBisectStore);

export function useBisect<T>(selector: (s: BisectState) => T): T {
  return useClientStore(bisectStoreFor, selector);
}
