// The corruption modes: what each means and what a human should do about it. The text is fixed
// per mode; the evidence (counts, partitions, keys, rows) is what changes between incidents.
import type { Finding, FindingEvidence, FindingMode, Level } from '../../shared/reconcile';

export interface ModeText {
  title: string;
  meaning: string;
  action: string;
  blocking: boolean;
}

export const MODES: Record<FindingMode, ModeText> = {
  double_load: {
    title: 'double load',
    meaning: 'The target holds copies of rows the source has once: a batch was committed twice (a retried job, a replayed stream).',
    action: 'Find the duplicate commit (`lakerec bisect TABLE --predicate unique-keys --keys KEY`), delete the repeated batch or restore the version before it, and make the load idempotent (MERGE on the key, or a txn appId/version).',
    blocking: true,
  },
  missing_rows: {
    title: 'missing rows',
    meaning: 'Rows the source has are absent from the target, while their partitions still hold other rows: a delete that caught too much, a filtered load, or a lost file.',
    action: 'Look up the listed keys in the source; check the commits that removed files from the listed partitions (`lakerec forensics TABLE`), and reload the missing keys.',
    blocking: true,
  },
  extra_rows: {
    title: 'extra rows',
    meaning: 'The target holds rows whose keys the source does not have: test data, a load from the wrong extract, or rows the source has deleted.',
    action: 'Confirm the source is the complete truth for these partitions; if so, delete the listed keys from the target and find the commit that added them.',
    blocking: true,
  },
  partition_wipe: {
    title: 'partition wipe',
    meaning: 'A partition is empty in the target while the source has rows for it: its files were removed and nothing was written back.',
    action: 'Find the commit that removed the partition\'s files (`lakerec forensics TABLE --partition-by COL`), restore them from the previous version (RESTORE or re-load the partition from the source).',
    blocking: true,
  },
  overwrite_too_wide: {
    title: 'overwrite wider than declared',
    meaning: 'An overwrite removed files from partitions its own predicate (replaceWhere) does not cover: the write replaced more than it said it would.',
    action: 'Re-load the listed partitions from the source, and fix the overwrite: its predicate resolved wider than the data it wrote.',
    blocking: true,
  },
  timezone_partition_shift: {
    title: 'timezone partition shift',
    meaning: 'The same rows sit in the neighbouring partition on the target: the partition date was derived from a timestamp in the wrong time zone, so rows near midnight moved a day.',
    action: 'Derive the partition column from the UTC timestamp (see the contract\'s partitioning expression), then rewrite the affected partitions.',
    blocking: true,
  },
  stale_rows: {
    title: 'stale rows',
    meaning: 'The target holds an older version of rows the source has updated (the ordering column is older in the target): an update or merge was lost or applied out of order.',
    action: 'Re-apply the source\'s newer versions of the listed keys (MERGE by key where the ordering column is newer), and check the pipeline\'s merge ordering.',
    blocking: true,
  },
  content_divergence: {
    title: 'content divergence',
    meaning: 'Rows with the same key hold different values on the two sides, and no more specific mode explains the difference.',
    action: 'Compare the example rows column by column; decide which side is right, then fix the transformation that produced the other.',
    blocking: true,
  },
  schema_drift: {
    title: 'schema drift',
    meaning: 'The two sides do not have the same columns or types (after the contract\'s renames and ignores): a schema evolution on one side that the other did not follow.',
    action: 'Either evolve the other side, or record the difference in the contract (rename, ignore) if it is intended.',
    blocking: true,
  },
  null_keys: {
    title: 'null keys',
    meaning: 'Rows in the target have a null key column: they cannot be matched to the source, and any consumer joining on the key loses them.',
    action: 'Find the commit that wrote them (`lakerec bisect TABLE --predicate no-null-keys --keys KEY`), repair or delete the rows, and declare the key column NOT NULL so Delta refuses such writes.',
    blocking: true,
  },
  unicode_normalisation: {
    title: 'Unicode normalisation',
    meaning: 'Strings differ only in their Unicode normal form (NFC vs NFD): they look identical but compare, join and hash differently.',
    action: 'Normalise strings to NFC at ingestion on one side (or both), then rewrite the affected rows.',
    blocking: true,
  },
  late_arriving: {
    title: 'late-arriving data',
    meaning: 'The source holds rows for partitions the target has not loaded yet, within the lateness the contract allows: expected, not an error.',
    action: 'Nothing, unless it is still there after the allowance; then it becomes missing data.',
    blocking: false,
  },
};

export function emptyEvidence(): FindingEvidence {
  return { counts: {}, partitions: [], exampleKeys: [], exampleRows: [], notes: [] };
}

export function makeFinding(mode: FindingMode, level: Level, summary: string, evidence: Partial<FindingEvidence>): Finding {
  const t = MODES[mode];
  return {
    mode,
    blocking: t.blocking,
    summary,
    meaning: t.meaning,
    evidence: { ...emptyEvidence(), ...evidence },
    action: t.action,
    level,
  };
}
