// The registry of heuristics that live one per file. Each has the same signature: the history and
// the per-version summaries in, hits (each with its evidence) out. No data file is opened.
import type { HeuristicHit, HeuristicName, VersionSummary } from '../../../shared/forensics';
import type { History } from '../../delta/history';
import { protocolUpgraded } from './protocol_upgraded';
import { emptyCommit } from './empty_commit';
import { metricsDisagree } from './metrics_disagree';
import { checksumDisagrees } from './checksum_disagrees';
import { timestampFromFileTime } from './timestamp_from_file_time';

export interface HeuristicInput {
  history: History;
  /** Parallel to history.states. */
  versions: VersionSummary[];
}

export interface Heuristic {
  name: HeuristicName;
  run(input: HeuristicInput): HeuristicHit[];
}

export const HEURISTICS: readonly Heuristic[] = [protocolUpgraded, emptyCommit, metricsDisagree, checksumDisagrees, timestampFromFileTime];

export function runHeuristics(input: HeuristicInput): HeuristicHit[] {
  return HEURISTICS.flatMap((h) => h.run(input));
}
