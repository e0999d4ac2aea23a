// The version search, independent of what is being tested. Under EXHAUSTIVE_LIMIT versions every
// readable version is evaluated (so a healed history is seen); above it a binary search between
// the oldest readable version and the latest, which assumes monotonicity and says so.
import type { ProbeResult, ProbeState, Transition } from '../../shared/bisect';
import { throwIfCancelled, type JobContext } from '../../shared/jobs';

/** Tables with fewer versions than this are walked in full (the seed's 48). */
export const EXHAUSTIVE_LIMIT = 48;

export interface Evaluation {
  state: ProbeState;
  measured?: number | null;
  detail?: string;
  filesRead: number;
}

export interface SearchInput {
  /** 0..latest; unreadable versions are never evaluated. */
  latestVersion: number;
  readable: (v: number) => boolean;
  evaluate: (v: number) => Promise<Evaluation>;
  onProbe?: (p: ProbeResult) => void;
  ctx?: JobContext;
  /** Override of EXHAUSTIVE_LIMIT (tests). */
  exhaustiveLimit?: number;
}

export interface SearchOutcome {
  outcome: 'clean' | 'bad' | 'not_recoverable' | 'unreadable';
  firstBad: number | null;
  lastGood: number | null;
  exhaustive: boolean;
  monotone: boolean | null;
  healed: boolean;
  transitions: Transition[];
  oldestReadable: number | null;
  latestState: ProbeState | null;
  probes: ProbeResult[];
  notes: string[];
}

/** Every version strictly between the last good and the first bad one went unevaluated (the walk
 *  evaluates every readable version; the binary search ends on adjacent evaluable ones): say so. */
function gapNote(notes: string[], lastGood: number, firstBad: number): void {
  if (firstBad - lastGood <= 1) return;
  const span = firstBad - lastGood === 2 ? `v${lastGood + 1}` : `v${lastGood + 1}-v${firstBad - 1}`;
  notes.push(`${span} between the last good and the first bad version could not be evaluated (unreadable): the failure may have started at any of them`);
}

export async function searchVersions(input: SearchInput): Promise<SearchOutcome> {
  const { latestVersion, readable, ctx } = input;
  const probes: ProbeResult[] = [];
  const known = new Map<number, ProbeState>();
  /** Probes the search will make: every readable version when walking; unknown for a binary search. */
  let plannedTotal: number | null = null;
  const notes: string[] = [];

  const probe = async (v: number): Promise<ProbeState> => {
    const hit = known.get(v);
    if (hit) return hit;
    throwIfCancelled(ctx);
    const ev = await input.evaluate(v);
    const p: ProbeResult = { version: v, state: ev.state, probeIndex: probes.length, filesRead: ev.filesRead };
    if (ev.detail !== undefined) p.detail = ev.detail;
    if (ev.measured !== undefined) p.measured = ev.measured;
    probes.push(p);
    known.set(v, ev.state);
    input.onProbe?.(p);
    ctx?.progress?.({ phase: 'bisect', done: probes.length, total: plannedTotal, message: `v${v} ${ev.state}` });
    return ev.state;
  };

  const readableVersions: number[] = [];
  for (let v = 0; v <= latestVersion; v++) if (readable(v)) readableVersions.push(v);
  const base = { probes, notes, healed: false, transitions: [] as Transition[] };
  if (readableVersions.length === 0) {
    return { ...base, outcome: 'unreadable', firstBad: null, lastGood: null, exhaustive: false, monotone: null, oldestReadable: null, latestState: null };
  }
  const oldest = readableVersions[0];
  const versionCount = latestVersion + 1;
  const limit = input.exhaustiveLimit ?? EXHAUSTIVE_LIMIT;

  if (versionCount < limit) {
    plannedTotal = readableVersions.length;
    // Walk everything; a version whose data cannot be read counts as neither good nor bad.
    const states: { v: number; s: ProbeState }[] = [];
    for (const v of readableVersions) states.push({ v, s: await probe(v) });
    const evaluated = states.filter((x) => x.s !== 'unreadable');
    const transitions: Transition[] = [];
    for (let i = 1; i < evaluated.length; i++) {
      const a = evaluated[i - 1];
      const b = evaluated[i];
      if (a.s !== b.s) transitions.push({ kind: b.s === 'bad' ? 'broke' : 'recovered', from: a.v, to: b.v });
    }
    const firstBadIdx = evaluated.findIndex((x) => x.s === 'bad');
    const latestState = known.get(latestVersion) ?? null;
    const healed = transitions.some((t) => t.kind === 'recovered');
    const monotone = transitions.length <= 1;
    if (evaluated.length === 0) {
      return { ...base, outcome: 'unreadable', firstBad: null, lastGood: null, exhaustive: true, monotone: null, oldestReadable: oldest, latestState };
    }
    if (firstBadIdx < 0 && latestState === 'unreadable') {
      notes.push(`no examined version fails, but the latest (v${latestVersion}) could not be evaluated: the table as it is now is not known to be clean`);
      return { ...base, outcome: 'unreadable', firstBad: null, lastGood: evaluated[evaluated.length - 1].v, exhaustive: true, monotone, oldestReadable: oldest, latestState };
    }
    if (firstBadIdx < 0) {
      return { ...base, outcome: 'clean', firstBad: null, lastGood: evaluated[evaluated.length - 1].v, exhaustive: true, monotone, oldestReadable: oldest, latestState };
    }
    if (firstBadIdx === 0 && evaluated[0].v > 0) {
      // Every version before the first evaluated one is unreadable (log cleaned up or data vacuumed).
      const first = evaluated[0].v;
      notes.push(`it already fails at v${first}, the oldest version this log still holds${first !== oldest ? ' with readable data' : ''}: the true first bad version is not recoverable from this table`);
      return { ...base, outcome: 'not_recoverable', firstBad: null, lastGood: null, exhaustive: true, monotone, healed, transitions, oldestReadable: oldest, latestState };
    }
    const lastGoodV = firstBadIdx > 0 ? evaluated[firstBadIdx - 1].v : null;
    if (lastGoodV !== null) gapNote(notes, lastGoodV, evaluated[firstBadIdx].v);
    if (healed) {
      notes.push(`healed: ${transitions.map((t) => `${t.kind} at v${t.to}`).join(', ')}; the latest version is ${latestState ?? 'not evaluated'}`);
    }
    return {
      ...base, outcome: 'bad', firstBad: evaluated[firstBadIdx].v, lastGood: firstBadIdx > 0 ? evaluated[firstBadIdx - 1].v : null,
      exhaustive: true, monotone, healed, transitions, oldestReadable: oldest, latestState,
    };
  }

  // Binary search over the readable versions. Indices into readableVersions.
  notes.push(`${versionCount} versions (>= ${limit}): binary search, assuming the predicate stays bad once it fails; monotonicity was assumed, not checked (monotone: null)`);
  /** The nearest index in (lo, hi) whose version evaluates to good or bad, searching outward from mid. */
  const nearestEvaluable = async (lo: number, hi: number): Promise<{ i: number; s: ProbeState } | null> => {
    const mid = Math.floor((lo + hi) / 2);
    for (let d = 0; mid - d > lo || mid + d < hi; d++) {
      for (const i of d === 0 ? [mid] : [mid - d, mid + d]) {
        if (i <= lo || i >= hi) continue;
        const s = await probe(readableVersions[i]);
        if (s !== 'unreadable') return { i, s };
      }
    }
    return null;
  };
  // The oldest readable version whose data can be evaluated.
  let loIdx = -1;
  let loState: ProbeState = 'unreadable';
  for (let i = 0; i < readableVersions.length && loState === 'unreadable'; i++) {
    loState = await probe(readableVersions[i]);
    loIdx = i;
  }
  if (loState === 'unreadable') {
    return { ...base, outcome: 'unreadable', firstBad: null, lastGood: null, exhaustive: false, monotone: null, oldestReadable: oldest, latestState: 'unreadable' };
  }
  let hiIdx = readableVersions.length - 1;
  let hiState = await probe(readableVersions[hiIdx]);
  while (hiState === 'unreadable' && hiIdx > loIdx) hiState = await probe(readableVersions[--hiIdx]);
  const latestState = known.get(latestVersion) ?? null;
  if (loState === 'bad') {
    if (readableVersions[loIdx] > 0) {
      notes.push(`it already fails at v${readableVersions[loIdx]}, the oldest version this log still holds${readableVersions[loIdx] !== oldest ? ' with readable data' : ''}: the true first bad version is not recoverable from this table`);
      return { ...base, outcome: 'not_recoverable', firstBad: null, lastGood: null, exhaustive: false, monotone: null, oldestReadable: oldest, latestState };
    }
    return { ...base, outcome: 'bad', firstBad: 0, lastGood: null, exhaustive: false, monotone: null, oldestReadable: oldest, latestState };
  }
  if (hiState !== 'bad' && latestState === 'unreadable') {
    notes.push(`the latest version (v${latestVersion}) could not be evaluated and v${readableVersions[hiIdx]} passes: the table as it is now is not known to be clean`);
    return { ...base, outcome: 'unreadable', firstBad: null, lastGood: readableVersions[hiIdx], exhaustive: false, monotone: null, oldestReadable: oldest, latestState };
  }
  if (hiState !== 'bad') {
    notes.push('the latest version passes; under the monotonicity assumption no version in between was bad (an exhaustive walk would be needed to see a healed incident)');
    return { ...base, outcome: 'clean', firstBad: null, lastGood: readableVersions[hiIdx], exhaustive: false, monotone: null, oldestReadable: oldest, latestState };
  }
  // Invariant: lo good, hi bad.
  let lo = loIdx;
  let hi = hiIdx;
  while (hi - lo > 1) {
    const m = await nearestEvaluable(lo, hi);
    if (!m) break; // everything strictly between is unreadable
    if (m.s === 'bad') hi = m.i; else lo = m.i;
  }
  gapNote(notes, readableVersions[lo], readableVersions[hi]);
  return {
    ...base, outcome: 'bad', firstBad: readableVersions[hi], lastGood: readableVersions[lo], exhaustive: false, monotone: null,
    oldestReadable: oldest, latestState,
  };
}
