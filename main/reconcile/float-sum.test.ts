// The exact float sum the pass computes (pass.ts floatSums over the per-row tables): exact against
// a BigInt sum of each double's bits, the same for 200 shuffles of one column, and NaN, the
// infinities and -0 as ADR 0003 says. Both ways it sums are exercised: one scale for the column
// (floatScale) and, where the range is too wide for one HUGEINT, the exponent groups.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { reconcile } from './reconcile';
import { mulberry32 } from '../../shared/random';
import { exponentOf, floatScale } from './checksum';
import { parseContract } from './contract';
import { floatSums } from './pass';
import type { PartitionSpec } from './sql';

let duck: Duck;
let dir: string;
beforeAll(async () => { duck = await openDuck({ threads: 2 }); dir = mkdtempSync(join(tmpdir(), 'lakerec-fsum-')); });
afterAll(() => { duck?.close(); if (dir) rmSync(dir, { recursive: true, force: true }); });

const part: PartitionSpec = { column: 'p', sourceSql: 'p', targetSql: 'p', targetIsDeltaPartition: true, type: 'INTEGER', expressionSql: null };
const contract = parseContract('version: 1\nname: t\nkeys: [id]\ncolumns:\n  x: { float: exclude }\n');

/** The exact rational sum of doubles from their bits, correctly rounded once (a reference independent of checksum.ts). */
function referenceSum(values: number[]): number {
  if (values.some((v) => Number.isNaN(v))) return NaN;
  const pos = values.some((v) => v === Infinity);
  const neg = values.some((v) => v === -Infinity);
  if (pos && neg) return NaN;
  if (pos) return Infinity;
  if (neg) return -Infinity;
  // Every finite double is an integer multiple of 2^-1074.
  const dv = new DataView(new ArrayBuffer(8));
  let total = 0n;
  for (const v of values) {
    dv.setFloat64(0, v);
    const bits = dv.getBigUint64(0);
    const biased = Number((bits >> 52n) & 0x7ffn);
    const frac = bits & ((1n << 52n) - 1n);
    const m = biased === 0 ? frac : frac | (1n << 52n);
    const units = m << BigInt(Math.max(biased, 1) - 1);
    total += bits >> 63n ? -units : units;
  }
  // Round total * 2^-1074 to the nearest double via its decimal-free form: scale down exactly.
  if (total === 0n) return 0;
  const negative = total < 0n;
  let a = negative ? -total : total;
  let e = -1074;
  const len = a.toString(2).length;
  if (len > 64) { const sh = BigInt(len - 64); const sticky = (a & ((1n << sh) - 1n)) !== 0n; a = (a >> sh) | (sticky ? 1n : 0n); e += len - 64; }
  let r = Number(a);
  while (e < 0) { const k = Math.min(-e, 1000); r /= 2 ** k; e += k; }
  while (e > 0) { const k = Math.min(e, 1000); r *= 2 ** k; e -= k; }
  return negative ? -r : r;
}

function lit(v: number | null): string {
  if (v === null) return 'NULL';
  if (Number.isNaN(v)) return `CAST('nan' AS DOUBLE)`;
  if (v === Infinity) return `CAST('infinity' AS DOUBLE)`;
  if (v === -Infinity) return `CAST('-infinity' AS DOUBLE)`;
  if (Object.is(v, -0)) return `CAST('-0.0' AS DOUBLE)`;
  return `CAST('${v}' AS DOUBLE)`;
}

/** Loads the values (in this order) as both sides' per-row tables and returns the pass's sums for partition 1. */
async function passSum(values: (number | null)[], target: (number | null)[] = values): Promise<{ source: string; target: string; agree: boolean }> {
  const load = async (table: string, vs: (number | null)[]) => {
    await duck.conn.run(`CREATE OR REPLACE TEMP TABLE ${table} (pos INTEGER, p INTEGER, f0 DOUBLE)`);
    for (let i = 0; i < vs.length; i += 500) {
      const chunk = vs.slice(i, i + 500).map((v, j) => `(${i + j}, 1, ${lit(v)})`).join(', ');
      await duck.conn.run(`INSERT INTO ${table} VALUES ${chunk}`);
    }
  };
  await load('lk_s', values);
  await load('lk_t', target);
  const r = await floatSums(duck.conn, ['x'], contract, part, new Map());
  const p = r.results[0].partitions.find((x) => x.partition === 'p=1')!;
  return { source: p.source, target: p.target, agree: p.agree };
}

describe('exact float sums in the pass', () => {
  it('picks one scale when the range fits a HUGEINT and none when it cannot', () => {
    expect(exponentOf(1)).toBe(0);
    expect(exponentOf(0.75)).toBe(-1);
    expect(exponentOf(5e-324)).toBe(-1022);
    expect(exponentOf(1.7976931348623157e308)).toBe(1023);
    expect(floatScale(0.01, 500.99, 10_000_000)).toEqual({ emin: -7, shift: 59 });
    expect(floatScale(5e-324, 1e300, 10)).toBeNull();
    expect(floatScale(null, null, 0)).toEqual({ emin: 52, shift: 0 });
  });

  it('gives one answer, the exact one, for 200 shuffles of one column', async () => {
    const rand = mulberry32(20261201);
    const values = Array.from({ length: 1000 }, (_, i) => Math.round((rand() * 1000 - 300) * 100) / 100 + (i % 17 === 0 ? 1e9 : 0));
    const want = referenceSum(values);
    const answers = new Set<string>();
    const naive = new Set<number>();
    for (let s = 0; s < 200; s++) {
      const a = [...values];
      for (let j = a.length - 1; j > 0; j--) { const k = Math.floor(rand() * (j + 1)); [a[j], a[k]] = [a[k], a[j]]; }
      naive.add(a.reduce((x, y) => x + y, 0));
      const r = await passSum(a);
      answers.add(r.source);
      expect(r.agree).toBe(true);
    }
    expect(naive.size).toBeGreaterThan(1); // the test can fail: a naive sum does depend on order here
    expect([...answers]).toEqual([String(want)]);
  }, 120_000);

  it('is exact on adversarial values: cancellation, huge and tiny exponents, subnormals', async () => {
    // [values, summed in one scale (else by exponent groups)]
    const cases: [number[], boolean][] = [
      [[1e16, 1, -1e16], true], // cancellation: a naive sum gives 0 or 1 by order
      [[1e308, 1e308, -1e308, -1e308, 5e-324], false], // only the subnormal survives
      [[2 ** 1023 * 1.5, -(2 ** 1023), 2 ** -1074, 2 ** -1074], false], // the widest range there is
      [[0.1, 0.2, 0.3, -0.6], true], // not zero in binary
      [[2 ** 60, 2 ** -60, -(2 ** 60)], false], // 120 bits apart: past one HUGEINT
      [[2 ** 20, 2 ** -20, -(2 ** 20), 3 * 2 ** -20], true], // 40 bits apart
      [[5e-324, 5e-324, 1e-320], true], // subnormals only: a scale of 2^1074 (two factors)
      [[1.7976931348623157e308, -1.7976931348623157e308, 2 ** 1000], true], // huge only: a scale of 2^-948
    ];
    for (const [vs, scaled] of cases) {
      const mags = vs.filter((v) => v !== 0).map(Math.abs);
      expect(floatScale(Math.min(...mags), Math.max(...mags), 2 * vs.length) !== null).toBe(scaled);
      const r = await passSum(vs, [...vs].reverse());
      expect(r.source).toBe(String(referenceSum(vs)));
      expect(r.target).toBe(r.source);
      expect(r.agree).toBe(true);
    }
  });

  it('counts NaN and the infinities apart, and -0 is zero', async () => {
    expect((await passSum([1, NaN, 2])).source).toBe('NaN');
    expect((await passSum([1, Infinity, 2])).source).toBe('Infinity');
    expect((await passSum([1, -Infinity])).source).toBe('-Infinity');
    expect((await passSum([Infinity, -Infinity])).source).toBe('NaN');
    expect((await passSum([-0, -0])).source).toBe('0');
    expect((await passSum([-0, 0.5, -0.5])).source).toBe('0');
    // NaN on one side only is a difference; NaN on both is not
    expect((await passSum([1, NaN], [1, 2])).agree).toBe(false);
    expect((await passSum([1, NaN], [NaN, 1])).agree).toBe(true);
    // nulls add nothing
    expect((await passSum([1.5, null, 2.5])).source).toBe('4');
    expect((await passSum([null, null])).source).toBe('0');
  });

  it('tells one changed value apart, in either way of summing', async () => {
    const base = Array.from({ length: 300 }, (_, i) => (i + 1) * 1.25);
    const changed = base.map((v, i) => (i === 17 ? v * 1.0825 : v));
    expect((await passSum(base, changed)).agree).toBe(false);
    const wide = [...base, 1e-300];
    const wideChanged = [...changed, 1e-300];
    expect((await passSum(wide, wideChanged)).agree).toBe(false);
    expect((await passSum(wide, [...wide].reverse())).agree).toBe(true);
  });
});

describe('exact float sums through the reconcile', () => {
  const schema: StructType = {
    type: 'struct',
    fields: [
      { name: 'id', type: 'long', nullable: false, metadata: {} },
      { name: 'dt', type: 'date', nullable: true, metadata: {} },
      { name: 'x', type: 'double', nullable: true, metadata: {} },
      { name: 'y', type: 'double', nullable: true, metadata: {} },
    ],
  };
  // x: money-like (one scale); y: 1e-300 beside 1e300 (exponent groups), NaN and -0 on some rows.
  const rowsSql = (change: string) => `SELECT i::BIGINT AS id, DATE '2026-08-10' + (i % 3)::INTEGER AS dt,
    CASE WHEN i = 17 THEN ${change} ELSE round(i * 1.37, 2) END::DOUBLE AS x,
    CASE WHEN i % 50 = 0 THEN 1e300 WHEN i % 50 = 1 THEN 1e-300 WHEN i = 99 THEN -0.0 WHEN i % 97 = 0 THEN NULL ELSE i * 0.1 END::DOUBLE AS y
    FROM range(1, 601) r(i)`;
  const contractText = 'version: 1\nname: t\nkeys: [id]\npartitioning: { column: dt }\ncolumns:\n  x: { float: { tolerance: 1.0e-9 } }\n  y: { float: exclude }\n';

  async function lake(name: string, change: string): Promise<string> {
    const root = join(dir, name);
    const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck });
    try { await w.append({ sql: rowsSql(change) }); } finally { w.close(); }
    return root;
  }

  it('gives the same sums at checksum level (summed while reading) as at rows level (from the per-row tables)', async () => {
    const source = join(dir, 'src.parquet');
    await duck.conn.run(`COPY (SELECT * FROM (${rowsSql('round(17 * 1.37, 2)')}) ORDER BY random()) TO ${sqlString(source)} (FORMAT parquet)`);
    const same = await lake('same', 'round(17 * 1.37, 2)');
    const changed = await lake('changed', 'round(17 * 1.37, 2) * 1.0825');
    const contract = parseContract(contractText);
    // The same rows as CSV: a text source is parsed once at checksum level too (a narrow per-row table).
    const csv = join(dir, 'src.csv');
    await duck.conn.run(`COPY (SELECT * FROM read_parquet(${sqlString(source)})) TO ${sqlString(csv)} (FORMAT csv, HEADER)`);
    const fromCsv = await reconcile({ source: csv, target: { root: changed }, contract, level: 'checksum' });
    const fromParquet = await reconcile({ source, target: { root: changed }, contract, level: 'checksum' });
    expect(fromCsv.floats).toEqual(fromParquet.floats);
    expect(fromCsv.partitions.map((p) => p.sourceChecksum)).toEqual(fromParquet.partitions.map((p) => p.sourceChecksum));
    // At rows level a text source is parsed once into a temp table the re-reads use: the same answers.
    const csvRows = await reconcile({ source: csv, target: { root: changed }, contract, level: 'rows' });
    const pqRows = await reconcile({ source, target: { root: changed }, contract, level: 'rows' });
    expect(csvRows.keyDiff).toEqual(pqRows.keyDiff);
    expect(csvRows.columnDiffs).toEqual(pqRows.columnDiffs);
    expect(csvRows.floats).toEqual(pqRows.floats);
    expect(csvRows.rowDiffs.map((r) => [r.key, r.kind, r.columns])).toEqual(pqRows.rowDiffs.map((r) => [r.key, r.kind, r.columns]));
    for (const target of [same, changed]) {
      const c = await reconcile({ source, target: { root: target }, contract, level: 'checksum' });
      const r = await reconcile({ source, target: { root: target }, contract, level: 'rows' });
      expect(c.floats).toEqual(r.floats);
      expect(c.floats.map((f) => f.column)).toEqual(['x', 'y']);
      const bad = c.floats.flatMap((f) => f.partitions.filter((p) => !p.agree).map((p) => `${f.column} ${p.partition}`));
      expect(bad).toEqual(target === same ? [] : ['x dt=2026-08-12']);
      expect(c.verdict).toBe(target === same ? 'matches' : 'diverges');
    }
  });
});
