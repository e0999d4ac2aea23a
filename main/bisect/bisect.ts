// Bisect: replay the log once, bind the predicate, search the versions, and describe the culprit
// commit from the log.
import type { BisectPlan, BisectResult, CulpritCommit, PredicateSpec, ProbeEvent } from '../../shared/bisect';
import type { JobContext } from '../../shared/jobs';
import { replayHistory, partitionLabel, type History, type HistorySource } from '../forensics/history';
import { openHistorySource } from '../forensics/source';
import { bindPredicate } from './predicates';
import { EXHAUSTIVE_LIMIT, searchVersions } from './search';

export interface BisectContext extends JobContext {
  /** Called once per evaluated version, as soon as its result is known. */
  onProbe?(e: ProbeEvent): void;
  /** Called once, before the first probe: the versions and which of them the log cannot produce. */
  onPlan?(p: BisectPlan): void;
  /** Tests and embedders may hand a history source (default: the reader over `root`). */
  source?: HistorySource;
  /** Override the exhaustive-walk limit (default 48 versions). */
  exhaustiveLimit?: number;
  /** Read data files whose paths resolve outside the table root (off by default). */
  allowOutsidePaths?: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

export async function bisect(root: string, spec: PredicateSpec, ctx: BisectContext = {}): Promise<BisectResult> {
  const src = ctx.source ?? await openHistorySource(root, { allowOutsidePaths: ctx.allowOutsidePaths });
  const history = await replayHistory(src, ctx);
  return bisectHistory(history, spec, ctx);
}

export async function bisectHistory(h: History, spec: PredicateSpec, ctx: BisectContext = {}): Promise<BisectResult> {
  const pred = await bindPredicate(spec, h, { ctx, allowOutsidePaths: ctx.allowOutsidePaths });
  try {
    ctx.onPlan?.({
      latestVersion: h.latestVersion,
      unreadableVersions: h.states.filter((s) => !s.info.readable).map((s) => s.version),
      exhaustive: h.latestVersion + 1 < (ctx.exhaustiveLimit ?? EXHAUSTIVE_LIMIT),
    });
    const found = await searchVersions({
      latestVersion: h.latestVersion,
      readable: (v) => h.states[v]?.info.readable === true,
      evaluate: (v) => pred.evaluate(v),
      onProbe: ctx.onProbe ? (p) => ctx.onProbe?.({ version: p.version, state: p.state, probeIndex: p.probeIndex, ...(p.detail ? { detail: p.detail } : {}) }) : undefined,
      ctx,
      exhaustiveLimit: ctx.exhaustiveLimit,
    });
    const unreadable = h.states.filter((s) => !s.info.readable).map((s) => s.version);
    const notes = [...found.notes, ...pred.notes];
    if (pred.logOnly && pred.filesRead() === 0) notes.push('answered from the log alone: no data file was opened');
    return {
      root: h.root,
      predicate: spec,
      semantics: pred.semantics,
      outcome: found.outcome,
      firstBad: found.firstBad,
      lastGood: found.lastGood,
      culprit: found.firstBad === null ? null : culprit(h, found.firstBad),
      healed: found.healed,
      transitions: found.transitions,
      exhaustive: found.exhaustive,
      monotone: found.monotone,
      latestVersion: h.latestVersion,
      oldestReadableVersion: h.oldestReadable,
      unreadableVersions: unreadable,
      latestState: found.latestState,
      examined: found.probes.length,
      probes: found.probes,
      filesRead: pred.filesRead(),
      filesFromCache: pred.filesFromCache(),
      notes,
    };
  } finally {
    pred.close();
  }
}

function culprit(h: History, v: number): CulpritCommit {
  const st = h.states[v];
  const ci = st.change?.commitInfo ?? null;
  const adds = (st.commitAdded ?? st.added).map((id) => h.files[id]);
  const rems = st.commitAdded ? [] : st.removed.map((id) => h.files[id]);
  const cols = st.metadata?.partitionColumns ?? [];
  const rows = (xs: typeof adds): number | null => xs.some((x) => x.numRecords === null) ? null : xs.reduce((s, x) => s + (x.numRecords ?? 0), 0);
  const ts = st.change?.timestamp ?? 0;
  return {
    version: v,
    timestamp: ts,
    when: ts ? iso(ts) : '',
    operation: ci?.operation ?? null,
    operationParameters: (ci?.operationParameters as Record<string, unknown> | undefined) ?? {},
    addedFiles: adds.length,
    removedFiles: rems.length,
    addedRows: rows(adds),
    removedRows: rows(rems),
    partitions: cols.length ? [...new Set([...adds, ...rems].map((f) => partitionLabel(f.partitionValues, cols)))].sort() : [],
    addedPaths: adds.slice(0, 20).map((f) => f.path),
    removedPaths: rems.slice(0, 20).map((f) => f.path),
  };
}
