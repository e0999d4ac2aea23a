// Issue #24: the reconcile on the table shape the product's own docs show, not the bench's own.
// The orders shape of the sample lakes (`content_divergence`, built with `--rows N`) with its
// documented contract: a float column with a tolerance, the partition derived from `ts`, an
// ordering column. Each level is a fresh `lakerec reconcile` process, start to exit, as CI runs
// it, beside the query a data engineer writes by hand in DuckDB over the same files (the float
// within the same tolerance, the same derived partition), also in a fresh Node process. And the
// exact float sum's candidates (ADR 0003) beside a plain sum() of the column over the same files.
//
//   npm run bench -- --only reconcile-shapes --merge       (10M rows; --quick: 1M)
//   LAKEREC_BENCH_SHAPES_ROWS=N   the size knob (any size from 1,000 up)
//   LAKEREC_BENCH_SHAPES_DIR=D    build the lake into D and keep it (reused when it is there)
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { repoRoot } from '../engine/repo';
import { openDuck, sqlString } from '../engine/duck';
import { openTable } from '../delta/open';
import { addScaled, emptyExactSum, exactSumToNumber, floatBoundsAggregates, floatPartsSql, floatScale, scaledSumAggregates, addGroup } from '../reconcile/checksum';

export interface ShapeLevel {
  /** The documented contract, or the same with the float column ignored. */
  contract: string;
  level: 'rows' | 'checksum' | 'counts';
  /** Our CLI, process start to exit, ms (the median of the rounds; best of rounds in bench.json files without `stat`). */
  ms: number;
  /** The hand-written DuckDB query in a fresh Node process, start to exit, ms (best of rounds). */
  handMs: number;
  ratio: number;
  /** CPU time (user + system, /usr/bin/time) of ours and of the hand-written query's process, and their ratio; null without /usr/bin/time. */
  cpuMs: number | null;
  handCpuMs: number | null;
  ratioCpu: number | null;
  /** The issue's goal for this level (ratio), or null where the goal is a time. */
  goal: number | null;
  /** The phases `LAKEREC_PROFILE=1` printed in our best round (ms since the process started). */
  phases: Record<string, number>;
}

export interface FloatCandidate {
  id: string;
  name: string;
  exact: boolean;
  /** Both sides' files, ms (best of rounds), and against the plain sum() in the same run. */
  ms: number;
  ratio: number;
  /** CPU time of this process (DuckDB's threads included) and its ratio to the plain sum's. */
  cpuMs: number;
  ratioCpu: number;
}

export interface ShapesFigures {
  rows: number;
  rounds: number;
  /** How the rounds of each level are summarised (the float sum's candidates are the best of the rounds). */
  stat: 'median';
  /** The load average when the runs ended. */
  loadAverageEnd: number;
  shape: string;
  levels: ShapeLevel[];
  floatSum: { plainMs: number; plainCpuMs: number; candidates: FloatCandidate[] };
  /** Where the figures were taken: the machine is shared (load average at the start). */
  loadAverage: number;
}

/** The hand-written query's process: DuckDB alone, the SQL from SQL (or from the file SQL_FILE, for SQL longer than an environment variable holds). */
export const HAND_SCRIPT = `
const { DuckDBInstance } = require(process.env.DUCK);
(async () => {
  const i = await DuckDBInstance.create(':memory:');
  const c = await i.connect();
  const r = await c.runAndReadAll(process.env.SQL_FILE ? require('fs').readFileSync(process.env.SQL_FILE, 'utf8') : process.env.SQL);
  process.stdout.write(JSON.stringify(r.getRowObjectsJS(), (k, v) => typeof v === 'bigint' ? String(v) : v));
})();
`;

const TIME = '/usr/bin/time';

/**
 * A child process, timed: wall ms and, where /usr/bin/time exists, its CPU ms (user + system, the
 * DuckDB threads included), which swings less than wall time on a shared machine.
 */
export function timedSpawn(args: string[], env: NodeJS.ProcessEnv, cpuFile: string): { ms: number; cpuMs: number | null; status: number | null; stdout: string; stderr: string } {
  const withTime = existsSync(TIME);
  const t = performance.now();
  const p = withTime
    ? spawnSync(TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args], { encoding: 'utf8', env, maxBuffer: 1 << 28 })
    : spawnSync(process.execPath, args, { encoding: 'utf8', env, maxBuffer: 1 << 28 });
  const ms = performance.now() - t;
  let cpuMs: number | null = null;
  if (withTime && existsSync(cpuFile)) {
    const m = /([\d.]+) ([\d.]+)\s*$/.exec(readFileSync(cpuFile, 'utf8'));
    if (m) cpuMs = Math.round((Number(m[1]) + Number(m[2])) * 1000);
  }
  return { ms, cpuMs, status: p.status, stdout: p.stdout, stderr: p.stderr };
}

/** The hand-written queries over the same files (the orders shape, its contract's rules). */
function handSql(src: string, targetFiles: string[], level: 'rows' | 'checksum' | 'counts', withFloat: boolean): string {
  const tgt = `read_parquet([${targetFiles.map(sqlString).join(', ')}])`;
  // The contract's partition, derived from ts on the source; the target's is its partition column.
  const sp = `CAST(ts AT TIME ZONE 'UTC' AS DATE)`;
  const cols = 'customer_id, amount, sku, ts, updated_at';
  if (level === 'counts') return `SELECT 's' AS side, ${sp} AS p, count(*) AS n FROM ${src} GROUP BY ALL UNION ALL SELECT 't', dt, count(*) FROM ${tgt} GROUP BY ALL`;
  if (level === 'checksum') {
    const f = withFloat ? ', sum(amount_float)' : '';
    return `SELECT 's' AS side, ${sp} AS p, count(*) AS n, sum(hash(${cols})) AS h${f} FROM ${src} GROUP BY ALL
      UNION ALL SELECT 't', dt, count(*), sum(hash(${cols}))${f} FROM ${tgt} GROUP BY ALL`;
  }
  return `SELECT count(*) FILTER (WHERE s.order_id IS NULL) AS extra, count(*) FILTER (WHERE t.order_id IS NULL) AS missing,
      count(*) FILTER (WHERE s.p IS DISTINCT FROM t.p) AS moved,
      count(*) FILTER (WHERE s.h <> t.h${withFloat ? ' OR NOT coalesce(abs(s.f - t.f) <= 1e-9, s.f IS NOT DISTINCT FROM t.f)' : ''}) AS changed
    FROM (SELECT order_id, ${sp} AS p, hash(${cols}) AS h, amount_float AS f FROM ${src}) s
    FULL OUTER JOIN (SELECT order_id, dt AS p, hash(${cols}) AS h, amount_float AS f FROM ${tgt}) t USING (order_id)`;
}

/**
 * Median of rounds: wall time and CPU time each the median of the rounds (the shared machine's
 * swings fall on both sides of it); the phases are the median-wall round's.
 */
export function medianRun(rounds: number, f: () => { ms: number; cpuMs: number | null; stderr: string }): { ms: number; cpuMs: number | null; stderr: string } {
  const rs = Array.from({ length: rounds }, () => f());
  const mid = <T>(xs: T[], key: (x: T) => number): T => [...xs].sort((a, b) => key(a) - key(b))[Math.floor((xs.length - 1) / 2)];
  const byWall = mid(rs, (r) => r.ms);
  const cpus = rs.map((r) => r.cpuMs).filter((c): c is number => c !== null);
  return { ms: Math.round(byWall.ms), cpuMs: cpus.length ? mid(cpus, (c) => c) : null, stderr: byWall.stderr };
}

export function phasesOf(stderr: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of stderr.matchAll(/^\[lakerec\] phase (.+) at (\d+) ms$/gm)) out[m[1]] = Number(m[2]);
  return out;
}

/**
 * `part`: 'orders' (the documented contract and the float-ignored one, Parquet source, every level,
 * and the float sum's candidates) or 'sources' (the same contract with CSV, JSON lines and Delta
 * sources at rows and checksum level, and the float sum's candidates).
 */
export async function benchReconcileShapes(opts: { rows: number; rounds?: number; say?: (s: string) => void; part?: 'orders' | 'sources' }): Promise<ShapesFigures> {
  const part = opts.part ?? 'orders';
  const rounds = opts.rounds ?? 3;
  const say = opts.say ?? (() => {});
  const root = repoRoot();
  const cli = join(root, 'dist', 'main', 'cli.js');
  if (!existsSync(cli)) throw new Error('reconcile-shapes: run `npm run build:node` first (the bench runs the built CLI)');
  const keep = process.env.LAKEREC_BENCH_SHAPES_DIR ?? null;
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'lakerec-bench-shapes-'));
  const loadAverage = Math.round(loadavg()[0] * 100) / 100;
  try {
    const lake = join(dir, 'content_divergence');
    // A marker beside the lake says the size it was built at (a kept folder is reused at that size only).
    const marker = join(dir, 'bench-rows.txt');
    const built = existsSync(join(lake, 'scenario.json')) && existsSync(marker) && readFileSync(marker, 'utf8') === String(opts.rows);
    if (!built) {
      say(`reconcile-shapes: building the orders lake at ${opts.rows.toLocaleString('en-US')} rows into ${dir}`);
      const b = spawnSync(process.execPath, [cli, 'build-sample-lakes', '--out', dir, '--rows', String(opts.rows), '--only', 'content_divergence'], { encoding: 'utf8' });
      if (b.status !== 0) throw new Error(`building the lake failed: ${b.stderr.trim()}`);
      writeFileSync(marker, String(opts.rows));
    }
    const source = join(lake, 'source', 'orders.parquet');
    const table = join(lake, 'table');
    const contract = join(lake, 'contract.yaml');
    const opened = await openTable(table);
    const snap = await opened.snapshot();
    const targetFiles = snap.files.map((f) => opened.storage.describe(f.path));
    const duckPath = join(root, 'node_modules', '@duckdb', 'node-api');

    // The documented contract, and the same with the float column ignored (issue #24 measured both).
    const noFloat = join(dir, 'contract-float-ignored.yaml');
    writeFileSync(noFloat, readFileSync(contract, 'utf8').replace(/^ignore: \[\]$/m, 'ignore: [amount_float]').replace(/^columns:\n(\s+#.*\n)*\s+amount_float: \{ float: .*\}\n/m, 'columns: {}\n'));
    // The same rows as other sources: the lake's CSV, JSON lines written from the Parquet here, and
    // the table itself at the version before the corruption (a Delta source). The hand-written
    // queries read them with DuckDB's own readers, cast to the table's types as the contract does.
    const jsonl = join(dir, 'orders.jsonl');
    const before = Math.max(0, snap.version - 1);
    const beforeFiles = (await opened.snapshot({ version: before })).files.map((f) => opened.storage.describe(f.path));
    {
      const d = await openDuck({});
      try {
        if (part === 'sources' && !existsSync(jsonl)) await d.conn.run(`COPY (SELECT * EXCLUDE (dt) REPLACE (CAST(ts AT TIME ZONE 'UTC' AS VARCHAR) AS ts, CAST(updated_at AT TIME ZONE 'UTC' AS VARCHAR) AS updated_at) FROM read_parquet(${sqlString(source)})) TO ${sqlString(jsonl)} (FORMAT json)`);
      } finally { d.close(); }
    }
    const typed = (from: string) => `(SELECT CAST(order_id AS BIGINT) AS order_id, CAST(customer_id AS BIGINT) AS customer_id, CAST(amount AS DECIMAL(12,2)) AS amount,
      CAST(amount_float AS DOUBLE) AS amount_float, CAST(sku AS VARCHAR) AS sku, CAST(ts AS TIMESTAMP) AT TIME ZONE 'UTC' AS ts, CAST(updated_at AS TIMESTAMP) AT TIME ZONE 'UTC' AS updated_at FROM ${from})`;
    const sources = [
      { name: 'parquet', cli: source, hand: `read_parquet(${sqlString(source)})` },
      { name: 'csv', cli: join(lake, 'source', 'orders.csv'), hand: typed(`read_csv(${sqlString(join(lake, 'source', 'orders.csv'))})`) },
      { name: 'jsonl', cli: jsonl, hand: typed(`read_json(${sqlString(jsonl)}, format = 'newline_delimited')`) },
      { name: 'delta', cli: `${table}@${before}`, hand: `read_parquet([${beforeFiles.map(sqlString).join(', ')}])` },
    ];
    const levels: ShapeLevel[] = [];
    const all: { name: string; path: string; withFloat: boolean; levels: readonly ('rows' | 'checksum' | 'counts')[]; src: typeof sources[number] }[] = [
      { name: 'documented', path: contract, withFloat: true, levels: ['rows', 'checksum', 'counts'], src: sources[0] },
      { name: 'float ignored', path: noFloat, withFloat: false, levels: ['rows', 'checksum'], src: sources[0] },
    ];
    const variants = part === 'orders' ? all : sources.slice(1).map((x) => ({ name: `documented, ${x.name} source`, path: contract, withFloat: true, levels: ['rows', 'checksum'] as const, src: x }));
    for (const v of variants) for (const level of v.levels) {
      const contract = v.path;
      const source = v.src.cli;
      const cpuFile = join(dir, 'bench-cpu.txt');
      const ours = medianRun(rounds, () => {
        const p = timedSpawn([cli, 'reconcile', source, table, '--contract', contract, '--level', level, '--json'], { ...process.env, LAKEREC_PROFILE: '1' }, cpuFile);
        if (p.status !== 0 && p.status !== 1) throw new Error(`reconcile ${level} failed (exit ${p.status}): ${p.stderr.trim().split('\n').pop()}`);
        return p;
      });
      const sql = handSql(v.src.hand, targetFiles, level, v.withFloat);
      const hand = medianRun(rounds, () => {
        const p = timedSpawn(['-e', HAND_SCRIPT], { ...process.env, DUCK: duckPath, SQL: sql }, cpuFile);
        if (p.status !== 0) throw new Error(`hand-written ${level} query failed: ${p.stderr.trim()}`);
        return p;
      });
      const goal = level === 'rows' ? 2 : level === 'checksum' ? 1.5 : null;
      const r2 = (x: number) => Math.round(x * 100) / 100;
      levels.push({
        contract: v.name, level, ms: ours.ms, handMs: hand.ms, ratio: r2(ours.ms / hand.ms), cpuMs: ours.cpuMs, handCpuMs: hand.cpuMs,
        ratioCpu: ours.cpuMs !== null && hand.cpuMs ? r2(ours.cpuMs / hand.cpuMs) : null, goal, phases: phasesOf(ours.stderr),
      });
    }

    // The exact float sum's candidates over both sides' files, beside a plain sum() (in-process).
    const duck = await openDuck({});
    try {
      const both = `(SELECT amount_float AS f0, CAST(ts AT TIME ZONE 'UTC' AS DATE) AS p FROM read_parquet(${sqlString(source)}) UNION ALL SELECT amount_float, dt FROM read_parquet([${targetFiles.map(sqlString).join(', ')}]))`;
      const q = async (sql: string) => (await duck.conn.runAndReadAll(sql)).getRowObjectsJS();
      // Wall and CPU time (this process's: DuckDB's threads run in it), each the least of the rounds.
      const time = async (f: () => Promise<unknown>) => {
        let ms = Infinity;
        let cpu = Infinity;
        for (let i = 0; i < rounds; i++) {
          const c0 = process.cpuUsage();
          const t = performance.now();
          await f();
          ms = Math.min(ms, performance.now() - t);
          const u = process.cpuUsage(c0);
          cpu = Math.min(cpu, (u.user + u.system) / 1000);
        }
        return { ms: Math.round(ms), cpuMs: Math.round(cpu) };
      };
      const plain = await time(() => q(`SELECT p, sum(f0) FROM ${both} GROUP BY p`));
      const plainMs = plain.ms;
      const scaled = async () => {
        const b = (await q(`SELECT count(*) AS n, ${floatBoundsAggregates('f0', 0)} FROM ${both}`))[0];
        const sc = floatScale(b.lo0 === null ? null : Number(b.lo0), b.hi0 === null ? null : Number(b.hi0), Number(b.n));
        if (!sc) throw new Error('the orders shape has a narrow range: one scale expected');
        const s = emptyExactSum();
        for (const r of await q(`SELECT p, ${scaledSumAggregates('f0', sc.shift, 0)} FROM ${both} GROUP BY p`)) addScaled(s, sc.emin, r.ms0, Number(r.nan0), Number(r.pinf0), Number(r.ninf0));
        return exactSumToNumber(s);
      };
      const groups = async () => {
        const fp = floatPartsSql('f0');
        const s = emptyExactSum();
        for (const r of await q(`SELECT p, e, sum(CAST(m AS HUGEINT)) AS ms FROM (SELECT p, ${fp.e} AS e, ${fp.m} AS m FROM ${both}) WHERE e IS NOT NULL GROUP BY ALL`)) addGroup(s, Number(r.e), BigInt(String(r.ms)));
        return exactSumToNumber(s);
      };
      const [a, g] = [await scaled(), await groups()];
      if (a !== g) throw new Error(`the exact sums disagree: ${a} vs ${g}`);
      const candidates: FloatCandidate[] = [];
      const add = async (id: string, name: string, exact: boolean, f: () => Promise<unknown>) => {
        const t = await time(f);
        candidates.push({ id, name, exact, ms: t.ms, ratio: Math.round((t.ms / plainMs) * 100) / 100, cpuMs: t.cpuMs, ratioCpu: Math.round((t.cpuMs / plain.cpuMs) * 100) / 100 });
      };
      await add('scaled', 'two-pass exponent bound: min/max, then sum(CAST(x * 2^S AS HUGEINT)) per partition (the pass)', true, scaled);
      await add('groups', 'integer decomposition in one pass: mantissa and exponent per row, sum(HUGEINT) per exponent (before)', true, groups);
      await add('fsum', "DuckDB's fsum (Kahan-Babuska): not exact, order-dependent in the last bits", false, () => q(`SELECT p, fsum(f0) FROM ${both} GROUP BY p`));
      await add('decimal', 'sum(CAST(x AS DECIMAL(38,10))): rounds every value, not exact', false, () => q(`SELECT p, sum(CAST(f0 AS DECIMAL(38,10))) FROM ${both} GROUP BY p`));
      return { rows: opts.rows, rounds, shape: 'orders (content_divergence): float tolerance, partition from ts, ordering column', levels, floatSum: { plainMs, plainCpuMs: plain.cpuMs, candidates }, loadAverage, stat: 'median', loadAverageEnd: Math.round(loadavg()[0] * 100) / 100 };
    } finally {
      duck.close();
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

export function formatShapesFigures(f: ShapesFigures): string {
  const lines = [`reconcile shapes: ${f.shape}, ${f.rows.toLocaleString('en-US')} rows a side, median of ${f.rounds}, load average ${f.loadAverage} at the start, ${f.loadAverageEnd} at the end`];
  for (const l of f.levels) {
    const cpu = l.ratioCpu === null ? '' : `; CPU ${l.cpuMs} ms vs ${l.handCpuMs} ms, ${l.ratioCpu}x`;
    lines.push(`  ${(l.contract + ' ' + l.level).padEnd(24)} lakerec ${String(l.ms).padStart(6)} ms   hand-written DuckDB ${String(l.handMs).padStart(6)} ms   ${l.ratio}x${l.goal === null ? '' : ` (goal <= ${l.goal}x: ${l.ratio <= l.goal ? 'met' : 'missed'})`}${cpu}`);
  }
  lines.push(`  exact float sum over both sides' files, beside a plain sum() at ${f.floatSum.plainMs} ms (CPU ${f.floatSum.plainCpuMs ?? '?'} ms):`);
  for (const c of f.floatSum.candidates) lines.push(`    ${c.id.padEnd(8)} ${String(c.ms).padStart(6)} ms  ${c.ratio}x  CPU ${c.cpuMs ?? '?'} ms ${c.ratioCpu ?? '?'}x  ${c.exact ? 'exact' : 'NOT exact'}: ${c.name}`);
  return lines.join('\n');
}
