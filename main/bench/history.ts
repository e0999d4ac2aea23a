// Benchmark (figures, not a test): the investigation's engine side on a 10,000-version log with
// 5,000 live files (issue #12). Each figure printed beside a same-run baseline:
//  - the log read (DeltaTable.open + every commit's change set) vs DuckDB read_json over the same
//    commit files (goal: within 2x);
//  - after the log is read, the timeline's data (the one history + forensics + the header) (goal
//    < 1 s), beside the log read itself;
//  - stepping a version: one commit's drill-down (goal < 50 ms), beside JSON.parse of that commit file.
// The log is hand-written JSON (no data files: every figure here is log-only).
//
// Run: npx vite build --ssr main/bench/history.ts --outDir dist/bench-history --emptyOutDir \
//        && node dist/bench-history/history.js
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import { forensicsOfHistory } from '../forensics/forensics';
import { commitDetail } from '../forensics/commit';
import { overviewOf } from '../app/investigate';
import { openDuck, sqlString } from '../engine/duck';

export interface HistoryBenchFigures {
  versions: number;
  liveFiles: number;
  /** Ours: open + every version's change set, fresh table (ms, median of runs). */
  logReadMs: number;
  /** DuckDB read_json over the same commit files, counting adds per version (ms, median). */
  duckdbReadJsonMs: number;
  /** logReadMs / duckdbReadJsonMs (goal <= 2). */
  logReadRatio: number;
  /** After the log is read: history + forensics + header, the timeline's data (ms, median; goal < 1000). */
  timelineMs: number;
  /** Stepping a version: one commit's drill-down (ms, median over the probed versions; goal < 50). */
  stepMedianMs: number;
  stepMaxMs: number;
  /** Baseline for a step: JSON.parse of the same commit file's lines (ms, median). */
  stepBaselineMs: number;
  runs: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r2 = (x: number): number => Math.round(x * 100) / 100;

/** v0 creates the table; v1..live add one file each; the rest replace one file each (add + remove). */
export function writeLog(root: string, versions: number, live: number): void {
  const dir = join(root, '_delta_log');
  mkdirSync(dir, { recursive: true });
  const schemaString = JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }, { name: 'dt', type: 'string', nullable: true, metadata: {} }] });
  const t0 = Date.UTC(2026, 0, 1);
  const name = (v: number) => join(dir, `${String(v).padStart(20, '0')}.json`);
  writeFileSync(name(0), [
    { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
    { metaData: { id: 'bench', format: { provider: 'parquet', options: {} }, schemaString, partitionColumns: ['dt'], configuration: {}, createdTime: t0 } },
    { commitInfo: { timestamp: t0, operation: 'CREATE TABLE', operationParameters: {} } },
  ].map((a) => JSON.stringify(a)).join('\n') + '\n');
  const file = (i: number) => `dt=d${i % 30}/part-${String(i).padStart(6, '0')}.parquet`;
  const addOf = (i: number, v: number) => ({ add: { path: file(i), partitionValues: { dt: `d${i % 30}` }, size: 1000 + i, modificationTime: t0 + v * 1000, dataChange: true, stats: JSON.stringify({ numRecords: 100, minValues: { id: i * 100 }, maxValues: { id: i * 100 + 99 }, nullCount: { id: 0 } }) } });
  for (let v = 1; v < versions; v++) {
    const actions: unknown[] = [{ commitInfo: { timestamp: t0 + v * 1000, operation: 'WRITE', operationParameters: { mode: 'Append' }, userName: `user${v % 7}`, engineInfo: 'bench/1.0' } }, addOf(v, v)];
    if (v > live) actions.push({ remove: { path: file(v - live), deletionTimestamp: t0 + v * 1000, dataChange: true, partitionValues: { dt: `d${(v - live) % 30}` }, size: 1000 + v - live } });
    writeFileSync(name(v), actions.map((a) => JSON.stringify(a)).join('\n') + '\n');
  }
}

export async function benchHistory(opts: { versions?: number; liveFiles?: number; runs?: number; dir?: string } = {}): Promise<HistoryBenchFigures> {
  const versions = opts.versions ?? 10_000;
  const live = opts.liveFiles ?? 5_000;
  const runs = opts.runs ?? 3;
  const base = opts.dir ?? mkdtempSync(join(tmpdir(), 'lakerec-bench-history-'));
  const root = join(base, 'log');
  rmSync(root, { recursive: true, force: true });
  writeLog(root, versions, live);
  const read: number[] = [];
  const duck: number[] = [];
  const timeline: number[] = [];
  let last: { table: DeltaTable } | null = null;
  const db = await openDuck({ threads: 1 });
  try {
    for (let r = 0; r < runs; r++) {
      let t = performance.now();
      const table = await openTable(root);
      const changes = await table.changes();
      read.push(performance.now() - t);
      t = performance.now();
      const h = await table.history();
      const f = await forensicsOfHistory(h);
      overviewOf(root, h);
      if (f.versions.length !== versions) throw new Error(`bench: ${f.versions.length} versions summarised, expected ${versions}`);
      timeline.push(performance.now() - t);
      last = { table };
      // Baseline: DuckDB reads the same commit files as JSON and counts adds per version (one thread, as ours).
      t = performance.now();
      const perFile = (await db.conn.runAndReadAll(`SELECT filename, count(add) FROM read_json(${sqlString(join(root, '_delta_log', '*.json'))}, format = 'newline_delimited', filename = true, union_by_name = true, maximum_object_size = 16777216) GROUP BY filename`)).getRows();
      duck.push(performance.now() - t);
      // Both reads must have read the same log: one row per commit, the same adds in all.
      const ourAdds = changes.reduce((s, c) => s + c.adds.length, 0);
      const theirAdds = perFile.reduce((s, r) => s + Number(r[1]), 0);
      if (perFile.length !== changes.length || theirAdds !== ourAdds) throw new Error(`bench: DuckDB read ${perFile.length} commits with ${theirAdds} adds, lakerec ${changes.length} with ${ourAdds}`);
    }
  } finally {
    db.close();
  }
  const table = (last as { table: DeltaTable }).table;
  const h = await table.history();
  const f = await forensicsOfHistory(h);
  const step: number[] = [];
  const parse: number[] = [];
  for (let i = 0; i < 200; i++) {
    const v = 1 + ((i * 7919) % (versions - 1));
    let t = performance.now();
    commitDetail(h, f, v, { filesLimit: 2000 });
    step.push(performance.now() - t);
    t = performance.now();
    for (const line of readFileSync(join(root, '_delta_log', `${String(v).padStart(20, '0')}.json`), 'utf8').split('\n')) if (line) JSON.parse(line);
    parse.push(performance.now() - t);
  }
  if (!opts.dir) rmSync(base, { recursive: true, force: true });
  const logReadMs = median(read);
  const duckdbReadJsonMs = median(duck);
  return {
    versions, liveFiles: activeCount(h), logReadMs: r2(logReadMs), duckdbReadJsonMs: r2(duckdbReadJsonMs), logReadRatio: r2(logReadMs / duckdbReadJsonMs),
    timelineMs: r2(median(timeline)), stepMedianMs: r2(median(step)), stepMaxMs: r2(Math.max(...step)), stepBaselineMs: r2(median(parse)), runs,
  };
}

function activeCount(h: Awaited<ReturnType<DeltaTable['history']>>): number {
  return h.states[h.states.length - 1]?.tableFiles ?? 0;
}

export function formatHistoryBenchFigures(f: HistoryBenchFigures): string {
  return [
    `history (${f.versions.toLocaleString('en-US')} versions, ${f.liveFiles.toLocaleString('en-US')} live files; median of ${f.runs}):`,
    `  log read            ${f.logReadMs} ms   vs DuckDB read_json over the same commits ${f.duckdbReadJsonMs} ms   ratio ${f.logReadRatio}x (goal <= 2x)`,
    `  timeline data       ${f.timelineMs} ms after the log is read (history + forensics + header; goal < 1000 ms; the log read itself: ${f.logReadMs} ms)`,
    `  step a version      ${f.stepMedianMs} ms median, ${f.stepMaxMs} ms max (goal < 50 ms; JSON.parse of that commit: ${f.stepBaselineMs} ms)`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchHistory().then((f) => { process.stdout.write(formatHistoryBenchFigures(f) + '\n'); }, (e: unknown) => {
    process.stderr.write(`bench history: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(3);
  });
}
