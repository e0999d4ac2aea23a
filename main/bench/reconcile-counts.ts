// Benchmark (a figure, not a test; issue #14): the counts level's fixed costs.
//  1. `lakerec reconcile SOURCE TABLE --level counts` on the 5,400-row sample lake (double_load),
//     a fresh process each time, start to exit, beside two baselines timed in the same run,
//     interleaved: `node -e ''` (Node's own start) and DuckDB counting both sides per day by hand
//     in a fresh Node process (require the package, open, two GROUP BY counts). Medians. One more
//     run with LAKEREC_PROFILE=1 gives each phase's start in ms since the process started.
//  2. The 300,000-add log of ../shared/bench: the counts level's target side (open the log at the
//     latest version, per-partition rows from the add actions' numRecords: the same functions
//     countsLevel runs) beside DuckDB read_json over the same commit files, same job, same process.
//     That log carries no stats, so the honest answer is "unknown" (300,000 files without
//     numRecords), never 0; the time is the time to know that.
//
//   npm run bench -- --only reconcile-counts --merge
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDuck, sqlString } from '../engine/duck';
import { repoRoot } from '../engine/repo';
import { openTarget } from '../reconcile/sides';
import { targetCountsFromLog } from '../reconcile/log-levels';
import { findTableRoot } from './log-replay';

export interface CountsProcessFigures {
  rows: number;
  /** Medians over `runs`, ms, process start to exit as the parent sees it. */
  oursMs: number;
  nodeMs: number;
  duckdbByHandMs: number;
  /** ours / DuckDB by hand, and ours minus Node's own start. */
  ratio: number;
  aboveNodeMs: number;
  goalMs: number;
  exitCode: number | null;
  /** Each phase's start, ms since the process started (one LAKEREC_PROFILE=1 run). */
  phases: { phase: string; atMs: number }[];
  runs: number;
}

export interface CountsLogFigures {
  input: string | null;
  skippedReason?: string;
  files: number;
  partitions: number;
  withoutNumRecords: number;
  /** What the counts level says of the target's rows: known (a number) or unknown. */
  answer: string;
  /** Medians over `runs`: ours (open + replay + counts from stats) and DuckDB read_json, ms. */
  oursMs: number;
  duckdbMs: number;
  ratio: number;
  oursCpuMs: number;
  duckdbCpuMs: number;
  cpuRatio: number;
  goal: number;
  runs: number;
}

export interface CountsBenchFigures { process: CountsProcessFigures | null; log: CountsLogFigures }

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r2 = (x: number): number => Math.round(x * 100) / 100;
const cpuMs = (): number => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

function timedSpawn(args: string[], env?: NodeJS.ProcessEnv): { ms: number; status: number | null; stderr: string } {
  const t = performance.now();
  const p = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: repoRoot(), ...(env ? { env } : {}) });
  return { ms: performance.now() - t, status: p.status, stderr: p.stderr };
}

/** What a data engineer runs instead: both sides counted per day by DuckDB in a fresh Node process. */
function byHandScript(source: string, table: string): string {
  const src = `read_parquet(${sqlString(source)})`;
  const tgt = `read_parquet(${sqlString(join(table, '**', '*.parquet'))}, hive_partitioning = true)`;
  const sql = [`SELECT date(ts AT TIME ZONE 'UTC') AS dt, count(*) FROM ${src} GROUP BY 1`, `SELECT dt, count(*) FROM ${tgt} GROUP BY 1`];
  return `const { DuckDBInstance } = require('@duckdb/node-api');
(async () => { const i = await DuckDBInstance.create(':memory:'); const c = await i.connect();
for (const q of ${JSON.stringify(sql)}) await c.runAndReadAll(q); c.closeSync(); })();`;
}

export async function benchCountsProcess(runs = 9): Promise<CountsProcessFigures | null> {
  const bin = join(repoRoot(), 'main', 'bin', 'lakerec.mjs');
  if (!existsSync(join(repoRoot(), 'dist', 'main', 'cli.js'))) return null;
  const { buildSampleLakes } = await import('../../sample-lakes/build');
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-bench-counts-'));
  try {
    const [lake] = await buildSampleLakes({ out: dir, only: ['double_load'] });
    const args = [bin, 'reconcile', lake.sourceParquet, lake.tablePath, '--contract', lake.contractPath, '--level', 'counts'];
    const script = byHandScript(lake.sourceParquet, lake.tablePath);
    const ours: number[] = [];
    const node: number[] = [];
    const duck: number[] = [];
    let exitCode: number | null = null;
    // One warm-up of each (the page cache), then interleaved so the load hits all three alike.
    timedSpawn(args);
    timedSpawn(['-e', script]);
    for (let i = 0; i < runs; i++) {
      node.push(timedSpawn(['-e', '']).ms);
      const o = timedSpawn(args);
      exitCode = o.status;
      if (o.status !== 0 && o.status !== 1) throw new Error(`counts run failed (exit ${o.status}): ${o.stderr.trim()}`);
      ours.push(o.ms);
      const d = timedSpawn(['-e', script]);
      if (d.status !== 0) throw new Error(`DuckDB by hand failed (exit ${d.status}): ${d.stderr.trim()}`);
      duck.push(d.ms);
    }
    const prof = timedSpawn(args, { ...process.env, LAKEREC_PROFILE: '1' });
    const phases = [...prof.stderr.matchAll(/^\[lakerec\] phase (.+) at (\d+) ms$/gm)].map((m) => ({ phase: m[1], atMs: Number(m[2]) }));
    phases.push({ phase: 'exit (as the parent saw it)', atMs: Math.round(prof.ms) });
    const oursMs = median(ours);
    return {
      rows: 5400, oursMs: Math.round(oursMs), nodeMs: Math.round(median(node)), duckdbByHandMs: Math.round(median(duck)),
      ratio: r2(oursMs / median(duck)), aboveNodeMs: Math.round(oursMs - median(node)), goalMs: 500, exitCode, phases, runs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}


export async function benchCountsLog(runs = 5, input = resolve(repoRoot(), '..', 'shared', 'bench', '300k-add-files-100-col-partitioned.tar.zst')): Promise<CountsLogFigures> {
  const empty: CountsLogFigures = { input: null, files: 0, partitions: 0, withoutNumRecords: 0, answer: '', oursMs: 0, duckdbMs: 0, ratio: 0, oursCpuMs: 0, duckdbCpuMs: 0, cpuRatio: 0, goal: 2, runs: 0 };
  if (!existsSync(input)) return { ...empty, skippedReason: `${input} is absent` };
  const tmp = mkdtempSync(join(tmpdir(), 'lakerec-bench-counts-log-'));
  try {
    execFileSync('tar', ['--zstd', '-xf', input, '-C', tmp]);
    const root = findTableRoot(tmp);
    if (!root) throw new Error(`no _delta_log in ${input}`);
    const glob = sqlString(join(root, '_delta_log', '*.json'));
    // The same job in SQL over the raw commits: adds per partition and the sum of their numRecords.
    const sql = `SELECT add.partitionValues::VARCHAR AS p, count(*) AS files,
        count(*) FILTER (WHERE json_extract(add.stats, '$.numRecords') IS NULL) AS without,
        sum(TRY_CAST(json_extract(add.stats, '$.numRecords') AS BIGINT)) AS rows
      FROM read_json(${glob}, format = 'newline_delimited', columns = {add: 'STRUCT(path VARCHAR, partitionValues JSON, stats VARCHAR)'})
      WHERE add IS NOT NULL GROUP BY 1`;
    const duck = await openDuck();
    const ours: number[] = [];
    const oursCpu: number[] = [];
    const theirs: number[] = [];
    const theirsCpu: number[] = [];
    let last: ReturnType<typeof targetCountsFromLog> | null = null;
    let partitions = 0;
    try {
      for (let r = 0; r < runs; r++) {
        let t = performance.now();
        let c = cpuMs();
        const target = await openTarget(root);
        const col = target.snapshot.partitionColumns[0] ?? null;
        last = targetCountsFromLog(target, { column: col, sourceSql: '', targetSql: '', targetIsDeltaPartition: col !== null, type: null, expressionSql: null });
        ours.push(performance.now() - t);
        oursCpu.push(cpuMs() - c);
        if (col !== null) partitions = new Set(target.snapshot.files.map((f) => f.partitionValues[col] ?? null)).size;
        t = performance.now();
        c = cpuMs();
        await duck.conn.runAndReadAll(sql);
        theirs.push(performance.now() - t);
        theirsCpu.push(cpuMs() - c);
      }
    } finally {
      duck.close();
    }
    const known = last?.counts ? [...last.counts.values()].reduce((a, b) => a + b, 0) : null;
    return {
      input, files: last?.files ?? 0, partitions, withoutNumRecords: last?.withoutNumRecords ?? 0,
      answer: known === null ? `unknown: ${(last?.withoutNumRecords ?? 0).toLocaleString('en-US')} of ${(last?.files ?? 0).toLocaleString('en-US')} files carry no numRecords` : `${known.toLocaleString('en-US')} rows`,
      oursMs: Math.round(median(ours)), duckdbMs: Math.round(median(theirs)), ratio: r2(median(ours) / median(theirs)),
      oursCpuMs: Math.round(median(oursCpu)), duckdbCpuMs: Math.round(median(theirsCpu)), cpuRatio: r2(median(oursCpu) / median(theirsCpu)), goal: 2, runs,
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export async function benchReconcileCounts(opts: { runs?: number } = {}): Promise<CountsBenchFigures> {
  const runs = opts.runs ?? 9;
  return { process: await benchCountsProcess(runs), log: await benchCountsLog(Math.max(3, Math.round(runs / 2))) };
}

export function formatCountsFigures(f: CountsBenchFigures): string {
  const lines = ['reconcile counts level (issue #14 fixed costs):'];
  const p = f.process;
  if (!p) lines.push('  5,400-row sample lake: skipped (dist/main/cli.js not built)');
  else {
    lines.push(`  5,400-row sample lake, \`lakerec reconcile --level counts\`, process start to exit: ${p.oursMs} ms (median of ${p.runs}; goal <= ${p.goalMs} ms, ${p.oursMs <= p.goalMs ? 'met' : 'NOT met'})`);
    lines.push(`    same run: node -e '' ${p.nodeMs} ms (ours is ${p.aboveNodeMs} ms above it); DuckDB counting both sides by hand in a fresh node process ${p.duckdbByHandMs} ms: ${p.ratio}x`);
    lines.push(`    phases (LAKEREC_PROFILE=1, ms since process start): ${p.phases.map((x) => `${x.phase} ${x.atMs}`).join(', ')}`);
  }
  const l = f.log;
  if (!l.input) lines.push(`  300k-add log: skipped (${l.skippedReason ?? 'no input'})`);
  else {
    lines.push(`  300k-add log (${l.files.toLocaleString('en-US')} files, ${l.partitions} partitions), target side of the counts level: ${l.answer}`);
    lines.push(`    ours (open + replay + counts from stats) ${l.oursMs} ms vs DuckDB read_json over the same commits ${l.duckdbMs} ms: ${l.ratio}x wall, CPU ${l.oursCpuMs} vs ${l.duckdbCpuMs} ms = ${l.cpuRatio}x (median of ${l.runs}; goal <= ${l.goal}x, ${l.ratio <= l.goal ? 'met' : 'NOT met'})`);
  }
  return lines.join('\n');
}
