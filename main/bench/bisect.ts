// Benchmark (figures, not a test): bisect over generated Delta tables.
//  A. 10,000 versions of small commits (100 rows each, so 1M rows in 10,000 files), a classic
//     checkpoint every 100 versions; null keys arrive at one version, duplicate keys at a later one.
//     - no-null-keys (log only): goal < 1 s end to end (open, replay, search); files read must be 0.
//     - unique-keys over the same 1M rows / 10,000 files.
//  B. 1M rows in 100 versions of 10,000 rows (fewer, larger files): unique-keys.
// Every figure is end to end: DeltaTable.open + the log read + replay + search + data reads.
//
// Run: npx vite build --ssr main/bench/bisect.ts --outDir dist/bench-bisect --emptyOutDir \
//        && node dist/bench-bisect/bisect.js [WORKDIR]   (WORKDIR keeps the tables for the next run)
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { bisect } from '../bisect/bisect';
import { repoRoot } from '../engine/repo';
import { forensics } from '../forensics/forensics';
import type { BisectResult, PredicateSpec } from '../../shared/bisect';

export interface BisectRunFigures {
  table: string;
  predicate: string;
  versions: number;
  rows: number;
  files: number;
  ms: number;
  /** CPU time of this process (all threads, DuckDB's included): steadier than wall time on a shared machine. */
  cpuMs: number;
  examined: number;
  /** Versions of history covered per second: table versions / wall time. */
  versionsPerSecond: number;
  filesRead: number;
  filesFromCache: number;
  firstBad: number | null;
  expectedFirstBad: number;
  exhaustive: boolean;
}

export interface LargeLogFigures {
  /** The input, or null when ../shared/bench is absent (then nothing was measured). */
  input: string | null;
  skippedReason?: string;
  addActions: number;
  versions: number;
  forensicsMs: number;
  forensicsCpuMs: number;
  heuristics: number;
}

export interface BisectBenchFigures {
  generateMs: number;
  loadAverage: number;
  /** forensics (timeline + heuristics) over the 10,000-version table, end to end. */
  forensicsMs: number;
  forensicsVersions: number;
  /** forensics over the 300,000-add log of ../shared/bench (5 versions, no data files). */
  largeLog: LargeLogFigures;
  runs: BisectRunFigures[];
  /** no-null-keys on 10,000 versions under 1 s (the goal). */
  logOnlyGoalMet: boolean;
}

const SCHEMA = JSON.stringify({ type: 'struct', fields: [
  { name: 'k', type: 'long', nullable: true, metadata: {} },
  { name: 'amount', type: 'long', nullable: true, metadata: {} },
  { name: 'day', type: 'string', nullable: true, metadata: {} },
] });

interface GenSpec { versions: number; rowsPerVersion: number; nullAt: number; dupAt: number; checkpointEvery: number }

/**
 * Writes a genuine Delta table fast: every version's Parquet file in one DuckDB COPY (PARTITION_BY
 * gives one folder per version), stats from one GROUP BY, then the JSON commits and checkpoints.
 * Keys are unique except at `dupAt` (which re-sends version 1's keys); version `nullAt` has one null key.
 */
async function generate(duck: Duck, root: string, g: GenSpec): Promise<{ files: number; rows: number }> {
  const log = join(root, '_delta_log');
  mkdirSync(log, { recursive: true });
  const stage = join(root, 'stage');
  const n = g.rowsPerVersion;
  await duck.conn.run(`CREATE OR REPLACE TEMP TABLE gen AS
    SELECT v, CASE WHEN v = ${g.nullAt} AND i = 0 THEN NULL WHEN v = ${g.dupAt} THEN ${n} + i ELSE v * ${n} + i END AS k,
           (v * 7 + i) % 1000 AS amount, 'd' || (v % 7) AS day
    FROM range(1, ${g.versions}) r(v), range(0, ${n}) s(i)`);
  await duck.conn.run(`COPY gen TO ${sqlString(stage)} (FORMAT parquet, PARTITION_BY (v), OVERWRITE_OR_IGNORE)`);
  const stats = (await duck.conn.runAndReadAll(`SELECT v, count(*), min(k), max(k), count(*) - count(k), min(amount), max(amount), min(day), max(day) FROM gen GROUP BY v ORDER BY v`)).getRows();
  const t0 = Date.UTC(2026, 7, 1);
  const adds: Record<string, unknown>[] = [];
  const write = (v: number, lines: unknown[]) => writeFileSync(join(log, `${String(v).padStart(20, '0')}.json`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const protocol = { minReaderVersion: 1, minWriterVersion: 2 };
  const metaData = { id: randomUUID(), format: { provider: 'parquet', options: {} }, schemaString: SCHEMA, partitionColumns: [], configuration: {}, createdTime: t0 };
  write(0, [{ commitInfo: { timestamp: t0, operation: 'CREATE TABLE', operationParameters: {}, engineInfo: 'lakerec-bench' } }, { protocol }, { metaData }]);
  const checkpoints: number[] = [];
  for (const row of stats) {
    const v = Number(row[0]);
    const dir = readdirSync(join(stage, `v=${v}`))[0];
    const rel = `part-${String(v).padStart(5, '0')}-${randomUUID()}.parquet`;
    renameSync(join(stage, `v=${v}`, dir), join(root, rel));
    const add = {
      path: rel, partitionValues: {}, size: statSync(join(root, rel)).size, modificationTime: t0 + v * 1000, dataChange: true,
      stats: JSON.stringify({ numRecords: Number(row[1]), minValues: { k: Number(row[2]), amount: Number(row[5]), day: row[7] }, maxValues: { k: Number(row[3]), amount: Number(row[6]), day: row[8] }, nullCount: { k: Number(row[4]), amount: 0, day: 0 } }),
    };
    adds.push(add);
    write(v, [{ commitInfo: { timestamp: t0 + v * 1000, operation: 'WRITE', operationParameters: { mode: 'Append' }, isBlindAppend: true, engineInfo: 'lakerec-bench' } }, { add }]);
    if (v % g.checkpointEvery === 0) checkpoints.push(v);
  }
  rmSync(stage, { recursive: true, force: true });
  // Classic checkpoints: protocol, metaData and every add up to that version (all files stay active).
  const map = 'MAP(VARCHAR, VARCHAR)';
  const columns = {
    add: `STRUCT(path VARCHAR, partitionValues ${map}, size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR)`,
    metaData: `STRUCT(id VARCHAR, format STRUCT(provider VARCHAR, options ${map}), schemaString VARCHAR, partitionColumns VARCHAR[], configuration ${map}, createdTime BIGINT)`,
    protocol: 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER)',
  };
  const spec = `{${Object.entries(columns).map(([k, t]) => `${sqlString(k)}: ${sqlString(t)}`).join(', ')}}`;
  const nd = join(root, 'cp-stage.json');
  for (const cp of checkpoints) {
    const lines = [{ protocol }, { metaData }, ...adds.slice(0, cp).map((a) => ({ add: { ...a, dataChange: false } }))];
    writeFileSync(nd, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await duck.conn.run(`COPY (SELECT add, metaData, protocol FROM read_json(${sqlString(nd)}, format='newline_delimited', columns=${spec}))
      TO ${sqlString(join(log, `${String(cp).padStart(20, '0')}.checkpoint.parquet`))} (FORMAT parquet)`);
  }
  rmSync(nd, { force: true });
  if (checkpoints.length) {
    const last = checkpoints[checkpoints.length - 1];
    writeFileSync(join(log, '_last_checkpoint'), JSON.stringify({ version: last, size: last + 2 }));
  }
  return { files: adds.length, rows: adds.length * n };
}

async function timed(table: string, spec: PredicateSpec, meta: { versions: number; rows: number; files: number; expectedFirstBad: number }): Promise<BisectRunFigures> {
  const t = performance.now();
  const c0 = process.cpuUsage();
  const r: BisectResult = await bisect(table, spec);
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(c0);
  return {
    table, predicate: `${spec.predicate} --keys ${(spec.keys ?? []).join(',')}`, versions: meta.versions, rows: meta.rows, files: meta.files,
    ms: Math.round(ms), cpuMs: Math.round((cpu.user + cpu.system) / 1000), examined: r.examined, versionsPerSecond: Math.round(meta.versions / (ms / 1000)),
    filesRead: r.filesRead, filesFromCache: r.filesFromCache, firstBad: r.firstBad, expectedFirstBad: meta.expectedFirstBad, exhaustive: r.exhaustive,
  };
}

/** The 1-minute load average when the run started (the machine is shared: figures scale with it). */
export function loadAverage(): number {
  return Math.round(loadavg()[0] * 10) / 10;
}

/**
 * `workDir` keeps the generated tables; with `reuse`, tables already generated there (same sizes)
 * are used as they are, so a second run measures only the bisects.
 */
/** forensics (timeline + every heuristic) over the 300,000-add log, if ../shared/bench has it. */
export async function benchLargeLog(input = resolve(repoRoot(), '..', 'shared', 'bench', '300k-add-files-100-col-partitioned.tar.zst')): Promise<LargeLogFigures> {
  const none = { addActions: 0, versions: 0, forensicsMs: 0, forensicsCpuMs: 0, heuristics: 0 };
  if (!existsSync(input)) return { input: null, skippedReason: `${input} is absent`, ...none };
  const tmp = mkdtempSync(join(tmpdir(), 'lakerec-bench-largelog-'));
  try {
    execFileSync('tar', ['--zstd', '-xf', input, '-C', tmp]);
    const table = join(tmp, readdirSync(tmp)[0]);
    const t = performance.now();
    const c0 = process.cpuUsage();
    const r = await forensics(table);
    const cpu = process.cpuUsage(c0);
    return {
      input, addActions: r.versions.reduce((s, v) => s + v.addedFiles, 0), versions: r.versions.length,
      forensicsMs: Math.round(performance.now() - t), forensicsCpuMs: Math.round((cpu.user + cpu.system) / 1000), heuristics: r.heuristics.length,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** `wide` sizes the second table (default 101 versions of 10,000 rows); `largeLogInput` the large log's archive. */
export async function benchBisect(opts: { versions?: number; workDir?: string; reuse?: boolean; wide?: { versions: number; rowsPerVersion: number }; largeLogInput?: string } = {}): Promise<BisectBenchFigures> {
  const versions = opts.versions ?? 10_000;
  const work = opts.workDir ?? mkdtempSync(join(tmpdir(), 'lakerec-bench-bisect-'));
  const load = loadAverage();
  const duck = await openDuck();
  try {
    const t = performance.now();
    const a = join(work, 'many-versions');
    const ga: GenSpec = { versions, rowsPerVersion: 100, nullAt: Math.floor(versions * 0.6543), dupAt: Math.floor(versions * 0.7777), checkpointEvery: 100 };
    const reused = (root: string, g: GenSpec) => opts.reuse === true && existsSync(join(root, '_delta_log', `${String(g.versions - 1).padStart(20, '0')}.json`));
    const sa = reused(a, ga) ? { files: ga.versions - 1, rows: (ga.versions - 1) * ga.rowsPerVersion } : await generate(duck, a, ga);
    const b = join(work, 'million-rows');
    const wide = opts.wide ?? { versions: 101, rowsPerVersion: 10_000 };
    const gb: GenSpec = { ...wide, nullAt: Math.floor(wide.versions * 0.9), dupAt: Math.floor(wide.versions * 0.77), checkpointEvery: 100 };
    const sb = reused(b, gb) ? { files: gb.versions - 1, rows: (gb.versions - 1) * gb.rowsPerVersion } : await generate(duck, b, gb);
    const generateMs = Math.round(performance.now() - t);
    duck.close();
    const tf = performance.now();
    const fr = await forensics(a);
    const forensicsMs = Math.round(performance.now() - tf);
    const runs: BisectRunFigures[] = [];
    runs.push(await timed(a, { predicate: 'no-null-keys', keys: ['k'] }, { versions, rows: sa.rows, files: sa.files, expectedFirstBad: ga.nullAt }));
    runs.push(await timed(a, { predicate: 'unique-keys', keys: ['k'] }, { versions, rows: sa.rows, files: sa.files, expectedFirstBad: ga.dupAt }));
    runs.push(await timed(b, { predicate: 'unique-keys', keys: ['k'] }, { versions: gb.versions, rows: sb.rows, files: sb.files, expectedFirstBad: gb.dupAt }));
    const largeLog = await (opts.largeLogInput === undefined ? benchLargeLog() : benchLargeLog(opts.largeLogInput));
    return { generateMs, loadAverage: load, largeLog, forensicsMs, forensicsVersions: fr.versions.length, runs, logOnlyGoalMet: runs[0].ms < 1000 && runs[0].filesRead === 0 };
  } finally {
    duck.close();
    if (!opts.workDir) rmSync(work, { recursive: true, force: true });
  }
}

export function formatBisectFigures(f: BisectBenchFigures): string {
  const out = [`bisect bench (tables generated in ${f.generateMs} ms; load average ${f.loadAverage} on ${cpus().length} cores at the start)`];
  for (const r of f.runs) {
    out.push(`  ${r.predicate} on ${r.versions} versions / ${r.rows} rows / ${r.files} files: ${r.ms} ms (cpu ${r.cpuMs} ms), ${r.versionsPerSecond} versions/s, `
      + `${r.examined} probes (${r.exhaustive ? 'exhaustive' : 'binary search'}), files read ${r.filesRead} (${r.filesFromCache} cached reuses), `
      + `first bad v${r.firstBad} (expected v${r.expectedFirstBad})`);
  }
  out.push(`  forensics on ${f.forensicsVersions} versions: ${f.forensicsMs} ms`);
  out.push(f.largeLog.input
    ? `  forensics on the ${f.largeLog.addActions}-add log (${f.largeLog.versions} versions): ${f.largeLog.forensicsMs} ms (cpu ${f.largeLog.forensicsCpuMs} ms), ${f.largeLog.heuristics} heuristic hit(s)`
    : `  forensics on the large log skipped: ${f.largeLog.skippedReason}`);
  out.push(`  goal: no-null-keys on 10,000 versions < 1 s, no data file read: ${f.logOnlyGoalMet ? 'met' : 'NOT met'}`);
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // node bisect.js [WORKDIR]: keep (and reuse) the generated tables there.
  const workDir = process.argv[2];
  benchBisect(workDir ? { workDir, reuse: true } : {}).then((f) => { process.stdout.write(formatBisectFigures(f) + '\n'); }, (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(3);
  });
}
