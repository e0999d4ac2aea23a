// The key bitmaps (keyBitmapProof) against the GROUP BY / SEMI JOIN queries they stand in for:
// on random small per-row tables whose partitions outside the diff hold the same rows on both
// sides (what agreeing checksums mean), each answer must be the one those queries give (the key
// diff skips a query only when the bitmaps prove its result empty).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSampleLakes } from '../../sample-lakes/build';
import { reconcile } from './reconcile';
import { normaliseResult } from './old-engine/normalise';
import { openDuck, type Duck } from '../engine/duck';
import { mulberry32 } from '../../shared/random';
import { keyBitmapProof, keyHashProof } from './keydiff';
import { partitionIn, rows } from './sql';

let duck: Duck;

beforeAll(async () => {
  duck = await openDuck({ threads: 2 });
});

afterAll(() => duck?.close());

const DAYS = ['2026-08-10', '2026-08-11', '2026-08-12'];

/** lk_s and lk_t as the pass builds them: (p DATE, k0, h1). */
async function load(src: (number | null)[][], tgt: (number | null)[][], srcType = 'BIGINT', tgtType = 'BIGINT'): Promise<void> {
  const values = (rs: (number | null)[][]) => rs.length
    ? rs.map(([d, k]) => `(DATE '${DAYS[d!]}', ${k === null ? 'NULL' : k}, 0::UBIGINT)`).join(', ')
    : `(NULL::DATE, NULL, 0::UBIGINT)`;
  const table = (name: string, rs: (number | null)[][], type: string) =>
    `CREATE OR REPLACE TEMP TABLE ${name} AS SELECT p, CAST(k0 AS ${type}) AS k0, h1 FROM (VALUES ${values(rs)}) v(p, k0, h1)${rs.length ? '' : ' WHERE false'}`;
  await duck.conn.run(table('lk_s', src, srcType));
  await duck.conn.run(table('lk_t', tgt, tgtType));
}

/** The answers of the queries the bitmaps stand in for (keydiff.ts, the GROUP BY path). */
async function truth(notNull: string, inD: string): Promise<{ sourceUnique: boolean; cross: boolean; targetDiffUnique: boolean }> {
  const one = async (sql: string) => Number((await rows(duck.conn, sql))[0].n);
  const sdup = await one(`SELECT count(*) AS n FROM (SELECT k0 FROM lk_s WHERE ${notNull} GROUP BY k0 HAVING count(*) > 1)`);
  const dk = `SELECT k0 FROM lk_s WHERE ${notNull} AND ${inD} UNION SELECT k0 FROM lk_t WHERE ${notNull} AND ${inD}`;
  const outside = (tb: string) => `SELECT x.k0 FROM (SELECT k0 FROM ${tb} WHERE ${notNull} AND NOT (${inD})) x SEMI JOIN (${dk}) d ON d.k0 = x.k0`;
  const xk = await one(`SELECT count(*) AS n FROM (${outside('lk_s')} UNION ${outside('lk_t')})`);
  const tdup = await one(`SELECT count(*) AS n FROM (SELECT k0 FROM lk_t WHERE ${notNull} AND ${inD} GROUP BY k0 HAVING count(*) > 1)`);
  return { sourceUnique: sdup === 0, cross: xk > 0, targetDiffUnique: tdup === 0 };
}

describe('key bitmaps', () => {
  it('give the answers of the GROUP BY queries on random tables (dups, keys in two partitions, nulls, negative keys)', async () => {
    const rnd = mulberry32(14);
    let proved = 0;
    const seen = { sourceDup: 0, cross: 0, targetDup: 0, clean: 0 };
    for (let c = 0; c < 80; c++) {
      const base = Math.floor(rnd() * 2000) - 1000;
      const n = 1 + Math.floor(rnd() * 40);
      const skip = rnd() < 0.2;
      const which = rnd();
      // The diff's partitions: all, none, or some (never a skipped one).
      const dDays = which < 0.15 ? [0, 1, 2] : which < 0.25 ? [] : which < 0.7 ? [2] : [1, 2];
      const inD = dDays.length === 3 && !skip ? 'true' : dDays.length === 0 ? 'false' : partitionIn('p', 'DATE', dDays.map((d) => 'dt=' + DAYS[d]));
      const src: (number | null)[][] = [];
      for (let i = 0; i < n; i++) {
        const k = rnd() < 0.05 ? null : base + i;
        src.push([Math.floor(rnd() * 3), k]);
        if (rnd() < 0.05) src.push([Math.floor(rnd() * 3), k]); // repeated in the source
      }
      // Outside the diff's partitions the target holds the source's rows (their checksums agree);
      // inside, keys go missing, move, repeat, or arrive from elsewhere.
      const tgt: (number | null)[][] = [];
      const keys = src.map(([, k]) => k);
      for (const [d, k] of src) {
        if (!dDays.includes(d!)) { tgt.push([d, k]); continue; }
        const r = rnd();
        if (r < 0.08) continue;
        tgt.push([r < 0.16 ? dDays[Math.floor(rnd() * dDays.length)] : d, k]);
        if (rnd() < 0.06) tgt.push([d, k]);
      }
      if (dDays.length && rnd() < 0.3) tgt.push([dDays[0], keys[Math.floor(rnd() * keys.length)]]);
      if (dDays.length && rnd() < 0.2) tgt.push([dDays[0], base + n + 5]);
      await load(src, tgt, rnd() < 0.3 ? 'INTEGER' : 'BIGINT', 'BIGINT');
      const notNull = `NOT (k0 IS NULL)${skip ? ` AND NOT ${partitionIn('p', 'DATE', ['dt=' + DAYS[0]])}` : ''}`;
      const want = await truth(notNull, inD);
      const got = await keyBitmapProof(duck.conn, { srcType: 'BIGINT', tgtType: 'BIGINT', inDigest: true }, notNull, inD);
      if (got === null) continue; // no rows on either side
      proved++;
      const what = `case ${c}: ${JSON.stringify({ src, tgt, inD, skip })}`;
      expect(got.sourceUnique, what).toBe(want.sourceUnique);
      expect(got.targetDiffUnique, what).toBe(want.targetDiffUnique);
      // With a repeated source key the crossing is not proved: the GROUP BY queries decide it.
      expect(got.cross, what).toBe(want.sourceUnique ? want.cross : true);
      if (!want.sourceUnique) seen.sourceDup++;
      if (want.cross && want.sourceUnique) seen.cross++;
      if (!want.targetDiffUnique) seen.targetDup++;
      if (want.sourceUnique && !want.cross && want.targetDiffUnique) seen.clean++;
    }
    // The cases cover every answer, so each comparison above could have failed.
    expect(proved).toBeGreaterThan(60);
    for (const v of Object.values(seen)) expect(v).toBeGreaterThan(3);
  });

  it('stand aside (null) for a key that is not an integer or not in the digest, a sparse or too wide range, or no rows', async () => {
    const nn = 'NOT (k0 IS NULL)';
    const int = { srcType: 'BIGINT', tgtType: 'BIGINT', inDigest: true };
    await load([[0, 1], [1, 2]], [[0, 1]]);
    expect(await keyBitmapProof(duck.conn, int, nn, 'true')).not.toBeNull();
    expect(await keyBitmapProof(duck.conn, { ...int, srcType: 'VARCHAR' }, nn, 'true')).toBeNull();
    expect(await keyBitmapProof(duck.conn, { ...int, inDigest: false }, nn, 'true')).toBeNull();
    // A narrow key type on one side, wider values on the other: proved, or left to the GROUP BY.
    await load([[0, -5], [1, 9]], [[0, -5], [1, 9], [2, 1000]], 'TINYINT', 'BIGINT');
    const narrow = await keyBitmapProof(duck.conn, { srcType: 'TINYINT', tgtType: 'BIGINT', inDigest: true }, nn, 'true');
    if (narrow) expect(narrow).toEqual({ sourceUnique: true, cross: false, targetDiffUnique: true });
    await load([[0, 0], [1, 2 ** 40]], [[0, 0]]);
    expect(await keyBitmapProof(duck.conn, int, nn, 'true')).toBeNull();
    await load([], []);
    expect(await keyBitmapProof(duck.conn, int, nn, 'true')).toBeNull();
    // A key beyond BIGINT's range cannot be cast: the GROUP BY queries handle it.
    await duck.conn.run(`CREATE OR REPLACE TEMP TABLE lk_s AS SELECT DATE '2026-08-10' AS p, CAST(18446744073709551615 AS UBIGINT) AS k0, 0::UBIGINT AS h1`);
    await duck.conn.run(`CREATE OR REPLACE TEMP TABLE lk_t AS SELECT * FROM lk_s`);
    expect(await keyBitmapProof(duck.conn, { ...int, srcType: 'UBIGINT', tgtType: 'UBIGINT' }, nn, 'true')).toBeNull();
  });
});

/** The GROUP BY / SEMI JOIN answers for a key of several columns K (the queries keydiff.ts runs). */
async function truthK(K: string[], notNull: string, inD: string): Promise<{ sourceUnique: boolean; cross: boolean; targetDiffUnique: boolean }> {
  const one = async (sql: string) => Number((await rows(duck.conn, sql))[0].n);
  const Kl = K.join(', ');
  const on = K.map((k) => `d.${k} = x.${k}`).join(' AND ');
  const sdup = await one(`SELECT count(*) AS n FROM (SELECT ${Kl} FROM lk_s WHERE ${notNull} GROUP BY ${Kl} HAVING count(*) > 1)`);
  const dk = `SELECT ${Kl} FROM lk_s WHERE ${notNull} AND ${inD} UNION SELECT ${Kl} FROM lk_t WHERE ${notNull} AND ${inD}`;
  const outside = (tb: string) => `SELECT x.${K.join(', x.')} FROM (SELECT ${Kl} FROM ${tb} WHERE ${notNull} AND NOT (${inD})) x SEMI JOIN (${dk}) d ON ${on}`;
  const xk = await one(`SELECT count(*) AS n FROM (${outside('lk_s')} UNION ${outside('lk_t')})`);
  const tdup = await one(`SELECT count(*) AS n FROM (SELECT ${Kl} FROM lk_t WHERE ${notNull} AND ${inD} GROUP BY ${Kl} HAVING count(*) > 1)`);
  return { sourceUnique: sdup === 0, cross: xk > 0, targetDiffUnique: tdup === 0 };
}

type KeyRow = [number, (string | number | null)[]];

/** lk_s and lk_t with key columns of the given types: (p DATE, k0, k1, ..., h1). */
async function loadK(types: string[], src: KeyRow[], tgt: KeyRow[]): Promise<void> {
  const lit = (v: string | number | null) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`);
  const K = types.map((_, i) => `k${i}`);
  const values = (rs: KeyRow[]) => rs.length
    ? rs.map(([d, ks]) => `(DATE '${DAYS[d]}', ${ks.map(lit).join(', ')}, 0::UBIGINT)`).join(', ')
    : `(NULL::DATE, ${K.map(() => 'NULL').join(', ')}, 0::UBIGINT)`;
  const table = (name: string, rs: KeyRow[]) =>
    `CREATE OR REPLACE TEMP TABLE ${name} AS SELECT p, ${K.map((k, i) => `CAST(${k} AS ${types[i]}) AS ${k}`).join(', ')}, h1 FROM (VALUES ${values(rs)}) v(p, ${K.join(', ')}, h1)${rs.length ? '' : ' WHERE false'}`;
  await duck.conn.run(table('lk_s', src));
  await duck.conn.run(table('lk_t', tgt));
}

describe('key hashes', () => {
  // Text keys (with unicode look-alikes), two-column keys (text + integer), sparse integer keys.
  const shapes: { name: string; types: string[]; key: (i: number, rnd: () => number) => (string | number | null)[] }[] = [
    { name: 'text', types: ['VARCHAR'], key: (i, rnd) => [rnd() < 0.05 ? null : i % 5 === 0 ? `ord-\u00e9${i}` : i % 5 === 1 ? `ord-e\u0301${i - 1}` : `ord-${i}`] },
    { name: 'two columns', types: ['VARCHAR', 'INTEGER'], key: (i, rnd) => [rnd() < 0.03 ? null : `c${i % 4}`, rnd() < 0.03 ? null : Math.floor(i / 4)] },
    { name: 'sparse integer', types: ['BIGINT'], key: (i, rnd) => [rnd() < 0.05 ? null : i * 1_000_003 - 7_000_000] },
  ];
  for (const shape of shapes) {
    it(`give the answers of the GROUP BY queries on random tables with a ${shape.name} key (dups, crossings, nulls)`, async () => {
      const rnd = mulberry32(shape.name.length * 31);
      const K = shape.types.map((_, i) => `k${i}`);
      const seen = { sourceDup: 0, cross: 0, targetDup: 0, clean: 0 };
      for (let c = 0; c < 60; c++) {
        const base = Math.floor(rnd() * 1000);
        const n = 1 + Math.floor(rnd() * 40);
        const skip = rnd() < 0.2;
        const which = rnd();
        const dDays = which < 0.15 ? [0, 1, 2] : which < 0.25 ? [] : which < 0.7 ? [2] : [1, 2];
        const inD = dDays.length === 3 && !skip ? 'true' : dDays.length === 0 ? 'false' : partitionIn('p', 'DATE', dDays.map((d) => 'dt=' + DAYS[d]));
        const src: KeyRow[] = [];
        const dupRate = rnd() < 0.4 ? 0.08 : 0;
        for (let i = 0; i < n; i++) {
          const k = shape.key(base + i, rnd);
          src.push([Math.floor(rnd() * 3), k]);
          if (rnd() < dupRate) src.push([Math.floor(rnd() * 3), k]); // repeated in the source
        }
        const tgt: KeyRow[] = [];
        for (const [d, k] of src) {
          if (!dDays.includes(d)) { tgt.push([d, k]); continue; }
          const r = rnd();
          if (r < 0.08) continue;
          tgt.push([r < 0.16 ? dDays[Math.floor(rnd() * dDays.length)] : d, k]);
          if (rnd() < 0.06) tgt.push([d, k]);
        }
        if (dDays.length && rnd() < 0.3) tgt.push([dDays[0], src[Math.floor(rnd() * src.length)][1]]);
        if (dDays.length && rnd() < 0.2) tgt.push([dDays[0], shape.key(base + n + 5, rnd)]);
        await loadK(shape.types, src, tgt);
        const notNull = `NOT (${K.map((k) => `${k} IS NULL`).join(' OR ')})${skip ? ` AND NOT ${partitionIn('p', 'DATE', ['dt=' + DAYS[0]])}` : ''}`;
        const want = await truthK(K, notNull, inD);
        const got = await keyHashProof(duck.conn, K, true, notNull, inD);
        const what = `case ${c}: ${JSON.stringify({ src, tgt, inD, skip })}`;
        // No two of a few hundred keys share a 64-bit hash: each answer is the exact one, but with a
        // repeated source key the crossing is not proved (the GROUP BY queries decide it).
        expect(got, what).toEqual({ ...want, cross: want.sourceUnique ? want.cross : true });
        if (!want.sourceUnique) seen.sourceDup++;
        if (want.cross && want.sourceUnique) seen.cross++;
        if (!want.targetDiffUnique) seen.targetDup++;
        if (want.sourceUnique && !want.cross && want.targetDiffUnique) seen.clean++;
      }
      for (const v of Object.values(seen)) expect(v).toBeGreaterThan(3);
    });
  }

  it('stand aside (null) for a key not in the digest, of another type on each side, or a float', async () => {
    await loadK(['VARCHAR'], [[0, ['a']]], [[0, ['a']]]);
    expect(await keyHashProof(duck.conn, ['k0'], true, 'NOT (k0 IS NULL)', 'true')).toEqual({ sourceUnique: true, cross: false, targetDiffUnique: true });
    expect(await keyHashProof(duck.conn, ['k0'], false, 'NOT (k0 IS NULL)', 'true')).toBeNull();
    await duck.conn.run(`CREATE OR REPLACE TEMP TABLE lk_t AS SELECT p, CAST(1 AS BIGINT) AS k0, h1 FROM lk_s`);
    await duck.conn.run(`CREATE OR REPLACE TEMP TABLE lk_s AS SELECT p, CAST(1 AS INTEGER) AS k0, h1 FROM lk_s`);
    expect(await keyHashProof(duck.conn, ['k0'], true, 'NOT (k0 IS NULL)', 'true')).toBeNull();
    await loadK(['DOUBLE'], [[0, [0]]], [[0, [0]]]);
    expect(await keyHashProof(duck.conn, ['k0'], true, 'NOT (k0 IS NULL)', 'true')).toBeNull();
  });

  it('prove nothing from a hash that repeats: the exact queries decide (no rows: all proved)', async () => {
    // Two copies of one key in the source, one of them in the diff's partition: not unique, and crossing.
    await loadK(['VARCHAR', 'BIGINT'], [[0, ['a', 1]], [2, ['a', 1]], [1, ['b', 2]]], [[0, ['a', 1]], [2, ['a', 1]], [1, ['b', 2]]]);
    const inD = partitionIn('p', 'DATE', ['dt=' + DAYS[2]]);
    expect(await keyHashProof(duck.conn, ['k0', 'k1'], true, 'NOT (k0 IS NULL OR k1 IS NULL)', inD)).toEqual({ sourceUnique: false, cross: true, targetDiffUnique: true });
    await loadK(['VARCHAR'], [], []);
    expect(await keyHashProof(duck.conn, ['k0'], true, 'NOT (k0 IS NULL)', 'true')).toEqual({ sourceUnique: true, cross: false, targetDiffUnique: true });
  });
});

describe('the key diff with and without the proofs', () => {
  // Sample lakes that plant repeated keys, keys in two partitions, null keys, missing and extra
  // rows, reconciled on a text key (sku: repeats in the source) and on a two-column key
  // (order_id, sku): the whole rows-level result is the same with the proofs as with the exact
  // queries alone (LAKEREC_KEY_PROOF=off).
  const names = ['double_load', 'timezone_partition_shift', 'null_keys', 'missing_rows', 'extra_rows', 'unicode_normalisation'];
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-keyproof-')); });
  afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });
  it('gives the same rows-level result on text and two-column keys', async () => {
    const lakes = await buildSampleLakes({ out: dir, rows: 300, only: names });
    expect(lakes.map((l) => l.name).sort()).toEqual([...names].sort());
    let differing = 0;
    for (const lake of lakes) {
      for (const keys of ['[sku]', '[order_id, sku]']) {
        const contract = join(dir, `${lake.name}-${keys.length}.yaml`);
        writeFileSync(contract, readFileSync(lake.contractPath, 'utf8').replace(/^keys: \[order_id\]$/m, `keys: ${keys}`));
        const run = () => reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract, level: 'rows' });
        const proved = normaliseResult(await run());
        process.env.LAKEREC_KEY_PROOF = 'off';
        let exact: ReturnType<typeof normaliseResult>;
        try { exact = normaliseResult(await run()); } finally { delete process.env.LAKEREC_KEY_PROOF; }
        expect(proved, `${lake.name} keys ${keys}`).toEqual(exact);
        if (exact.rowDiffs.length > 0) differing++;
      }
    }
    // The lakes diverge, so the comparison covers found differences, not empty results.
    expect(differing).toBeGreaterThan(6);
  }, 60_000);
});
