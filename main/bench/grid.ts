// Benchmark (a figure, not a test): the Data tab's first page of a 10M-row Delta table (written
// by the Delta writer: 10 partitions), cold: a fresh RowsService opens the table, reads the log,
// registers the snapshot view and reads 100 rows. Beside it, in the same run, DuckDB's own
// `SELECT * FROM read_parquet([the same files]) LIMIT 100` in a fresh instance. Also the first
// page sorted by a column (a top-N over every row) and a filtered page with its count.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { StructType } from '../../shared/delta';
import { openDuck, sqlString } from '../engine/duck';
import { openTable } from '../delta/open';
import { DeltaWriter } from '../writer';
import { RowsService } from '../views/rows';

export interface GridFigures {
  rows: number;
  files: number;
  /** Cold first page of 100 rows, ms (median of runs). */
  firstPageMs: number;
  /** DuckDB read_parquet(files) LIMIT 100 in a fresh instance, ms (median). */
  duckdbLimitMs: number;
  ratio: number;
  /** First page sorted by a non-key column (warm view), ms. */
  sortedPageMs: number;
  /** A WHERE-filtered page and its count (warm view), ms. */
  filteredPageMs: number;
  runs: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export async function benchGrid(o: { rows?: number; runs?: number } = {}): Promise<GridFigures> {
  const rows = o.rows ?? 10_000_000;
  const runs = o.runs ?? 3;
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-bench-grid-'));
  try {
    const root = join(dir, 'events');
    const schema: StructType = {
      type: 'struct',
      fields: [
        { name: 'event_id', type: 'long', nullable: false, metadata: {} },
        { name: 'user_id', type: 'long', nullable: true, metadata: {} },
        { name: 'kind', type: 'string', nullable: true, metadata: {} },
        { name: 'amount', type: 'double', nullable: true, metadata: {} },
        { name: 'day', type: 'integer', nullable: false, metadata: {} },
      ],
    };
    const w = await DeltaWriter.create(root, { schema, partitionColumns: ['day'] });
    await w.append({ sql: `SELECT i::BIGINT AS event_id, (i * 7919 % 100003)::BIGINT AS user_id, ['view','click','buy'][1 + (i % 3)::INTEGER] AS kind, (i % 1000) / 10.0 AS amount, (i % 10)::INTEGER AS day FROM range(${rows}) t(i)` });
    w.close();
    const opened = await openTable(root);
    const snap = await opened.snapshot();
    const files = snap.files.map((f) => opened.storage.describe(f.path));

    const ours: number[] = [];
    const base: number[] = [];
    let sorted = 0;
    let filtered = 0;
    for (let r = 0; r < runs; r++) {
      const d = await openDuck();
      let t0 = performance.now();
      const theirs = (await d.conn.runAndReadAll(`SELECT * FROM read_parquet([${files.map(sqlString).join(', ')}]) LIMIT 100`)).getRows().length;
      base.push(performance.now() - t0);
      // The filtered page's count, as DuckDB counts it over the same files (not timed).
      const theirMatching = Number((await d.conn.runAndReadAll(`SELECT count(*) FROM read_parquet([${files.map(sqlString).join(', ')}]) WHERE kind = 'buy' AND amount > 50`)).getRows()[0][0]);
      d.close();

      const svc = new RowsService();
      t0 = performance.now();
      const p = await svc.page(root, { path: root, limit: 100 });
      ours.push(performance.now() - t0);
      if (p.rows.length !== 100 || p.totalRows !== rows || theirs !== 100) throw new Error(`grid bench: expected 100 of ${rows} rows, got ${p.rows.length} of ${p.totalRows} (DuckDB: ${theirs})`);
      t0 = performance.now();
      await svc.page(root, { path: root, limit: 100, sort: { column: 'amount', direction: 'desc' } });
      sorted = performance.now() - t0;
      t0 = performance.now();
      const fp = await svc.page(root, { path: root, limit: 100, where: "kind = 'buy' AND amount > 50" });
      filtered = performance.now() - t0;
      if (fp.matchingRows !== theirMatching) throw new Error(`grid bench: the filtered page counts ${fp.matchingRows} rows, DuckDB ${theirMatching}`);
      svc.close();
    }
    const firstPageMs = Math.round(median(ours));
    const duckdbLimitMs = Math.round(median(base));
    return { rows, files: files.length, firstPageMs, duckdbLimitMs, ratio: Math.round((firstPageMs / Math.max(1, duckdbLimitMs)) * 100) / 100, sortedPageMs: Math.round(sorted), filteredPageMs: Math.round(filtered), runs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatGridFigures(f: GridFigures): string {
  return `grid: first page of ${f.rows.toLocaleString('en-US')} rows (${f.files} files), cold: ${f.firstPageMs} ms (goal < 1000 ms); DuckDB SELECT * LIMIT 100 over the same files: ${f.duckdbLimitMs} ms; ratio ${f.ratio}x; sorted first page ${f.sortedPageMs} ms, filtered page + count ${f.filteredPageMs} ms (median of ${f.runs})`;
}
