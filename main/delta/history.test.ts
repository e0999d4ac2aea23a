// The reader's one history of the log: file lifetimes keyed as the snapshot replay keys them, the
// commit drill-down read from it, versions that exist (never a numeric range), and the log read
// once per open table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTable } from './open';
import { DeltaWriter } from '../writer';
import { activeAt, stateOf } from './history';
import { HandLog, add, commitInfo, metaData, protocol, remove } from '../testing/handlog';
import { commitDetail } from '../forensics/commit';
import { forensicsOfHistory } from '../forensics/forensics';
import { InvestigationCache } from '../app/investigate';
import { openTarget } from '../reconcile/sides';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-history-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the reader\'s history', () => {
  it('keys file lifetimes by path and deletion vector, as the snapshot replay does', async () => {
    const root = join(dir, 'dv');
    const dv = { storageType: 'i', pathOrInlineDv: 'wi5b=000010', offset: 1, sizeInBytes: 10, cardinality: 529 };
    new HandLog(root)
      .commit(0, [protocol({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors'], writerFeatures: ['deletionVectors'] }), metaData([]), commitInfo(0, 'CREATE TABLE')])
      .commit(1, [commitInfo(1, 'WRITE'), add('a.parquet', 5400)])
      .commit(2, [commitInfo(2, 'DELETE', { operationMetrics: { numDeletedRows: '529' } }), remove('a.parquet', 5400),
        add('a.parquet', 5400, {}, { deletionVector: dv } as never)]);
    const t = await openTable(root);
    const h = await t.history();
    const snap = await t.snapshot({ version: 2 });
    expect(activeAt(h, 2).map((f) => [f.path, f.dvKey !== '']).sort()).toEqual(snap.files.map((f) => [f.path, f.deletionVector !== null]).sort());
    expect(h.files.map((f) => [f.addedIn, f.removedIn])).toEqual([[1, 2], [2, null]]);
    // the DV delete is 529 rows deleted, not +4,871 / -5,400, and the file is shown as rewritten
    const f = await forensicsOfHistory(h);
    const v2 = f.versions.find((v) => v.version === 2);
    expect(v2).toMatchObject({ dvDeletedRows: 529, addedRows: 0, removedRows: 529, rewrittenFiles: 1 });
    const d = commitDetail(h, f, 2);
    expect(d.added).toEqual([]);
    expect(d.removed).toEqual([]);
    expect(d.rewritten).toEqual([expect.objectContaining({ path: 'a.parquet', rows: 4871, dvRows: 529, rewrittenFrom: 1 })]);
    expect(d.partitions).toEqual([expect.objectContaining({ addedRows: 0, removedRows: 529 })]);
  });

  it('walks the versions that exist: a commit named 50,000,000 does not allocate per number', async () => {
    const root = join(dir, 'sparse');
    new HandLog(root)
      .commit(0, [protocol(), metaData(), commitInfo(0, 'CREATE TABLE')])
      .commit(1, [commitInfo(1, 'WRITE'), add('dt=a/1.parquet', 10, { dt: 'a' })])
      .commit(50_000_000, [commitInfo(2, 'WRITE'), add('dt=a/2.parquet', 10, { dt: 'a' })]);
    const t0 = Date.now();
    const t = await openTable(root);
    const h = await t.history();
    expect(h.states.map((s) => s.version)).toEqual([0, 1, 50_000_000]);
    expect(stateOf(h, 50_000_000)?.info).toMatchObject({ readable: false, reason: expect.stringMatching(/v2-v49999999/) });
    expect(t.versions().length).toBe(3);
    const f = await forensicsOfHistory(h);
    expect(f.versions.map((v) => v.version)).toEqual([0, 1, 50_000_000]);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('a table of 1,000,000 removed files does not overflow the stack (no Math.max(...array))', async () => {
    const root = join(dir, 'many');
    const adds = Array.from({ length: 200_000 }, (_, i) => add(`f${i}.parquet`, 1));
    const rems = Array.from({ length: 200_000 }, (_, i) => remove(`f${i}.parquet`, 1));
    new HandLog(root)
      .commit(0, [protocol(), metaData([]), commitInfo(0, 'CREATE TABLE'), ...adds])
      .commit(1, [commitInfo(1, 'DELETE'), ...rems]);
    const t = await openTable(root);
    const f = await forensicsOfHistory(await t.history());
    expect(f.heuristics.some((x) => x.name === 'data_files_missing' && x.version === 1)).toBe(true);
  });
});

  // A pipeline engine (Databricks DLT) writes v0's metaData without a schemaString and the real
  // one at v1 (delta-rs's delta-live-table fixture). The table reads from v1; refusing the whole
  // history over v0 would hide a readable table.
  it('a metaData the reader cannot use makes its versions unreadable, not the whole history', async () => {
    const root = join(dir, 'no-schema-first');
    const md = metaData([]) as unknown as { metaData: Record<string, unknown> };
    const noSchema = { metaData: { ...md.metaData, schemaString: undefined } };
    const dupCols = { metaData: { ...md.metaData, schemaString: JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }, { name: 'ID', type: 'long', nullable: true, metadata: {} }] }) } };
    new HandLog(root)
      .commit(0, [protocol(), noSchema as never, commitInfo(0, 'DLT REFRESH')])
      .commit(1, [commitInfo(1, 'DLT SETUP'), md as never])
      .commit(2, [commitInfo(2, 'WRITE'), add('a.parquet', 7)])
      .commit(3, [commitInfo(3, 'SET TBLPROPERTIES'), dupCols as never])
      .commit(4, [commitInfo(4, 'SET TBLPROPERTIES'), md as never]);
    const t = await openTable(root);
    const h = await t.history();
    const info = (v: number): unknown => stateOf(h, v)?.info;
    expect(info(0)).toMatchObject({ readable: false, reason: expect.stringMatching(/schemaString/) });
    expect(info(1)).toMatchObject({ readable: true });
    expect(info(2)).toMatchObject({ readable: true });
    expect(info(3)).toMatchObject({ readable: false, reason: expect.stringMatching(/"id" and "ID"/) });
    expect(info(4)).toMatchObject({ readable: true });
    expect(h.states.filter((s) => s.info.readable).map((s) => s.version)).toEqual([1, 2, 4]);
    // the snapshot refuses exactly the versions the history calls unreadable
    await expect(t.snapshot({ version: 0 })).rejects.toMatchObject({ code: 'metadata_missing' });
    await expect(t.snapshot({ version: 3 })).rejects.toMatchObject({ code: 'metadata_invalid' });
    expect((await t.snapshot({ version: 4 })).files.length).toBe(1);
    const f = await forensicsOfHistory(h);
    expect(f.versions.map((v) => v.version)).toEqual([0, 1, 2, 3, 4]);
  });

describe('the commit drill-down', () => {
  let vac: string;
  beforeAll(async () => {
    // vacuumed: v1..v2 appends, v3 OPTIMIZE compacts them; checkpoint at v3, commits before it cleaned up
    vac = join(dir, 'vacuumed');
    const schema = { type: 'struct' as const, fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }, { name: 'day', type: 'string', nullable: true, metadata: {} }] };
    let t = Date.UTC(2026, 7, 1);
    const w = await DeltaWriter.create(vac, { schema, partitionColumns: ['day'], clock: () => (t += 1000) });
    await w.append({ rows: [{ id: 1, day: 'd' }, { id: 2, day: 'd' }] });
    await w.append({ rows: [{ id: 3, day: 'd' }] });
    await w.optimize();
    await w.checkpoint();
    w.cleanupLog(3);
    w.close();
  });

  it('OPTIMIZE at the oldest readable version lists the files it removed, from the remove actions', async () => {
    const t = await openTable(vac);
    const h = await t.history();
    const f = await forensicsOfHistory(h);
    const d = commitDetail(h, f, 3);
    expect(d.summary.operation).toBe('OPTIMIZE');
    expect(d.summary.removedFiles).toBe(2);
    expect(d.removed).toHaveLength(2);
    expect(d.removed.every((r) => r.addedBeforeOldestReadable && r.addedIn === null && r.partition === 'day=d' && r.dataChange === false)).toBe(true);
    expect(d.removed.map((r) => r.rows).sort()).toEqual([1, 2]);
    expect(d.partitions).toEqual([expect.objectContaining({ partition: 'day=d', removedFiles: 2, addedFiles: 1 })]);
  });

  it('the CLI and the window give the same drill-down (one function, one type)', async () => {
    const { forensicsCommit } = await import('../forensics/forensics');
    const cli = await forensicsCommit(vac, 3);
    const win = await new InvestigationCache().commitDetail(vac, 3, {});
    expect(win.filesLimit).toBe(2000);
    expect({ ...win, filesLimit: null }).toEqual(cli);
  });

  it('the log is read once per open table: header, versions, timeline, drill-down and bisect share it', async () => {
    const root = join(dir, 'reads');
    const log = new HandLog(root).commit(0, [protocol(), metaData(), commitInfo(0, 'CREATE TABLE')]);
    for (let v = 1; v <= 5; v++) log.commit(v, [commitInfo(v, 'WRITE'), add(`dt=a/${v}.parquet`, 10, { dt: 'a' })]);
    const cache = new InvestigationCache();
    await cache.forensics(root, {});
    await cache.commitDetail(root, 2, {});
    await cache.bisect(root, { predicate: 'row-count', expect: 30, partition: 'dt=a' }, {});
    await cache.forensics(root, {});
    const table = await cache.table(root, {});
    table.versions();
    await table.snapshot();
    // reconcile's target side, handed the open table by the window's service
    const target = await openTarget(root, undefined, table);
    expect(target.snapshot.version).toBe(5);
    expect(table.commitReads).toBe(6);
    // a new commit: the cache sees it, reads only the new file, and says so
    log.commit(6, [commitInfo(6, 'WRITE'), add('dt=a/6.parquet', 10, { dt: 'a' })]);
    const again = await cache.forensics(root, {});
    expect(again.overview.latestVersion).toBe(6);
    expect(again.overview.logChanged).toBe(true);
    expect((await cache.table(root, {})).commitReads).toBe(7);
  });
});
