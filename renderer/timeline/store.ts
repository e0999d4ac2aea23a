// The investigation screen's state: the table's forensics (timeline + heuristics + header) and
// the selected version's commit detail. A newer load or selection wins over a slower older one.
import { create } from 'zustand';
import { ApiCallError, type ApiClient, type CommitDetail, type TableOverview } from '../../shared/api';
import { toErrorData, type LakerecErrorData } from '../../shared/errors';
import type { ForensicsResult } from '../../shared/forensics';
import type { Progress } from '../../shared/jobs';

export type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface DetailState {
  version: number;
  status: LoadStatus;
  data: CommitDetail | null;
  error: LakerecErrorData | null;
}

export interface InvestigationState {
  path: string | null;
  status: LoadStatus;
  progress: Progress | null;
  overview: TableOverview | null;
  forensics: ForensicsResult | null;
  error: LakerecErrorData | null;
  selected: number | null;
  detail: DetailState | null;

  load(client: ApiClient, path: string, select?: number | null): Promise<void>;
  cancel(): void;
  select(client: ApiClient, version: number): Promise<void>;
  /** Select the neighbouring version (left/right keys): -1 older, +1 newer. */
  step(client: ApiClient, delta: number): void;
}

function errorOf(e: unknown): LakerecErrorData {
  return e instanceof ApiCallError ? e.data : toErrorData(e);
}

let loadSeq = 0;
let detailSeq = 0;
let loadController: AbortController | null = null;
let detailController: AbortController | null = null;

/** The version to open first: the newest one a warning fired at, else the latest. */
function firstPick(f: ForensicsResult): number | null {
  const warn = f.heuristics.filter((h) => h.severity === 'warn').map((h) => h.version);
  if (warn.length) return Math.max(...warn);
  return f.versions.length ? f.versions[f.versions.length - 1].version : null;
}

export const useTimeline = create<InvestigationState>()((set, get) => ({
  path: null,
  status: 'idle',
  progress: null,
  overview: null,
  forensics: null,
  error: null,
  selected: null,
  detail: null,

  async load(client, path, select) {
    loadController?.abort();
    detailController?.abort();
    const mine = ++loadSeq;
    const ac = new AbortController();
    loadController = ac;
    set({ path, status: 'loading', progress: null, overview: null, forensics: null, error: null, selected: null, detail: null });
    try {
      const r = await client.invoke('forensics', { path }, { signal: ac.signal, onProgress: (p) => { if (mine === loadSeq) set({ progress: p }); } });
      if (mine !== loadSeq) return;
      set({ status: 'ready', progress: null, overview: r.overview, forensics: r.forensics });
      const pick = select ?? firstPick(r.forensics);
      if (pick !== null) await get().select(client, pick);
    } catch (e) {
      if (mine !== loadSeq) return;
      set({ status: 'error', progress: null, error: errorOf(e) });
    } finally {
      if (mine === loadSeq) loadController = null;
    }
  },

  cancel() {
    loadController?.abort();
  },

  async select(client, version) {
    const path = get().path;
    if (path === null) return;
    detailController?.abort();
    const mine = ++detailSeq;
    const ac = new AbortController();
    detailController = ac;
    set({ selected: version, detail: { version, status: 'loading', data: null, error: null } });
    try {
      const data = await client.invoke('commitDetail', { path, version }, { signal: ac.signal });
      if (mine !== detailSeq) return;
      set({ detail: { version, status: 'ready', data, error: null } });
    } catch (e) {
      if (mine !== detailSeq) return;
      set({ detail: { version, status: 'error', data: null, error: errorOf(e) } });
    }
  },

  step(client, delta) {
    const { forensics, selected } = get();
    if (!forensics || forensics.versions.length === 0) return;
    const vs = forensics.versions;
    const at = selected === null ? -1 : vs.findIndex((v) => v.version === selected);
    const next = at < 0 ? (delta > 0 ? 0 : vs.length - 1) : Math.min(vs.length - 1, Math.max(0, at + delta));
    if (vs[next].version !== selected) void get().select(client, vs[next].version);
  },
}));
