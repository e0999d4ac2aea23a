// Counts level names only what the evidence names: a partition holding exactly k times the
// source's rows, with files whose stats repeat, is a double-load candidate, not extra_rows.
import { describe, expect, it } from 'vitest';
import { classify, type Evidence } from './classify';
import type { PartitionResult } from '../../shared/reconcile';

const part = (partition: string, sourceRows: number, targetRows: number): PartitionResult => ({
  partition, value: partition.split('=')[1], sourceRows, targetRows, sourceChecksum: null, targetChecksum: null, inherited: false,
  state: sourceRows === targetRows ? 'match' : 'count_mismatch',
} as PartitionResult);

function evidence(partitions: PartitionResult[], statsDuplicates: Evidence['statsDuplicates']): Evidence {
  return {
    level: 'counts', schema: { source: [], target: [], compared: [], onlyInSource: [], onlyInTarget: [], typeChanges: [], ignored: [], renamed: [] },
    partitions, partitionColumn: 'dt', partitionExpression: null, removals: new Map(), logConsulted: true, statsDuplicates,
    statsNullKeys: null, keys: ['id'], floats: [], keyDiff: null, late: null,
  };
}

describe('counts-level naming', () => {
  it('exactly twice the source with repeating stats: double_load, not extra_rows', () => {
    // the copies were compacted since: the repeating files account for part of the surplus only
    const c = classify(evidence([part('dt=a', 900, 1800), part('dt=b', 10, 10)], [{ partition: 'dt=a', rows: 300, files: [{ path: 'x', version: 3 }, { path: 'y', version: 4 }] }]));
    expect(c.findings.map((f) => f.mode)).toEqual(['double_load']);
    expect(c.findings[0].evidence.notes.join('\n')).toMatch(/exactly 2 times the source's 900 rows/);
  });

  it('a surplus that is not a multiple, or has no repeating stats, stays extra_rows', () => {
    expect(classify(evidence([part('dt=a', 900, 1800)], [])).findings.map((f) => f.mode)).toEqual(['extra_rows']);
    expect(classify(evidence([part('dt=a', 900, 1000)], [{ partition: 'dt=a', rows: 50, files: [] }])).findings.map((f) => f.mode)).toEqual(['extra_rows']);
  });
});
