// The one signature every heuristic has. `start` is called once per forensics run with the run's
// shared inputs; the hooks it returns see each commit version in order: `before` while the
// active set still holds the previous version, `at` once this version is applied, `end` once
// after the last version. Hits carry their evidence; no data file is opened.
import type { CommitInfo } from '../../../shared/delta';
import type { HeuristicHit, HeuristicName, VersionSummary } from '../../../shared/forensics';
import type { Duck } from '../../engine/duck';
import type { FileEntry, History, VersionState } from '../../delta/history';
import type { ActiveSet } from '../active';
import type { Partitioner } from '../partitions';

export interface RunInput {
  history: History;
  /** Parallel to history.states. */
  versions: VersionSummary[];
  part: Partitioner;
  active: ActiveSet;
  /** Whether each file (by id) still exists, from the one presence check (delta/presence.ts); null: unknown. */
  presence: ReadonlyMap<number, boolean | null>;
  /** A DuckDB with no file or network access, opened on first use (to evaluate declared predicates). */
  duck(): Promise<Duck>;
}

/** One commit version as the heuristics see it. */
export interface VersionContext {
  st: VersionState;
  sum: VersionSummary;
  prevSt: VersionState | undefined;
  prevSum: VersionSummary | undefined;
  v: number;
  ci: CommitInfo | null;
  /** commitInfo.operation, or 'commit'. */
  op: string;
  /** Entries this version added, and those it removed (removedIn = v). */
  adds: FileEntry[];
  rems: FileEntry[];
  /** Removed files whose path was not added back in the same version. */
  dataRems: FileEntry[];
}

export interface HeuristicHooks {
  before?(c: VersionContext): void;
  at?(c: VersionContext): HeuristicHit[] | Promise<HeuristicHit[]>;
  end?(): HeuristicHit[];
}

export interface Heuristic {
  /** The hit names it can emit. */
  names: readonly HeuristicName[];
  start(run: RunInput): HeuristicHooks;
}
