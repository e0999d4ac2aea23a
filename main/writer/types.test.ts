// The writer on values that break naive writers: int64 extremes, wide decimals, NaN and
// infinities, empty and non-ASCII strings, dates before 1970, instants and wall-clock timestamps,
// nested types, binary, and partition values that need escaping (and a null partition).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Action, StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { openDuck, type Duck } from '../engine/duck';
import { openTable } from '../delta/open';
import { registerSnapshotView } from '../delta/scan';
import { DeltaWriter } from './writer';

const f = (name: string, type: StructType['fields'][number]['type'], nullable = true): StructType['fields'][number] => ({ name, type, nullable, metadata: {} });
const schema: StructType = {
  type: 'struct',
  fields: [
    f('id', 'long', false),
    f('big', 'long'),
    f('dec', 'decimal(38,10)'),
    f('d', 'double'),
    f('s', 'string'),
    f('day', 'date'),
    f('at', 'timestamp'),
    f('wall', 'timestamp_ntz'),
    f('flag', 'boolean'),
    f('bytes', 'binary'),
    f('tags', { type: 'array', elementType: 'integer', containsNull: true }),
    f('addr', { type: 'struct', fields: [f('city', 'string'), f('zip', 'integer')] }),
    f('attrs', { type: 'map', keyType: 'string', valueType: 'integer', valueContainsNull: true }),
    f('region', 'string'),
  ],
};

const rows = `SELECT * FROM (VALUES
  (1::BIGINT, 9223372036854775807::BIGINT, '12345678901234567890123456.0123456789'::DECIMAL(38,10), 'NaN'::DOUBLE, '', DATE '1969-07-20',
   TIMESTAMPTZ '1969-07-20 20:17:40.123456+00', TIMESTAMP '2026-08-10 23:59:59.999999', true, '\\x00\\xFF'::BLOB,
   [1, NULL, 3], {'city': 'Zürich', 'zip': 8001}, MAP {'a': 1}, 'a/b=c%'),
  (2, -9223372036854775808, -0.0000000001, 'Infinity'::DOUBLE, 'Café 日本', DATE '0001-01-01',
   TIMESTAMPTZ '2026-08-10 00:00:00+00', TIMESTAMP '1900-01-01 00:00:00', false, NULL, [], NULL, MAP {}, NULL),
  (3, NULL, NULL, -0.0, NULL, NULL, NULL, NULL, NULL, ''::BLOB, NULL, {'city': NULL, 'zip': NULL}, NULL, 'a/b=c%'),
  (4, 0, 1.5, 2.5e-300, 'z', DATE '2026-08-10', TIMESTAMPTZ '2026-08-10 12:00:00.5+00', TIMESTAMP '2026-08-10 12:00:00', true, 'x'::BLOB, [7], {'city': 'x', 'zip': 1}, MAP {'k': NULL}, 'plain')
) t(id, big, dec, d, s, day, "at", wall, flag, bytes, tags, addr, attrs, region)`;

let dir: string;
let duck: Duck;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-wtypes-'));
  duck = await openDuck({ threads: 2 });
});
afterAll(() => {
  duck.close();
  rmSync(dir, { recursive: true, force: true });
});

it('writes every type and reads back identically through the reader', async () => {
  const w = await DeltaWriter.create(join(dir, 't'), { schema, partitionColumns: ['region'], duck });
  await w.append({ sql: rows });
  const v0 = readFileSync(join(w.root, '_delta_log', '00000000000000000000.json'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Action);
  // timestamp_ntz needs the table feature.
  expect(v0.find((a) => a.protocol)?.protocol).toEqual({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['timestampNtz'], writerFeatures: ['timestampNtz'] });
  const v1 = readFileSync(join(w.root, '_delta_log', '00000000000000000001.json'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Action);
  const adds = v1.filter((a) => a.add).map((a) => a.add!);
  expect(adds.map((a) => a.partitionValues.region ?? '(null)').sort()).toEqual(['(null)', 'a/b=c%', 'plain']);
  const special = adds.find((a) => a.partitionValues.region === 'a/b=c%')!;
  expect(special.path.startsWith('region=a%252Fb%253Dc%2525/')).toBe(true);
  expect(readdirSync(w.root).sort()).toEqual(['_delta_log', 'region=__HIVE_DEFAULT_PARTITION__', 'region=a%2Fb%3Dc%25', 'region=plain']);
  const st = JSON.parse(special.stats!) as { minValues: Record<string, unknown>; maxValues: Record<string, unknown>; nullCount: Record<string, unknown> };
  // Exact digits survive (parsed here as JS numbers only to check presence), NaN is left out.
  expect(special.stats).toContain('"big":9223372036854775807');
  expect(special.stats).toContain('"dec":12345678901234567890123456.0123456789');
  expect(st.minValues.d).toBeUndefined();
  expect(st.minValues.day).toBe('1969-07-20');
  expect(st.minValues.at).toBe('1969-07-20T20:17:40.123Z');
  expect(st.minValues.wall).toBe('2026-08-10T23:59:59.999');
  expect(st.nullCount.addr).toBeUndefined();
  expect(st.nullCount.s).toBe(1);
  expect(st.minValues.flag).toBeUndefined();

  const snap = await (await openTable(w.root)).snapshot();
  await registerSnapshotView(duck.conn, snap, 'types_back');
  const back = await duck.conn.runAndReadAll('SELECT * FROM types_back ORDER BY id');
  const want = await duck.conn.runAndReadAll(`SELECT * FROM (${rows}) ORDER BY id`);
  expect(back.getRowObjectsJson()).toEqual(want.getRowObjectsJson());
  // Bitwise: -0.0 and NaN and the infinities round-trip.
  const bits = await duck.conn.runAndReadAll(`SELECT count(*) FROM types_back b JOIN (${rows}) s USING (id) WHERE CAST(b.d AS VARCHAR) IS DISTINCT FROM CAST(s.d AS VARCHAR)`);
  expect(Number(bits.getRows()[0][0])).toBe(0);
  w.close();
});

it('adding a timestamp_ntz column upgrades the protocol in the same commit; the reopened writer accepts it', async () => {
  const small: StructType = { type: 'struct', fields: [f('id', 'long', false), f('x', 'string')] };
  const w = await DeltaWriter.create(join(dir, 'ntz'), { schema: small, duck });
  await w.append({ sql: "SELECT 1::BIGINT AS id, 'a' AS x" });
  const r = await w.evolveSchema([f('wall', 'timestamp_ntz')]);
  const actions = readFileSync(join(w.root, '_delta_log', '00000000000000000002.json'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Action);
  expect(actions.find((a) => a.protocol)?.protocol).toMatchObject({ minReaderVersion: 3, minWriterVersion: 7 });
  expect(r.version).toBe(2);
  w.close();
  const again = await DeltaWriter.open(join(dir, 'ntz'), { duck });
  await again.append({ sql: "SELECT 2::BIGINT AS id, 'b' AS x, TIMESTAMP '2026-01-01 00:00:00' AS wall" });
  expect(again.version).toBe(3);
  again.close();
});

it('refuses a predicate DuckDB cannot run, naming it, and writes nothing', async () => {
  const small: StructType = { type: 'struct', fields: [f('id', 'long', false)] };
  const w = await DeltaWriter.create(join(dir, 'badpred'), { schema: small, duck });
  await w.append({ sql: 'SELECT 1::BIGINT AS id' });
  const e = await w.deleteWhere('no_such_column = 1').then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(LakerecError);
  expect((e as LakerecError).code).toBe('writer_misuse');
  expect((e as LakerecError).message).toMatch(/no_such_column/);
  const e2 = await DeltaWriter.create(join(dir, 'badpred'), { schema: small, duck }).then(() => null, (x: unknown) => x);
  expect((e2 as LakerecError).message).toMatch(/already exists/);
  const e3 = await DeltaWriter.create(join(dir, 'badpart'), { schema: small, partitionColumns: ['nope'], duck }).then(() => null, (x: unknown) => x);
  expect((e3 as LakerecError).code).toBe('writer_misuse');
  // CREATE TABLE AS SELECT with a null key: refused, and no _delta_log is left behind.
  const e4 = await DeltaWriter.create(join(dir, 'ctas'), { schema: small, duck, data: { sql: 'SELECT NULL::BIGINT AS id' } }).then(() => null, (x: unknown) => x);
  expect((e4 as LakerecError).message).toMatch(/NOT NULL/);
  expect(existsSync(join(dir, 'ctas', '_delta_log'))).toBe(false);
  expect(w.version).toBe(1);
  w.close();
});

it('honours delta.appendOnly and refuses tables with rules it does not evaluate', async () => {
  const small: StructType = { type: 'struct', fields: [f('id', 'long', false), f('x', 'string')] };
  const w = await DeltaWriter.create(join(dir, 'append-only'), { schema: small, duck, configuration: { 'delta.appendOnly': 'true' } });
  await w.append({ sql: "SELECT 1::BIGINT AS id, 'a' AS x" });
  for (const p of [w.deleteWhere('id = 1'), w.update({ x: "'b'" }, 'true'), w.overwrite({ sql: "SELECT 2::BIGINT AS id, 'c' AS x" }),
    w.merge({ sql: "SELECT 1::BIGINT AS id, 'z' AS x" }, { on: ['id'] })]) {
    const e = await p.then(() => null, (x: unknown) => x);
    expect((e as LakerecError).code).toBe('writer_misuse');
    expect((e as LakerecError).message).toMatch(/append-only/);
  }
  // Inserting only (no WHEN MATCHED) is an append.
  await w.merge({ sql: "SELECT 5::BIGINT AS id, 'n' AS x" }, { on: ['id'], whenMatched: 'ignore' });
  expect(w.version).toBe(2);
  w.close();
  const inv: StructType = { type: 'struct', fields: [{ name: 'id', type: 'long', nullable: true, metadata: { 'delta.invariants': '{"expression":{"expression":"id > 0"}}' } }] };
  const refused = await DeltaWriter.create(join(dir, 'invariants'), { schema: inv, duck }).then(() => null, (x: unknown) => x);
  expect((refused as LakerecError).message).toMatch(/column invariants \(id\)/);
  // A table another writer made with an invariant: opened for writing, refused.
  mkdirSync(join(dir, 'invariants', '_delta_log'), { recursive: true });
  writeFileSync(join(dir, 'invariants', '_delta_log', '00000000000000000000.json'), [
    { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
    { metaData: { id: 'x', format: { provider: 'parquet', options: {} }, schemaString: JSON.stringify(inv), partitionColumns: [], configuration: {} } },
  ].map((a) => JSON.stringify(a)).join('\n') + '\n');
  const e = await DeltaWriter.open(join(dir, 'invariants'), { duck }).then(() => null, (x: unknown) => x);
  expect((e as LakerecError).message).toMatch(/column invariants \(id\)/);
});
