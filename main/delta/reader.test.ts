// The reader end to end on small tables this test writes itself (commit JSON by hand, Parquet via
// DuckDB COPY): partitions of every type, schema evolution, column mapping name/id, DVs inline and
// on disk, checkpoints (classic, v2 JSON with sidecars), compaction, time travel, outside paths,
// vacuumed data, reader-feature refusal, and the CLI's exit codes.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LakerecError } from '../../shared/errors';
import type { StructField } from '../../shared/delta';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { DeltaTable } from './table';
import { openTable } from './open';
import { registerSnapshotView, scanBatches, scanArrow } from './scan';
import { DV_MAGIC } from './dv';
import { z85Encode } from './z85';
import { runCli } from '../cli/main';

let duck: Duck;
let tmp: string;
beforeAll(async () => {
  duck = await openDuck();
  tmp = mkdtempSync(join(tmpdir(), 'lakerec-reader-test-'));
});
afterAll(() => {
  duck.close();
  rmSync(tmp, { recursive: true, force: true });
});

const pad = (v: number): string => String(v).padStart(20, '0');
let n = 0;
function newTable(): string {
  const root = join(tmp, `t${n++}`);
  mkdirSync(join(root, '_delta_log'), { recursive: true });
  return root;
}
function commit(root: string, v: number, actions: object[]): void {
  writeFileSync(join(root, '_delta_log', `${pad(v)}.json`), actions.map((a) => JSON.stringify(a)).join('\n') + '\n');
}
async function parquet(root: string, rel: string, select: string, extra = ''): Promise<number> {
  const file = join(root, rel);
  mkdirSync(dirname(file), { recursive: true });
  await duck.conn.run(`COPY (${select}) TO ${sqlString(file)} (FORMAT parquet${extra})`);
  return Number((await duck.conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(file)})`)).getRows()[0][0]);
}
const field = (name: string, type: StructField['type'], metadata: Record<string, unknown> = {}): StructField => ({ name, type, nullable: true, metadata });
const schema = (fields: StructField[]): string => JSON.stringify({ type: 'struct', fields });
const protocol = (r = 1, w = 2, readerFeatures?: string[]) => ({ protocol: { minReaderVersion: r, minWriterVersion: w, ...(readerFeatures ? { readerFeatures, writerFeatures: readerFeatures } : {}) } });
const metaData = (fields: StructField[], partitionColumns: string[] = [], configuration: Record<string, string> = {}) => ({
  metaData: { id: 'test', format: { provider: 'parquet', options: {} }, schemaString: schema(fields), partitionColumns, configuration, createdTime: 1 },
});
const add = (path: string, rows: number, extra: object = {}) => ({
  add: { path, partitionValues: {}, size: 1, modificationTime: 1, dataChange: true, stats: JSON.stringify({ numRecords: rows }), ...extra },
});
const info = (ts: number, operation = 'WRITE', extra: object = {}) => ({ commitInfo: { timestamp: ts, operation, ...extra } });

async function rows(root: string, opts: Parameters<DeltaTable['snapshot']>[0] = {}, sql = 'SELECT * FROM v ORDER BY ALL', open: { allowOutsidePaths?: boolean } = {}): Promise<Record<string, unknown>[]> {
  const t = await openTable(root, open);
  const s = await t.snapshot(opts);
  await registerSnapshotView(duck.conn, s, 'v', { allowOutsidePaths: open.allowOutsidePaths });
  return (await duck.conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}
async function errorOf(p: Promise<unknown>): Promise<LakerecError> {
  try { await p; } catch (e) { if (e instanceof LakerecError) return e; throw e; }
  throw new Error('expected a LakerecError');
}

/** Delta DV bytes (magic + 64-bit roaring, one bucket, one array container) for row indexes < 65536. */
function dvBytes(rowsToDelete: number[]): Uint8Array {
  const b: number[] = [];
  const u32 = (x: number) => b.push(x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, (x >>> 24) & 0xff);
  const u16 = (x: number) => b.push(x & 0xff, (x >>> 8) & 0xff);
  u32(DV_MAGIC); u32(1); u32(0); u32(0);
  u32(12346); u32(1); u16(0); u16(rowsToDelete.length - 1); u32(0);
  for (const r of rowsToDelete) u16(r);
  return Uint8Array.from(b);
}

describe('snapshots of tables written here', () => {
  test('partition values of every type, null partitions, typed columns', async () => {
    const root = newTable();
    const fields = [field('id', 'long'), field('s', 'string'), field('i', 'integer'), field('d', 'date'), field('ts', 'timestamp'), field('ntz', 'timestamp_ntz'), field('b', 'boolean'), field('dec', 'decimal(10,2)'), field('bin', 'binary')];
    const parts = ['s', 'i', 'd', 'ts', 'ntz', 'b', 'dec', 'bin'];
    await parquet(root, 'p1/a.parquet', 'SELECT 1::BIGINT AS id');
    await parquet(root, 'p2/a.parquet', 'SELECT 2::BIGINT AS id');
    commit(root, 0, [info(1000), protocol(), metaData(fields, parts),
      add('p1/a.parquet', 1, { partitionValues: { s: 'x', i: '-7', d: '1969-12-31', ts: '2021-01-01 10:00:00', ntz: '2021-01-01 10:00:00.5', b: 'true', dec: '12.34', bin: 'ab' } }),
      add('p2/a.parquet', 1, { partitionValues: { s: null, i: '', d: null, ts: null, ntz: null, b: null, dec: null, bin: null } }),
    ]);
    const r = await rows(root, {}, `SELECT id, s, i, d::VARCHAR AS d, epoch_ms(ts) AS ts, ntz::VARCHAR AS ntz, b, dec::VARCHAR AS dec, bin::VARCHAR AS bin, typeof(ts) AS tt, typeof(i) AS it FROM v ORDER BY id`);
    expect(r[0]).toEqual({ id: '1', s: 'x', i: -7, d: '1969-12-31', ts: String(Date.UTC(2021, 0, 1, 10)), ntz: '2021-01-01 10:00:00.5', b: true, dec: '12.34', bin: 'ab', tt: 'TIMESTAMP WITH TIME ZONE', it: 'INTEGER' });
    expect(r[1]).toMatchObject({ id: '2', s: null, i: null, d: null, ts: null, ntz: null, b: null, dec: null, bin: null });
  });

  test('snapshot files carry every field through JSON, fast-path and slow-path adds alike', async () => {
    const root = newTable();
    commit(root, 0, [info(1), protocol(), metaData([field('id', 'long'), field('p', 'string')], ['p']),
      add('p=a/plain.parquet', 3, { partitionValues: { p: 'a' } }),
      add('p=b/with%20space.parquet', 4, { partitionValues: { p: 'b' } }),
    ]);
    const snap = await (await openTable(root)).snapshot();
    expect(snap.files).toHaveLength(2);
    for (const f of snap.files) {
      const plain = JSON.parse(JSON.stringify(f)) as Record<string, unknown>;
      // A file is named by its table-relative path: no local absolute path reaches JSON.
      expect(plain).not.toHaveProperty('absolutePath');
      expect(JSON.stringify(f)).not.toContain(root);
      for (const k of ['path', 'size', 'modificationTime', 'partitionValues', 'stats', 'deletionVector', 'numRecords', 'addedInVersion', 'add', 'outside']) {
        expect(plain, k).toHaveProperty(k);
        expect(plain[k]).toEqual(JSON.parse(JSON.stringify((f as unknown as Record<string, unknown>)[k] ?? null)));
      }
    }
    expect(snap.files.map((f) => [f.path, f.numRecords, f.partitionValues.p]).sort()).toEqual([['p=a/plain.parquet', 3, 'a'], ['p=b/with space.parquet', 4, 'b']]);
  });

  test('timestamps stored as millis, micros (UTC-adjusted) and naive micros (ntz) read as the same instants', async () => {
    const root = newTable();
    await parquet(root, 'a.parquet', `SELECT TIMESTAMP_MS '2020-02-03 04:05:06.789' AS ms, TIMESTAMPTZ '2020-02-03 04:05:06.789123+00' AS us, TIMESTAMP '2020-02-03 04:05:06.789123' AS ntz`);
    commit(root, 0, [info(1), protocol(3, 7, ['timestampNtz']), metaData([field('ms', 'timestamp'), field('us', 'timestamp'), field('ntz', 'timestamp_ntz')]), add('a.parquet', 1)]);
    const r = await rows(root, {}, `SELECT epoch_us(ms) AS ms, epoch_us(us) AS us, ntz::VARCHAR AS ntz, typeof(ms) AS t1, typeof(ntz) AS t2 FROM v`);
    expect(r).toEqual([{ ms: String(Date.UTC(2020, 1, 3, 4, 5, 6, 789) * 1000), us: String(Date.UTC(2020, 1, 3, 4, 5, 6, 789) * 1000 + 123), ntz: '2020-02-03 04:05:06.789123', t1: 'TIMESTAMP WITH TIME ZONE', t2: 'TIMESTAMP' }]);
  });

  test('schema evolution: a column missing from older files reads as NULL; narrower types are cast', async () => {
    const root = newTable();
    await parquet(root, 'a.parquet', 'SELECT 1::INTEGER AS id');
    await parquet(root, 'b.parquet', "SELECT 2::BIGINT AS id, 'new' AS extra");
    commit(root, 0, [info(1), protocol(), metaData([field('id', 'integer')]), add('a.parquet', 1)]);
    commit(root, 1, [info(2), metaData([field('id', 'long'), field('extra', 'string')]), add('b.parquet', 1)]);
    expect(await rows(root, {}, 'SELECT id, extra, typeof(id) AS t FROM v ORDER BY id')).toEqual([
      { id: '1', extra: null, t: 'BIGINT' }, { id: '2', extra: 'new', t: 'BIGINT' },
    ]);
    expect(await rows(root, { version: 0 }, 'SELECT * FROM v')).toEqual([{ id: 1 }]);
  });

  test('column mapping name mode: physical names (also nested) map to logical names; partitions keyed by physical name', async () => {
    const root = newTable();
    const inner = { type: 'struct' as const, fields: [field('x', 'integer', { 'delta.columnMapping.physicalName': 'col-x', 'delta.columnMapping.id': 3 })] };
    const fields = [
      field('id', 'long', { 'delta.columnMapping.physicalName': 'col-id', 'delta.columnMapping.id': 1 }),
      field('nest', inner, { 'delta.columnMapping.physicalName': 'col-nest', 'delta.columnMapping.id': 2 }),
      field('part', 'string', { 'delta.columnMapping.physicalName': 'col-part', 'delta.columnMapping.id': 4 }),
    ];
    await parquet(root, 'f.parquet', `SELECT 7::BIGINT AS "col-id", {'col-x': 5} AS "col-nest"`);
    commit(root, 0, [info(1), protocol(2, 5), metaData(fields, ['part'], { 'delta.columnMapping.mode': 'name' }),
      add('f.parquet', 1, { partitionValues: { 'col-part': 'p' } })]);
    const r = await rows(root, {}, 'SELECT id, nest.x AS x, part FROM v');
    expect(r).toEqual([{ id: '7', x: 5, part: 'p' }]);
    const t = await openTable(root);
    expect((await t.snapshot()).files[0].partitionValues).toEqual({ part: 'p' });
  });

  test('column mapping id mode: columns found by Parquet field_id whatever their name', async () => {
    const root = newTable();
    const fields = [
      field('a', 'long', { 'delta.columnMapping.physicalName': 'col-a', 'delta.columnMapping.id': 1 }),
      field('b', 'string', { 'delta.columnMapping.physicalName': 'col-b', 'delta.columnMapping.id': 2 }),
    ];
    await parquet(root, 'f.parquet', `SELECT 'bee' AS renamed_b, 42::BIGINT AS renamed_a`, ', FIELD_IDS {renamed_b: 2, renamed_a: 1}');
    commit(root, 0, [info(1), protocol(2, 5), metaData(fields, [], { 'delta.columnMapping.mode': 'id' }), add('f.parquet', 1)]);
    expect(await rows(root, {}, 'SELECT * FROM v')).toEqual([{ a: '42', b: 'bee' }]);
  });

  test('deletion vectors: inline (i) and on disk (u, with checksum), provenance, file subsets', async () => {
    const root = newTable();
    await parquet(root, 'a.parquet', 'SELECT range AS id FROM range(10)');
    await parquet(root, 'b.parquet', 'SELECT range + 100 AS id FROM range(5)');
    // inline DV deleting rows 0 and 9 of a.parquet
    const inlineBytes = dvBytes([0, 9]);
    const padded = new Uint8Array(Math.ceil(inlineBytes.length / 4) * 4);
    padded.set(inlineBytes);
    const inline = { storageType: 'i', pathOrInlineDv: z85Encode(padded), sizeInBytes: inlineBytes.length, cardinality: 2 };
    // on-disk DV deleting rows 1, 2 of b.parquet, in a DV file at offset 1 (after the version byte)
    const uuid = Uint8Array.from([0x61, 0xd1, 0x6c, 0x75, 0x69, 0x94, 0x46, 0xb7, 0xa1, 0x5b, 0x8b, 0x53, 0x88, 0x52, 0xe5, 0x0e]);
    const fileBytes = dvBytes([1, 2]);
    const { crc32 } = await import('node:zlib') as unknown as { crc32: (d: Uint8Array) => number };
    const buf = Buffer.alloc(1 + 4 + fileBytes.length + 4);
    buf[0] = 1;
    buf.writeUInt32BE(fileBytes.length, 1);
    Buffer.from(fileBytes).copy(buf, 5);
    buf.writeUInt32BE(crc32(fileBytes) >>> 0, 5 + fileBytes.length);
    mkdirSync(join(root, 'dv'));
    writeFileSync(join(root, 'dv', 'deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin'), buf);
    const onDisk = { storageType: 'u', pathOrInlineDv: 'dv' + z85Encode(uuid), offset: 1, sizeInBytes: fileBytes.length, cardinality: 2 };
    commit(root, 0, [info(1), protocol(3, 7, ['deletionVectors']), metaData([field('id', 'long')]), add('a.parquet', 10), add('b.parquet', 5)]);
    commit(root, 1, [info(2, 'DELETE'),
      { remove: { path: 'a.parquet', dataChange: true } }, add('a.parquet', 10, { deletionVector: inline }),
      { remove: { path: 'b.parquet', dataChange: true } }, add('b.parquet', 5, { deletionVector: onDisk })]);
    const t = await openTable(root);
    const s = await t.snapshot();
    expect(s.numRecords).toBe(11);
    await registerSnapshotView(duck.conn, s, 'dvv', { provenance: true });
    const got = (await duck.conn.runAndReadAll('SELECT id, _lakerec_file, _lakerec_row FROM dvv ORDER BY id')).getRows().map((r) => [Number(r[0]), String(r[1]), Number(r[2])]);
    expect(got.map((g) => g[0])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 100, 103, 104]);
    expect(got.find((g) => g[0] === 103)).toEqual([103, 'b.parquet', 3]);
    await registerSnapshotView(duck.conn, s, 'sub', { files: s.files.filter((f) => f.path === 'b.parquet') });
    expect(Number((await duck.conn.runAndReadAll('SELECT count(*) FROM sub')).getRows()[0][0])).toBe(3);
    await registerSnapshotView(duck.conn, s, 'none', { files: [] , provenance: true });
    expect((await duck.conn.runAndReadAll('DESCRIBE none')).getRows().map((r) => String(r[0]))).toEqual(['id', '_lakerec_file', '_lakerec_row']);
    // a corrupted DV file is refused, named
    buf[buf.length - 1] ^= 0xff;
    writeFileSync(join(root, 'dv', 'deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin'), buf);
    const e = await errorOf(registerSnapshotView(duck.conn, s, 'bad'));
    expect(e.message).toMatch(/checksum/);
  });

  test('an empty table gives an empty view with the right columns', async () => {
    const root = newTable();
    commit(root, 0, [info(1), protocol(), metaData([field('a', 'long'), field('p', 'date')], ['p'])]);
    const r = await rows(root, {}, 'SELECT count(*) AS n FROM v');
    expect(r).toEqual([{ n: '0' }]);
    expect((await duck.conn.runAndReadAll('DESCRIBE v')).getRows().map((x) => [String(x[0]), String(x[1])])).toEqual([['a', 'BIGINT'], ['p', 'DATE']]);
  });
});

describe('log segments: checkpoints, compaction, time travel', () => {
  async function threeVersions(): Promise<string> {
    const root = newTable();
    for (let i = 0; i < 3; i++) await parquet(root, `f${i}.parquet`, `SELECT ${i}::BIGINT AS id`);
    commit(root, 0, [info(1000), protocol(), metaData([field('id', 'long')]), add('f0.parquet', 1)]);
    commit(root, 1, [info(2000), add('f1.parquet', 1)]);
    commit(root, 2, [info(3000, 'DELETE'), { remove: { path: 'f0.parquet', dataChange: true } }, add('f2.parquet', 1)]);
    return root;
  }

  test('classic Parquet checkpoint (written with DuckDB) + later commits; _last_checkpoint corrupt is only a note', async () => {
    const root = await threeVersions();
    const md = metaData([field('id', 'long')]).metaData;
    await duck.conn.run(`COPY (
      SELECT NULL::STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER) AS protocol, {'id': 'test', 'format': {'provider': 'parquet'}, 'schemaString': ${sqlString(md.schemaString)}, 'partitionColumns': []::VARCHAR[], 'configuration': MAP{}::MAP(VARCHAR, VARCHAR)} AS metaData, NULL::STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR) AS add
      UNION ALL SELECT {'minReaderVersion': 1, 'minWriterVersion': 2}, NULL, NULL
      UNION ALL SELECT NULL, NULL, {'path': 'f0.parquet', 'partitionValues': MAP{}::MAP(VARCHAR, VARCHAR), 'size': 1, 'modificationTime': 1, 'dataChange': false, 'stats': '{"numRecords":1}'}
      UNION ALL SELECT NULL, NULL, {'path': 'f1.parquet', 'partitionValues': MAP{}::MAP(VARCHAR, VARCHAR), 'size': 1, 'modificationTime': 1, 'dataChange': false, 'stats': '{"numRecords":1}'}
    ) TO ${sqlString(join(root, '_delta_log', `${pad(1)}.checkpoint.parquet`))} (FORMAT parquet)`);
    writeFileSync(join(root, '_delta_log', '_last_checkpoint'), '{"version": 1, "si');
    // Without commit 0 the version can only come from the checkpoint.
    unlinkSync(join(root, '_delta_log', `${pad(0)}.json`));
    const t = await openTable(root);
    expect(t.warnings[0]).toMatch(/_last_checkpoint/);
    expect(await rows(root, {}, 'SELECT id FROM v ORDER BY id')).toEqual([{ id: '1' }, { id: '2' }]);
    expect(await rows(root, { version: 1 }, 'SELECT id FROM v ORDER BY id')).toEqual([{ id: '0' }, { id: '1' }]);
    const e = await errorOf(t.snapshot({ version: 0 }));
    expect(e.code).toBe('version_missing');
    expect(t.versions().map((v) => v.readable)).toEqual([false, true, true]);
  });

  test('a corrupt checkpoint falls back to the commits; without them it is checkpoint_corrupt', async () => {
    const root = await threeVersions();
    writeFileSync(join(root, '_delta_log', `${pad(2)}.checkpoint.parquet`), 'not parquet');
    expect(await rows(root, {}, 'SELECT id FROM v ORDER BY id')).toEqual([{ id: '1' }, { id: '2' }]);
    unlinkSync(join(root, '_delta_log', `${pad(0)}.json`));
    const t = await openTable(root);
    const e = await errorOf(t.snapshot());
    expect(e.code).toBe('checkpoint_corrupt');
    expect(e.message).toContain('checkpoint.parquet');
  });

  test('v2 checkpoint in JSON with a Parquet sidecar', async () => {
    const root = await threeVersions();
    mkdirSync(join(root, '_delta_log', '_sidecars'));
    await duck.conn.run(`COPY (SELECT {'path': 'f1.parquet', 'partitionValues': MAP{}::MAP(VARCHAR, VARCHAR), 'size': 1, 'modificationTime': 1, 'dataChange': false, 'stats': '{"numRecords":1}'} AS add
      UNION ALL SELECT {'path': 'f2.parquet', 'partitionValues': MAP{}::MAP(VARCHAR, VARCHAR), 'size': 1, 'modificationTime': 1, 'dataChange': false, 'stats': '{"numRecords":1}'})
      TO ${sqlString(join(root, '_delta_log', '_sidecars', 'sc1.parquet'))} (FORMAT parquet)`);
    const md = metaData([field('id', 'long')]);
    writeFileSync(join(root, '_delta_log', `${pad(2)}.checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json`), [
      { checkpointMetadata: { version: 2 } }, protocol(3, 7, ['v2Checkpoint']), md, { sidecar: { path: 'sc1.parquet', sizeInBytes: 1, modificationTime: 1 } },
    ].map((a) => JSON.stringify(a)).join('\n'));
    for (const v of [0, 1, 2]) unlinkSync(join(root, '_delta_log', `${pad(v)}.json`));
    const t = await openTable(root);
    const s = await t.snapshot();
    expect(s.version).toBe(2);
    expect(s.protocol.readerFeatures).toEqual(['v2Checkpoint']);
    expect(s.files.map((f) => f.path).sort()).toEqual(['f1.parquet', 'f2.parquet']);
  });

  test('log compaction file replaces cleaned-up commits', async () => {
    const root = await threeVersions();
    writeFileSync(join(root, '_delta_log', `${pad(0)}.${pad(1)}.compacted.json`), [protocol(), metaData([field('id', 'long')]), add('f0.parquet', 1), add('f1.parquet', 1)].map((a) => JSON.stringify(a)).join('\n'));
    unlinkSync(join(root, '_delta_log', `${pad(0)}.json`));
    unlinkSync(join(root, '_delta_log', `${pad(1)}.json`));
    expect(await rows(root, {}, 'SELECT id FROM v ORDER BY id')).toEqual([{ id: '1' }, { id: '2' }]);
  });

  test('snapshot by timestamp (commit timestamps, and in-commit timestamps where enabled)', async () => {
    const root = await threeVersions();
    const t = await openTable(root);
    expect((await t.snapshot({ timestamp: 2500 })).version).toBe(1);
    expect((await t.snapshot({ timestamp: new Date(3000).toISOString() })).version).toBe(2);
    expect((await errorOf(t.snapshot({ timestamp: 10 }))).code).toBe('version_not_found');
    const ict = newTable();
    commit(ict, 0, [{ commitInfo: { timestamp: 99999, inCommitTimestamp: 5000, operation: 'CREATE' } }, protocol(), metaData([field('id', 'long')], [], { 'delta.enableInCommitTimestamps': 'true' })]);
    commit(ict, 1, [{ commitInfo: { timestamp: 1, inCommitTimestamp: 6000, operation: 'WRITE' } }]);
    const ti = await openTable(ict);
    expect((await ti.snapshot({ timestamp: 5500 })).version).toBe(0);
    expect((await ti.snapshot({ version: 1 })).timestamp).toBe(6000);
  });

  test('walking versions forward and back gives the same snapshots as fresh replays', async () => {
    const root = await threeVersions();
    const walked = await openTable(root);
    const order = [2, 0, 1, 2, 1, 0];
    for (const v of order) {
      const a = (await walked.snapshot({ version: v })).files.map((f) => f.path).sort();
      const b = (await (await openTable(root)).snapshot({ version: v })).files.map((f) => f.path).sort();
      expect(a, `version ${v}`).toEqual(b);
    }
    expect((await walked.snapshot({ version: 1 })).files.map((f) => f.path).sort()).toEqual(['f0.parquet', 'f1.parquet']);
  });

  test('changes(): every version in one pass, with commitInfo and actions', async () => {
    const root = await threeVersions();
    const t = await openTable(root);
    const ch = await t.changes();
    expect(ch.map((c) => [c.version, c.commitInfo?.operation, c.adds.length, c.removes.length, c.timestamp])).toEqual([
      [0, 'WRITE', 1, 0, 1000], [1, 'WRITE', 1, 0, 2000], [2, 'DELETE', 1, 1, 3000],
    ]);
    expect(ch[0].protocol?.minReaderVersion).toBe(1);
    expect(ch[0].metaData).not.toBeNull();
  });

  test('vacuumed data: the log is readable, the data of old versions is not', async () => {
    const root = await threeVersions();
    unlinkSync(join(root, 'f0.parquet'));
    const t = await openTable(root);
    const v = await t.versionsWithData();
    expect(v.map((x) => [x.readable, x.dataFilesExist, x.missingDataFiles])).toEqual([[true, false, 1], [true, false, 1], [true, true, 0]]);
    const e = await errorOf(rows(root, { version: 1 }));
    expect(e.code).toBe('data_file_missing');
    expect(e.message).toContain('f0.parquet');
  });
});

describe('refusals', () => {
  test('paths outside the root are refused, naming the path, unless allowed', async () => {
    const root = newTable();
    const outside = join(tmp, `outside-${n}`);
    mkdirSync(outside);
    await duck.conn.run(`COPY (SELECT 5::BIGINT AS id) TO ${sqlString(join(outside, 'x.parquet'))} (FORMAT parquet)`);
    commit(root, 0, [info(1), protocol(), metaData([field('id', 'long')]), add(`../${outside.split('/').pop()}/x.parquet`, 1)]);
    const e = await errorOf(rows(root));
    expect(e.code).toBe('path_outside_table');
    expect(e.message).toContain('x.parquet');
    expect(await rows(root, {}, 'SELECT * FROM v', { allowOutsidePaths: true })).toEqual([{ id: '5' }]);
  });

  test('unsupported reader feature named; missing protocol; missing version', async () => {
    const root = newTable();
    commit(root, 0, [info(1), protocol(3, 7, ['deletionVectors', 'someFutureFeature']), metaData([field('id', 'long')])]);
    const t = await openTable(root);
    const e = await errorOf(t.snapshot());
    expect(e.code).toBe('unsupported_feature');
    expect(e.message).toContain('someFutureFeature');
    expect((await errorOf(t.snapshot({ version: 5 }))).code).toBe('version_not_found');
    const np = newTable();
    commit(np, 0, [info(1), metaData([field('id', 'long')])]);
    expect((await errorOf((await openTable(np)).snapshot())).code).toBe('protocol_missing');
  });

  test('open: not found, not a folder, no _delta_log, corrupt commit line', async () => {
    expect((await errorOf(openTable(join(tmp, 'nope')))).code).toBe('not_found');
    writeFileSync(join(tmp, 'file.txt'), 'x');
    expect((await errorOf(openTable(join(tmp, 'file.txt')))).code).toBe('not_a_folder');
    mkdirSync(join(tmp, 'plain'));
    expect((await errorOf(openTable(join(tmp, 'plain')))).code).toBe('not_a_delta_table');
    const root = newTable();
    writeFileSync(join(root, '_delta_log', `${pad(0)}.json`), '{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}\n{broken\n');
    const e = await errorOf((await openTable(root)).snapshot());
    expect(e.code).toBe('log_corrupt');
    expect(e.message).toContain('line 2');
  });
});

describe('streaming scan', () => {
  test('batches with progress and Arrow tables', async () => {
    const root = newTable();
    await parquet(root, 'a.parquet', 'SELECT range AS id FROM range(25)');
    commit(root, 0, [info(1), protocol(), metaData([field('id', 'long')]), add('a.parquet', 25)]);
    const s = await (await openTable(root)).snapshot();
    const progress: number[] = [];
    const sizes: number[] = [];
    for await (const b of scanBatches(duck.conn, s, { batchRows: 10 }, { progress: (p) => progress.push(p.done) })) {
      sizes.push(b.rows.length);
      expect(b.total).toBe(25);
    }
    expect(sizes).toEqual([10, 10, 5]);
    expect(progress).toContain(25);
    let total = 0;
    for await (const b of scanArrow(duck.conn, s, { batchRows: 100, where: 'id >= 20' })) total += b.table.numRows;
    expect(total).toBe(5);
    const ac = new AbortController();
    ac.abort();
    await expect(async () => { for await (const _ of scanBatches(duck.conn, s, {}, { signal: ac.signal })) { /* nothing */ } }).rejects.toThrow(/cancelled/);
  });
});

describe('CLI', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t), cwd: tmp, env: {} } };
  };

  test('snapshot writes the logical rows; history lists versions; exit codes 0, 2, 3', async () => {
    const root = newTable();
    await parquet(root, 'a.parquet', 'SELECT range AS id FROM range(3)');
    commit(root, 0, [info(1000), protocol(), metaData([field('id', 'long')]), add('a.parquet', 3)]);
    commit(root, 1, [info(2000, 'DELETE'), { remove: { path: 'a.parquet', dataChange: true, stats: '{"numRecords":3}' } }]);
    const a = io();
    expect(await runCli(['snapshot', root, '--version', '0', '--out', join(tmp, 'snap.parquet')], a.io)).toBe(0);
    expect(Number((await duck.conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(join(tmp, 'snap.parquet'))})`)).getRows()[0][0])).toBe(3);
    const b = io();
    expect(await runCli(['history', root, '--json'], b.io)).toBe(0);
    const h = JSON.parse(b.out.join('')) as { versions: { version: number; operation: string; addedRows: number; removedRows: number }[] };
    expect(h.versions.map((v) => [v.version, v.operation, v.addedRows, v.removedRows])).toEqual([[0, 'WRITE', 3, 0], [1, 'DELETE', 0, 3]]);
    const c = io();
    expect(await runCli(['snapshot', root, '--version', '1', '--timestamp', '2020-01-01', '--out', 'x.parquet'], c.io)).toBe(2);
    const d = io();
    expect(await runCli(['snapshot', join(tmp, 'missing'), '--out', 'x.parquet'], d.io)).toBe(3);
    expect(d.err.join('')).toMatch(/^lakerec snapshot: not found: .*missing does not exist\n$/);
    const e = io();
    expect(await runCli(['history'], e.io)).toBe(2);
  });
});
