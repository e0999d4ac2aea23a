import { describe, expect, it } from 'vitest';
import { openDuck } from '../engine/duck';
import { compareFingerprints } from '../../shared/fingerprint';
import { generateTable } from './generate';
import { fingerprintArrow, fingerprintDuckdb, decimalText, dateText, md5Prefix, columnFingerprint } from './fingerprint';
import { loadRows } from './engines/duckdb-values';
import { deltaSchemaOf } from './cells';

describe('ods fingerprint v1: TypeScript over Arrow and DuckDB SQL agree', () => {
  it('agrees on the generated table, figure by figure', async () => {
    const g = generateTable();
    const ts = fingerprintArrow(g.arrow);
    const duck = await openDuck({ threads: 1 });
    try {
      await loadRows(duck.conn, 'gen', g.schema, g.rows);
      const sql = await fingerprintDuckdb(duck.conn, g.schema, '"gen"');
      expect(compareFingerprints(ts, sql)).toEqual([]);
      expect(ts.rows).toBe(g.rows.length);
      // Every hashed column has a non-trivial exact hash; floats saw NaN and both infinities.
      const ratio = ts.columns.find((c) => c.name === 'ratio')!;
      expect([ratio.nan, ratio.posinf, ratio.neginf]).toEqual([1, 1, 1]);
      expect(BigInt(ts.columns.find((c) => c.name === 'big')!.hash!)).toBeGreaterThan(2n ** 53n);
    } finally { duck.close(); }
  });

  it('agrees on other seeds and sizes too', async () => {
    const duck = await openDuck({ threads: 1 });
    try {
      for (const [seed, rows] of [[1, 7], [42, 150], [7, 300]]) {
        const g = generateTable(seed, rows);
        await loadRows(duck.conn, 'gen', g.schema, g.rows);
        const sql = await fingerprintDuckdb(duck.conn, g.schema, '"gen"');
        expect(compareFingerprints(fingerprintArrow(g.arrow), sql), `seed ${seed}`).toEqual([]);
        expect(sql.rows).toBe(rows);
      }
    } finally { duck.close(); }
  });

  it('the Arrow schema of the generated table is the declared Delta schema', () => {
    const g = generateTable();
    expect(deltaSchemaOf(g.arrow.schema)).toEqual(g.schema);
  });

  it('is deterministic for a seed and differs for another seed', () => {
    const a = fingerprintArrow(generateTable(1).arrow);
    expect(compareFingerprints(a, fingerprintArrow(generateTable(1).arrow))).toEqual([]);
    expect(compareFingerprints(a, fingerprintArrow(generateTable(2).arrow)).length).toBeGreaterThan(0);
  });

  it('follows the canonical text rules', () => {
    expect(decimalText(1230n, 2)).toBe('12.30');
    expect(decimalText(-50n, 2)).toBe('-0.50');
    expect(decimalText(0n, 10)).toBe('0.0000000000');
    expect(dateText(-1)).toBe('1969-12-31');
    expect(dateText(-719162)).toBe('0001-01-01');
    // md5('abc') = 900150983cd24fb0d6963f7d28e17f72; first 15 hex digits:
    expect(md5Prefix('abc')).toBe(0x900150983cd24fbn);
    const c = columnFingerprint('x', 'decimal(18,2)', [1230n, null]);
    expect(c).toEqual({ name: 'x', kind: 'hash', nulls: 1, hash: md5Prefix('12.30').toString() });
    const f = columnFingerprint('f', 'double', [1, Number.NaN, Infinity, -Infinity, null, -2.5]);
    expect(f).toEqual({ name: 'f', kind: 'float', nulls: 1, nan: 1, posinf: 1, neginf: 1, min: -2.5, max: 1, sum: -1.5 });
  });
});
