// The counts level's two shortcuts on real files: the source counted from its Parquet footers
// (only when every row group holds one partition value; otherwise a scan, with the same answer),
// and the target counted from its add actions' numRecords (unknown, never 0, when a log has none).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { reconcile } from './reconcile';
import { parseContract } from './contract';

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'name', type: 'string', nullable: true, metadata: {} },
    { name: 'dt', type: 'date', nullable: true, metadata: {} },
  ],
};
const rowsSql = (to = 90, where = 'true') => `SELECT i::BIGINT AS id, 'n' || i AS name, DATE '2026-08-10' + (i % 3)::INTEGER AS dt FROM range(1, ${to + 1}) r(i) WHERE ${where}`;
const contract = parseContract('version: 1\nname: t\nkeys: [id]\npartitioning: { column: dt }\n');

let dir: string;
let duck: Duck;
let table: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-counts-'));
  duck = await openDuck({ threads: 1 });
  table = join(dir, 'table');
  const w = await DeltaWriter.create(table, { schema, partitionColumns: ['dt'], duck });
  try { await w.append({ sql: rowsSql() }); } finally { w.close(); }
});

afterAll(() => {
  duck?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A folder of one Parquet file per day (each row group holds one dt), without hive paths. */
async function perDayFolder(name: string, to: number): Promise<string> {
  const folder = join(dir, name);
  mkdirSync(folder);
  for (let d = 0; d < 3; d++) await duck.conn.run(`COPY (${rowsSql(to, `i % 3 = ${d}`)}) TO ${sqlString(join(folder, `day${d}.parquet`))} (FORMAT parquet)`);
  return folder;
}

describe('source counts from Parquet footers', () => {
  it('counts each row group by its one partition value, reads no data page, and agrees with a scan', async () => {
    const folder = await perDayFolder('per-day', 90);
    const r = await reconcile({ source: folder, target: { root: table }, contract, level: 'counts' });
    expect(r.verdict).toBe('matches');
    expect(r.notes.some((n) => /source counted from its Parquet footers: 90 rows/.test(n))).toBe(true);
    expect(r.reads.sourceRowsRead).toBe(0);
    // The same folder at checksum level is scanned; the per-partition counts are the same.
    const deep = await reconcile({ source: folder, target: { root: table }, contract, level: 'checksum' });
    expect(r.partitions.map((p) => [p.partition, p.sourceRows])).toEqual(deep.partitions.map((p) => [p.partition, p.sourceRows]));
    expect(r.partitions.map((p) => p.partition)).toEqual(['dt=2026-08-10', 'dt=2026-08-11', 'dt=2026-08-12']);
  });

  it('notices a missing day from the footers alone', async () => {
    const folder = await perDayFolder('short', 60);
    const r = await reconcile({ source: folder, target: { root: table }, contract, level: 'counts' });
    expect(r.verdict).not.toBe('matches');
    expect(r.partitions.find((p) => p.partition === 'dt=2026-08-11')).toMatchObject({ sourceRows: 20, targetRows: 30 });
  });

  it('scans when a row group holds several partition values', async () => {
    const mixed = join(dir, 'mixed.parquet');
    await duck.conn.run(`COPY (${rowsSql()}) TO ${sqlString(mixed)} (FORMAT parquet)`);
    const r = await reconcile({ source: mixed, target: { root: table }, contract, level: 'counts' });
    expect(r.verdict).toBe('matches');
    expect(r.notes.some((n) => /Parquet footers/.test(n))).toBe(false);
    expect(r.reads.sourceRowsRead).toBe(90);
  });
});

describe('target counts from the log', () => {
  /** The same table with its add actions' stats taken out (a writer that records none). */
  function withoutStats(name: string, keepData: boolean): string {
    const root = join(dir, name);
    mkdirSync(join(root, '_delta_log'), { recursive: true });
    for (const f of readdirSync(join(table, '_delta_log')).filter((x) => x.endsWith('.json'))) {
      const lines = readFileSync(join(table, '_delta_log', f), 'utf8').split('\n').filter(Boolean).map((l) => {
        const a = JSON.parse(l) as { add?: { stats?: string } };
        if (a.add) delete a.add.stats;
        return JSON.stringify(a);
      });
      writeFileSync(join(root, '_delta_log', f), lines.join('\n') + '\n');
    }
    if (keepData) {
      for (const d of readdirSync(table).filter((x) => x !== '_delta_log')) cpSync(join(table, d), join(root, d), { recursive: true });
    }
    return root;
  }

  it('says the log does not know the rows and counts them from the files\' Parquet footers instead (no data page read)', async () => {
    const root = withoutStats('nostats', true);
    const r = await reconcile({ source: join(dir, 'per-day'), target: { root }, contract, level: 'counts' });
    expect(r.verdict).toBe('matches');
    expect(r.notes.find((n) => /carry no numRecords in the log/.test(n))).toMatch(/3 of 3 files carry no numRecords in the log, so their rows were counted from their Parquet footers/);
    expect(r.notes.some((n) => /row counts are unknown from its log/.test(n))).toBe(false);
    expect(r.reads.targetRowsRead).toBe(0);
    expect(r.partitions.reduce((a, p) => a + p.targetRows, 0)).toBe(90);
  });

  it('never reads missing stats as 0 rows: without data files the counts are unknown (a side could not be read)', async () => {
    const root = withoutStats('nostats-nodata', false);
    let err: unknown = null;
    try { await reconcile({ source: join(dir, 'per-day'), target: { root }, contract, level: 'counts' }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(LakerecError);
    expect((err as LakerecError).message).toMatch(/the target's row counts are unknown: its log has none \(3 of 3 files carry no numRecords\)/);
    expect((err as LakerecError).exitCode).toBe(3);
  });
});

describe('target counts from footers when the log has no numRecords, with deletion vectors', () => {
  const lake = join(__dirname, '..', '..', 'sample-lakes', 'built', 'missing_rows_dv');
  const haveLake = existsSync(join(lake, 'table', '_delta_log'));
  let tmp = '';
  afterAll(() => { if (tmp) rmSync(tmp, { recursive: true, force: true }); });

  it.skipIf(!haveLake)('subtracts each file\'s deleted rows: the same counts as the log\'s stats give', async () => {
    tmp = mkdtempSync(join(tmpdir(), 'lakerec-footer-dv-'));
    const root = join(tmp, 'table');
    cpSync(join(lake, 'table'), root, { recursive: true });
    for (const f of readdirSync(join(root, '_delta_log')).filter((x) => x.endsWith('.json'))) {
      const p = join(root, '_delta_log', f);
      const lines = readFileSync(p, 'utf8').split('\n').filter(Boolean).map((l) => {
        const a = JSON.parse(l) as { add?: { stats?: string } };
        if (a.add) delete a.add.stats;
        return JSON.stringify(a);
      });
      writeFileSync(p, lines.join('\n') + '\n');
    }
    const c = join(lake, 'contract.yaml');
    const src = join(lake, 'source', 'orders.parquet');
    const withStats = await reconcile({ source: src, target: { root: join(lake, 'table') }, contract: c, level: 'counts' });
    const fromFooters = await reconcile({ source: src, target: { root }, contract: c, level: 'counts' });
    expect(fromFooters.notes.some((n) => /counted from their Parquet footers/.test(n))).toBe(true);
    expect(fromFooters.reads.targetRowsRead).toBe(0);
    // The lake deletes rows by deletion vector: the footers' num_rows alone would be too many.
    expect(withStats.partitions.some((p) => p.sourceRows !== p.targetRows)).toBe(true);
    expect(fromFooters.partitions).toEqual(withStats.partitions);
    expect(fromFooters.verdict).toBe(withStats.verdict);
  });
});
