// The timeline screen's state: the table's forensics (timeline + heuristics + header) and the
// selected version's commit detail. A newer load or selection wins over a slower older one.
import { createStore } from 'zustand/vanilla';
import { unpackRows, type ApiClient, type CommitDetail, type TableOverview } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { ForensicsResult, VersionSummary } from '../../shared/forensics';
import type { Progress } from '../../shared/jobs';
import { useClientStore } from './context';
import { createJob, perClient } from './job';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface DetailState {
  version: number;
  status: LoadStatus;
  data: CommitDetail | null;
  error: LakerecErrorData | null;
}

export interface TimelineState {
  path: string | null;
  status: LoadStatus;
  progress: Progress | null;
  overview: TableOverview | null;
  forensics: ForensicsResult | null;
  error: LakerecErrorData | null;
  selected: number | null;
  detail: DetailState | null;

  load(path: string, select?: number | null): Promise<void>;
  cancel(): void;
  select(version: number): Promise<void>;
  /** Select the neighbouring version (left/right keys): -1 older, +1 newer. */
  step(delta: number): void;
}

/** The index of `version` in the versions (ascending), by binary search; -1 when absent. */
function indexOf(vs: ForensicsResult['versions'], version: number): number {
  let lo = 0;
  let hi = vs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = vs[mid].version;
    if (v === version) return mid;
    if (v < version) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The version to open first: the newest one a warning fired at, else the latest. */
function firstPick(f: ForensicsResult): number | null {
  // A loop, not Math.max(...list): a log with a warning at each of a million versions must not overflow the stack.
  let newest: number | null = null;
  for (const h of f.heuristics) if (h.severity === 'warn' && (newest === null || h.version > newest)) newest = h.version;
  if (newest !== null) return newest;
  return f.versions.length ? f.versions[f.versions.length - 1].version : null;
}

/** Commit details kept per loaded table: a step back to a version seen (or prefetched) is instant. */
const DETAIL_CACHE = 64;

export function createTimelineStore(client: ApiClient) {
  const loadJob = createJob();
  const detailJob = createJob();
  // The details of this table's versions already fetched, most recently used last; and the
  // prefetches in flight (dropped with the table).
  let cache = new Map<number, CommitDetail>();
  let prefetching = new AbortController();
  const remember = (version: number, d: CommitDetail) => {
    cache.delete(version);
    cache.set(version, d);
    while (cache.size > DETAIL_CACHE) cache.delete(cache.keys().next().value as number);
  };
  /** The versions a step from `version` reaches (its neighbours in the log), fetched ahead in the background. */
  const prefetchAround = (path: string, f: ForensicsResult, version: number) => {
    const vs = f.versions;
    const at = indexOf(vs, version);
    if (at < 0) return;
    const { signal } = prefetching;
    const tableCache = cache;
    for (const i of [at - 1, at + 1]) {
      const v = vs[i]?.version;
      if (v === undefined || tableCache.has(v)) continue;
      client.invoke('commitDetail', { path, version: v }, { signal }).then((d) => {
        if (cache === tableCache && !signal.aborted) remember(v, d);
      }, () => { /* a prefetch that fails is fetched again (and its error shown) when selected */ });
    }
  };
  return createStore<TimelineState>()((set, get) => ({
    path: null,
    status: 'idle',
    progress: null,
    overview: null,
    forensics: null,
    error: null,
    selected: null,
    detail: null,

    async load(path, select) {
      detailJob.cancel();
      prefetching.abort();
      prefetching = new AbortController();
      cache = new Map();
      set({ path, status: 'loading', progress: null, overview: null, forensics: null, error: null, selected: null, detail: null });
      // The versions travel packed by column (a fraction of the JSON for 10,000 versions).
      await loadJob.run(({ signal, onProgress }) => client.invoke('timeline', { path }, { signal, onProgress }), {
        progress: (progress) => set({ progress }),
        done: async (r) => {
          const forensics: ForensicsResult = { ...r.forensics, versions: unpackRows<VersionSummary>(r.forensics.versions) };
          set({ status: 'ready', progress: null, overview: r.overview, forensics });
          const pick = select ?? firstPick(forensics);
          if (pick !== null) await get().select(pick);
        },
        error: (error) => set({ status: 'error', progress: null, error }),
      });
    },

    cancel() {
      loadJob.cancel();
    },

    async select(version) {
      const path = get().path;
      if (path === null) return;
      const known = cache.get(version);
      if (known) {
        // One state change, no request: the commit panel shows it in the same frame as the selection.
        detailJob.drop();
        remember(version, known);
        set({ selected: version, detail: { version, status: 'ready', data: known, error: null } });
        const f = get().forensics;
        if (f) prefetchAround(path, f, version);
        return;
      }
      set({ selected: version, detail: { version, status: 'loading', data: null, error: null } });
      await detailJob.run(({ signal }) => client.invoke('commitDetail', { path, version }, { signal }), {
        done: (data) => {
          remember(version, data);
          set({ detail: { version, status: 'ready', data, error: null } });
          const f = get().forensics;
          if (f && get().path === path) prefetchAround(path, f, version);
        },
        error: (error) => set({ detail: { version, status: 'error', data: null, error } }),
      });
    },

    step(delta) {
      const { forensics, selected } = get();
      if (!forensics || forensics.versions.length === 0) return;
      const vs = forensics.versions;
      const at = selected === null ? -1 : indexOf(vs, selected);
      const next = at < 0 ? (delta > 0 ? 0 : vs.length - 1) : Math.min(vs.length - 1, Math.max(0, at + delta));
      if (vs[next].version !== selected) void get().select(vs[next].version);
    },
  }));
}

/** The timeline store of this window. */
export const timelineStoreFor = perClient(createTimelineStore);

export function useTimeline<T>(selector: (s: TimelineState) => T): T {
  return useClientStore(timelineStoreFor, selector);
}
