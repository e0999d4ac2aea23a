import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TinyLake, type Row } from '../testing/forensics-tables';
import { forensics, forensicsCommit } from './forensics';
import type { ForensicsResult } from '../../shared/forensics';

const days = ['2026-08-06', '2026-08-07', '2026-08-08', '2026-08-09', '2026-08-10', '2026-08-11'];
const rowsFor = (dt: string, start: number, n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({ order_id: start + i, amount: (start + i) % 97, dt }));

let dir: string;
let res: ForensicsResult;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-forensics-'));
  const lake = await TinyLake.create(join(dir, 'orders'), [
    { name: 'order_id', type: 'long' }, { name: 'amount', type: 'long' }, { name: 'dt', type: 'date' },
  ], ['dt']);
  try {
    for (let d = 0; d < 5; d++) await lake.append([rowsFor(days[d], d * 100, 30)]); // v1..v5
    await lake.append([rowsFor(days[4], 400, 30)]); // v6: the day-5 batch again (retried)
    // v7: overwrite declared for 2026-08-07 that also removes 2026-08-08
    await lake.overwrite({
      remove: (f) => f.partitionValues.dt === '2026-08-07' || f.partitionValues.dt === '2026-08-08',
      batches: [rowsFor(days[1], 100, 30)],
      predicate: "dt = '2026-08-07'",
    });
    await lake.append([rowsFor(days[1], 700, 5)]); // v8: blind append after overwrite
    // v9: a schema change, committed with a clock that went backwards
    const md = { id: 'x', format: { provider: 'parquet' }, schemaString: JSON.stringify({ type: 'struct', fields: [
      { name: 'order_id', type: 'long', nullable: true, metadata: {} }, { name: 'amount', type: 'long', nullable: true, metadata: {} },
      { name: 'dt', type: 'date', nullable: true, metadata: {} }, { name: 'note', type: 'string', nullable: true, metadata: {} }] }), partitionColumns: ['dt'] };
    lake.writeCommit([{ metaData: md }, { protocol: { minReaderVersion: 1, minWriterVersion: 4 } }], { operation: 'ADD COLUMNS' }, Date.UTC(2026, 7, 17, 19, 0, 0));
    // v10: a delete removing most of the table (no predicate)
    await lake.overwrite({ remove: (f) => f.partitionValues.dt !== '2026-08-06', operation: 'DELETE', params: { predicate: '["(amount > 5)"]' } });
    // v11: an overwrite whose replaceWhere names a data column
    await lake.overwrite({ remove: (f) => f.partitionValues.dt === '2026-08-06', batches: [rowsFor(days[0], 0, 30)], predicate: 'amount > 1000' });
    // a vacuum of the emptied partition's file: the log still names it, the data is gone
    for (const f of readdirSync(join(lake.root, 'dt=2026-08-08'))) unlinkSync(join(lake.root, 'dt=2026-08-08', f));
  } finally {
    lake.close();
  }
  res = await forensics(join(dir, 'orders'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hit = (name: string, v: number) => res.heuristics.find((h) => h.name === name && h.version === v);

describe('forensics on a tiny real Delta table', () => {
  it('summarises every version from the log', () => {
    expect(res.versions).toHaveLength(12);
    const v6 = res.versions[6];
    expect(v6).toMatchObject({ operation: 'WRITE', addedFiles: 1, removedFiles: 0, addedRows: 30, partitions: ['dt=2026-08-10'], tableRows: 180, isolationLevel: 'Serializable' });
    expect(res.versions[7]).toMatchObject({ addedFiles: 1, removedFiles: 2, addedRows: 30, removedRows: 60, partitions: ['dt=2026-08-07', 'dt=2026-08-08'] });
    expect(res.dataFilesRead).toBe(0);
  });

  it('names the retried batch with the version it repeats', () => {
    const h = hit('duplicate_batch', 6);
    expect(h?.evidence.earlierVersions).toEqual([5]);
    expect(res.heuristics.filter((x) => x.name === 'duplicate_batch')).toHaveLength(1);
  });

  it('names the emptied partition, the shrinking overwrite and the too-wide predicate', () => {
    expect(hit('partition_emptied', 7)?.evidence.partition).toBe('dt=2026-08-08');
    expect(hit('partition_emptied', 7)?.message).toBe('WRITE removed every file it touched in dt=2026-08-08 and added none back');
    expect(hit('overwrite_shrank_the_table', 7)?.evidence.partitionsNotRewritten).toEqual(['dt=2026-08-08']);
    const wide = hit('overwrite_wider_than_predicate', 7);
    expect(wide?.evidence.partitionsOutside).toEqual(['dt=2026-08-08']);
    expect(wide?.evidence.rowsOutside).toBe(30);
  });

  it('flags the append right after an overwrite, the schema and protocol change, the clock, the large delete', () => {
    expect(hit('blind_append_after_overwrite', 8)?.evidence.partitions).toEqual(['dt=2026-08-07']);
    expect(hit('schema_changed', 9)?.evidence.added).toEqual(['note']);
    expect(hit('protocol_upgraded', 9)?.evidence).toMatchObject({ writerBefore: 2, writerAfter: 4 });
    expect(hit('clock_went_backwards', 9)).toBeDefined();
    expect(hit('large_delete', 10)?.evidence).toMatchObject({ rowsBefore: 155, rowsAfter: 30 });
    // a DELETE whose predicate names a data column cannot be judged from partition values: ordinary, no note
    expect(hit('predicate_not_evaluable', 10)).toBeUndefined();
    expect(hit('overwrite_wider_than_predicate', 10)).toBeUndefined();
  });

  it('says when an overwrite\'s predicate cannot be judged from partition values', () => {
    expect(hit('predicate_not_evaluable', 11)?.evidence.predicate).toBe('amount > 1000');
  });

  it('notices removed data files deleted from disk', () => {
    expect(hit('data_files_missing', 7)?.evidence).toMatchObject({ files: 1, oldestDataReadableVersion: 7 });
  });

  it('stays quiet on clean appends', () => {
    for (const v of [1, 2, 3, 4, 5]) expect(res.heuristics.filter((h) => h.version === v)).toEqual([]);
  });

  it('opens one commit: its files, per-partition counts and heuristics', async () => {
    const d = await forensicsCommit(join(dir, 'orders'), 7);
    expect(d.summary.version).toBe(7);
    expect(d.added.map((f) => [f.partition, f.rows])).toEqual([['dt=2026-08-07', 30]]);
    expect(d.removed.map((f) => [f.partition, f.rows, f.addedIn]).sort()).toEqual([['dt=2026-08-07', 30, 2], ['dt=2026-08-08', 30, 3]]);
    expect(d.partitions).toEqual([
      expect.objectContaining({ partition: 'dt=2026-08-07', addedFiles: 1, removedFiles: 1, addedRows: 30, removedRows: 30, rowsKnown: true, rewrittenFiles: 0 }),
      expect.objectContaining({ partition: 'dt=2026-08-08', addedFiles: 0, removedFiles: 1, addedRows: 0, removedRows: 30, rowsKnown: true }),
    ]);
    expect(d.heuristics.map((h) => h.name).sort()).toEqual(['data_files_missing', 'overwrite_shrank_the_table', 'overwrite_wider_than_predicate', 'partition_emptied']);
    await expect(forensicsCommit(join(dir, 'orders'), 99)).rejects.toMatchObject({ code: 'version_not_found' });
  });

  it('refuses an unknown --partition-by column', async () => {
    await expect(forensics(join(dir, 'orders'), { partitionBy: 'nope' })).rejects.toMatchObject({ code: 'usage' });
  });

  it('derives partitions from stats for a data column', async () => {
    const r = await forensics(join(dir, 'orders'), { partitionBy: 'amount' });
    expect(r.partitionSource).toBe('stats');
    expect(r.versions[1].partitions).toEqual(['amount=mixed']);
  });
});
