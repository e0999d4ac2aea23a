// The pushed digest against the local one, value by value: the DuckDB dialect's canonical text of
// each awkward value is the local engine's (main/reconcile/canonical.ts) byte for byte and the
// text ADR 0003 writes down; its four limbs add up to the local md5_number digest; float parts
// are the local exact-sum parts. Partials of different digests never add.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { openDuck, type Duck } from '../engine/duck';
import { canonicalField, canonicalRow } from '../reconcile/canonical';
import { combineHalves, floatPartsSql, toHex128 } from '../reconcile/checksum';
import { canonicalFieldSql, canonicalRowSql, floatPartsSelect, limbsSql, DIALECT_SQL } from './dialect';
import { addPartials, combineLimbs, emptyPartials, addPartial, PUSHED_DIGEST, exactInteger } from './partials';
import { AWKWARD_VALUES } from './awkward';

let duck: Duck;
beforeAll(async () => { duck = await openDuck({ threads: 1 }); });
afterAll(() => duck?.close());

async function one(sql: string): Promise<Record<string, unknown>> {
  const r = await duck.conn.runAndReadAll(sql);
  return r.getRowObjectsJS()[0] as Record<string, unknown>;
}

describe('canonical text of awkward values: pushed (duckdb dialect) = local = ADR 0003', () => {
  for (const v of AWKWARD_VALUES.filter((x) => x.family !== 'float')) {
    it(`${v.name}: ${JSON.stringify(v.text)}`, async () => {
      const col = { name: 'v', type: v.type };
      const r = await one(`SELECT ${canonicalFieldSql(col, 'duckdb', v.naiveIsUtc ?? false)} AS pushed, ${canonicalField('v', v.type, v.naiveIsUtc ?? false)} AS local FROM (SELECT ${v.duckdb} AS v)`);
      expect(r.pushed).toBe(v.text);
      expect(r.local).toBe(v.text);
    });
  }

  it('a naive timestamp under naive_is_utc has the text of the same instant zoned at UTC', async () => {
    const naive = await one(`SELECT ${canonicalFieldSql({ name: 'v', type: 'TIMESTAMP' }, 'duckdb', true)} AS t FROM (SELECT TIMESTAMP '1969-07-20 20:17:40.5' AS v)`);
    const zoned = await one(`SELECT ${canonicalFieldSql({ name: 'v', type: 'TIMESTAMP WITH TIME ZONE' }, 'duckdb', true)} AS t FROM (SELECT TIMESTAMPTZ '1969-07-20 20:17:40.5+00' AS v)`);
    expect(naive.t).toBe(zoned.t);
    expect(naive.t).toBe(`V${Date.UTC(1969, 6, 20, 20, 17, 40, 500) * 1000}|`);
  });

  it('the empty string and null are different fields, and a whole row is the fields in order', async () => {
    const cols = [{ name: 'a', type: 'VARCHAR' }, { name: 'b', type: 'VARCHAR' }, { name: 'c', type: 'DECIMAL(5,2)' }];
    const r = await one(`SELECT ${canonicalRowSql(cols, 'duckdb', false)} AS pushed, ${canonicalRow(cols, false)} AS local FROM (SELECT '' AS a, NULL::VARCHAR AS b, -0.00::DECIMAL(5,2) AS c)`);
    expect(r.pushed).toBe('V0:N|V0.00|');
    expect(r.local).toBe(r.pushed);
  });
});

describe('the digest: md5 of the canonical text read little-endian, in four 32-bit limbs', () => {
  it('ADR 0010 worked example: md5("V42|") as an integer, recomputed from the bytes alone', async () => {
    const hex = createHash('md5').update('V42|', 'utf8').digest('hex');
    // Little-endian: byte 0 (the first two hex digits) is the least significant.
    const le = BigInt('0x' + (hex.match(/../g) ?? []).reverse().join(''));
    const r = await one(`SELECT md5_number('V42|') AS local`);
    expect(BigInt(String(r.local))).toBe(le);
  });

  it('ADR 0010 worked example: rows 42 and -7 of a BIGINT column, limb sums and the checksum (with the carry past 2^128)', async () => {
    const limbs = limbsSql('h', 'duckdb');
    const text = canonicalFieldSql({ name: 'v', type: 'BIGINT' }, 'duckdb', false);
    const r = await one(`SELECT ${limbs.map((_, j) => `sum(l${j}) AS l${j}`).join(', ')} FROM (SELECT ${limbs.map((l, j) => `${l} AS l${j}`).join(', ')} FROM (SELECT md5(${text}) AS h FROM (VALUES (CAST(42 AS BIGINT)), (CAST(-7 AS BIGINT))) t(v)))`);
    const sums = [r.l0, r.l1, r.l2, r.l3].map(String);
    expect(sums).toEqual(['6356575220', '5841323863', '3298632115', '4651022751']);
    expect(toHex128(combineLimbs(sums))).toBe('1538f99fc49d21b45c2b87587ae1a3f4');
    const local = await one(`SELECT sum(CAST(d >> 64 AS UBIGINT)) AS hi, sum(CAST(d & 18446744073709551615::UHUGEINT AS UBIGINT)) AS lo FROM (SELECT md5_number(${canonicalField('v', 'BIGINT', false)}) AS d FROM (VALUES (CAST(42 AS BIGINT)), (CAST(-7 AS BIGINT))) t(v))`);
    expect(toHex128(combineHalves(String(local.hi), String(local.lo)))).toBe('1538f99fc49d21b45c2b87587ae1a3f4');
  });

  for (const v of AWKWARD_VALUES.filter((x) => x.family !== 'float')) {
    it(`limbs of ${v.name} add up to the local md5_number digest`, async () => {
      const col = { name: 'v', type: v.type };
      const limbs = limbsSql('h', 'duckdb');
      const r = await one(`SELECT ${limbs.map((l, j) => `${l} AS l${j}`).join(', ')}, md5_number(local) AS d FROM (SELECT ${DIALECT_SQL.duckdb.md5Hex('pushed')} AS h, local FROM (SELECT ${canonicalFieldSql(col, 'duckdb', v.naiveIsUtc ?? false)} AS pushed, ${canonicalField('v', v.type, v.naiveIsUtc ?? false)} AS local FROM (SELECT ${v.duckdb} AS v)))`);
      expect(combineLimbs([String(r.l0), String(r.l1), String(r.l2), String(r.l3)])).toBe(BigInt(String(r.d)));
    });
  }

  it('per-partition limb sums equal the local engine’s halves sums, over many rows', async () => {
    const text = `concat('V', CAST(i AS VARCHAR), '|')`;
    const limbs = limbsSql('h', 'duckdb');
    const pushed = await one(`SELECT ${limbs.map((_, j) => `sum(l${j}) AS l${j}`).join(', ')} FROM (SELECT ${limbs.map((l, j) => `${l} AS l${j}`).join(', ')} FROM (SELECT md5(${text}) AS h FROM range(20000) t(i)))`);
    const local = await one(`SELECT sum(CAST(d >> 64 AS UBIGINT)) AS hi, sum(CAST(d & 18446744073709551615::UHUGEINT AS UBIGINT)) AS lo FROM (SELECT md5_number(${text}) AS d FROM range(20000) t(i))`);
    expect(toHex128(combineLimbs([String(pushed.l0), String(pushed.l1), String(pushed.l2), String(pushed.l3)])))
      .toBe(toHex128(combineHalves(String(local.hi), String(local.lo))));
  });
});

describe('floats: the pushed exact-sum parts are the local ones', () => {
  for (const v of AWKWARD_VALUES.filter((x) => x.family === 'float')) {
    it(v.name, async () => {
      const local = floatPartsSql('v');
      const r = await one(`SELECT f_e AS pe, f_m AS pm, f_s AS ps, ${local.e} AS le, ${local.m} AS lm, ${local.special} AS ls FROM (${floatPartsSelect('duckdb', `(SELECT ${v.duckdb} AS v)`, [{ expr: 'v', as: 'v' }], [{ expr: 'v', out: 'f' }])})`);
      expect([r.pe, r.pm, r.ps].map((x) => (x === null ? null : String(x)))).toEqual([r.le, r.lm, r.ls].map((x) => (x === null ? null : String(x))));
      expect(r.ps === null ? (r.pe === null ? 'zero or null' : `${String(r.pm)}*2^${Number(r.pe) - 52}`) : r.ps).toBe(v.text);
      if (r.pe !== null) expect(Number(r.pm) * 2 ** (Number(r.pe) - 52)).toBe(Number(v.value));
    });
  }
});

describe('partials', () => {
  it('of one digest add per partition; of different digests never add', () => {
    const a = emptyPartials(PUSHED_DIGEST, 'warehouse w (trino)');
    addPartial(a, { partition: 'dt=1', rows: 2n, sum: (1n << 127n) + 5n });
    const b = emptyPartials(PUSHED_DIGEST, 'duckdb (local engine)');
    addPartial(b, { partition: 'dt=1', rows: 1n, sum: 1n << 127n });
    addPartial(b, { partition: 'dt=2', rows: 1n, sum: 7n });
    const s = addPartials(a, b);
    expect(s.partitions.get('dt=1')).toEqual({ partition: 'dt=1', rows: 3n, sum: 5n });
    expect(s.partitions.get('dt=2')?.rows).toBe(1n);
    const fast = emptyPartials('duckdb-hash-v2@v1.5.2', 'duckdb (local engine)');
    expect(() => addPartials(a, fast)).toThrow(/cannot add checksum partials of different digests: md5-canonical-v1 .* and duckdb-hash-v2@v1.5.2/);
  });

  it('limb sums must be four exact non-negative integers', () => {
    expect(combineLimbs(['4294967295', '0', '0', '1'])).toBe((1n << 96n) + 4294967295n);
    expect(() => combineLimbs(['1', '2', '3'])).toThrow(/3 limb sums/);
    expect(() => combineLimbs(['-1', '0', '0', '0'])).toThrow(/negative/);
    expect(() => exactInteger(1e20, 'l0')).toThrow(/inexact/);
    expect(exactInteger('12.000', 'l0')).toBe(12n);
    expect(() => exactInteger('1e5', 'l0')).toThrow(/not an exact integer/);
  });
});
