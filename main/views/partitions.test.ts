// Partition health reads the reader's one history of the log (main/delta/history.ts), so its
// rows and files agree with the snapshot reader and the forensics at every version: on logs where a
// second replay by raw path diverged (a DV rewrite whose remove names the file by its absolute URI,
// an OPTIMIZE at the oldest readable version removing files added before it, a log that starts at
// a checkpoint) and on a sample lake with deletion vectors.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StructType } from '../../shared/delta';
import { partitionsAt, type PartitionHealth } from '../../shared/views';
import { openDuck, type Duck } from '../engine/duck';
import { openTable } from '../delta/open';
import { DeltaWriter } from '../writer';
import { add, commitInfo, HandLog, metaData, protocol, remove } from '../testing/handlog';
import { partitionHealth } from './partitions';
import { schemaHistory } from './schema-history';

let dir: string;
let duck: Duck;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-parthealth-'));
  duck = await openDuck({ threads: 1 });
});
afterAll(() => {
  duck.close();
  rmSync(dir, { recursive: true, force: true });
});

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'dt', type: 'string', nullable: false, metadata: {} },
  ],
};
const gen = (lo: number, hi: number, dt: string): string => `SELECT i::BIGINT AS id, '${dt}' AS dt FROM range(${lo}, ${hi}) t(i)`;

/** Partition health at every version against what the snapshot reader gives for it. */
async function expectAgreesWithSnapshots(root: string, h: PartitionHealth): Promise<void> {
  const t = await openTable(root);
  for (const v of h.versions) {
    const snap = await t.snapshot({ version: v.version });
    expect({ version: v.version, files: v.files, rows: v.rows, bytes: v.bytes })
      .toEqual({ version: v.version, files: snap.files.length, rows: snap.numRecords, bytes: snap.files.reduce((n, f) => n + f.size, 0) });
    const parts = partitionsAt(h, v.version).filter((p) => p.files > 0);
    expect(parts.reduce((n, p) => n + p.files, 0)).toBe(snap.files.length);
    expect(parts.reduce((n, p) => n + (p.rows ?? 0), 0)).toBe(snap.numRecords);
  }
}

describe('partition health reads the one history', () => {
  it('a DV DELETE that re-adds a file the log first named by its absolute URI: the file does not double, rows are net', async () => {
    const root = join(dir, 'dv-uri');
    const dv = { storageType: 'u', pathOrInlineDv: 'ab^-aqEH.-t@S}K{vb[*k^', offset: 1, sizeInBytes: 36, cardinality: 10 };
    const abs = pathToFileURL(join(resolve(root), 'dt=1/a.parquet')).href;
    new HandLog(root)
      // The protocol allows an absolute URI for a file inside the table; the DELETE names it relatively.
      .commit(0, [commitInfo(0, 'WRITE'), protocol({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors'], writerFeatures: ['deletionVectors'] }), metaData(['dt']),
        add(abs, 100, { dt: '1' }), add('dt=2/b.parquet', 50, { dt: '2' })])
      .commit(1, [commitInfo(1, 'DELETE'), remove('dt=1/a.parquet', 100, { dt: '1' }),
        add('dt=1/a.parquet', 100, { dt: '1' }, { deletionVector: dv } as never)]);
    const h = await partitionHealth(root);
    expect(h.versions.map((v) => [v.version, v.files, v.rows])).toEqual([[0, 2, 150], [1, 2, 140]]);
    expect(partitionsAt(h, 1).map((p) => [p.partition, p.files, p.rows])).toEqual([['dt=1', 1, 90], ['dt=2', 1, 50]]);
    await expectAgreesWithSnapshots(root, h);
    // The history (what forensics reads) says the same.
    const hist = await (await openTable(root)).history();
    expect([hist.byVersion.get(1)?.tableFiles, hist.byVersion.get(1)?.tableRows]).toEqual([2, 140]);
  });

  it('an OPTIMIZE at the oldest readable version removes files added before it; untouched partitions stay', async () => {
    const root = join(dir, 'optimize-oldest');
    const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck });
    await w.append({ sql: gen(0, 10, 'a') }); // v1
    await w.append({ sql: gen(10, 30, 'b') }); // v2
    await w.append({ sql: gen(30, 35, 'a') }); // v3
    const opt = await w.optimize(); // v4: compacts partition a
    await w.checkpoint();
    w.cleanupLog(); // 0..3 gone: v4 (commit and checkpoint) is the oldest readable version
    w.close();
    expect(opt.version).toBe(4);
    const h = await partitionHealth(root);
    expect(h.versions.map((v) => v.version)).toEqual([4]);
    expect(h.versions[0]).toMatchObject({ files: 2, rows: 35 });
    expect(partitionsAt(h, 4).map((p) => [p.partition, p.files, p.rows])).toEqual([['dt=a', 1, 15], ['dt=b', 1, 20]]);
    await expectAgreesWithSnapshots(root, h);
  });

  it('a log that starts at a checkpoint, then goes on with commits (a DV delete among them)', async () => {
    const root = join(dir, 'from-checkpoint');
    const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck, configuration: { 'delta.enableDeletionVectors': 'true' } });
    await w.append({ sql: gen(0, 40, 'a') }); // v1
    await w.append({ sql: gen(40, 60, 'b') }); // v2
    await w.checkpoint(); // at v2
    await w.deleteWhere('id < 5'); // v3: DV on the file of a
    await w.append({ sql: gen(60, 70, 'a') }); // v4
    await w.deleteWhere('id >= 65 AND id < 68'); // v5: a second DV file for the new file
    w.cleanupLog(2);
    w.close();
    const h = await partitionHealth(root);
    expect(h.versions.map((v) => [v.version, v.files, v.rows])).toEqual([[2, 2, 60], [3, 2, 55], [4, 3, 65], [5, 3, 62]]);
    await expectAgreesWithSnapshots(root, h);
    const s = await schemaHistory(root);
    expect(s.versions.map((v) => v.version)).toEqual([2]);
  });

  it('agrees with the snapshot reader at every version of a sample lake with deletion vectors', async () => {
    const root = resolve('sample-lakes/built/missing_rows_dv/table');
    expect(existsSync(join(root, '_delta_log'))).toBe(true);
    const h = await partitionHealth(root);
    expect(h.versions.length).toBeGreaterThan(1);
    expect((await (await openTable(root)).history()).files.some((f) => f.deletionVector !== null)).toBe(true);
    await expectAgreesWithSnapshots(root, h);
  });

  it('reuses an open table\'s history: the log is read once', async () => {
    const root = join(dir, 'once');
    new HandLog(root)
      .commit(0, [commitInfo(0, 'WRITE'), protocol(), metaData(['dt']), add('dt=1/a.parquet', 10, { dt: '1' })])
      .commit(1, [commitInfo(1, 'WRITE'), add('dt=1/b.parquet', 5, { dt: '1' })]);
    const t = await openTable(root);
    await t.history();
    const reads = t.commitReads;
    // A commit written after the table was opened: the open table's history is what is shown
    // (the service refreshes its table when the log changes), and no commit file is read again.
    new HandLog(root).commit(2, [commitInfo(2, 'WRITE'), add('dt=2/c.parquet', 7, { dt: '2' })]);
    const h = await partitionHealth(root, {}, undefined, t);
    const s = await schemaHistory(root, undefined, t);
    expect(t.commitReads).toBe(reads);
    expect(h.versions.map((v) => v.rows)).toEqual([10, 15]);
    expect(s.versions.map((v) => v.version)).toEqual([0]);
    expect((await partitionHealth(root)).versions.map((v) => v.rows)).toEqual([10, 15, 22]);
  });
});
