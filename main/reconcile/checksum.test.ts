// The checksum's algebra, on real Delta tables written by lakerec's writer and a Parquet source
// written by DuckDB: order-independent, layout-independent, composable by partition, and a table
// with every row twice is not an empty table (which XOR would make it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { reconcile } from './reconcile';
import { parseContract } from './contract';
import {
  addGroup, combineHalves, emptyExactSum, exactSumToNumber, exactSumsEqual, floatPartsSql, fromHex128, MOD128, toHex128,
} from './checksum';

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'name', type: 'string', nullable: true, metadata: {} },
    { name: 'amount', type: 'decimal(12,2)', nullable: true, metadata: {} },
    { name: 'ts', type: 'timestamp', nullable: true, metadata: {} },
    { name: 'dt', type: 'date', nullable: true, metadata: {} },
  ],
};
const rowsSql = `SELECT i::BIGINT AS id, CASE WHEN i % 7 = 0 THEN NULL WHEN i % 11 = 0 THEN '' ELSE 'n' || i END AS name,
  (i * 1.25)::DECIMAL(12,2) AS amount, TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_hours(i % 72) AS ts,
  DATE '2026-08-10' + (i % 3)::INTEGER AS dt FROM range(1, 301) r(i)`;
const contractText = 'version: 1\nname: t\nkeys: [id]\npartitioning: { column: dt }\n';

let dir: string;
let duck: Duck;
let source: string;

async function table(name: string, build: (w: DeltaWriter) => Promise<void>): Promise<string> {
  const root = join(dir, name);
  const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck });
  try { await build(w); } finally { w.close(); }
  return root;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-checksum-'));
  duck = await openDuck({ threads: 1 });
  source = join(dir, 'source.parquet');
  await duck.conn.run(`COPY (${rowsSql} ORDER BY random()) TO ${sqlString(source)} (FORMAT parquet)`);
  writeFileSync(join(dir, 'c.yaml'), contractText);
});

afterAll(() => {
  duck?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('sum mod 2^128', () => {
  it('folds the two 64-bit halves into one 128-bit sum', () => {
    expect(combineHalves(1n, 2n)).toBe((1n << 64n) + 2n);
    // halves summed past 2^64 carry into the upper half, and the total wraps at 2^128
    expect(combineHalves((1n << 64n) + 5n, 0n)).toBe(5n << 64n);
    expect(toHex128(fromHex128('ff'.repeat(16)) + 1n & (MOD128 - 1n))).toBe('0'.repeat(32));
  });

  it('sees a double load that XOR cannot: every row twice is not the empty table', async () => {
    const once = await table('once', async (w) => { await w.append({ sql: rowsSql }); });
    const twice = await table('twice', async (w) => { await w.append({ sql: rowsSql }); await w.append({ sql: rowsSql }); });
    const c = parseContract(contractText);
    const a = await reconcile({ source, target: { root: once }, contract: c, level: 'checksum' });
    const b = await reconcile({ source, target: { root: twice }, contract: c, level: 'checksum' });
    const empty = '0'.repeat(32);
    expect(a.verdict).toBe('matches');
    expect(b.target.checksum).not.toBe(empty);
    expect(b.target.checksum).not.toBe(a.target.checksum);
    // the algebra: twice the rows is twice the sum (mod 2^128), which is what names the double load
    expect(fromHex128(b.target.checksum!)).toBe((2n * fromHex128(a.target.checksum!)) % MOD128);
    expect(b.findings.map((f) => f.mode)).toContain('double_load');
    // XOR of the same digests over the same rows twice is zero: the empty table's value
    const x = await duck.conn.runAndReadAll(`SELECT bit_xor(d)::VARCHAR AS x FROM (SELECT md5_number(CAST(id AS VARCHAR)) AS d FROM (${rowsSql}) UNION ALL SELECT md5_number(CAST(id AS VARCHAR)) FROM (${rowsSql}))`);
    expect(String(x.getRowObjectsJS()[0].x)).toBe('0');
  });

  it('does not depend on row order or file layout, and partitions add up to the table', async () => {
    const oneFile = await table('one-commit', async (w) => { await w.append({ sql: rowsSql }); });
    const manyFiles = await table('many-commits', async (w) => {
      for (const m of [1, 0]) await w.append({ sql: `SELECT * FROM (${rowsSql}) WHERE id % 2 = ${m} ORDER BY id DESC` });
    });
    const c = parseContract(contractText);
    const a = await reconcile({ source, target: { root: oneFile }, contract: c, level: 'keys' });
    const b = await reconcile({ source, target: { root: manyFiles }, contract: c, level: 'keys' });
    expect(a.verdict).toBe('matches');
    expect(b.verdict).toBe('matches');
    expect(b.reads.targetFilesRead).toBeGreaterThan(a.reads.targetFilesRead);
    expect(b.target.checksum).toBe(a.target.checksum);
    expect(a.source.checksum).toBe(a.target.checksum);
    const total = a.partitions.reduce((s, p) => (s + fromHex128(p.targetChecksum!)) % MOD128, 0n);
    expect(toHex128(total)).toBe(a.target.checksum);
    expect(a.partitions).toHaveLength(3);
  });

  it('tells null from the empty string, and one changed value from none', async () => {
    const changed = await table('changed', async (w) => {
      await w.append({ sql: `SELECT * REPLACE (CASE WHEN id = 7 THEN '' ELSE name END AS name) FROM (${rowsSql})` });
    });
    const r = await reconcile({ source, target: { root: changed }, contract: parseContract(contractText), level: 'rows' });
    expect(r.verdict).toBe('diverges');
    expect(r.findings.map((f) => f.mode)).toEqual(['content_divergence']);
    expect(r.rowDiffs[0].key).toEqual({ id: '7' });
    expect(r.columnDiffs).toEqual([{ column: 'name', rows: 1 }]);
  });
});

describe('exact float sums', () => {
  async function exact(values: string): Promise<number> {
    const fp = floatPartsSql('x');
    const r = await duck.conn.runAndReadAll(`SELECT e, sum(CAST(m AS HUGEINT))::VARCHAR AS ms FROM (SELECT ${fp.e} AS e, ${fp.m} AS m FROM (SELECT unnest(${values}) AS x)) WHERE e IS NOT NULL GROUP BY e`);
    const s = emptyExactSum();
    for (const row of r.getRowObjectsJS()) addGroup(s, Number(row.e), BigInt(String(row.ms)));
    return exactSumToNumber(s);
  }

  it('is exact and independent of order where naive summation is not', async () => {
    // 1e16 + 1 - 1e16 in doubles loses the 1 in one order and keeps it in another
    expect(await exact('[1e16::DOUBLE, 1.0, -1e16]')).toBe(1);
    expect(await exact('[1e16::DOUBLE, -1e16, 1.0]')).toBe(1);
    expect(await exact('[0.1::DOUBLE, 0.2, 0.3]')).toBe(0.6);
    expect(await exact('[5e-324::DOUBLE, 5e-324, 1.5, -2.5, 1.7976931348623157e308]')).toBe(1.7976931348623157e308);
    expect(await exact('[0.0::DOUBLE, -0.0]')).toBe(0);
  });

  it('compares exact sums exactly', () => {
    const a = emptyExactSum();
    const b = emptyExactSum();
    addGroup(a, 0, 3n);
    addGroup(b, 1, 3n); // 3 * 2^(1-52) vs 3 * 2^(0-52)
    expect(exactSumsEqual(a, b)).toBe(false);
    addGroup(a, 0, 3n); // now 6 * 2^-52 = 3 * 2^-51
    expect(exactSumsEqual(a, b)).toBe(true);
  });
});
