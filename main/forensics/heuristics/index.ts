// The registry: every heuristic forensics runs, one file each, in the order their hits are listed
// within a version. Add a heuristic by adding its file and its line here.
import type { Heuristic } from './types';
import { partitionOutsideItsDay } from './partition_outside_its_day';
import { nullsAppeared } from './nulls_appeared';
import { partitionEmptied } from './partition_emptied';
import { overwriteShrankTheTable } from './overwrite_shrank_the_table';
import { overwriteWiderThanPredicate } from './overwrite_wider_than_predicate';
import { duplicateBatch } from './duplicate_batch';
import { blindAppendAfterOverwrite } from './blind_append_after_overwrite';
import { schemaChanged } from './schema_changed';
import { protocolUpgraded } from './protocol_upgraded';
import { largeDelete } from './large_delete';
import { dvHeavyDelete } from './dv_heavy_delete';
import { clockWentBackwards } from './clock_went_backwards';
import { statsMissing } from './stats_missing';
import { writerChanged } from './writer_changed';
import { emptyCommit } from './empty_commit';
import { metricsDisagree } from './metrics_disagree';
import { checksumDisagrees } from './checksum_disagrees';
import { timestampFromFileTime } from './timestamp_from_file_time';
import { vacuumedHistory } from './vacuumed_history';
import { versionMissing } from './version_missing';
import { versionsUnreadable } from './versions_unreadable';
import { dataFilesMissing } from './data_files_missing';

export type { Heuristic, HeuristicHooks, RunInput, VersionContext } from './types';

export const HEURISTICS: readonly Heuristic[] = [
  partitionOutsideItsDay, nullsAppeared, partitionEmptied, overwriteShrankTheTable, overwriteWiderThanPredicate,
  duplicateBatch, blindAppendAfterOverwrite, schemaChanged, protocolUpgraded, largeDelete, dvHeavyDelete,
  clockWentBackwards, statsMissing, writerChanged, emptyCommit, metricsDisagree, checksumDisagrees,
  timestampFromFileTime, vacuumedHistory, versionMissing, versionsUnreadable, dataFilesMissing,
];
