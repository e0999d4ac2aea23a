// The sample lakes: every lake is a genuine Delta table read back by lakerec's reader, each
// scenario's corruption is really in the data (measured here, independently of the builder's own
// facts), the silent ones are silent, the build is deterministic, and a NOT NULL key refuses the
// null-keys write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Action } from '../shared/delta';
import { LakerecError } from '../shared/errors';
import { openDuck, sqlString, type Duck } from '../main/engine/duck';
import { openTable } from '../main/delta/open';
import { registerSnapshotView } from '../main/delta/scan';
import { parseContract } from '../main/reconcile/contract';
import { buildLakes, buildSampleLakes, buildScenario, readScenario, type BuiltLake } from './build';
import { SCENARIOS } from './scenarios';

const ROWS = 600;
const PER_DAY = 100;
let dir: string;
let duck: Duck;
let lakes: BuiltLake[];
const lake = (name: string): BuiltLake => lakes.find((l) => l.name === name)!;

async function q(sql: string): Promise<Record<string, unknown>[]> {
  return (await duck.conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}
async function n(sql: string): Promise<number> {
  return Number(Object.values((await q(sql))[0])[0]);
}

/** The lake's rows at a version through the reader, as a temp view; returns its name. */
async function view(l: BuiltLake, version?: number): Promise<string> {
  const t = await openTable(l.tablePath);
  const name = `v_${l.name}_${version ?? 'head'}`;
  await registerSnapshotView(duck.conn, await t.snapshot(version === undefined ? {} : { version }), name);
  return name;
}
const src = (l: BuiltLake): string => `read_parquet(${sqlString(l.sourceParquet)})`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-lakes-'));
  duck = await openDuck({ threads: 2 });
  lakes = await buildSampleLakes({ out: dir, rows: ROWS });
}, 120_000);

afterAll(() => {
  duck?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sample lakes', () => {
  it('builds 16 scenarios plus the demo and the many-versions lake, each complete', async () => {
    expect(SCENARIOS).toHaveLength(16);
    expect(lakes.map((l) => l.name).sort()).toEqual([...SCENARIOS.map((s) => s.name), 'demo', 'bisect_many_versions', 'late_arriving', 'missing_rows_dv'].sort());
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { lakes: { name: string }[] };
    expect(index.lakes).toHaveLength(20);
    for (const l of lakes) {
      const meta = readScenario(l.dir);
      expect(meta).toEqual(l.meta);
      // The contract is the reconcile engine's format.
      const c = parseContract(readFileSync(l.contractPath, 'utf8'), l.contractPath);
      expect(c.keys).toEqual(['order_id']);
      expect(c.floats.amount_float).toEqual({ tolerance: 1e-9 });
      expect(c.ordering).toBe('updated_at');
      expect(await n(`SELECT count(*) FROM ${src(l)}`)).toBe(meta.sourceRows);
      expect(await n(`SELECT count(*) FROM read_csv(${sqlString(l.sourceCsv)}, header=true)`)).toBe(meta.sourceRows);
      const t = await openTable(l.tablePath);
      expect(t.latestVersion).toBe(meta.headVersion);
      const snap = await t.snapshot();
      expect(snap.numRecords).toBe(meta.targetRows);
      expect(snap.partitionColumns).toEqual(['dt']);
      const v = await view(l);
      expect(await n(`SELECT count(*) FROM ${v}`)).toBe(meta.targetRows);
      // Every commit is a genuine one: commitInfo with engine and metrics, adds with full stats
      // and relative paths that exist (for the files the head still references).
      const logDir = join(l.tablePath, '_delta_log');
      const live = new Set(snap.files.map((f) => f.path));
      for (const f of readdirSync(logDir).filter((x) => /^\d{20}\.json$/.test(x))) {
        const actions = readFileSync(join(logDir, f), 'utf8').trim().split('\n').map((x) => JSON.parse(x) as Action);
        const ci = actions.find((a) => a.commitInfo)?.commitInfo;
        expect(ci?.engineInfo, f).toBe('lakerec/0.1.0');
        expect(typeof ci?.operation).toBe('string');
        expect(ci?.operationMetrics).toBeTypeOf('object');
        for (const a of actions) {
          if (!a.add) continue;
          expect(a.add.path).toMatch(/^dt=\d{4}-\d{2}-\d{2}\/part-00000-[0-9a-f-]{36}-c000\.snappy\.parquet$/);
          const st = JSON.parse(a.add.stats!) as { numRecords: number; minValues: object; maxValues: object; nullCount: Record<string, number> };
          expect(st.numRecords).toBeGreaterThan(0);
          expect(Object.keys(st.nullCount)).toEqual(expect.arrayContaining(['order_id', 'amount', 'amount_float', 'sku', 'ts']));
          expect(Object.keys(st.minValues)).toEqual(Object.keys(st.maxValues));
          if (live.has(a.add.path)) expect(existsSync(join(l.tablePath, a.add.path))).toBe(true);
        }
      }
      if (l.name !== 'vacuumed_history') {
        const [v0] = await t.changes({ from: 0, to: 0 });
        expect(v0.protocol).not.toBeNull();
        expect(v0.metaData).not.toBeNull();
        expect(v0.commitInfo?.engineInfo).toBe('lakerec/0.1.0');
      }
    }
  });

  it('the CSV extract holds the same rows as the Parquet one (NFC text, naive UTC timestamps)', async () => {
    const l = lake('control');
    const diff = await n(`SELECT count(*) FROM (
      SELECT order_id, amount, amount_float, sku, timezone('UTC', ts) AS ts, dt FROM ${src(l)}
      EXCEPT SELECT order_id, amount, amount_float, sku, ts, dt FROM read_csv(${sqlString(l.sourceCsv)}, header=true,
        types={'amount': 'DECIMAL(12,2)', 'ts': 'TIMESTAMP', 'dt': 'DATE', 'amount_float': 'DOUBLE'}))`);
    expect(diff).toBe(0);
    expect(await n(`SELECT count(*) FROM ${src(l)} WHERE sku <> nfc_normalize(sku)`)).toBe(0);
    expect(await n(`SELECT count(*) FROM ${src(l)} WHERE regexp_matches(sku, '[^\\x00-\\x7F]')`)).toBeGreaterThan(0);
  });

  it('control and the healed history hold exactly the source rows', async () => {
    for (const name of ['control', 'healed_history']) {
      const l = lake(name);
      const v = await view(l);
      expect(await n(`SELECT count(*) FROM (SELECT * FROM ${v} EXCEPT ALL SELECT * FROM ${src(l)})`)).toBe(0);
      expect(await n(`SELECT count(*) FROM (SELECT * FROM ${src(l)} EXCEPT ALL SELECT * FROM ${v})`)).toBe(0);
      expect(l.meta.targetChecksum).toBe(l.meta.sourceChecksum);
    }
  });

  it('double load, demo and vacuumed history hold a day twice; the demo total is exactly right', async () => {
    const dupes = async (v: string): Promise<number> => n(`SELECT coalesce(sum(c - 1), 0) FROM (SELECT count(*) AS c FROM ${v} GROUP BY order_id HAVING count(*) > 1)`);
    expect(await dupes(await view(lake('double_load')))).toBe(PER_DAY);
    expect(await dupes(await view(lake('vacuumed_history')))).toBe(PER_DAY);
    const demo = lake('demo');
    const dv = await view(demo);
    expect(await dupes(dv)).toBe(PER_DAY);
    expect(await n(`SELECT count(*) FROM ${dv}`)).toBe(await n(`SELECT count(*) FROM ${src(demo)}`));
    expect(await n(`SELECT count(*) FROM ${dv} WHERE dt = DATE '2026-08-10'`)).toBe(0);
  });

  it('each corruption is in the data as declared', async () => {
    const missing = lake('missing_rows');
    expect(await n(`SELECT count(*) FROM ${await view(missing)}`)).toBe(ROWS - Number(missing.meta.facts.deletedRows));
    expect(Number(missing.meta.facts.deletedRows)).toBeGreaterThan(0);
    const extra = lake('extra_rows');
    expect(await n(`SELECT count(*) FROM ${await view(extra)} WHERE order_id NOT IN (SELECT order_id FROM ${src(extra)})`)).toBe(40);
    expect(await n(`SELECT count(*) FROM ${await view(lake('partition_wipe'))} WHERE dt = DATE '2026-08-11'`)).toBe(0);
    const wide = lake('overwrite_too_wide');
    const wv = await view(wide);
    expect(await n(`SELECT count(*) FROM ${wv} WHERE dt = DATE '2026-08-15'`)).toBe(0);
    expect(await n(`SELECT count(*) FROM ${wv} WHERE dt = DATE '2026-08-14'`)).toBe(PER_DAY);
    const wideCommit = (await (await openTable(wide.tablePath)).changes({ from: 7, to: 7 }))[0];
    expect(wideCommit.removes.map((r) => r.partitionValues?.dt).sort()).toEqual(['2026-08-14', '2026-08-15']);
    expect(wideCommit.adds.map((a) => a.partitionValues.dt)).toEqual(['2026-08-14']);
    const tz = lake('timezone_partition_shift');
    const tv = await view(tz);
    expect(await n(`SELECT count(*) FROM ${tv}`)).toBe(ROWS);
    expect(await n(`SELECT count(*) FROM ${tv} WHERE dt = DATE '2026-08-09'`)).toBeGreaterThan(0);
    expect(await n(`SELECT count(*) FROM ${tv} t JOIN ${src(tz)} s USING (order_id) WHERE t.dt <> s.dt`)).toBe(tz.meta.facts.movedRows);
    const stale = lake('stale_rows');
    const staleRows = await n(`SELECT count(*) FROM ${await view(stale)} t JOIN ${src(stale)} s USING (order_id) WHERE t.updated_at < s.updated_at AND t.amount <> s.amount`);
    expect(staleRows).toBe(stale.meta.facts.staleRows);
    expect(staleRows).toBeGreaterThan(0);
    const cd = lake('content_divergence');
    expect(await n(`SELECT count(*) FROM ${await view(cd)} t JOIN ${src(cd)} s USING (order_id) WHERE t.sku <> s.sku AND t.updated_at = s.updated_at`)).toBe(cd.meta.facts.changedRows);
    const sd = lake('schema_drift');
    expect((await q(`DESCRIBE ${await view(sd)}`)).map((r) => r.column_name)).toContain('channel');
    const rd = lake('recomputed_double');
    expect(await n(`SELECT count(*) FROM ${await view(rd)} t JOIN ${src(rd)} s USING (order_id) WHERE abs(t.amount_float - s.amount_float) > 1e-9`)).toBe(1);
    const un = lake('unicode_normalisation');
    const uv = await view(un);
    const changed = await n(`SELECT count(*) FROM ${uv} t JOIN ${src(un)} s USING (order_id) WHERE t.sku <> s.sku`);
    expect(changed).toBeGreaterThan(0);
    expect(await n(`SELECT count(*) FROM ${uv} t JOIN ${src(un)} s USING (order_id) WHERE nfc_normalize(t.sku) <> s.sku`)).toBe(0);
    const nk = lake('null_keys');
    expect(await n(`SELECT count(*) FROM ${await view(nk)} WHERE order_id IS NULL`)).toBe(nk.meta.facts.nullKeyRows);
    expect(Number(nk.meta.facts.nullKeyRows)).toBeGreaterThan(0);
  });

  it('float drift differs bitwise on some rows and stays within the contract tolerance', async () => {
    const l = lake('float_drift');
    const r = (await q(`SELECT count(*) FILTER (WHERE t.amount_float <> s.amount_float) AS bitwise, max(abs(t.amount_float - s.amount_float)) AS gap,
      count(*) FILTER (WHERE t.amount <> s.amount OR t.sku <> s.sku) AS other FROM ${await view(l)} t JOIN ${src(l)} s USING (order_id)`))[0];
    expect(Number(r.bitwise)).toBeGreaterThan(0);
    expect(Number(r.bitwise)).toBe(l.meta.facts.bitwiseDifferentRows);
    expect(Number(r.gap)).toBeLessThan(1e-9);
    expect(Number(r.other)).toBe(0);
  });

  it('missing rows through deletion vectors: same rows gone as missing_rows, no data file rewritten', async () => {
    const dv = lake('missing_rows_dv');
    const plain = lake('missing_rows');
    expect(dv.meta.targetChecksum).toBe(plain.meta.targetChecksum);
    expect(Number(dv.meta.facts.deletionVectors)).toBe(6);
    const t = await openTable(dv.tablePath);
    const snap = await t.snapshot();
    expect(snap.protocol.readerFeatures).toContain('deletionVectors');
    expect(snap.files.every((f) => f.deletionVector !== null && f.addedInVersion === 7)).toBe(true);
    expect((await t.changes({ from: 7, to: 7 }))[0].adds.every((a) => a.path === (a.deletionVector ? a.path : ''))).toBe(true);
    expect(await n(`SELECT count(*) FROM (SELECT * FROM ${await view(dv)} EXCEPT ALL SELECT * FROM ${await view(plain)})`)).toBe(0);
  });

  it('late arriving: the source holds one more day than the table, nothing else differs', async () => {
    const l = lake('late_arriving');
    const v = await view(l);
    expect(l.meta.sourceRows).toBe(ROWS + PER_DAY);
    expect(l.meta.sourcePartitions['dt=2026-08-16']).toBe(PER_DAY);
    expect(await n(`SELECT count(*) FROM (SELECT * FROM ${src(l)} WHERE dt < DATE '2026-08-16' EXCEPT ALL SELECT * FROM ${v})`)).toBe(0);
    expect(await n(`SELECT count(*) FROM ${v}`)).toBe(ROWS);
  });

  it('histories for bisect: healed, vacuumed, and over 47 versions', async () => {
    const healed = lake('healed_history');
    const dupesAt = async (l: BuiltLake, v: number): Promise<number> =>
      n(`SELECT count(*) - count(DISTINCT order_id) FROM ${await view(l, v)}`);
    expect(healed.meta.brokenAtVersion).toBe(7);
    expect(healed.meta.repairedAtVersion).toBe(8);
    expect(await dupesAt(healed, 6)).toBe(0);
    expect(await dupesAt(healed, 7)).toBe(PER_DAY);
    expect(await dupesAt(healed, 8)).toBe(0);

    const vac = lake('vacuumed_history');
    const vt = await openTable(vac.tablePath);
    const versions = vt.versions();
    expect(versions.filter((v) => !v.readable).map((v) => v.version)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(versions.find((v) => v.version === 8)).toMatchObject({ readable: true, hasCheckpoint: true });
    expect(readdirSync(join(vac.tablePath, '_delta_log')).filter((f) => f.endsWith('.json'))).toEqual(['00000000000000000008.json']);
    expect(vac.meta.facts.vacuumedFiles).toBe(2);
    expect(await dupesAt(vac, 8)).toBe(PER_DAY);
    // Every file the oldest readable version names is still there.
    for (const f of (await vt.snapshot({ version: 8 })).files) expect(existsSync(vt.storage.describe(f.path))).toBe(true);

    const many = lake('bisect_many_versions');
    expect(many.meta.headVersion).toBeGreaterThan(47);
    const b = many.meta.brokenAtVersion!;
    expect(await dupesAt(many, b - 1)).toBe(0);
    expect(await dupesAt(many, b)).toBe(10);
    expect(await dupesAt(many, many.meta.headVersion)).toBe(10);
  });

  it('is deterministic: the same seed gives the same rows, another seed other rows', async () => {
    const a = await buildScenario('stale_rows', { out: join(dir, 'again'), rows: ROWS });
    expect(a.meta.sourceChecksum).toBe(lake('stale_rows').meta.sourceChecksum);
    expect(a.meta.targetChecksum).toBe(lake('stale_rows').meta.targetChecksum);
    expect(a.meta.facts).toEqual(lake('stale_rows').meta.facts);
    const b = await buildScenario('stale_rows', { out: join(dir, 'other-seed'), rows: ROWS, seed: 7 });
    expect(b.meta.sourceChecksum).not.toBe(a.meta.sourceChecksum);
  });

  it('a NOT NULL key rejects the null-keys write: the bad data never lands', async () => {
    const spec = SCENARIOS.find((s) => s.name === 'null_keys')!;
    const strict = { ...spec, orderIdNotNull: true };
    const e = await buildLakes([strict], { out: join(dir, 'strict'), rows: ROWS, seed: 1 }).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(LakerecError);
    expect((e as LakerecError).code).toBe('writer_misuse');
    expect((e as LakerecError).message).toMatch(/NOT NULL constraint violated: \d+ row\(s\) have a null "order_id"/);
    const t = await openTable(join(dir, 'strict', 'null_keys', 'table'));
    expect(t.latestVersion).toBe(6);
    const v = await view({ ...lake('null_keys'), name: 'strict', tablePath: join(dir, 'strict', 'null_keys', 'table') });
    expect(await n(`SELECT count(*) FROM ${v} WHERE order_id IS NULL`)).toBe(0);
  });

  it('refuses a lake name it does not know', async () => {
    const e = await buildSampleLakes({ out: join(dir, 'x'), only: ['nope'] }).then(() => null, (x: unknown) => x);
    expect((e as LakerecError).code).toBe('usage');
  });
});
