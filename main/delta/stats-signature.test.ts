// The one stats signature of a data file (a retried batch repeats it), asked by forensics'
// duplicate_batch and by reconcile's counts level.
import { describe, expect, it } from 'vitest';
import type { DeletionVectorDescriptor, FileStats } from '../../shared/delta';
import { statsSignature } from './active-files';

const dv = (cardinality: number): DeletionVectorDescriptor => ({ storageType: 'u', pathOrInlineDv: 'ab^-aqEH.-t@S}K{vb[*k^', offset: 1, sizeInBytes: 36, cardinality });
const stats: FileStats = { numRecords: 100, minValues: { id: 1 }, maxValues: { id: 100 }, nullCount: { id: 0 } };
const file = (over: { stats?: FileStats | null; partitionValues?: Record<string, string | null>; deletionVector?: DeletionVectorDescriptor | null } = {}) => ({
  stats, partitionValues: { dt: '2024-01-01' }, deletionVector: null, ...over,
});

describe('statsSignature', () => {
  it('a file part-deleted by a deletion vector does not repeat the same file without one', () => {
    expect(statsSignature(file({ deletionVector: dv(10) }))).not.toBeNull();
    expect(statsSignature(file({ deletionVector: dv(10) }))).not.toBe(statsSignature(file()));
    expect(statsSignature(file({ deletionVector: dv(10) }))).not.toBe(statsSignature(file({ deletionVector: dv(11) })));
  });

  it('the same stats, partition and deletion-vector cardinality repeat', () => {
    expect(statsSignature(file())).toBe(statsSignature(file()));
    expect(statsSignature(file({ deletionVector: dv(10) }))).toBe(statsSignature(file({ deletionVector: { ...dv(10), pathOrInlineDv: 'another' } })));
  });

  it('differs by any partition value, row count, bound or null count', () => {
    const base = statsSignature(file());
    expect(statsSignature(file({ partitionValues: { dt: '2024-01-02' } }))).not.toBe(base);
    expect(statsSignature(file({ partitionValues: { dt: null } }))).not.toBe(base);
    expect(statsSignature(file({ stats: { ...stats, numRecords: 99 } }))).not.toBe(base);
    expect(statsSignature(file({ stats: { ...stats, maxValues: { id: 101 } } }))).not.toBe(base);
    expect(statsSignature(file({ stats: { ...stats, nullCount: { id: 1 } } }))).not.toBe(base);
  });

  it('is null when the stats cannot tell a repeat: none, no row count, no rows, no bounds', () => {
    expect(statsSignature(file({ stats: null }))).toBeNull();
    expect(statsSignature(file({ stats: { minValues: { id: 1 }, maxValues: { id: 1 } } }))).toBeNull();
    expect(statsSignature(file({ stats: { ...stats, numRecords: 0 } }))).toBeNull();
    expect(statsSignature(file({ stats: { numRecords: 100 } }))).toBeNull();
    expect(statsSignature(file({ stats: { numRecords: 100, minValues: {}, maxValues: {} } }))).toBeNull();
  });
});
