// The storage seam: the reader's orchestration over the in-memory store (checkpoint fallback,
// missing commits, compaction files, a DV read by range, a Parquet checkpoint handed to DuckDB),
// and the local folder's own rules (no `..`, the real root, no clobbering write).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { LakerecError } from '../../shared/errors';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import { readDeletionVector } from '../delta/dv';
import { runContainerDv } from '../testing/hostile-tables';
import { LocalStorage, MemoryStorage } from './index';

let duck: Duck;
let tmp: string;
beforeAll(async () => {
  duck = await openDuck();
  tmp = mkdtempSync(join(tmpdir(), 'lakerec-storage-test-'));
});
afterAll(() => {
  duck.close();
  rmSync(tmp, { recursive: true, force: true });
});

const pad = (v: number): string => String(v).padStart(20, '0');
const lines = (actions: object[]): string => actions.map((a) => JSON.stringify(a)).join('\n') + '\n';
const schemaString = JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }] });
const protocol = { protocol: { minReaderVersion: 1, minWriterVersion: 2 } };
const metaData = { metaData: { id: 'mem', format: { provider: 'parquet', options: {} }, schemaString, partitionColumns: [], configuration: {}, createdTime: 1 } };
const info = (ts: number) => ({ commitInfo: { timestamp: ts, operation: 'WRITE' } });
const add = (path: string, rows: number, extra: object = {}) => ({
  add: { path, partitionValues: {}, size: 1, modificationTime: 1, dataChange: true, stats: JSON.stringify({ numRecords: rows }), ...extra },
});
const remove = (path: string) => ({ remove: { path, deletionTimestamp: 1, dataChange: true } });

/** Commits 0..3 of a small table in memory: 0 creates, 1 and 2 add, 3 removes a.parquet. */
function memTable(): MemoryStorage {
  const m = new MemoryStorage();
  m.put(`_delta_log/${pad(0)}.json`, lines([info(1000), protocol, metaData, add('a.parquet', 1)]), 1000);
  m.put(`_delta_log/${pad(1)}.json`, lines([info(2000), add('b.parquet', 2)]), 2000);
  m.put(`_delta_log/${pad(2)}.json`, lines([info(3000), add('c.parquet', 3)]), 3000);
  m.put(`_delta_log/${pad(3)}.json`, lines([info(4000), remove('a.parquet')]), 4000);
  return m;
}
const paths = async (t: DeltaTable, version?: number): Promise<string[]> => (await t.snapshot({ version })).files.map((f) => f.path).sort();

/** A classic checkpoint at version 2 (a, b, c) as Parquet bytes, written by DuckDB. */
async function checkpointBytes(): Promise<Buffer> {
  const file = join(tmp, `cp-${Math.random().toString(36).slice(2)}.parquet`);
  const addT = 'STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR)';
  const row = (p: string, n: number) => `NULL, NULL, {'path': '${p}', 'partitionValues': MAP{}::MAP(VARCHAR, VARCHAR), 'size': 1, 'modificationTime': 1, 'dataChange': false, 'stats': '{"numRecords":${n}}'}`;
  await duck.conn.run(`COPY (
    SELECT {'minReaderVersion': 1, 'minWriterVersion': 2} AS protocol, NULL::STRUCT(id VARCHAR, format STRUCT(provider VARCHAR), schemaString VARCHAR, partitionColumns VARCHAR[], configuration MAP(VARCHAR, VARCHAR)) AS metaData, NULL::${addT} AS add
    UNION ALL SELECT NULL, {'id': 'mem', 'format': {'provider': 'parquet'}, 'schemaString': ${sqlString(schemaString)}, 'partitionColumns': []::VARCHAR[], 'configuration': MAP{}::MAP(VARCHAR, VARCHAR)}, NULL
    UNION ALL SELECT ${row('a.parquet', 1)} UNION ALL SELECT ${row('b.parquet', 2)} UNION ALL SELECT ${row('c.parquet', 3)}
  ) TO ${sqlString(file)} (FORMAT parquet)`);
  return readFileSync(file);
}

describe('the reader over the in-memory store', () => {
  test('snapshots, history and time travel from commits', async () => {
    const t = await DeltaTable.openStorage(memTable());
    expect(t.latestVersion).toBe(3);
    expect(await paths(t)).toEqual(['b.parquet', 'c.parquet']);
    expect(await paths(t, 1)).toEqual(['a.parquet', 'b.parquet']);
    expect((await t.changes()).map((c) => [c.version, c.timestamp])).toEqual([[0, 1000], [1, 2000], [2, 3000], [3, 4000]]);
    expect(await t.versionAtTimestamp(2500)).toBe(1);
  });

  test('a Parquet checkpoint is read (DuckDB gets a temporary copy) and commits 0..2 are not', async () => {
    const m = memTable();
    m.put(`_delta_log/${pad(2)}.checkpoint.parquet`, await checkpointBytes());
    const t = await DeltaTable.openStorage(m);
    expect(await paths(t)).toEqual(['b.parquet', 'c.parquet']);
    const read = m.reads.map((r) => r.path);
    expect(read).toContain(`_delta_log/${pad(2)}.checkpoint.parquet`);
    expect(read).not.toContain(`_delta_log/${pad(1)}.json`);
  });

  test('a corrupt checkpoint falls back to the commits; without them it is checkpoint_corrupt', async () => {
    const m = memTable();
    m.put(`_delta_log/${pad(2)}.checkpoint.parquet`, 'not parquet at all');
    const t = await DeltaTable.openStorage(m);
    expect(await paths(t)).toEqual(['b.parquet', 'c.parquet']);
    expect(m.reads.map((r) => r.path)).toContain(`_delta_log/${pad(1)}.json`);
    m.delete(`_delta_log/${pad(0)}.json`);
    const t2 = await DeltaTable.openStorage(m);
    await expect(t2.snapshot()).rejects.toMatchObject({ code: 'checkpoint_corrupt' });
  });

  test('a missing commit: versions after it are not readable, the error names the commit', async () => {
    const m = memTable();
    m.delete(`_delta_log/${pad(1)}.json`);
    const t = await DeltaTable.openStorage(m);
    expect(t.versions().map((v) => [v.version, v.hasCommitFile, v.readable])).toEqual([[0, true, true], [1, false, false], [2, true, false], [3, true, false]]);
    expect(t.listedVersions()).toEqual([0, 2, 3]);
    await expect(t.snapshot()).rejects.toMatchObject({ code: 'version_missing', message: expect.stringContaining('commit 1 is missing') });
    expect(await paths(t, 0)).toEqual(['a.parquet']);
  });

  test('a compaction file stands in for cleaned-up commits', async () => {
    const m = memTable();
    m.put(`_delta_log/${pad(1)}.${pad(2)}.compacted.json`, lines([add('b.parquet', 2), add('c.parquet', 3)]));
    m.delete(`_delta_log/${pad(1)}.json`);
    m.delete(`_delta_log/${pad(2)}.json`);
    const t = await DeltaTable.openStorage(m);
    expect(await paths(t)).toEqual(['b.parquet', 'c.parquet']);
    expect(m.reads.map((r) => r.path)).toContain(`_delta_log/${pad(1)}.${pad(2)}.compacted.json`);
  });

  test('data-exists checks: which versions still have every data file (after VACUUM)', async () => {
    const m = memTable();
    m.put('b.parquet', 'b');
    m.put('c.parquet', 'c'); // a.parquet was vacuumed: versions 0..2 name it, 3 does not
    const t = await DeltaTable.openStorage(m);
    expect((await t.versionsWithData()).map((v) => [v.version, v.dataFilesExist, v.missingDataFiles])).toEqual([
      [0, false, 1], [1, false, 1], [2, false, 1], [3, true, 0],
    ]);
  });

  test('a DV file is read by range: its size, bitmap and CRC at the offset, nothing else', async () => {
    const m = new MemoryStorage();
    const bitmap = runContainerDv([{ key: 0, runs: [[1, 1]] }]); // rows 1 and 2
    const size = Buffer.alloc(4);
    size.writeUInt32BE(bitmap.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE((zlib as unknown as { crc32: (d: Uint8Array) => number }).crc32(bitmap) >>> 0);
    const junk = Buffer.alloc(100, 7);
    m.put('dv.bin', Buffer.concat([Buffer.from([1]), junk, size, bitmap, crc, junk]));
    const dv = { storageType: 'p' as const, pathOrInlineDv: 'dv.bin', offset: 101, sizeInBytes: bitmap.length, cardinality: 2 };
    expect(await readDeletionVector(dv, m, { numRecords: 5 })).toEqual([1, 2]);
    expect(m.reads).toEqual([{ path: 'dv.bin', offset: 101, length: bitmap.length + 8 }]);
    await expect(readDeletionVector(dv, m, { numRecords: 2 })).rejects.toMatchObject({ code: 'log_corrupt', message: expect.stringContaining('numRecords') });
  });

  test('limits and paths: a capped read names the knob; `..` and outside paths are refused', async () => {
    const m = new MemoryStorage('memory://t', { limits: { commitBytes: 10 } });
    m.put(`_delta_log/${pad(0)}.json`, lines([info(1), protocol, metaData]));
    const t = await DeltaTable.openStorage(m);
    await expect(t.snapshot()).rejects.toMatchObject({ code: 'limit_exceeded', message: expect.stringContaining('LAKEREC_MAX_COMMIT_MB') });
    await expect(m.read('../x', { maxBytes: 10, what: 'x' })).rejects.toMatchObject({ code: 'path_outside_table' });
    await expect(m.read('/etc/passwd', { maxBytes: 10, what: 'x' })).rejects.toMatchObject({ code: 'path_outside_table' });
  });

  test('writeIfAbsent never clobbers', async () => {
    const m = new MemoryStorage();
    expect(await m.writeIfAbsent('_delta_log/x.json', Buffer.from('first'))).toBe(true);
    expect(await m.writeIfAbsent('_delta_log/x.json', Buffer.from('second'))).toBe(false);
    expect((await m.read('_delta_log/x.json', { maxBytes: 100, what: 'x' })).toString()).toBe('first');
  });
});

describe('the local folder', () => {
  test('lists names, sizes and mtimes; reads whole and by range; stats', async () => {
    const root = join(tmp, 'local1');
    mkdirSync(join(root, '_delta_log', 'sub'), { recursive: true });
    writeFileSync(join(root, '_delta_log', 'b.json'), '0123456789');
    writeFileSync(join(root, '_delta_log', 'a.json'), 'x');
    const s = new LocalStorage(root);
    const l = await s.list('_delta_log');
    // Folders are listed, marked (so the log can refuse one named like a log file).
    expect(l?.map((e) => [e.path, e.size, e.folder ?? false])).toEqual([['_delta_log/a.json', 1, false], ['_delta_log/b.json', 10, false], ['_delta_log/sub', 0, true]]);
    expect(l?.every((e) => e.mtimeMs > 0)).toBe(true);
    expect(await s.list('nothing')).toBeNull();
    expect((await s.readRange('_delta_log/b.json', 3, 4)).toString()).toBe('3456');
    expect((await s.readRange('_delta_log/b.json', 8, 100)).toString()).toBe('89');
    expect(await s.stat('_delta_log/none.json')).toBeNull();
    await expect(s.read('_delta_log/b.json', { maxBytes: 5, what: 'commit b.json', knob: 'LAKEREC_MAX_COMMIT_MB' }))
      .rejects.toMatchObject({ code: 'limit_exceeded', message: expect.stringMatching(/commit b\.json .* over the .* limit.*LAKEREC_MAX_COMMIT_MB/) });
    await expect(s.stat('_delta_log/sub')).rejects.toMatchObject({ code: 'not_a_regular_file' });
  });

  test('the real root: a link inside the root to a file inside is read; to a file outside is refused unless allowed', async () => {
    const root = join(tmp, 'local2');
    mkdirSync(root);
    writeFileSync(join(tmp, 'outside.txt'), 'outside');
    writeFileSync(join(root, 'inside.txt'), 'inside');
    symlinkSync(join(root, 'inside.txt'), join(root, 'in-link'));
    symlinkSync(join(tmp, 'outside.txt'), join(root, 'out-link'));
    const cap = { maxBytes: 100, what: 'file' };
    expect((await new LocalStorage(root).read('in-link', cap)).toString()).toBe('inside');
    const e = await new LocalStorage(root).read('out-link', cap).catch((x: unknown) => x as LakerecError);
    expect(e).toMatchObject({ code: 'path_outside_table' });
    expect((e as LakerecError).message).toContain('out-link');
    expect((e as LakerecError).message).not.toContain('outside\n');
    expect((await new LocalStorage(root, { allowOutsidePaths: true }).read('out-link', cap)).toString()).toBe('outside');
    await expect(new LocalStorage(root).read('a/../../outside.txt', cap)).rejects.toMatchObject({ code: 'path_outside_table' });
    await expect(new LocalStorage(root).read(join(tmp, 'outside.txt'), cap)).rejects.toMatchObject({ code: 'path_outside_table' });
  });

  test('a table opened through a symlinked root folder reads (only links inside the table are checked)', async () => {
    const root = join(tmp, 'local3');
    mkdirSync(join(root, '_delta_log'), { recursive: true });
    writeFileSync(join(root, '_delta_log', `${pad(0)}.json`), lines([info(1), protocol, metaData, add('a.parquet', 1)]));
    symlinkSync(root, join(tmp, 'local3-link'));
    const t = await openTable(join(tmp, 'local3-link'));
    expect(await paths(t)).toEqual(['a.parquet']);
  });

  test('writeIfAbsent: atomic and never clobbers, also when writers race', async () => {
    const root = join(tmp, 'local4');
    mkdirSync(join(root, '_delta_log'), { recursive: true });
    const s = new LocalStorage(root);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => s.writeIfAbsent(`_delta_log/${pad(0)}.json`, Buffer.from(`writer ${i}`))));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(readFileSync(join(root, '_delta_log', `${pad(0)}.json`), 'utf8')).toBe(`writer ${winner}`);
    expect(await s.list('_delta_log')).toHaveLength(1); // no temp file left behind
  });
});
