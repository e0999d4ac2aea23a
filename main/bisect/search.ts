// The version search, independent of what is being tested. Under EXHAUSTIVE_LIMIT versions every
// readable version is evaluated (so a healed history is seen); above it a binary search between
// the oldest readable version and the latest, which assumes monotonicity and says so.
import type { BisectOutcome, ProbeResult, ProbeState, Transition } from '../../shared/bisect';
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
  /** The versions that exist, ascending; unreadable versions are never evaluated. */
  versions: number[];
  readable: (v: number) => boolean;
  /** A partition predicate: versions before this hold no file of the partition ("before the partition existed"). */
  appliesFrom?: number | null;
  evaluate: (v: number) => Promise<Evaluation>;
  onProbe?: (p: ProbeResult) => void;
  ctx?: JobContext;
  /** Override of EXHAUSTIVE_LIMIT (tests). */
  exhaustiveLimit?: number;
}

export interface SearchOutcome {
  outcome: BisectOutcome;
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
function gapNote(notes: string[], versions: number[], lastGood: number, firstBad: number): void {
  const between = versions.filter((v) => v > lastGood && v < firstBad);
  if (!between.length) return;
  const span = between.length === 1 ? `v${between[0]}` : `v${between[0]}-v${between[between.length - 1]}`;
  notes.push(`${span} between the last good and the first bad version could not be evaluated (unreadable): the failure may have started at any of them`);
}

const NOT_MONOTONE = (oldest: number, latest: number) =>
  `the predicate fails at the oldest evaluated version (v${oldest}) and passes at the latest (v${latest}): it is not monotone over this history, so no version is named as the culprit`;

export async function searchVersions(input: SearchInput): Promise<SearchOutcome> {
  const { versions, readable, ctx } = input;
  const latestVersion = versions.length ? versions[versions.length - 1] : -1;
  const appliesFrom = input.appliesFrom ?? null;
  const probes: ProbeResult[] = [];
  const known = new Map<number, ProbeState>();
  /** Probes the search will make: every version when walking; unknown for a binary search. */
  let plannedTotal: number | null = null;
  const notes: string[] = [];

  const emit = (v: number, ev: Evaluation): ProbeState => {
    const p: ProbeResult = { version: v, state: ev.state, probeIndex: probes.length, filesRead: ev.filesRead };
    if (ev.detail !== undefined) p.detail = ev.detail;
    if (ev.measured !== undefined) p.measured = ev.measured;
    probes.push(p);
    known.set(v, ev.state);
    // Sent as soon as it is known: the window colours the cell live, before the job ends.
    input.onProbe?.(p);
    ctx?.progress?.({ phase: 'bisect', done: probes.length, total: plannedTotal, message: `v${v} ${ev.state}` });
    return ev.state;
  };
  const probe = async (v: number): Promise<ProbeState> => {
    const hit = known.get(v);
    if (hit) return hit;
    throwIfCancelled(ctx);
    return emit(v, await input.evaluate(v));
  };

  const readableVersions = versions.filter((v) => readable(v));
  const base = { probes, notes, healed: false, transitions: [] as Transition[] };
  const latestUnreadable = !readable(latestVersion);
  if (readableVersions.length === 0) {
    return { ...base, outcome: 'unreadable', firstBad: null, lastGood: null, exhaustive: false, monotone: null, oldestReadable: null, latestState: 'unreadable' };
  }
  const oldest = readableVersions[0];
  const limit = input.exhaustiveLimit ?? EXHAUSTIVE_LIMIT;
  /** Unreadable (by the log, or by its data) before v and at or after the partition's first version. */
  const unreadableBefore = (v: number): boolean => versions.some((u) => u < v && (!readable(u) || known.get(u) === 'unreadable'));

  if (versions.length < limit) {
    // Walk everything; a version whose data cannot be read counts as neither good nor bad, and so
    // does one before the partition existed.
    const applicable = readableVersions.filter((v) => appliesFrom === null || v >= appliesFrom);
    plannedTotal = readableVersions.length;
    const states: { v: number; s: ProbeState }[] = [];
    for (const v of readableVersions) {
      if (appliesFrom !== null && v < appliesFrom) {
        emit(v, { state: 'before_partition', filesRead: 0, detail: `before the partition existed (its first file is at v${appliesFrom})` });
        continue;
      }
      states.push({ v, s: await probe(v) });
    }
    const evaluated = states.filter((x) => x.s === 'good' || x.s === 'bad');
    const transitions: Transition[] = [];
    for (let i = 1; i < evaluated.length; i++) {
      const a = evaluated[i - 1];
      const b = evaluated[i];
      if (a.s !== b.s) transitions.push({ kind: b.s === 'bad' ? 'broke' : 'recovered', from: a.v, to: b.v });
    }
    const firstBadIdx = evaluated.findIndex((x) => x.s === 'bad');
    const latestState = latestUnreadable ? 'unreadable' : known.get(latestVersion) ?? null;
    const monotone = transitions.length <= 1;
    const healed = firstBadIdx >= 0 && latestState === 'good';
    if (evaluated.length === 0) {
      if (!applicable.length) notes.push('the partition holds no file at any readable version');
      return { ...base, outcome: 'unreadable', firstBad: null, lastGood: null, exhaustive: true, monotone: null, oldestReadable: oldest, latestState };
    }
    const lastEvaluated = evaluated[evaluated.length - 1];
    if (latestState === 'unreadable' && lastEvaluated.s === 'good') {
      // Never "clean" or a culprit when the table as it is now cannot be read.
      notes.push(`${firstBadIdx < 0 ? 'no examined version fails' : `v${lastEvaluated.v} passes`}, but the latest (v${latestVersion}) could not be evaluated: the table as it is now is not known to be clean`);
      return { ...base, outcome: 'unreadable', firstBad: null, lastGood: lastEvaluated.v, exhaustive: true, monotone, transitions, oldestReadable: oldest, latestState };
    }
    if (firstBadIdx < 0) {
      return { ...base, outcome: 'clean', firstBad: null, lastGood: evaluated[evaluated.length - 1].v, exhaustive: true, monotone, oldestReadable: oldest, latestState };
    }
    if (firstBadIdx === 0 && latestState === 'good') {
      // The result checked against its own probes: bad first and good last names no culprit.
      notes.push(NOT_MONOTONE(evaluated[0].v, latestVersion));
      return { ...base, outcome: 'not_monotone', firstBad: null, lastGood: null, exhaustive: true, monotone: false, transitions, oldestReadable: oldest, latestState };
    }
    if (firstBadIdx === 0 && unreadableBefore(evaluated[0].v)) {
      // Every version before the first evaluated one is unreadable (log cleaned up or data vacuumed).
      const first = evaluated[0].v;
      notes.push(`it already fails at v${first}, the oldest version this log still holds${first !== oldest ? ' with readable data' : ''}: the true first bad version is not recoverable from this table`);
      return { ...base, outcome: 'not_recoverable', firstBad: null, lastGood: null, exhaustive: true, monotone, transitions, oldestReadable: oldest, latestState };
    }
    const lastGoodV = firstBadIdx > 0 ? evaluated[firstBadIdx - 1].v : null;
    if (lastGoodV !== null) gapNote(notes, versions, lastGoodV, evaluated[firstBadIdx].v);
    if (firstBadIdx === 0 && appliesFrom !== null) notes.push(`the partition was already bad at v${evaluated[0].v}, its first version with a file: that commit created it so`);
    if (healed) {
      notes.push(`healed: ${transitions.map((t) => `${t.kind} at v${t.to}`).join(', ')}; the latest version passes`);
    } else if (transitions.some((t) => t.kind === 'recovered')) {
      notes.push(`not monotone: ${transitions.map((t) => `${t.kind} at v${t.to}`).join(', ')}; the latest version fails`);
    }
    return {
      ...base, outcome: 'bad', firstBad: evaluated[firstBadIdx].v, lastGood: lastGoodV,
      exhaustive: true, monotone, healed, transitions, oldestReadable: oldest, latestState,
    };
  }

  // Binary search over the readable versions where the predicate applies. Indices into `cand`.
  const cand = readableVersions.filter((v) => appliesFrom === null || v >= appliesFrom);
  notes.push(`${versions.length} versions (>= ${limit}): binary search, assuming the predicate stays bad once it fails; monotonicity was assumed, not checked (monotone: null)`);
  if (appliesFrom !== null && appliesFrom > oldest) notes.push(`v${oldest}-v${appliesFrom - 1}: before the partition existed (its first file is at v${appliesFrom}), not evaluated`);
  if (!cand.length) {
    notes.push('the partition holds no file at any readable version');
    return { ...base, outcome: 'unreadable', firstBad: null, lastGood: null, exhaustive: false, monotone: null, oldestReadable: oldest, latestState: latestUnreadable ? 'unreadable' : null };
  }
  /** The nearest index in (lo, hi) whose version evaluates to good or bad, searching outward from mid. */
  const nearestEvaluable = async (lo: number, hi: number): Promise<{ i: number; s: ProbeState } | null> => {
    const mid = Math.floor((lo + hi) / 2);
    for (let d = 0; mid - d > lo || mid + d < hi; d++) {
      for (const i of d === 0 ? [mid] : [mid - d, mid + d]) {
        if (i <= lo || i >= hi) continue;
        const s = await probe(cand[i]);
        if (s !== 'unreadable') return { i, s };
      }
    }
    return null;
  };
  // The oldest version whose data can be evaluated.
  let loIdx = -1;
  let loState: ProbeState = 'unreadable';
  for (let i = 0; i < cand.length && loState === 'unreadable'; i++) {
    loState = await probe(cand[i]);
    loIdx = i;
  }
  if (loState === 'unreadable') {
    return { ...base, outcome: 'unreadable', firstBad: null, lastGood: null, exhaustive: false, monotone: null, oldestReadable: oldest, latestState: 'unreadable' };
  }
  let hiIdx = cand.length - 1;
  let hiState = await probe(cand[hiIdx]);
  while (hiState === 'unreadable' && hiIdx > loIdx) hiState = await probe(cand[--hiIdx]);
  const latestState = latestUnreadable ? 'unreadable' : known.get(latestVersion) ?? null;
  if (loState === 'bad') {
    if (hiState === 'good' && latestState === 'good') {
      notes.push(NOT_MONOTONE(cand[loIdx], latestVersion));
      return { ...base, outcome: 'not_monotone', firstBad: null, lastGood: null, exhaustive: false, monotone: false, oldestReadable: oldest, latestState };
    }
    if (unreadableBefore(cand[loIdx])) {
      notes.push(`it already fails at v${cand[loIdx]}, the oldest version this log still holds${cand[loIdx] !== oldest ? ' with readable data' : ''}: the true first bad version is not recoverable from this table`);
      return { ...base, outcome: 'not_recoverable', firstBad: null, lastGood: null, exhaustive: false, monotone: null, oldestReadable: oldest, latestState };
    }
    return { ...base, outcome: 'bad', firstBad: cand[loIdx], lastGood: null, exhaustive: false, monotone: null, oldestReadable: oldest, latestState };
  }
  if (hiState !== 'bad' && latestState === 'unreadable') {
    notes.push(`the latest version (v${latestVersion}) could not be evaluated and v${cand[hiIdx]} passes: the table as it is now is not known to be clean`);
    return { ...base, outcome: 'unreadable', firstBad: null, lastGood: cand[hiIdx], exhaustive: false, monotone: null, oldestReadable: oldest, latestState };
  }
  if (hiState !== 'bad') {
    notes.push('the latest version passes; under the monotonicity assumption no version in between was bad (an exhaustive walk would be needed to see a healed incident)');
    return { ...base, outcome: 'clean', firstBad: null, lastGood: cand[hiIdx], exhaustive: false, monotone: null, oldestReadable: oldest, latestState };
  }
  // Invariant: lo good, hi bad.
  let lo = loIdx;
  let hi = hiIdx;
  while (hi - lo > 1) {
    const m = await nearestEvaluable(lo, hi);
    if (!m) break; // everything strictly between is unreadable
    if (m.s === 'bad') hi = m.i; else lo = m.i;
  }
  gapNote(notes, versions, cand[lo], cand[hi]);
  return {
    ...base, outcome: 'bad', firstBad: cand[hi], lastGood: cand[lo], exhaustive: false, monotone: null,
    oldestReadable: oldest, latestState,
  };
}
