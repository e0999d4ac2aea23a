// Deletion vectors written by the writer, read by lakerec's reader: the bitmap encoding round-trips
// through the reader's decoder, DELETE marks rows without rewriting data, DVs accumulate, other
// operations and checkpoints carry them, and vacuum keeps the DV files the table still needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Action, StructType } from '../../shared/delta';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { openTable } from '../delta/open';
import { registerSnapshotView } from '../delta/scan';
import { decodeDeletionVectorBitmap, deletionVectorLocation } from '../delta/dv';
import { DeltaWriter } from './writer';
import { crc32, encodeDeletionVectorBitmap } from './dv';

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'v', type: 'string', nullable: true, metadata: {} },
    { name: 'dt', type: 'date', nullable: true, metadata: {} },
  ],
};
const rows = (from: number, to: number, dt: string): string => `SELECT i::BIGINT AS id, 'v' || i AS v, DATE '${dt}' AS dt FROM range(${from}, ${to}) t(i)`;

let dir: string;
let duck: Duck;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-dv-'));
  duck = await openDuck({ threads: 2 });
});
afterAll(() => {
  duck.close();
  rmSync(dir, { recursive: true, force: true });
});

async function ids(root: string, version?: number): Promise<number[]> {
  const snap = await (await openTable(root)).snapshot(version === undefined ? {} : { version });
  await registerSnapshotView(duck.conn, snap, 'dv_view');
  return (await duck.conn.runAndReadAll('SELECT id FROM dv_view ORDER BY id')).getRows().map((r) => Number(r[0]));
}
const range = (a: number, b: number, keep: (i: number) => boolean = () => true): number[] => Array.from({ length: b - a }, (_x, i) => a + i).filter(keep);
const parquetCount = (root: string): number => readdirSync(root, { recursive: true }).filter((f) => String(f).endsWith('.parquet') && !String(f).startsWith('_delta_log')).length;

describe('deletion vectors', () => {
  it('encode as the reader decodes: arrays, bitsets, several containers and buckets', () => {
    const cases = [[0], [5, 3, 3, 65535, 65536, 70000], range(0, 5000), range(0, 200_000, (i) => i % 3 === 0), [1, 2 ** 32 + 5, 2 ** 33]];
    for (const c of cases) {
      const sorted = [...new Set(c)].sort((a, b) => a - b);
      expect(decodeDeletionVectorBitmap(encodeDeletionVectorBitmap(c))).toEqual(sorted);
    }
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('DELETE marks rows in a DV file, accumulates, and other operations honour it', async () => {
    const root = join(dir, 't');
    const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck, configuration: { 'delta.enableDeletionVectors': 'true' } });
    const v0 = readFileSync(join(root, '_delta_log', '00000000000000000000.json'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Action);
    expect(v0.find((a) => a.protocol)?.protocol).toEqual({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors'], writerFeatures: ['deletionVectors'] });
    await w.append({ sql: `${rows(0, 100, '2026-08-10')} UNION ALL ${rows(100, 150, '2026-08-11')}` });
    const files = parquetCount(root);

    const d1 = await w.deleteWhere('id % 10 = 0');
    expect(parquetCount(root)).toBe(files);
    expect(d1.adds.map((a) => a.deletionVector?.cardinality).sort()).toEqual([10, 5]);
    expect(d1.removes).toHaveLength(2);
    expect(d1.commitInfo.operationMetrics).toMatchObject({ numDeletedRows: '15', numDeletionVectorsAdded: '2', numRemovedFiles: '0' });
    expect(JSON.parse(d1.adds[0].stats!)).toMatchObject({ tightBounds: false });
    expect(await ids(root)).toEqual(range(0, 150, (i) => i % 10 !== 0));
    // The data file itself still holds every row.
    const f10 = d1.adds.find((a) => a.partitionValues.dt === '2026-08-10')!;
    expect(Number((await duck.conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(join(root, f10.path))})`)).getRows()[0][0])).toBe(100);

    const d2 = await w.deleteWhere('id < 20');
    expect(d2.adds.map((a) => a.deletionVector?.cardinality)).toEqual([10 + 18]);
    expect(await ids(root)).toEqual(range(20, 150, (i) => i % 10 !== 0));
    // Version 1 is still readable as it was.
    expect(await ids(root, 1)).toEqual(range(0, 150));

    // A rewrite (UPDATE) keeps deleted rows deleted.
    await w.update({ v: "'changed'" }, "dt = DATE '2026-08-11'");
    expect(await ids(root)).toEqual(range(20, 150, (i) => i % 10 !== 0));
    // Deleting every remaining row of a file removes it.
    const d3 = await w.deleteWhere("dt = DATE '2026-08-10'");
    expect(d3.adds).toHaveLength(0);
    expect(await ids(root)).toEqual(range(100, 150, (i) => i % 10 !== 0));
    const snap = await (await openTable(root)).snapshot();
    expect(snap.numRecords).toBe(45);
    // OPTIMIZE purges: the file with a DV is rewritten without the deleted rows, and no DV remains.
    await w.deleteWhere('id = 101');
    const opt = await w.optimize();
    expect(opt.removes.map((r) => r.deletionVector?.cardinality)).toEqual([1]);
    expect(opt.adds.map((a) => a.deletionVector ?? null)).toEqual([null]);
    expect(JSON.parse(opt.adds[0].stats!)).toMatchObject({ numRecords: 44 });
    expect(await ids(root)).toEqual(range(102, 150, (i) => i % 10 !== 0));
    w.close();
  });

  it('checkpoints carry DVs, and vacuum keeps the DV files still referenced', async () => {
    const root = join(dir, 'cp');
    const w = await DeltaWriter.create(root, { schema, duck, configuration: { 'delta.enableDeletionVectors': 'true' } });
    await w.append({ sql: rows(0, 50, '2026-08-10') });
    await w.deleteWhere('id < 5');
    const d = await w.deleteWhere('id >= 45');
    const cp = await w.checkpoint();
    const t = await openTable(root);
    const fromCp = await t.snapshot({ version: cp.version });
    const fromJson = await t.snapshot({ version: cp.version, useCheckpoints: false });
    expect(fromCp.files.map((f) => f.deletionVector)).toEqual(fromJson.files.map((f) => f.deletionVector));
    expect(fromCp.numRecords).toBe(40);
    const dvFiles = (): string[] => readdirSync(root).filter((f) => f.startsWith('deletion_vector_')).sort();
    expect(dvFiles()).toHaveLength(2);
    const v = w.vacuum({ retentionMs: 0, now: Date.now() + 1000 });
    const live = d.adds[0].deletionVector!;
    expect(dvFiles()).toHaveLength(1);
    expect(v.deleted.filter((f) => f.startsWith('deletion_vector_'))).toHaveLength(1);
    expect(live.storageType).toBe('u');
    const loc = deletionVectorLocation(live, root)!;
    expect(existsSync(loc.absolute!)).toBe(true);
    expect(dvFiles()).toEqual([loc.raw]);
    expect(await ids(root)).toEqual(range(5, 45));
    // The reopened writer goes on writing the DV table.
    w.close();
    const again = await DeltaWriter.open(root, { duck });
    await again.deleteWhere('id = 10');
    expect(await ids(root)).toEqual(range(5, 45, (i) => i !== 10));
    again.close();
  });
});
