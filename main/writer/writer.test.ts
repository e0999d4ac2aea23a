import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Action, StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { DeltaWriter } from './writer';
import { openTable } from '../delta/open';
import { registerSnapshotView } from '../delta/scan';

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'order_id', type: 'long', nullable: false, metadata: {} },
    { name: 'amount', type: 'decimal(12,2)', nullable: true, metadata: {} },
    { name: 'score', type: 'double', nullable: true, metadata: {} },
    { name: 'sku', type: 'string', nullable: true, metadata: {} },
    { name: 'ts', type: 'timestamp', nullable: true, metadata: {} },
    { name: 'dt', type: 'date', nullable: true, metadata: {} },
  ],
};

function rowsSql(from: number, to: number, dt: string, extra = ''): string {
  return `SELECT i::BIGINT AS order_id, (i * 1.25)::DECIMAL(12,2) AS amount, i / 3.0 AS score,
    CASE WHEN i % 5 = 0 THEN NULL ELSE 'sku-' || i || '-é' END AS sku,
    (DATE '${dt}' + INTERVAL (i % 86400) SECOND + INTERVAL 123 MILLISECOND)::TIMESTAMPTZ AS ts,
    DATE '${dt}' AS dt ${extra}
    FROM range(${from}, ${to}) t(i)`;
}

let dir: string;
let duck: Duck;
let tick = 0;
const clock = (): number => Date.UTC(2026, 7, 10, 12) + (tick++) * 1000;

function log(root: string): { version: number; actions: Action[] }[] {
  return readdirSync(join(root, '_delta_log')).filter((f) => /^\d{20}\.json$/.test(f)).sort().map((f) => ({
    version: Number(f.slice(0, 20)),
    actions: readFileSync(join(root, '_delta_log', f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Action),
  }));
}

/** Active files by replaying the JSON commits (test oracle, independent of the writer's state). */
function activeFiles(root: string): Map<string, NonNullable<Action['add']>> {
  const m = new Map<string, NonNullable<Action['add']>>();
  for (const c of log(root)) {
    for (const a of c.actions) {
      if (a.remove) m.delete(a.remove.path);
      if (a.add) m.set(a.add.path, a.add);
    }
  }
  return m;
}

/** Rows of the table via DuckDB read_parquet over the listed files, partition column filled in. */
async function readBack(root: string): Promise<Record<string, unknown>[]> {
  const files = [...activeFiles(root).values()];
  if (files.length === 0) return [];
  const parts = files.map((f) => `SELECT order_id, amount, score, sku, ts, DATE ${sqlString(f.partitionValues.dt!)} AS dt FROM read_parquet(${sqlString(join(root, decodeURIComponent(f.path)))})`);
  const r = await duck.conn.runAndReadAll(`SELECT * FROM (${parts.join(' UNION ALL ')}) ORDER BY order_id, dt`);
  return r.getRowObjectsJson() as Record<string, unknown>[];
}

async function expected(sql: string): Promise<Record<string, unknown>[]> {
  const r = await duck.conn.runAndReadAll(`SELECT * FROM (${sql}) ORDER BY order_id, dt`);
  return r.getRowObjectsJson() as Record<string, unknown>[];
}

function parquetFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '_delta_log') continue;
      if (e.isDirectory()) walk(join(d, e.name), rel + e.name + '/');
      else out.push(rel + e.name);
    }
  };
  walk(root, '');
  return out.sort();
}

async function newTable(name: string): Promise<DeltaWriter> {
  return DeltaWriter.create(join(dir, name), { schema, partitionColumns: ['dt'], clock, duck, name });
}

async function misuse(p: Promise<unknown>): Promise<LakerecError> {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(LakerecError);
  return e as LakerecError;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-writer-'));
  duck = await openDuck({ threads: 2 });
});
afterAll(() => {
  duck.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('DeltaWriter', () => {
  it('writes a genuine log: protocol and metaData at v0, stats JSON, relative paths, commitInfo', async () => {
    const w = await newTable('genuine');
    await w.append({ sql: `${rowsSql(0, 50, '2026-08-10')} UNION ALL ${rowsSql(50, 80, '2026-08-11')}` });
    const commits = log(w.root);
    expect(commits.map((c) => c.version)).toEqual([0, 1]);
    const v0 = commits[0].actions;
    expect(v0.find((a) => a.protocol)?.protocol).toEqual({ minReaderVersion: 1, minWriterVersion: 2 });
    const meta = v0.find((a) => a.metaData)!.metaData!;
    expect(meta.partitionColumns).toEqual(['dt']);
    expect(JSON.parse(meta.schemaString)).toEqual(schema);
    expect(meta.format.provider).toBe('parquet');
    for (const c of commits) {
      const ci = c.actions.find((a) => a.commitInfo)!.commitInfo!;
      expect(ci.engineInfo).toBe('lakerec/0.1.0');
      expect(typeof ci.operation).toBe('string');
      expect(typeof ci.timestamp).toBe('number');
    }
    const ci1 = commits[1].actions[0].commitInfo!;
    expect(ci1.operation).toBe('WRITE');
    expect(ci1.operationParameters).toMatchObject({ mode: 'Append', partitionBy: '["dt"]' });
    expect(ci1.operationMetrics).toMatchObject({ numFiles: '2', numOutputRows: '80' });
    const adds = commits[1].actions.filter((a) => a.add).map((a) => a.add!);
    expect(adds).toHaveLength(2);
    for (const a of adds) {
      expect(a.path).not.toMatch(/^\/|^[a-z]+:|\.\./);
      expect(a.path.startsWith(`dt=${a.partitionValues.dt}/`)).toBe(true);
      expect(existsSync(join(w.root, a.path))).toBe(true);
      expect(typeof a.partitionValues.dt).toBe('string');
      const stats = JSON.parse(a.stats!) as { numRecords: number; minValues: Record<string, unknown>; maxValues: Record<string, unknown>; nullCount: Record<string, number> };
      expect(Object.keys(stats.nullCount).sort()).toEqual(['amount', 'order_id', 'score', 'sku', 'ts']);
      expect(stats.minValues.dt).toBeUndefined();
    }
    const a10 = adds.find((a) => a.partitionValues.dt === '2026-08-10')!;
    const s10 = JSON.parse(a10.stats!) as Record<string, Record<string, unknown>> & { numRecords: number };
    expect(s10.numRecords).toBe(50);
    expect(s10.minValues).toEqual({ order_id: 0, amount: 0, score: 0, sku: 'sku-1-é', ts: '2026-08-10T00:00:00.123Z' });
    expect(s10.maxValues.order_id).toBe(49);
    expect(s10.maxValues.amount).toBe(61.25);
    expect(s10.nullCount).toEqual({ order_id: 0, amount: 0, score: 0, sku: 10, ts: 0 });
    // The partition column is not stored in the file.
    const cols = await duck.conn.runAndReadAll(`SELECT name FROM parquet_schema(${sqlString(join(w.root, a10.path))}) WHERE num_children IS NULL`);
    expect(cols.getRowObjectsJson().map((r) => r.name)).toEqual(['order_id', 'amount', 'score', 'sku', 'ts']);
    expect(await readBack(w.root)).toEqual(await expected(`${rowsSql(0, 50, '2026-08-10')} UNION ALL ${rowsSql(50, 80, '2026-08-11')}`));
    w.close();
  });

  it('writes from plain objects', async () => {
    const w = await newTable('objects');
    await w.append({ rows: [{ order_id: 1, amount: '10.50', score: 0.5, sku: 'a', ts: '2026-08-10T01:00:00Z', dt: '2026-08-10' }] });
    const rows = await readBack(w.root);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ order_id: '1', amount: '10.50', sku: 'a', dt: '2026-08-10' });
    w.close();
  });

  it('overwrite with replaceWhere replaces only matching partitions; full overwrite replaces all', async () => {
    const w = await newTable('overwrite');
    await w.append({ sql: `${rowsSql(0, 20, '2026-08-10')} UNION ALL ${rowsSql(20, 40, '2026-08-11')}` });
    const r = await w.overwrite({ sql: rowsSql(100, 105, '2026-08-11') }, { replaceWhere: "dt = DATE '2026-08-11'" });
    expect(r.version).toBe(2);
    expect(r.removes.map((x) => x.partitionValues?.dt)).toEqual(['2026-08-11']);
    expect(r.commitInfo.operationParameters).toMatchObject({ mode: 'Overwrite', predicate: JSON.stringify(["dt = DATE '2026-08-11'"]) });
    expect(await readBack(w.root)).toEqual(await expected(`${rowsSql(0, 20, '2026-08-10')} UNION ALL ${rowsSql(100, 105, '2026-08-11')}`));
    const all = await w.overwrite({ sql: rowsSql(7, 9, '2026-08-12') });
    expect(all.removes).toHaveLength(2);
    expect(await readBack(w.root)).toEqual(await expected(rowsSql(7, 9, '2026-08-12')));
    w.close();
  });

  it('refuses a replaceWhere whose data has rows outside it, and writes nothing', async () => {
    const w = await newTable('replace-outside');
    await w.append({ sql: rowsSql(0, 10, '2026-08-10') });
    const before = parquetFiles(w.root);
    const e = await misuse(w.overwrite({ sql: `${rowsSql(0, 3, '2026-08-10')} UNION ALL ${rowsSql(3, 5, '2026-08-11')}` }, { replaceWhere: "dt = DATE '2026-08-10'" }));
    expect(e.code).toBe('writer_misuse');
    expect(e.message).toMatch(/2 row\(s\) of the data do not match replaceWhere/);
    expect(log(w.root).map((c) => c.version)).toEqual([0, 1]);
    expect(parquetFiles(w.root)).toEqual(before);
    expect(w.version).toBe(1);
    w.close();
  });

  it('rejects a null in a NOT NULL column at commit: no version, no file', async () => {
    const w = await newTable('notnull');
    const before = parquetFiles(w.root);
    const e = await misuse(w.append({ sql: `SELECT CASE WHEN order_id = 3 THEN NULL ELSE order_id END AS order_id, * EXCLUDE (order_id) FROM (${rowsSql(0, 10, '2026-08-10')})` }));
    expect(e.code).toBe('writer_misuse');
    expect(e.message).toMatch(/NOT NULL constraint violated: 1 row\(s\) have a null "order_id"/);
    expect(log(w.root).map((c) => c.version)).toEqual([0]);
    expect(parquetFiles(w.root)).toEqual(before);
    w.close();
  });

  it('rejects an append whose schema does not match; mergeSchema evolves it in the same commit', async () => {
    const w = await newTable('schema');
    await w.append({ sql: rowsSql(0, 5, '2026-08-10') });
    const missing = await misuse(w.append({ sql: `SELECT * EXCLUDE (score) FROM (${rowsSql(5, 8, '2026-08-10')})` }));
    expect(missing.code).toBe('writer_misuse');
    expect(missing.message).toMatch(/lacks column\(s\) score/);
    const typed = await misuse(w.append({ sql: `SELECT * REPLACE (order_id::VARCHAR AS order_id) FROM (${rowsSql(5, 8, '2026-08-10')})` }));
    expect(typed.message).toMatch(/column "order_id" is VARCHAR in the data and long in the table/);
    const extra = await misuse(w.append({ sql: rowsSql(5, 8, '2026-08-10', ", 'web' AS channel") }));
    expect(extra.message).toMatch(/channel/);
    expect(log(w.root).map((c) => c.version)).toEqual([0, 1]);
    const r = await w.append({ sql: rowsSql(5, 8, '2026-08-10', ", 'web' AS channel") }, { mergeSchema: true });
    const v = log(w.root).find((c) => c.version === r.version)!;
    const meta = v.actions.find((a) => a.metaData)!.metaData!;
    expect((JSON.parse(meta.schemaString) as StructType).fields.at(-1)).toEqual({ name: 'channel', type: 'string', nullable: true, metadata: {} });
    const ev = await w.evolveSchema([{ name: 'note', type: 'string', nullable: true, metadata: {} }]);
    expect(ev.commitInfo.operation).toBe('ADD COLUMNS');
    // Old files lack the new columns: rewriting them fills nulls.
    await w.update({ note: "'x'" }, 'order_id = 1');
    const r2 = await duck.conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(join(w.root, 'dt=2026-08-10', '*.parquet'))}, union_by_name=true)`);
    expect(Number(r2.getRows()[0][0])).toBeGreaterThan(0);
    w.close();
  });

  it('deletes with a predicate, rewriting only the files that held matches', async () => {
    const w = await newTable('delete');
    await w.append({ sql: `${rowsSql(0, 20, '2026-08-10')} UNION ALL ${rowsSql(20, 40, '2026-08-11')}` });
    const r = await w.deleteWhere('order_id % 7 = 0 AND dt = DATE \'2026-08-11\'');
    expect(r.commitInfo.operation).toBe('DELETE');
    expect(r.removes.map((x) => x.partitionValues?.dt)).toEqual(['2026-08-11']);
    expect(r.adds).toHaveLength(1);
    expect(r.commitInfo.operationMetrics).toMatchObject({ numDeletedRows: '3', numCopiedRows: '17' });
    expect(await readBack(w.root)).toEqual(await expected(`SELECT * FROM (${rowsSql(0, 20, '2026-08-10')} UNION ALL ${rowsSql(20, 40, '2026-08-11')}) WHERE NOT (order_id % 7 = 0 AND dt = DATE '2026-08-11')`));
    const wipe = await w.deleteWhere("dt = DATE '2026-08-10'");
    expect(wipe.adds).toHaveLength(0);
    expect(wipe.removes).toHaveLength(1);
    w.close();
  });

  it('updates and merges by key', async () => {
    const w = await newTable('merge');
    await w.append({ sql: `${rowsSql(0, 10, '2026-08-10')} UNION ALL ${rowsSql(10, 20, '2026-08-11')}` });
    const u = await w.update({ sku: "'changed'" }, 'order_id IN (1, 2)');
    expect(u.commitInfo.operationMetrics).toMatchObject({ numUpdatedRows: '2', numCopiedRows: '8' });
    const m = await w.merge({ sql: `SELECT * REPLACE ('merged' AS sku) FROM (${rowsSql(18, 23, '2026-08-11')})` }, { on: ['order_id'] });
    expect(m.commitInfo.operation).toBe('MERGE');
    expect(m.commitInfo.operationMetrics).toMatchObject({ numTargetRowsUpdated: '2', numTargetRowsInserted: '3', numTargetRowsCopied: '8' });
    const rows = await readBack(w.root);
    expect(rows).toHaveLength(23);
    expect(rows.filter((r) => r.sku === 'changed').map((r) => r.order_id)).toEqual(['1', '2']);
    expect(rows.filter((r) => r.sku === 'merged').map((r) => r.order_id)).toEqual(['18', '19', '20', '21', '22']);
    const dup = await misuse(w.merge({ sql: `${rowsSql(1, 2, '2026-08-10')} UNION ALL ${rowsSql(1, 2, '2026-08-10')}` }, { on: ['order_id'] }));
    expect(dup.message).toMatch(/more than once in the MERGE source/);
    w.close();
  });

  it('a second writer racing for the same version loses cleanly with commit_conflict', async () => {
    const w1 = await newTable('race');
    await w1.append({ sql: rowsSql(0, 5, '2026-08-10') });
    const w2 = await DeltaWriter.fromState(w1.root, structuredClone(w1.state), { duck, clock });
    await w1.append({ sql: rowsSql(5, 10, '2026-08-10') });
    const filesBefore = parquetFiles(w1.root);
    const e = await w2.append({ sql: rowsSql(10, 15, '2026-08-11') }).then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(LakerecError);
    expect((e as LakerecError).code).toBe('commit_conflict');
    expect((e as LakerecError).message).toMatch(/version 2 was committed by another writer first/);
    expect(w2.version).toBe(1);
    // The loser's data files are gone; the winner's commit is intact.
    expect(parquetFiles(w1.root)).toEqual(filesBefore);
    expect(readdirSync(join(w1.root, '_delta_log')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect((await readBack(w1.root)).length).toBe(10);
    w1.close();
    w2.close();
  });

  it('two writers committing the same version at once: exactly one wins, the other gets commit_conflict', async () => {
    const w1 = await newTable('race-now');
    await w1.append({ sql: rowsSql(0, 5, '2026-08-10') });
    const w2 = await DeltaWriter.fromState(w1.root, structuredClone(w1.state), { clock });
    const settled = await Promise.allSettled([w1.append({ sql: rowsSql(5, 10, '2026-08-10') }), w2.append({ sql: rowsSql(10, 20, '2026-08-11') })]);
    const won = settled.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<DeltaWriter['append']>>> => r.status === 'fulfilled');
    const lost = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0].reason as LakerecError).code).toBe('commit_conflict');
    // Version 2 is the winner's commit, whole; the loser's data files are gone.
    const v2 = log(w1.root).find((c) => c.version === 2)!;
    expect(v2.actions.find((a) => a.commitInfo)!.commitInfo!.txnId).toBe(won[0].value.commitInfo.txnId);
    expect(parquetFiles(w1.root)).toHaveLength(1 + won[0].value.adds.length);
    expect((await readBack(w1.root)).length).toBe(settled[0].status === 'fulfilled' ? 10 : 15);
    w1.close();
    w2.close();
  });

  it('a checkpoint never replaces one another writer wrote: the second gets commit_conflict, the first is intact', async () => {
    const w1 = await newTable('cp-race');
    await w1.append({ sql: rowsSql(0, 10, '2026-08-10') });
    const w2 = await DeltaWriter.fromState(w1.root, structuredClone(w1.state), { clock });
    const first = await w1.checkpoint();
    const before = statSync(first.path);
    const bytes = readFileSync(first.path);
    const last = readFileSync(join(w1.root, '_delta_log', '_last_checkpoint'), 'utf8');
    const e = await misuse(w2.checkpoint());
    expect(e.code).toBe('commit_conflict');
    expect(e.message).toMatch(/checkpoint of version 1 was written by another writer first/);
    const after = statSync(first.path);
    expect(after.ino).toBe(before.ino);
    expect(readFileSync(first.path).equals(bytes)).toBe(true);
    expect(readFileSync(join(w1.root, '_delta_log', '_last_checkpoint'), 'utf8')).toBe(last);
    expect(readdirSync(join(w1.root, '_delta_log')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // Racing outright: one of two checkpoints lands.
    await w1.append({ sql: rowsSql(10, 12, '2026-08-10') });
    const w3 = await DeltaWriter.fromState(w1.root, structuredClone(w1.state), { clock });
    const settled = await Promise.allSettled([w1.checkpoint(), w3.checkpoint()]);
    expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(settled.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason as LakerecError).code)).toEqual(['commit_conflict']);
    expect((await (await openTable(w1.root)).snapshot()).numRecords).toBe(12);
    for (const x of [w1, w2, w3]) x.close();
  });

  it('writes a Parquet checkpoint and _last_checkpoint; log cleanup removes older commits', async () => {
    const w = await newTable('checkpoint');
    await w.append({ sql: rowsSql(0, 10, '2026-08-10') });
    await w.append({ sql: rowsSql(10, 20, '2026-08-11') });
    await w.deleteWhere("dt = DATE '2026-08-10'");
    const cp = await w.checkpoint();
    expect(cp.version).toBe(3);
    const last = JSON.parse(readFileSync(join(w.root, '_delta_log', '_last_checkpoint'), 'utf8')) as { version: number; size: number };
    expect(last).toMatchObject({ version: 3, size: 4 });
    const r = await duck.conn.runAndReadAll(`SELECT count(add) AS adds, count(remove) AS removes, count(metaData) AS m, count(protocol) AS p,
      max(add.partitionValues['dt']) AS dt, max(metaData.partitionColumns[1]) AS pc FROM read_parquet(${sqlString(cp.path)})`);
    expect(r.getRowObjectsJson()[0]).toEqual({ adds: '1', removes: '1', m: '1', p: '1', dt: '2026-08-11', pc: 'dt' });
    const deleted = w.cleanupLog();
    expect(deleted).toEqual([0, 1, 2].map((v) => `${String(v).padStart(20, '0')}.json`));
    await w.append({ sql: rowsSql(20, 21, '2026-08-12') });
    expect(log(w.root).map((c) => c.version)).toEqual([3, 4]);
    w.close();
  });

  it('vacuum deletes only unreferenced files older than the retention', async () => {
    const w = await newTable('vacuum');
    await w.append({ sql: rowsSql(0, 10, '2026-08-10') });
    await w.append({ sql: rowsSql(10, 20, '2026-08-11') });
    const gone = await w.overwrite({ sql: rowsSql(0, 5, '2026-08-10') }, { replaceWhere: "dt = DATE '2026-08-10'" });
    const removedPath = gone.removes[0].path;
    // A stray file the log never named, old on disk, and one that is fresh.
    const stray = join(w.root, 'dt=2026-08-10', 'stray-old.parquet');
    writeFileSync(stray, 'x');
    const old = new Date(Date.UTC(2026, 0, 1));
    utimesSync(stray, old, old);
    writeFileSync(join(w.root, 'dt=2026-08-10', 'stray-new.parquet'), 'x');
    const removedAt = gone.removes[0].deletionTimestamp!;
    const hour = 3600_000;
    const early = w.vacuum({ retentionMs: hour, now: removedAt + hour / 2, dryRun: true });
    expect(early.deleted).toEqual(['dt=2026-08-10/stray-old.parquet']);
    expect(early.kept.sort()).toEqual([removedPath, 'dt=2026-08-10/stray-new.parquet'].sort());
    expect(existsSync(stray)).toBe(true);
    const activeBefore = [...activeFiles(w.root).keys()];
    const late = w.vacuum({ retentionMs: hour, now: removedAt + 2 * hour });
    expect(late.deleted).toEqual([removedPath, 'dt=2026-08-10/stray-old.parquet'].sort());
    expect(existsSync(join(w.root, removedPath))).toBe(false);
    for (const p of activeBefore) expect(existsSync(join(w.root, p))).toBe(true);
    expect((await readBack(w.root)).length).toBe(15);
    w.close();
  });

  it('is read back identically by lakerec\'s reader, at every version', async () => {
    const w = await newTable('reader');
    const v1 = `${rowsSql(0, 30, '2026-08-10')} UNION ALL ${rowsSql(30, 60, '2026-08-11')}`;
    await w.append({ sql: v1 });
    await w.deleteWhere('order_id % 4 = 0');
    await w.merge({ sql: `SELECT * REPLACE ('m' AS sku) FROM (${rowsSql(55, 70, '2026-08-11')})` }, { on: ['order_id'] });
    await w.evolveSchema([{ name: 'note', type: 'string', nullable: true, metadata: {} }]);
    await w.checkpoint();
    await w.append({ sql: rowsSql(70, 75, '2026-08-12', ", 'n' AS note") });
    const table = await openTable(w.root);
    expect(table.latestVersion).toBe(w.version);
    const snap = await table.snapshot();
    expect(snap.numRecords).toBe(await duck.conn.runAndReadAll(`SELECT count(*) FROM (${await w.currentRowsSql()})`).then((r) => Number(r.getRows()[0][0])));
    await registerSnapshotView(duck.conn, snap, 'rb_head');
    const ours = await duck.conn.runAndReadAll('SELECT * FROM rb_head ORDER BY order_id');
    const written = await duck.conn.runAndReadAll(`SELECT * FROM (${await w.currentRowsSql()}) ORDER BY order_id`);
    expect(ours.getRowObjectsJson()).toEqual(written.getRowObjectsJson());
    expect(ours.getRowObjectsJson()).toHaveLength(60 - 15 + 11 + 5); // merge re-inserts the deleted 56
    // Version 1 through the reader equals the rows first written.
    await registerSnapshotView(duck.conn, await table.snapshot({ version: 1 }), 'rb_v1');
    const at1 = await duck.conn.runAndReadAll('SELECT * FROM rb_v1 ORDER BY order_id, dt');
    expect(at1.getRowObjectsJson()).toEqual(await expected(v1));
    // The checkpoint alone rebuilds the same snapshot as the JSON commits.
    const fromJson = await table.snapshot({ version: 5, useCheckpoints: false });
    const fromCp = await table.snapshot({ version: 5 });
    expect(fromCp.files.map((f) => f.path).sort()).toEqual(fromJson.files.map((f) => f.path).sort());
    w.close();
  });

  it('opens an existing table through the reader and keeps writing it', async () => {
    const w = await newTable('reopen');
    await w.append({ sql: rowsSql(0, 10, '2026-08-10') });
    w.close();
    const w2 = await DeltaWriter.open(join(dir, 'reopen'), { duck, clock });
    expect(w2.version).toBe(1);
    const r = await w2.overwrite({ sql: rowsSql(0, 4, '2026-08-10') }, { replaceWhere: "dt = DATE '2026-08-10'" });
    expect(r.version).toBe(2);
    expect(r.removes).toHaveLength(1);
    expect(await readBack(w2.root)).toEqual(await expected(rowsSql(0, 4, '2026-08-10')));
    // A reopened writer knows when each removed file stopped being referenced (for vacuum).
    const w3 = await DeltaWriter.open(w2.root, { duck, clock });
    const removedAt = r.removes[0].deletionTimestamp!;
    expect(w3.vacuum({ retentionMs: 60_000, now: removedAt + 30_000, dryRun: true }).deleted).toEqual([]);
    expect(w3.vacuum({ retentionMs: 60_000, now: removedAt + 90_000, dryRun: true }).deleted).toEqual([r.removes[0].path]);
    w3.close();
    // Two writers opened at the same version: the second to commit loses.
    const a = await DeltaWriter.open(w2.root, { duck, clock });
    const b = await DeltaWriter.open(w2.root, { duck, clock });
    await a.deleteWhere('order_id = 1');
    const e = await b.deleteWhere('order_id = 2').then(() => null, (x: unknown) => x);
    expect((e as LakerecError).code).toBe('commit_conflict');
    expect(log(w2.root).map((c) => c.version)).toEqual([0, 1, 2, 3]);
    for (const x of [w2, a, b]) x.close();
  });

  it('decides a partition-only predicate from the log: no data file is read', async () => {
    const w = await newTable('pruning');
    await w.append({ sql: `${rowsSql(0, 20, '2026-08-10')} UNION ALL ${rowsSql(20, 40, '2026-08-11')}` });
    // Ruin the 08-10 file: any read of it would fail.
    const f10 = [...w.state.files.values()].find((f) => f.partitionValues.dt === '2026-08-10')!;
    writeFileSync(join(w.root, f10.path), 'not parquet');
    const r = await w.deleteWhere("dt = DATE '2026-08-11'");
    expect(r.commitInfo.operationMetrics).toMatchObject({ numDeletedRows: '20', numRemovedFiles: '1', numCopiedRows: '0' });
    const o = await w.overwrite({ sql: rowsSql(50, 55, '2026-08-12') }, { replaceWhere: "dt >= DATE '2026-08-11'" });
    expect(o.removes).toHaveLength(0);
    // A predicate on a data column has to read the data, and says which file it could not read.
    const e = await misuse(w.deleteWhere('order_id = 3'));
    expect(e.code).toBe('io_error');
    expect(e.message).toContain(f10.path.split('/')[1]);
    expect(w.version).toBe(3);
    w.close();
  });

  it('writes a checkpoint every delta.checkpointInterval versions', async () => {
    const w = await DeltaWriter.create(join(dir, 'interval'), { schema, partitionColumns: ['dt'], clock, duck, configuration: { 'delta.checkpointInterval': '3' } });
    for (let i = 0; i < 7; i++) await w.append({ sql: rowsSql(i * 10, i * 10 + 10, '2026-08-10') });
    expect(readdirSync(join(w.root, '_delta_log')).filter((f) => f.endsWith('.checkpoint.parquet')).sort())
      .toEqual(['00000000000000000003.checkpoint.parquet', '00000000000000000006.checkpoint.parquet']);
    expect(JSON.parse(readFileSync(join(w.root, '_delta_log', '_last_checkpoint'), 'utf8'))).toMatchObject({ version: 6 });
    expect(w.warnings).toEqual([]);
    const snap = await (await openTable(w.root)).snapshot();
    expect(snap.numRecords).toBe(70);
    w.close();
  });
});
