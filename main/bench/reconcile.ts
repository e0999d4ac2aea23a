// Benchmark (a figure, not a test): a 10M-row source Parquet against a 10M-row Delta table
// (6 columns: bigint, int, decimal, string, date, timestamp), both generated here. Reconcile at
// checksum level, timed per side, printed beside DuckDB's own `sum(hash(cols))` over the same
// files in the same run, as a ratio (goal <= 3x per side); rows/s and peak RSS.
//
// Run: npx vite build --ssr main/bench/reconcile.ts --outDir dist/bench-reconcile --emptyOutDir \
//        && node dist/bench-reconcile/reconcile.js [ROWS]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { StructType } from '../../shared/delta';
import { openDuck, sqlString } from '../engine/duck';
import { DeltaWriter } from '../delta/writer';
import { DeltaTable } from '../delta/table';
import { reconcile } from '../reconcile/reconcile';

export interface DigestRunFigures {
  digest: string;
  level: string;
  /** DuckDB memory limit of the run (a small one forces the per-row tables to spill). */
  memoryLimit: string;
  /** Highest process RSS sampled every 50 ms during this run. */
  peakRssMb: number;
  /** Ours, checksum level: source side (read + digest + per-partition sums), ms. */
  oursSourceMs: number;
  /** Ours: target side (snapshot, scan with DVs and partition values, digest, sums), ms. */
  oursTargetMs: number;
  oursTotalMs: number;
  ratioSource: number;
  ratioTarget: number;
  /** Rows digested per second by ours, both sides together. */
  rowsPerSecond: number;
  verdict: string;
}

export interface ReconcileBenchFigures {
  rows: number;
  /** DuckDB `sum(hash(all columns)::HUGEINT)` over the same source file, ms. */
  duckSourceMs: number;
  /** The same over the target's data files (partition column from the path), ms. */
  duckTargetMs: number;
  /** md5 of canonical bytes (the default) and DuckDB hash() (`--digest fast`). */
  runs: DigestRunFigures[];
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

function rowsSql(n: number): string {
  return `SELECT i::BIGINT AS id, (i % 1000)::INTEGER AS qty, (i * 0.01)::DECIMAL(18,2) AS amount, 'cust-' || (i % 99991) AS customer,
    DATE '2026-08-10' + (i % 6)::INTEGER AS dt, TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_microseconds((i % 6) * 86400000000 + (i % 86400) * 1000000) AS ts
    FROM range(${n}) r(i)`;
}

export async function benchReconcile(opts: { rows?: number; workDir?: string; runs?: number } = {}): Promise<ReconcileBenchFigures> {
  const n = opts.rows ?? 10_000_000;
  // Best of `runs` for every timed checksum figure (ours and DuckDB's): the machine is shared.
  const best = Math.max(1, opts.runs ?? 3);
  const dir = opts.workDir ?? mkdtempSync(join(tmpdir(), 'lakerec-bench-rec-'));
  const owns = !opts.workDir;
  try {
    const t0 = performance.now();
    const duck = await openDuck();
    const source = join(dir, 'source.parquet');
    const table = join(dir, 'table');
    try {
      await duck.conn.run(`COPY (${rowsSql(n)}) TO ${sqlString(source)} (FORMAT parquet)`);
      const w = await DeltaWriter.create(table, { schema, partitionColumns: ['dt'], duck, data: { sql: rowsSql(n) } });
      w.close();
    } finally {
      duck.close();
    }
    const contract = join(dir, 'contract.yaml');
    writeFileSync(contract, 'version: 1\nname: bench\nkeys: [id]\npartitioning: { column: dt }\n');
    const setupMs = performance.now() - t0;

    // DuckDB's own hash over the same files, in the same run.
    const snap = await (await DeltaTable.open(table)).snapshot();
    const files = snap.files.map((f) => f.absolutePath);
    const d2 = await openDuck();
    let duckSourceMs: number;
    let duckTargetMs: number;
    try {
      duckSourceMs = Infinity;
      duckTargetMs = Infinity;
      for (let i = 0; i < best; i++) {
        let t = performance.now();
        await d2.conn.runAndReadAll(`SELECT sum(hash(id, qty, amount, customer, dt, ts)::HUGEINT) FROM read_parquet(${sqlString(source)})`);
        duckSourceMs = Math.min(duckSourceMs, performance.now() - t);
        t = performance.now();
        await d2.conn.runAndReadAll(`SELECT sum(hash(id, qty, amount, customer, dt, ts)::HUGEINT) FROM read_parquet([${files.map(sqlString).join(', ')}], hive_partitioning = true)`);
        duckTargetMs = Math.min(duckTargetMs, performance.now() - t);
      }
    } finally {
      d2.close();
    }

    // Ours, with the phase boundaries taken from the engine's own progress events.
    const runs: DigestRunFigures[] = [];
    const plan = [
      { digest: 'md5', level: 'checksum', memoryLimit: '4GB' },
      { digest: 'fast', level: 'checksum', memoryLimit: '4GB' },
      // keys keeps a per-row table per side and joins them: under a small limit it must spill, not grow
      { digest: 'fast', level: 'keys', memoryLimit: '512MB' },
    ] as const;
    for (const { digest, level, memoryLimit } of plan) {
      let peak = process.memoryUsage().rss;
      const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 50);
      let fig: { src: number; tgt: number; total: number; digest: string; verdict: string } | null = null;
      try {
        for (let i = 0; i < (level === 'checksum' ? best : 1); i++) {
          const marks: Record<string, number> = {};
          const start = performance.now();
          const r = await reconcile({
            source, target: { root: table }, contract, level, digest, memoryLimit,
            ctx: { progress: (p) => { if (marks[p.phase] === undefined) marks[p.phase] = performance.now(); } },
          });
          const end = performance.now();
          const srcStart = marks['hashing the source'] ?? start;
          const tgtStart = marks['hashing the target'] ?? srcStart;
          const cur = { src: tgtStart - srcStart, tgt: end - tgtStart, total: end - start, digest: r.digest, verdict: r.verdict };
          if (!fig || cur.total < fig.total) fig = cur;
        }
      } finally {
        clearInterval(sampler);
      }
      if (!fig) continue;
      runs.push({
        digest: fig.digest,
        level,
        memoryLimit,
        peakRssMb: Math.round(peak / 1048576),
        oursSourceMs: Math.round(fig.src),
        oursTargetMs: Math.round(fig.tgt),
        oursTotalMs: Math.round(fig.total),
        ratioSource: Math.round((fig.src / duckSourceMs) * 100) / 100,
        ratioTarget: Math.round((fig.tgt / duckTargetMs) * 100) / 100,
        rowsPerSecond: Math.round((2 * n) / (fig.total / 1000)),
        verdict: fig.verdict,
      });
    }
    return {
      rows: n,
      duckSourceMs: Math.round(duckSourceMs),
      duckTargetMs: Math.round(duckTargetMs),
      runs,
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      setupMs: Math.round(setupMs),
      bestOf: best,
    };
  } finally {
    if (owns) rmSync(dir, { recursive: true, force: true });
  }
}

export function formatReconcileFigures(f: ReconcileBenchFigures): string {
  const lines = [
    `reconcile bench: ${f.rows.toLocaleString('en-US')}-row source Parquet vs ${f.rows.toLocaleString('en-US')}-row Delta table`,
    `  DuckDB sum(hash(cols)): source ${f.duckSourceMs} ms, target ${f.duckTargetMs} ms (checksum figures: best of ${f.bestOf} runs)`,
  ];
  for (const r of f.runs) {
    lines.push(`  ${r.level} ${r.digest} (verdict ${r.verdict}, memory limit ${r.memoryLimit}): source ${r.oursSourceMs} ms (${r.ratioSource}x), target ${r.oursTargetMs} ms (${r.ratioTarget}x)${r.level === 'checksum' ? ', goal <= 3x per side' : ''}; total ${r.oursTotalMs} ms, ${r.rowsPerSecond.toLocaleString('en-US')} rows/s; peak RSS ${r.peakRssMb} MB`);
  }
  lines.push(`  process peak RSS ${f.peakRssMb} MB (includes generating both sides: ${f.setupMs} ms)`);
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = process.argv[2] ? Number(process.argv[2]) : undefined;
  benchReconcile({ rows }).then((f) => { process.stdout.write(formatReconcileFigures(f) + '\n'); }, (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(3);
  });
}
