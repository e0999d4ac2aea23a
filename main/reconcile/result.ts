// The run's per-partition tally (each level fills it in) and the result assembled from it:
// partition states, the findings, the verdict, and the one ReconcileResult every output renders.
import { LAKEREC_VERSION } from '../../shared/version';
import {
  levelIndex, type BaselineUse, type ColumnDiffCount, type FloatColumnResult, type Level, type PartitionResult,
  type ReadStats, type ReconcileResult, type RowDiff, type SchemaComparison,
} from '../../shared/reconcile';
import { toHex128 } from './checksum';
import { classify, type KeyDiffEvidence } from './classify';
import { contractSummary, type Contract } from './contract';
import type { CountsLevel } from './levels';
import type { SourceSide, TargetSide } from './sides';
import { label, type PartitionSpec } from './sql';

/** What the levels fill in as they run: one PartitionResult per partition label, reads, notes. */
export interface Tally {
  partitions: Map<string, PartitionResult>;
  /** The partition of this value, created (counts_match, zero rows) on first use. */
  getP: (value: string | null) => PartitionResult;
  reads: ReadStats;
  notes: string[];
}

export function newTally(partitionColumn: string | null, targetFilesTotal: number): Tally {
  const partitions = new Map<string, PartitionResult>();
  const getP = (value: string | null): PartitionResult => {
    const l = label(partitionColumn, value);
    let p = partitions.get(l);
    if (!p) {
      p = { partition: l, value, sourceRows: 0, targetRows: 0, sourceChecksum: null, targetChecksum: null, inherited: false, state: 'counts_match' };
      partitions.set(l, p);
    }
    return p;
  };
  const reads = { targetRowsRead: 0, targetRowsAvoided: 0, targetFilesRead: 0, targetFilesTotal, sourceRowsRead: 0, exampleRowsFetched: 0 };
  return { partitions, getP, reads, notes: [] };
}

/** What the checksum and keys levels found (their empty values when the run stopped earlier). */
export interface DataLevels {
  floats: FloatColumnResult[];
  sourceTotal: bigint | null;
  targetTotal: bigint | null;
  baselineUse: BaselineUse | null;
  keyDiff: KeyDiffEvidence | null;
  keyTotals: ReconcileResult['keyDiff'];
  columnDiffs: ColumnDiffCount[];
  rowDiffs: RowDiff[];
}

export interface ResultInputs {
  level: Level;
  contract: Contract;
  schema: SchemaComparison;
  part: PartitionSpec;
  source: SourceSide;
  target: TargetSide;
  counts: CountsLevel;
  data: DataLevels;
  digest: string;
  duckdb: string;
  started: number;
}

/** Each partition's state from its counts and checksums, then the findings, the verdict and the result. */
export function assembleResult(tally: Tally, r: ResultInputs): ReconcileResult {
  const { level, contract, schema, part, source, target, counts, data } = r;
  const { partitions, reads, notes } = tally;
  const at = levelIndex(level);
  // ---- partition states ----
  const lateSet = new Set(counts.late?.partitions ?? []);
  const floatBad = new Set(data.floats.flatMap((f) => f.partitions.filter((p) => !p.agree).map((p) => p.partition)));
  for (const p of partitions.values()) {
    if (lateSet.has(p.partition)) p.state = 'late';
    else if (p.sourceRows > 0 && p.targetRows === 0) p.state = 'missing_in_target';
    else if (p.sourceRows === 0 && p.targetRows > 0) p.state = 'missing_in_source';
    else if (p.sourceRows !== p.targetRows) p.state = 'differs';
    else if (at < levelIndex('checksum')) p.state = 'counts_match';
    else p.state = p.sourceChecksum === p.targetChecksum && !floatBad.has(p.partition) ? 'match' : 'differs';
  }
  const partList = [...partitions.values()].sort((a, b) => a.partition.localeCompare(b.partition));

  const { findings, unnamed } = classify({
    level, schema, partitions: partList, partitionColumn: part.column, partitionExpression: contract.partitioning?.expression ?? null,
    removals: counts.removals, logConsulted: counts.logConsulted, statsDuplicates: counts.statsDuplicates, statsNullKeys: counts.statsNullKeys,
    keys: contract.keys, floats: data.floats, keyDiff: data.keyDiff, late: counts.late,
  });
  // Anything disagreeing must surface, named or not.
  const blocking = findings.some((f) => f.blocking) || unnamed.length > 0;
  const anyDiff = partList.some((p) => p.state !== 'match' && p.state !== 'counts_match' && p.state !== 'late');
  if (anyDiff && !blocking) unnamed.push('partitions disagree but no finding explains it');
  const verdict = blocking || anyDiff ? 'diverges' : 'matches';
  if (at >= levelIndex('counts') && reads.sourceRowsRead > 0) notes.push(`source rows read: ${reads.sourceRowsRead.toLocaleString('en-US')} (the source has no log; it is read in full)`);

  return {
    verdict,
    level,
    exitCode: verdict === 'diverges' ? 1 : 0,
    source: {
      description: source.description,
      kind: source.kind,
      rows: at < levelIndex('counts') ? null : partList.reduce((a, p) => a + p.sourceRows, 0),
      checksum: data.sourceTotal === null ? null : toHex128(data.sourceTotal),
      version: source.version,
    },
    target: {
      description: target.root,
      kind: 'delta',
      rows: at < levelIndex('counts') ? null : partList.reduce((a, p) => a + p.targetRows, 0),
      checksum: data.targetTotal === null ? null : toHex128(data.targetTotal),
      version: target.snapshot.version,
    },
    contract: contractSummary(contract),
    schema,
    partitions: partList,
    findings,
    unnamed,
    floats: data.floats,
    columnDiffs: data.columnDiffs,
    rowDiffs: data.rowDiffs,
    keyDiff: data.keyTotals,
    reads,
    baseline: data.baselineUse,
    digest: r.digest,
    engine: { duckdb: r.duckdb, lakerec: LAKEREC_VERSION },
    startedAt: new Date(r.started).toISOString(),
    durationMs: Date.now() - r.started,
    notes,
  };
}
