// Benchmark (figures, not tests): a Parquet source against a Delta table of the same rows (6
// columns: bigint, int, decimal, string, date, timestamp; 6 date partitions), one partition
// divergent (1% of its rows changed). Each level of ours is timed end to end and printed beside
// the query a data engineer would write by hand in DuckDB over the same files, in the same run,
// with the same thread count (every DuckDB here is opened by openDuck()):
//   - rows (the default) vs a FULL OUTER JOIN on the key of hash(cols) per side   goal <= 2x
//   - checksum (default digest) vs sum(hash(cols)) over both sides              goal <= 1.5x
//   - keys vs rows                                                              goal <= 1x
//   - counts on the 5,400-row sample lake, `lakerec reconcile` process start to exit  goal <= 0.5 s
// Rounds interleave ours and the baselines and each figure is the best of its rounds (the machine
// is shared); rows and keys swap order every other round. Peak RSS is sampled every 50 ms during each of our runs.
//
// Run alone: npx vite build --ssr main/bench/reconcile.ts --outDir dist/bench-reconcile --emptyOutDir \
//              && node dist/bench-reconcile/reconcile.js [ROWS]
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { StructType } from '../../shared/delta';
import type { Level } from '../../shared/reconcile';
import { openDuck, sqlString } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { openTable } from '../delta/open';
import { reconcile } from '../reconcile/reconcile';
import { DuckDBScalarFunction, UBIGINT, VARCHAR } from '@duckdb/node-api';
import { canonicalRow, rowDigestHalves, type DigestMode } from '../reconcile/canonical';
import { repoRoot } from '../engine/repo';

export interface LevelFigure {
  level: Level;
  digest: string;
  ms: number;
  /** The hand-written DuckDB query this level is compared with, and its time in the same run. */
  baseline: 'full-outer-join diff' | 'sum(hash(cols)) both sides' | 'rows level';
  baselineMs: number;
  ratio: number;
  /** The same ratio in CPU time (steadier than wall time on a shared machine). */
  cpuMs: number;
  baselineCpuMs: number;
  ratioCpu: number;
  goal: number;
  peakRssMb: number;
  verdict: string;
  findings: string[];
}

export interface CountsFigure {
  /** `lakerec reconcile --level counts` on the 5,400-row sample lake, process start to exit, ms (best of rounds). */
  ms: number;
  /** `node -e 0` in the same run: what any Node CLI costs. */
  nodeMs: number;
  goalMs: number;
}

export interface ReconcileBenchFigures {
  rows: number;
  /** The key reconciled on (BenchKey). */
  key: BenchKey;
  threads: number;
  levels: LevelFigure[];
  counts: CountsFigure | null;
  /** The row-digest candidates of ADR 0001 over the source (null when not asked for). */
  digests: DigestCandidate[] | null;
  /** Hand-written DuckDB: FULL OUTER JOIN diff, and sum(hash(cols)) over source + target, ms. */
  duckDiffMs: number;
  duckChecksumMs: number;
  peakRssMb: number;
  setupMs: number;
  bestOf: number;
}

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'qty', type: 'integer', nullable: true, metadata: {} },
    { name: 'amount', type: 'decimal(18,2)', nullable: true, metadata: {} },
    { name: 'customer', type: 'string', nullable: true, metadata: {} },
    { name: 'dt', type: 'date', nullable: true, metadata: {} },
    { name: 'ts', type: 'timestamp', nullable: true, metadata: {} },
  ],
};

/**
 * The key the bench reconciles on: `int` (the default: `id` BIGINT over a dense range, which the
 * key bitmaps of keydiff.ts take), `text` (`id` as VARCHAR 'ord-' || i) or `pair` (keys [id, qty]).
 */
export type BenchKey = 'int' | 'text' | 'pair';

/** The bench table's schema for a key (also the 100M-row scale bench's, main/bench/reconcile-scale.ts). */
export function schemaFor(key: BenchKey): StructType {
  return key === 'text' ? { ...schema, fields: schema.fields.map((f) => (f.name === 'id' ? { ...f, type: 'string' } : f)) } : schema;
}

/** The rows; `divergent` changes 1% of the customers in the third partition (dt=2026-08-12). */
export function rowsSql(n: number, divergent: boolean, key: BenchKey = 'int'): string {
  const customer = divergent ? `CASE WHEN i % 6 = 2 AND i % 100 = 2 THEN 'changed-' || i ELSE 'cust-' || (i % 99991) END` : `'cust-' || (i % 99991)`;
  const id = key === 'text' ? `'ord-' || i` : 'i::BIGINT';
  return `SELECT ${id} AS id, (i % 1000)::INTEGER AS qty, (i * 0.01)::DECIMAL(18,2) AS amount, ${customer} AS customer,
    DATE '2026-08-10' + (i % 6)::INTEGER AS dt, TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_microseconds((i % 6) * 86400000000 + (i % 86400) * 1000000) AS ts
    FROM range(${n}) r(i)`;
}

/** Wall time, CPU time of this process (DuckDB runs in it, on all its threads) and peak RSS. */
async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T; peakRss: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 50);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  try {
    const value = await f();
    const c = process.cpuUsage(c0);
    return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, value, peakRss: Math.max(peak, process.memoryUsage().rss) };
  } finally {
    clearInterval(sampler);
  }
}

/** The counts level as a user runs it: a fresh `lakerec` process on the 5,400-row sample lake. */
async function benchCounts(rounds: number): Promise<CountsFigure | null> {
  const cli = join(repoRoot(), 'dist', 'main', 'cli.js');
  if (!existsSync(cli)) return null;
  const { buildSampleLakes } = await import('../../sample-lakes/build');
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-bench-counts-'));
  try {
    const [lake] = await buildSampleLakes({ out: dir, only: ['double_load'] });
    let ms = Infinity;
    let nodeMs = Infinity;
    for (let i = 0; i < Math.max(3, rounds); i++) {
      let t = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      nodeMs = Math.min(nodeMs, performance.now() - t);
      t = performance.now();
      const p = spawnSync(process.execPath, [cli, 'reconcile', lake.sourceParquet, lake.tablePath, '--contract', lake.contractPath, '--level', 'counts'], { encoding: 'utf8' });
      if (p.status !== 0 && p.status !== 1) throw new Error(`counts run failed (exit ${p.status}): ${p.stderr.trim()}`);
      ms = Math.min(ms, performance.now() - t);
    }
    return { ms: Math.round(ms), nodeMs: Math.round(nodeMs), goalMs: 500 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface DigestCandidate {
  /** Stable short name (receipts quote it). */
  id: string;
  name: string;
  /** Whether its value is defined by the data alone (a baseline may keep it across DuckDB upgrades). */
  stable: boolean;
  ms: number;
  cpuMs: number;
  /** Against DuckDB's sum(hash(cols)) over the same file in the same run (wall). */
  ratio: number;
  ratioCpu: number;
}

/**
 * The row-digest candidates of ADR 0001, each summed per partition over the source Parquet (the
 * same work the checksum level does on one side): DuckDB's hash() as the fast digest uses it, md5
 * and sha256 of the canonical text, a composition of built-ins defined by the data alone
 * (integers mixed arithmetically, strings by md5), and a scalar function registered from Node
 * (FNV-1a over the canonical text; DuckDB calls it on the JS thread, chunk by chunk).
 */
export async function benchDigestCandidates(source: string, rounds: number): Promise<DigestCandidate[]> {
  const cols = schema.fields.map((f) => ({ name: f.name, type: ({ long: 'BIGINT', integer: 'INTEGER', string: 'VARCHAR', date: 'DATE', timestamp: 'TIMESTAMP WITH TIME ZONE' } as Record<string, string>)[String(f.type)] ?? 'DECIMAL(18,2)' }));
  const sorted = [...cols].sort((a, b) => a.name.localeCompare(b.name));
  const fast = rowDigestHalves(sorted.map((c) => ({ ...c, raw: true })), false, 'fast');
  const md5 = rowDigestHalves(sorted, false, 'md5');
  const canon = canonicalRow(sorted, false);
  const src = `read_parquet(${sqlString(source)})`;
  // Integers through a multiply-xor mix in HUGEINT (no overflow), strings by md5: defined by the data alone.
  const mix = (x: string) => `xor(CAST((CAST(${x} AS HUGEINT) * 2654435761) % 18446744073709551616 AS UBIGINT), CAST((CAST(${x} AS HUGEINT) * 40503) % 4294967296 AS UBIGINT))`;
  const stableComposition = `(${[mix('id'), mix('qty'), mix('CAST(amount * 100 AS BIGINT)'), mix("(dt - DATE '1970-01-01')"), mix('epoch_us(ts)')].map((m) => `CAST(${m} AS HUGEINT)`).join(' + ')} + CAST(md5_number_lower(customer) AS HUGEINT)) % 18446744073709551616`;
  const queries: { id: string; name: string; stable: boolean; sql: string }[] = [
    { id: 'baseline', name: 'DuckDB sum(hash(cols)) (the hand-written baseline)', stable: false, sql: `SELECT dt, count(*), sum(hash(id, qty, amount, customer, dt, ts)::HUGEINT) FROM ${src} GROUP BY dt` },
    { id: 'fast', name: `DuckDB hash(), the fast digest (${'duckdb-hash-v2'})`, stable: false, sql: `SELECT dt, count(*), sum(h1), sum(hash(h1)) FROM (SELECT dt, ${fast.inner} AS h1 FROM ${src}) GROUP BY dt` },
    { id: 'md5', name: 'md5 of canonical text (md5-canonical-v1)', stable: true, sql: `SELECT dt, count(*), sum(${md5.h1}), sum(${md5.h2}) FROM (SELECT dt, ${md5.inner} AS _lk_d FROM ${src}) GROUP BY dt` },
    { id: 'sha256', name: 'sha256 of canonical text', stable: true, sql: `SELECT dt, count(*), sum(CAST(('0x' || left(d, 16))::UBIGINT AS HUGEINT)) FROM (SELECT dt, sha256(${canon}) AS d FROM ${src}) GROUP BY dt` },
    { id: 'composition', name: 'built-ins defined by the data alone (integer mix + md5 of strings)', stable: true, sql: `SELECT dt, count(*), sum(${stableComposition}) FROM ${src} GROUP BY dt` },
    { id: 'node_udf', name: 'scalar function from Node (FNV-1a of canonical text)', stable: true, sql: `SELECT dt, count(*), sum(lk_fnv(${canon})) FROM ${src} GROUP BY dt` },
  ];
  const duck = await openDuck();
  try {
    duck.conn.registerScalarFunction(DuckDBScalarFunction.create({
      name: 'lk_fnv',
      returnType: UBIGINT,
      parameterTypes: [VARCHAR],
      mainFunction: (_info, input, output) => {
        const v = input.getColumnVector(0);
        for (let r = 0; r < input.rowCount; r++) {
          const text = String(v.getItem(r) ?? '');
          let hi = 0xcbf29ce4 | 0;
          let lo = 0x84222325 | 0;
          for (let i = 0; i < text.length; i++) {
            lo ^= text.charCodeAt(i);
            // 64-bit multiply by the FNV prime 2^40 + 0x1b3, in 32-bit halves
            const l = Math.imul(lo, 0x1b3) >>> 0;
            const h = (Math.imul(hi, 0x1b3) + Math.imul(lo, 0x100) + Math.floor(((lo >>> 0) * 0x1b3) / 0x100000000)) | 0;
            lo = l | 0;
            hi = h;
          }
          output.setItem(r, (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0));
        }
        output.flush();
      },
    }));
    const out: DigestCandidate[] = [];
    let baseMs = Infinity;
    let baseCpu = Infinity;
    let baseCounts: string | null = null;
    for (const q of queries) {
      let ms = Infinity;
      let cpuMs = Infinity;
      // Every candidate must have read the rows the baseline read, partition by partition (not timed).
      const counts = JSON.stringify((await duck.conn.runAndReadAll(`SELECT dt::VARCHAR, n FROM (${q.sql.replace(/^SELECT dt, count\(\*\)/, 'SELECT dt, count(*) AS n')}) ORDER BY 1`)).getRows().map((r) => r.map(String)));
      if (baseCounts === null) baseCounts = counts;
      else if (counts !== baseCounts) throw new Error(`digest bench: ${q.id} read other rows per partition than the baseline (${counts} vs ${baseCounts})`);
      for (let r = 0; r < rounds; r++) {
        const t = await timed(() => duck.conn.run(q.sql));
        ms = Math.min(ms, t.ms);
        cpuMs = Math.min(cpuMs, t.cpuMs);
      }
      if (out.length === 0) { baseMs = ms; baseCpu = cpuMs; }
      out.push({ id: q.id, name: q.name, stable: q.stable, ms: Math.round(ms), cpuMs: Math.round(cpuMs), ratio: Math.round((ms / baseMs) * 100) / 100, ratioCpu: Math.round((cpuMs / baseCpu) * 100) / 100 });
    }
    return out;
  } finally {
    duck.close();
  }
}

export async function benchReconcile(opts: { rows?: number; workDir?: string; runs?: number; counts?: boolean; digests?: boolean; key?: BenchKey; levels?: Level[] } = {}): Promise<ReconcileBenchFigures> {
  const n = opts.rows ?? 10_000_000;
  const key = opts.key ?? 'int';
  const best = Math.max(1, opts.runs ?? 3);
  const dir = opts.workDir ?? mkdtempSync(join(tmpdir(), 'lakerec-bench-rec-'));
  const owns = !opts.workDir;
  try {
    const t0 = performance.now();
    const source = join(dir, 'source.parquet');
    const table = join(dir, 'table');
    {
      const duck = await openDuck();
      try {
        await duck.conn.run(`COPY (${rowsSql(n, false, key)}) TO ${sqlString(source)} (FORMAT parquet)`);
        const w = await DeltaWriter.create(table, { schema: schemaFor(key), partitionColumns: ['dt'], duck, data: { sql: rowsSql(n, true, key) } });
        w.close();
      } finally {
        duck.close();
      }
    }
    const contract = join(dir, 'contract.yaml');
    const keyCols = key === 'pair' ? ['id', 'qty'] : ['id'];
    writeFileSync(contract, `version: 1\nname: bench\nkeys: [${keyCols.join(', ')}]\npartitioning: { column: dt }\n`);
    const setupMs = performance.now() - t0;

    const opened = await openTable(table);
    const files = (await opened.snapshot()).files.map((f) => sqlString(opened.storage.describe(f.path))).join(', ');
    const cols = 'id, qty, amount, customer, dt, ts';
    const src = `read_parquet(${sqlString(source)})`;
    const tgt = `read_parquet([${files}], hive_partitioning = true)`;
    // What a data engineer writes: the key and a hash of the row per side, joined on the key.
    const kc = keyCols.join(', ');
    const on = keyCols.map((c) => `s.${c} = t.${c}`).join(' AND ');
    const diffSql = `SELECT count(*) FILTER (WHERE t.id IS NULL) AS missing, count(*) FILTER (WHERE s.id IS NULL) AS extra, count(*) FILTER (WHERE ${on}) AS changed
      FROM (SELECT ${kc}, hash(${cols}) AS h FROM ${src}) s FULL OUTER JOIN (SELECT ${kc}, hash(${cols}) AS h FROM ${tgt}) t ON ${on}
      WHERE s.h IS DISTINCT FROM t.h`;
    const sumSql = (from: string) => `SELECT dt, count(*), sum(hash(${cols})::HUGEINT) FROM ${from} GROUP BY dt`;

    const duck = await openDuck();
    const threads = Number((await duck.conn.runAndReadAll(`SELECT current_setting('threads') AS t`)).getRowObjectsJS()[0].t);
    let duckDiffMs = Infinity;
    let duckChecksumMs = Infinity;
    let duckDiffCpuMs = Infinity;
    let duckChecksumCpuMs = Infinity;
    const plan: { level: Level; digest?: DigestMode }[] = ([{ level: 'rows' }, { level: 'keys' }, { level: 'checksum' }, { level: 'checksum', digest: 'md5' }] as { level: Level; digest?: DigestMode }[])
      .filter((p) => !opts.levels || opts.levels.includes(p.level));
    const ours = new Map<string, { ms: number; cpuMs: number; peak: number; digest: string; verdict: string; findings: string[] }>();
    let handDiff: { missing: number; extra: number; changed: number } | null = null;
    try {
      for (let round = 0; round < best; round++) {
        const dd = await timed(() => duck.conn.runAndReadAll(diffSql));
        duckDiffMs = Math.min(duckDiffMs, dd.ms);
        const [missing, extra, changed] = dd.value.getRows()[0].map(Number);
        handDiff = { missing, extra, changed };
        duckDiffCpuMs = Math.min(duckDiffCpuMs, dd.cpuMs);
        const dc = await timed(async () => { await duck.conn.runAndReadAll(sumSql(src)); await duck.conn.runAndReadAll(sumSql(tgt)); });
        duckChecksumMs = Math.min(duckChecksumMs, dc.ms);
        duckChecksumCpuMs = Math.min(duckChecksumCpuMs, dc.cpuMs);
        // Rows and keys swap places every other round, so neither gains from running second.
        const order = round % 2 === 0 || plan.length < 2 ? plan : [plan[1], plan[0], ...plan.slice(2)];
        for (const p of order) {
          const k = `${p.level}.${p.digest ?? 'default'}`;
          const r = await timed(() => reconcile({ source, target: { root: table }, contract, level: p.level, ...(p.digest ? { digest: p.digest } : {}) }));
          // A ratio is only worth printing when both sides found the same thing: the key diff of
          // rows and keys must count what the hand-written FULL OUTER JOIN counts.
          if (handDiff && r.value.keyDiff) {
            const kd = r.value.keyDiff;
            const ourChanged = p.level === 'rows' ? kd.changed : handDiff.changed;
            if (kd.missing !== handDiff.missing || kd.extra !== handDiff.extra || ourChanged !== handDiff.changed) {
              throw new Error(`reconcile bench: ${p.level} level counts ${kd.missing} missing, ${kd.extra} extra, ${ourChanged} changed; the hand-written diff ${handDiff.missing}, ${handDiff.extra}, ${handDiff.changed}`);
            }
          }
          const prev = ours.get(k);
          if (!prev || r.ms < prev.ms) ours.set(k, { ms: r.ms, cpuMs: Math.min(r.cpuMs, prev?.cpuMs ?? Infinity), peak: Math.max(r.peakRss, prev?.peak ?? 0), digest: r.value.digest, verdict: r.value.verdict, findings: r.value.findings.map((f) => f.mode) });
          else { prev.peak = Math.max(prev.peak, r.peakRss); prev.cpuMs = Math.min(prev.cpuMs, r.cpuMs); }
        }
      }
    } finally {
      duck.close();
    }
    const rowsMs = ours.get('rows.default')?.ms ?? NaN;
    const rowsCpuMs = ours.get('rows.default')?.cpuMs ?? NaN;
    const levels: LevelFigure[] = plan.map((p) => {
      const o = ours.get(`${p.level}.${p.digest ?? 'default'}`)!;
      const [baseline, baselineMs, baselineCpuMs, goal]: [LevelFigure['baseline'], number, number, number] = p.level === 'rows'
        ? ['full-outer-join diff', duckDiffMs, duckDiffCpuMs, 2]
        : p.level === 'keys' ? ['rows level', rowsMs, rowsCpuMs, 1] : ['sum(hash(cols)) both sides', duckChecksumMs, duckChecksumCpuMs, 1.5];
      return {
        level: p.level, digest: o.digest, ms: Math.round(o.ms), baseline, baselineMs: Math.round(baselineMs),
        ratio: Math.round((o.ms / baselineMs) * 100) / 100,
        cpuMs: Math.round(o.cpuMs), baselineCpuMs: Math.round(baselineCpuMs), ratioCpu: Math.round((o.cpuMs / baselineCpuMs) * 100) / 100, goal, peakRssMb: Math.round(o.peak / 1048576), verdict: o.verdict, findings: o.findings,
      };
    });
    const counts = opts.counts === false ? null : await benchCounts(best);
    // The digest candidates' integer mix takes id as an integer: measured with the integer key only.
    const digests = opts.digests === false || key !== 'int' ? null : await benchDigestCandidates(source, best);
    return {
      rows: n, key, threads, levels, counts, digests,
      duckDiffMs: Math.round(duckDiffMs), duckChecksumMs: Math.round(duckChecksumMs),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), setupMs: Math.round(setupMs), bestOf: best,
    };
  } finally {
    if (owns) rmSync(dir, { recursive: true, force: true });
  }
}

export function formatReconcileFigures(f: ReconcileBenchFigures): string {
  const lines = [
    `reconcile bench: ${f.rows.toLocaleString('en-US')}-row Parquet source vs ${f.rows.toLocaleString('en-US')}-row Delta table, one partition divergent; key ${f.key}; DuckDB threads ${f.threads}; best of ${f.bestOf}`,
    `  DuckDB by hand: full-outer-join diff ${f.duckDiffMs} ms; sum(hash(cols)) over both sides ${f.duckChecksumMs} ms`,
  ];
  for (const l of f.levels) {
    const met = l.ratio <= l.goal ? 'met' : 'NOT met';
    lines.push(`  ${l.level.padEnd(8)} ${l.digest.padEnd(28)} ${String(l.ms).padStart(6)} ms  vs ${l.baseline} ${l.baselineMs} ms: ${l.ratio}x wall, ${l.ratioCpu}x CPU (goal <= ${l.goal}x, ${met}); peak RSS ${l.peakRssMb} MB; ${l.verdict} [${l.findings.join(', ')}]`);
  }
  if (f.counts) lines.push(`  counts   5,400-row sample lake, process start to exit: ${f.counts.ms} ms (node -e 0: ${f.counts.nodeMs} ms; goal <= ${f.counts.goalMs} ms, ${f.counts.ms <= f.counts.goalMs ? 'met' : 'NOT met'})`);
  for (const d of f.digests ?? []) lines.push(`  digest   ${d.name}: ${d.ms} ms, ${d.ratio}x wall, ${d.ratioCpu}x CPU of sum(hash(cols)) over the source${d.stable ? ' (stable)' : ''}`);
  lines.push(`  process peak RSS ${f.peakRssMb} MB (includes generating both sides: ${f.setupMs} ms)`);
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === 'digests') {
  // node dist/bench-reconcile/reconcile.js digests SOURCE.parquet [ROUNDS]: the candidates alone, over an existing source.
  benchDigestCandidates(process.argv[3], Number(process.argv[4] ?? 2)).then((ds) => {
    for (const d of ds) process.stdout.write(`${d.name}: ${d.ms} ms, ${d.ratio}x wall, ${d.ratioCpu}x CPU${d.stable ? ' (stable)' : ''}\n`);
  }, (e: unknown) => { process.stderr.write(`bench failed: ${e instanceof Error ? e.message : String(e)}\n`); process.exit(3); });
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = process.argv[2] ? Number(process.argv[2]) : undefined;
  const runs = process.argv[3] ? Number(process.argv[3]) : undefined;
  // LAKEREC_BENCH_DIR keeps the generated source and table (to profile a run with LAKEREC_PROFILE=1).
  const workDir = process.env.LAKEREC_BENCH_DIR;
  if (workDir) mkdirSync(workDir, { recursive: true });
  // LAKEREC_BENCH_LEVELS_ONLY=1 times the levels alone (no counts process, no digest candidates).
  const levelsOnly = !!process.env.LAKEREC_BENCH_LEVELS_ONLY;
  // LAKEREC_BENCH_KEY=text|pair reconciles on a text key or a two-column key (default: int);
  // LAKEREC_BENCH_LEVEL=rows times that one level (with the hand-written baselines).
  const key = (process.env.LAKEREC_BENCH_KEY ?? 'int') as BenchKey;
  if (!['int', 'text', 'pair'].includes(key)) { process.stderr.write('LAKEREC_BENCH_KEY must be int, text or pair\n'); process.exit(2); }
  const only = process.env.LAKEREC_BENCH_LEVEL ? process.env.LAKEREC_BENCH_LEVEL.split(',') as Level[] : undefined;
  benchReconcile({ rows, runs, key, ...(only ? { levels: only } : {}), ...(workDir ? { workDir } : {}), ...(levelsOnly ? { counts: false, digests: false } : {}) }).then((f) => { process.stdout.write(formatReconcileFigures(f) + '\n'); }, (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(3);
  });
}
