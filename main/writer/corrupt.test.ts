// Every corruption applied to a table that is not the orders table (string keys, an integer
// ordering column, a timestamp partition source), each to its own copy: one commit, and the data
// afterwards differs from the clean table exactly as the corruption says.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck, type Duck } from '../engine/duck';
import { openTable } from '../delta/open';
import { registerSnapshotView } from '../delta/scan';
import { DeltaWriter } from './writer';
import { CORRUPTIONS, injectCorruption, type Corruption, type Injection } from './corrupt';

const f = (name: string, type: string, nullable = true): StructType['fields'][number] => ({ name, type, nullable, metadata: {} });
const schema = (keyNotNull: boolean): StructType => ({
  type: 'struct',
  fields: [f('event_id', 'string', !keyNotNull), f('user_id', 'integer'), f('value', 'double'), f('label', 'string'),
    f('at', 'timestamp'), f('rev', 'long'), f('day', 'date')],
});
const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04'];
const rowsOf = (d: string, k: number): string => `SELECT 'ev-' || ${k} || '-' || i AS event_id, CAST(i % 17 AS INTEGER) AS user_id,
  CAST(i AS DOUBLE) / 7 + ${k} AS value, ['Crème', 'Zoë', 'plain', 'Ñandú', '東京'][1 + i % 5] AS label,
  CAST(TIMESTAMP '${d} 00:00:00' + INTERVAL (i * 1400 + ${k * 50 + 7}) SECOND AS TIMESTAMPTZ) AS "at", CAST(i AS BIGINT) AS rev, DATE '${d}' AS day
  FROM range(${50 + k * 10}) t(i)`;

let dir: string;
let duck: Duck;
const clean = (notNull: boolean): string => join(dir, notNull ? 'clean-notnull' : 'clean');

async function view(root: string, name: string): Promise<string> {
  await registerSnapshotView(duck.conn, await (await openTable(root)).snapshot(), name);
  return name;
}
async function n(sql: string): Promise<number> {
  return Number((await duck.conn.runAndReadAll(sql)).getRows()[0][0]);
}

async function corrupt(c: Corruption, notNull = false): Promise<{ inj: Injection; root: string; v: string; base: string }> {
  const root = join(dir, `${c}-${notNull}`);
  rmSync(root, { recursive: true, force: true });
  cpSync(clean(notNull), root, { recursive: true });
  const w = await DeltaWriter.open(root, { duck });
  const inj = await injectCorruption(w, c, { keys: ['event_id'], ordering: 'rev', timestampColumn: 'at' });
  w.close();
  return { inj, root, v: await view(root, `v_${c}_${notNull}`), base: await view(clean(notNull), `clean_${notNull}`) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-corrupt-'));
  duck = await openDuck({ threads: 2 });
  for (const notNull of [false, true]) {
    const w = await DeltaWriter.create(clean(notNull), { schema: schema(notNull), partitionColumns: ['day'], duck });
    for (const [k, d] of DAYS.entries()) await w.append({ sql: rowsOf(d, k) });
    w.close();
  }
});
afterAll(() => {
  duck.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('injectCorruption', () => {
  it('applies every corruption as one commit, aimed at the largest partition', async () => {
    for (const c of CORRUPTIONS) {
      const { inj, root } = await corrupt(c);
      expect(inj, c).toMatchObject({ corruption: c, applied: true, version: 5 });
      expect(inj.rows, c).toBeGreaterThan(0);
      expect((await openTable(root)).latestVersion).toBe(5);
    }
  });

  it('changes the data exactly as declared', async () => {
    const diff = async (a: string, b: string): Promise<number> => n(`SELECT count(*) FROM (SELECT * FROM ${a} EXCEPT ALL SELECT * FROM ${b})`);
    const big = "day = DATE '2026-03-04'";
    let r = await corrupt('double_load');
    expect(r.inj.partition).toBe('day=2026-03-04');
    expect(await diff(r.v, r.base)).toBe(80);
    expect(await diff(r.base, r.v)).toBe(0);
    r = await corrupt('missing_rows');
    expect(await diff(r.base, r.v)).toBe(r.inj.rows);
    expect(await diff(r.v, r.base)).toBe(0);
    r = await corrupt('extra_rows');
    expect(await diff(r.v, r.base)).toBe(r.inj.rows);
    expect(await n(`SELECT count(*) FROM ${r.v} WHERE event_id LIKE '%-qa-%'`)).toBe(r.inj.rows);
    r = await corrupt('partition_wipe');
    expect(await n(`SELECT count(*) FROM ${r.v} WHERE ${big}`)).toBe(0);
    expect(await diff(r.base, r.v)).toBe(80);
    r = await corrupt('overwrite_too_wide');
    expect(await n(`SELECT count(*) FROM ${r.v} WHERE ${big}`)).toBe(0);
    expect(await n(`SELECT count(*) FROM ${r.v} WHERE day = DATE '2026-03-03'`)).toBe(70);
    expect(r.inj).toMatchObject({ partition: 'day=2026-03-04', rows: 80 });
    r = await corrupt('timezone_partition_shift');
    expect(await n(`SELECT count(*) FROM ${r.v}`)).toBe(260);
    expect(await n(`SELECT count(*) FROM ${r.v} v JOIN ${r.base} b USING (event_id) WHERE v.day <> b.day`)).toBe(r.inj.rows);
    r = await corrupt('stale_rows');
    expect(await n(`SELECT count(*) FROM ${r.v} v JOIN ${r.base} b USING (event_id) WHERE v.rev < b.rev AND v.user_id <> b.user_id`)).toBe(r.inj.rows);
    r = await corrupt('content_divergence');
    expect(await n(`SELECT count(*) FROM ${r.v} v JOIN ${r.base} b USING (event_id) WHERE v.user_id <> b.user_id AND v.rev = b.rev`)).toBe(r.inj.rows);
    r = await corrupt('schema_drift');
    expect(await n(`SELECT count(*) FROM (DESCRIBE ${r.v}) WHERE column_name = 'lakerec_channel'`)).toBe(1);
    r = await corrupt('recomputed_double');
    expect(await n(`SELECT count(*) FROM ${r.v} v JOIN ${r.base} b USING (event_id) WHERE abs(v.value - b.value) > 1e-9`)).toBe(1);
    r = await corrupt('unicode_normalisation');
    expect(await n(`SELECT count(*) FROM ${r.v} v JOIN ${r.base} b USING (event_id) WHERE v.label <> b.label`)).toBe(r.inj.rows);
    expect(await n(`SELECT count(*) FROM ${r.v} v JOIN ${r.base} b USING (event_id) WHERE nfc_normalize(v.label) <> b.label`)).toBe(0);
    r = await corrupt('null_keys');
    expect(await n(`SELECT count(*) FROM ${r.v} WHERE event_id IS NULL`)).toBe(r.inj.rows);
    r = await corrupt('float_drift');
    expect(await n(`SELECT count(*) FROM ${r.v} v JOIN ${r.base} b USING (event_id) WHERE v.value <> b.value`)).toBe(r.inj.rows);
    expect(await n(`SELECT coalesce(max(abs(v.value - b.value)), 0) < 1e-9 FROM ${r.v} v JOIN ${r.base} b USING (event_id)`)).toBe(1);
  });

  it('reports a corruption the table refuses, and does not fake it', async () => {
    const { inj, root } = await corrupt('null_keys', true);
    expect(inj.applied).toBe(false);
    expect(inj.note).toMatch(/event_id is NOT NULL/);
    expect((await openTable(root)).latestVersion).toBe(4);
    const plain: StructType = { type: 'struct', fields: [f('id', 'long', false), f('n', 'long')] };
    const w = await DeltaWriter.create(join(dir, 'plain'), { schema: plain, duck });
    await w.append({ sql: 'SELECT range AS id, range * 2 AS n FROM range(30)' });
    for (const c of ['partition_wipe', 'unicode_normalisation', 'float_drift', 'timezone_partition_shift', 'stale_rows'] as const) {
      const r = await injectCorruption(w, c, { keys: ['id'] });
      expect(r.applied, c).toBe(false);
      expect(r.note, c).toMatch(/needs|not partitioned/);
    }
    expect(w.version).toBe(1);
    // Unpartitioned tables still take the row-level ones.
    expect(await injectCorruption(w, 'double_load', { keys: ['id'] })).toMatchObject({ applied: true, version: 2, partition: null, rows: 30 });
    w.close();
  });
});
