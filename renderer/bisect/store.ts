// The bisect screen's state: the predicate form, the probes as they arrive (progress `data`),
// and the result. One search at a time; Cancel aborts it in the engine.
import { create } from 'zustand';
import { ApiCallError, type ApiClient, type BisectRequest } from '../../shared/api';
import type { BisectPlan, BisectResult, PredicateName, ProbeEvent } from '../../shared/bisect';
import { toErrorData, type LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';

export type BisectStatus = 'idle' | 'running' | 'done' | 'error';

export interface BisectForm {
  predicate: PredicateName;
  keys: string;
  expect: string;
  partition: string;
  source: string;
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
  run(client: ApiClient, path: string, latest: number): Promise<void>;
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

function errorOf(e: unknown): LakerecErrorData {
  return e instanceof ApiCallError ? e.data : toErrorData(e);
}

let seq = 0;
let controller: AbortController | null = null;

const blankForm: BisectForm = { predicate: 'unique-keys', keys: '', expect: '', partition: '', source: '' };

export const useBisect = create<BisectState>()((set, get) => ({
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

  async run(client, path, latest) {
    const req = requestOf(path, get().form);
    if (typeof req === 'string') {
      set({ status: 'error', path, latest, plan: null, probes: [], result: null, error: { code: 'usage', message: req } });
      return;
    }
    controller?.abort();
    const mine = ++seq;
    const ac = new AbortController();
    controller = ac;
    set({ status: 'running', path, latest, plan: null, probes: [], progress: null, result: null, error: null, startedAt: Date.now(), finishedAt: 0 });
    try {
      const result = await client.invoke('bisect', req, {
        signal: ac.signal,
        onProgress: (p) => {
          if (mine !== seq) return;
          const d = p.data;
          if (d?.kind === 'probe') {
            const probe: ProbeEvent = { version: d.version, state: d.state, probeIndex: d.probeIndex, ...(d.detail ? { detail: d.detail } : {}) };
            set((s) => ({ probes: [...s.probes, probe], progress: p }));
          } else if (d?.kind === 'plan') {
            set({ plan: { latestVersion: d.latestVersion, unreadableVersions: d.unreadableVersions, unreadable: d.unreadable, partitionAppearsAt: d.partitionAppearsAt, exhaustive: d.exhaustive }, progress: p });
          } else set({ progress: p });
        },
      });
      if (mine !== seq) return;
      // The result is the record: it also holds any probe whose event a dropped stream lost.
      const have = new Set(get().probes.map((p) => p.probeIndex));
      const missing = result.probes.filter((p) => !have.has(p.probeIndex));
      const probes = [...get().probes, ...missing].sort((a, b) => a.probeIndex - b.probeIndex);
      set({ status: 'done', result, probes, latest: Math.max(latest, result.latestVersion), progress: null, finishedAt: Date.now() });
    } catch (e) {
      if (mine !== seq) return;
      set({ status: 'error', progress: null, error: errorOf(e), finishedAt: Date.now() });
    } finally {
      if (mine === seq) controller = null;
    }
  },

  cancel() {
    controller?.abort();
  },

  reset() {
    controller?.abort();
    seq++;
    set({ status: 'idle', path: null, plan: null, probes: [], progress: null, result: null, error: null });
  },
}));
