// The counts level's repeated files: the reader's one stats signature, grouped per partition.
import { describe, expect, it } from 'vitest';
import type { ActiveFile } from '../delta/types';
import { duplicateFilesFromStats } from './log-levels';
import type { TargetSide } from './sides';
import type { PartitionSpec } from './sql';

const part: PartitionSpec = { column: 'dt', sourceSql: 'dt', targetSql: 'dt', targetIsDeltaPartition: true, type: 'DATE', expressionSql: null };
const file = (path: string, version: number, dt: string, cardinality = 0): ActiveFile => ({
  path, size: 1, modificationTime: 0, partitionValues: { dt },
  stats: { numRecords: 100, minValues: { id: 1 }, maxValues: { id: 100 }, nullCount: { id: 0 } },
  deletionVector: cardinality ? { storageType: 'u', pathOrInlineDv: 'x', offset: 1, sizeInBytes: 36, cardinality } : null,
  numRecords: 100 - cardinality, addedInVersion: version, add: { path, partitionValues: { dt }, size: 1, modificationTime: 0, dataChange: true },
});
const target = (files: ActiveFile[]) => ({ snapshot: { files, schema: { type: 'struct', fields: [] } } }) as unknown as TargetSide;

describe('duplicateFilesFromStats', () => {
  it('names files of one partition whose stats repeat, with the surplus rows', () => {
    const d = duplicateFilesFromStats(target([file('a', 1, '2024-01-01'), file('b', 2, '2024-01-01'), file('c', 2, '2024-01-02')]), part);
    expect(d).toEqual([{ partition: 'dt=2024-01-01', rows: 100, files: [{ path: 'a', version: 1 }, { path: 'b', version: 2 }] }]);
  });

  it('a file part-deleted by a deletion vector does not repeat the one without', () => {
    expect(duplicateFilesFromStats(target([file('a', 1, '2024-01-01'), file('b', 2, '2024-01-01', 10)]), part)).toEqual([]);
  });

  it('none when the target column is not a Delta partition', () => {
    expect(duplicateFilesFromStats(target([file('a', 1, '2024-01-01'), file('b', 2, '2024-01-01')]), { ...part, targetIsDeltaPartition: false })).toEqual([]);
  });
});
