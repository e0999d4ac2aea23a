// Bisect: search the table's own history for the first bad version, over predicates the table
// can answer alone. Serialisable shapes shared by the engine (main/bisect/), the CLI and the
// window's version strip.

export type PredicateName = 'unique-keys' | 'no-null-keys' | 'row-count' | 'matches-source';

export const PREDICATE_NAMES: readonly PredicateName[] = ['unique-keys', 'no-null-keys', 'row-count', 'matches-source'];

export interface PredicateSpec {
  predicate: PredicateName;
  /** Key columns (unique-keys, no-null-keys). */
  keys?: string[];
  /** Expected row count (row-count). */
  expect?: number;
  /** `col=value` (row-count optional; matches-source required). */
  partition?: string;
  /** Source file (Parquet, CSV or JSON lines) for matches-source. */
  source?: string;
}

export type ProbeState = 'good' | 'bad' | 'unreadable';

/** One evaluated version, emitted as soon as its result is known (the window colours a cell). */
export interface ProbeEvent {
  version: number;
  state: ProbeState;
  /** 0-based order in which versions were evaluated. */
  probeIndex: number;
  /** Why bad or unreadable, in one line. */
  detail?: string;
}

/** Sent once before the first probe, so the window can draw every version's cell at once. */
export interface BisectPlan {
  latestVersion: number;
  /** Versions the log cannot produce: coloured unreadable from the start, never probed. */
  unreadableVersions: number[];
  /** true: every readable version will be probed, in order; false: a binary search. */
  exhaustive: boolean;
}

export interface ProbeResult extends ProbeEvent {
  /** The measured value (duplicate keys, null keys, rows, mismatching rows), when it has one. */
  measured?: number | null;
  /** Data files opened for this probe (0 when answered from the log or the per-file cache). */
  filesRead: number;
}

/** The commit that introduced the failure, as the log tells it. */
export interface CulpritCommit {
  version: number;
  timestamp: number;
  when: string;
  operation: string | null;
  operationParameters: Record<string, unknown>;
  addedFiles: number;
  removedFiles: number;
  addedRows: number | null;
  removedRows: number | null;
  partitions: string[];
  /** Up to 20 added and removed paths. */
  addedPaths: string[];
  removedPaths: string[];
}

export interface Transition {
  /** Versions in order: broke at `from -> to` means `from` was good and `to` bad; recovered the reverse. */
  kind: 'broke' | 'recovered';
  /** The last version with the old state. */
  from: number;
  /** The first version with the new state. */
  to: number;
}

export interface BisectResult {
  root: string;
  predicate: PredicateSpec;
  /** What the predicate means, including how nulls count (printed and in --json). */
  semantics: string;
  /** 'clean': every readable examined version passes; 'bad': a first bad version was found;
   *  'not_recoverable': the oldest version that can be evaluated already fails and every version before it is
   *  unreadable; 'unreadable': no version could be evaluated, or nothing failed but the latest version could not be. */
  outcome: 'clean' | 'bad' | 'not_recoverable' | 'unreadable';
  firstBad: number | null;
  lastGood: number | null;
  culprit: CulpritCommit | null;
  /** Exhaustive walks only: whether a later version passes again after the first failure. */
  healed: boolean;
  transitions: Transition[];
  /** true: every version walked; false: binary search. */
  exhaustive: boolean;
  /** Exhaustive walks know (true/false); a binary search assumes and says so (null). */
  monotone: boolean | null;
  latestVersion: number;
  oldestReadableVersion: number | null;
  /** Versions the log can no longer produce (vacuumed, missing commits), neither good nor bad. */
  unreadableVersions: number[];
  /** The latest version's state. */
  latestState: ProbeState | null;
  examined: number;
  probes: ProbeResult[];
  /** Data files opened in total (0 for log-only predicates). */
  filesRead: number;
  /** Per-file results reused from earlier probes. */
  filesFromCache: number;
  notes: string[];
}
