// Bisect: search the table's own history for the first bad version, over predicates the table
// can answer alone. Serialisable shapes shared by the engine (main/bisect/), the CLI and the
// window's version strip.

import type { UnreadableCause, VersionSummary } from './forensics';

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
  /** row-count without --partition: accept that the table's total moves with every append (a walk, not a search). */
  allowMoving?: boolean;
}

/** 'before_partition': the version predates the partition's first file (neither good nor bad). */
export type ProbeState = 'good' | 'bad' | 'unreadable' | 'before_partition';

/** A version the reader cannot read, and why (vacuumed, missing commit, unsupported feature, corrupt checkpoint). */
export interface UnreadableVersion {
  version: number;
  reason: string;
  /** The kind of why, as the history gives it. */
  cause: UnreadableCause;
}

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
  /** Why each of them cannot be read. */
  unreadable: UnreadableVersion[];
  /** A partition predicate: the first version holding a file of the partition (earlier: "before the partition existed"). */
  partitionAppearsAt: number | null;
  /** true: every readable version will be probed, in order; false: a binary search. */
  exhaustive: boolean;
}

export interface ProbeResult extends ProbeEvent {
  /** The measured value (duplicate keys, null keys, rows, mismatching rows), when it has one. */
  measured?: number | null;
  /** Data files opened for this probe (0 when answered from the log or the per-file cache). */
  filesRead: number;
}

/**
 * The commit that introduced the failure, as the log tells it: the timeline's VersionSummary of that
 * version, picked (the same counts, the same operationParameters), and the paths it touched.
 */
export type CulpritCommit = Pick<VersionSummary,
  'version' | 'timestamp' | 'when' | 'operation' | 'operationParameters' | 'who'
  | 'addedFiles' | 'removedFiles' | 'addedRows' | 'removedRows' | 'dvDeletedRows' | 'rewrittenFiles' | 'partitions'> & {
  /** Up to 20 paths of the files counted as added, as removed, and as rewritten in place (a new deletion vector). */
  addedPaths: string[];
  removedPaths: string[];
  rewrittenPaths: string[];
};

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
  outcome: BisectOutcome;
  /** The one-line answer, from bisectHeadline(): the CLI's first line, the window's banner, the report's lead. */
  headline: string;
  firstBad: number | null;
  lastGood: number | null;
  culprit: CulpritCommit | null;
  /** The latest version passes after an earlier one failed (never when the latest fails). */
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
  /** The same with the reason of each. */
  unreadable: UnreadableVersion[];
  /** For a partition predicate: the first version holding a file of the partition (null: not a partition predicate, or unknown). */
  partitionAppearsAt: number | null;
  /** The latest version's state. */
  latestState: ProbeState | null;
  /** Versions the search looked at: every one is in `probes` (examinedText() says it in words). */
  examined: number;
  /** Of those, the versions the predicate judged good or bad (the rest: unreadable, or before the partition existed). */
  evaluated: number;
  probes: ProbeResult[];
  /** Data files opened in total (0 for log-only predicates). */
  filesRead: number;
  /** Per-file results reused from earlier probes. */
  filesFromCache: number;
  notes: string[];
}

/**
 * 'clean': every evaluated version passes; 'bad': a first bad version was found (checked against
 * the probes: the oldest evaluated version passed, or the partition first appeared bad);
 * 'not_monotone': the oldest evaluated version fails and the latest passes, so no culprit can be
 * named; 'not_recoverable': the oldest version that can be evaluated already fails and versions
 * before it are unreadable; 'unreadable': no version could be evaluated, or the latest could not.
 */
export type BisectOutcome = 'clean' | 'bad' | 'not_monotone' | 'not_recoverable' | 'unreadable';

/** The counts of the probe list, by kind: one definition for the result, the CLI, the window and the report. */
export function countProbes(probes: readonly Pick<ProbeResult, 'state'>[]): { examined: number; evaluated: number; unreadable: number; beforePartition: number } {
  const n = (s: ProbeState) => probes.filter((p) => p.state === s).length;
  return { examined: probes.length, evaluated: n('good') + n('bad'), unreadable: n('unreadable'), beforePartition: n('before_partition') };
}

/**
 * "6 version(s) (exhaustive): 4 evaluated, 2 before the partition existed" (with `of`: "6 of 40
 * version(s) …"): the versions examined, in the same words in the CLI, the window and the report.
 */
export function examinedText(r: Pick<BisectResult, 'probes'>, opts: { how?: string; of?: number } = {}): string {
  const c = countProbes(r.probes);
  const rest = [c.beforePartition && `${c.beforePartition} before the partition existed`, c.unreadable && `${c.unreadable} unreadable`].filter(Boolean);
  return `${c.examined}${opts.of !== undefined ? ` of ${opts.of}` : ''} version(s)${opts.how ? ` (${opts.how})` : ''}${rest.length ? `: ${c.evaluated} evaluated, ${rest.join(', ')}` : ''}`;
}

type HeadlineInput = Pick<BisectResult, 'outcome' | 'firstBad' | 'lastGood' | 'healed' | 'transitions' | 'latestVersion' | 'latestState' | 'probes' | 'unreadable' | 'culprit'>;

/** The answer in one line, the same wherever it is shown (CLI, --json, the window's banner, the report). */
export function bisectHeadline(r: HeadlineInput): string {
  const evaluated = r.probes.filter((p) => p.state === 'good' || p.state === 'bad');
  switch (r.outcome) {
    case 'bad': {
      const op = r.culprit?.operation ? ` (${r.culprit.operation})` : '';
      if (r.healed) {
        const rec = r.transitions.filter((t) => t.kind === 'recovered').pop();
        return `healed: broke at v${r.firstBad}${op}, recovered at v${rec?.to ?? '?'}; the latest version (v${r.latestVersion}) passes again`;
      }
      return `broke at v${r.firstBad}${op}${r.lastGood !== null ? `; last good v${r.lastGood}` : '; the partition was bad from its first version'}; the latest version (v${r.latestVersion}) ${r.latestState === 'bad' ? 'fails' : r.latestState ?? 'was not evaluated'}`;
    }
    case 'not_monotone':
      return `not monotone: the predicate fails at the oldest version (v${evaluated[0]?.version ?? '?'}) and passes at the latest (v${evaluated[evaluated.length - 1]?.version ?? r.latestVersion}); no version can be named as the culprit`;
    case 'not_recoverable':
      return `not recoverable: it already fails at v${evaluated[0]?.version ?? '?'}, the oldest version that can still be evaluated; the versions before it cannot be read`;
    case 'clean':
      return 'clean: every evaluated version passes';
    case 'unreadable': {
      if (!evaluated.length) {
        const u = r.unreadable[0];
        return `unreadable: no version could be evaluated${u ? ` (v${u.version}: ${u.reason})` : ''}`;
      }
      const u = r.unreadable.find((x) => x.version === r.latestVersion);
      return `unreadable: the latest version (v${r.latestVersion}) could not be evaluated${u ? ` (${u.reason})` : ''}`;
    }
  }
}
