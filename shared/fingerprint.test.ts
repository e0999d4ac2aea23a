import { describe, expect, it } from 'vitest';
import { compareFingerprints, fingerprintFromSqlRow, fingerprintSql, formatFingerprint, type OdsFingerprint } from './fingerprint';

const fp = (sum: number | null, hash = '123456789012345678901'): OdsFingerprint => ({
  version: 'ods-fingerprint-v1', rows: 3,
  columns: [
    { name: 'h', kind: 'hash', nulls: 1, hash },
    { name: 'f', kind: 'float', nulls: 0, nan: 1, posinf: 0, neginf: 0, min: -1, max: 2, sum },
  ],
});

describe('compareFingerprints', () => {
  it('compares hashes exactly and float sums with a relative tolerance of 1e-9', () => {
    expect(compareFingerprints(fp(1e6), fp(1e6 * (1 + 5e-10)))).toEqual([]);
    expect(compareFingerprints(fp(1e6), fp(1e6 * (1 + 5e-9)))).toHaveLength(1);
    expect(compareFingerprints(fp(1), fp(1, '123456789012345678902'))).toEqual(['h.hash: 123456789012345678901 expected, 123456789012345678902 found']);
    expect(compareFingerprints(fp(null), fp(0))).toHaveLength(1);
  });

  it('names missing and unexpected columns', () => {
    const a = fp(1);
    const b = { ...fp(1), columns: [fp(1).columns[0], { name: 'x', kind: 'nulls' as const, nulls: 0 }] };
    expect(compareFingerprints(a, b)).toEqual(['f: column missing', 'x: unexpected column']);
  });
});

describe('fingerprintFromSqlRow', () => {
  it('reads exact integers from bigint, number or string, keys in any case', () => {
    const schema = { type: 'struct' as const, fields: [{ name: 'h', type: 'long', nullable: true, metadata: {} }] };
    const row = { ROW_COUNT: '3', C0_NULLS: 1n, C0_HASH: '123456789012345678901' };
    expect(fingerprintFromSqlRow(schema, row)).toEqual({ version: 'ods-fingerprint-v1', rows: 3, columns: [{ name: 'h', kind: 'hash', nulls: 1, hash: '123456789012345678901' }] });
    expect(() => fingerprintFromSqlRow(schema, { row_count: 3, c0_nulls: 0, c0_hash: 1.5 })).toThrow(/not an exact integer/);
  });

  it('prints hashes as digits', () => {
    expect(formatFingerprint(fp(1))).toContain('hash=123456789012345678901');
  });

  it('treats nested and binary columns as nulls only', () => {
    const schema = { type: 'struct' as const, fields: [
      { name: 'b', type: 'binary', nullable: true, metadata: {} },
      { name: 'l', type: { type: 'array' as const, elementType: 'long', containsNull: true }, nullable: true, metadata: {} },
    ] };
    const sql = fingerprintSql(schema, 'duckdb', 't');
    expect(sql).not.toMatch(/_hash/);
    expect(sql).toContain('COUNT(*) - COUNT("l") AS c1_nulls');
  });
});
