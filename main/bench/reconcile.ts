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

export interface ReconcileBenchFigures {
  rows: number;
  /** Ours, checksum level: source side (read + canonical text + md5 + per-partition sums), ms. */
  oursSourceMs: number;
  /** Ours: target side (snapshot, read with DVs/partition values, md5, sums), ms. */
  oursTargetMs: number;
  oursTotalMs: number;
  /** DuckDB `sum(hash(all columns)::HUGEINT)` over the same source file, ms. */
  duckSourceMs: number;
  /** The same over the target's data files (partition column from the path), ms. */
  duckTargetMs: number;
  ratioSource: number;
  ratioTarget: number;
  /** Rows hashed per second by ours, both sides together. */
  rowsPerSecond: number;
  peakRssMb: number;
  verdict: string;
  digest: string;
  setupMs: number;
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

export async function benchReconcile(opts: { rows?: number; workDir?: string } = {}): Promise<ReconcileBenchFigures> {
  const n = opts.rows ?? 10_000_000;
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
      let t = performance.now();
      await d2.conn.runAndReadAll(`SELECT sum(hash(id, qty, amount, customer, dt, ts)::HUGEINT) FROM read_parquet(${sqlString(source)})`);
      duckSourceMs = performance.now() - t;
      t = performance.now();
      await d2.conn.runAndReadAll(`SELECT sum(hash(id, qty, amount, customer, dt, ts)::HUGEINT) FROM read_parquet([${files.map(sqlString).join(', ')}], hive_partitioning = true)`);
      duckTargetMs = performance.now() - t;
    } finally {
      d2.close();
    }

    // Ours, with the phase boundaries taken from the engine's own progress events.
    const marks: Record<string, number> = {};
    const start = performance.now();
    const r = await reconcile({
      source, target: { root: table }, contract, level: 'checksum',
      ctx: { progress: (p) => { if (marks[p.phase] === undefined) marks[p.phase] = performance.now(); } },
    });
    const end = performance.now();
    const srcStart = marks['hashing the source'] ?? start;
    const tgtStart = marks['hashing the target'] ?? srcStart;
    const oursSourceMs = tgtStart - srcStart;
    const oursTargetMs = end - tgtStart;
    const round = (x: number) => Math.round(x);
    return {
      rows: n,
      oursSourceMs: round(oursSourceMs),
      oursTargetMs: round(oursTargetMs),
      oursTotalMs: round(end - start),
      duckSourceMs: round(duckSourceMs),
      duckTargetMs: round(duckTargetMs),
      ratioSource: Math.round((oursSourceMs / duckSourceMs) * 100) / 100,
      ratioTarget: Math.round((oursTargetMs / duckTargetMs) * 100) / 100,
      rowsPerSecond: Math.round((2 * n) / ((end - start) / 1000)),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      verdict: r.verdict,
      digest: r.digest,
      setupMs: round(setupMs),
    };
  } finally {
    if (owns) rmSync(dir, { recursive: true, force: true });
  }
}

export function formatReconcileFigures(f: ReconcileBenchFigures): string {
  return [
    `reconcile bench: ${f.rows.toLocaleString('en-US')}-row source Parquet vs ${f.rows.toLocaleString('en-US')}-row Delta table, level checksum (verdict ${f.verdict}, digest ${f.digest})`,
    `  source side: ours ${f.oursSourceMs} ms, DuckDB sum(hash(cols)) ${f.duckSourceMs} ms, ratio ${f.ratioSource}x (goal <= 3x)`,
    `  target side: ours ${f.oursTargetMs} ms, DuckDB sum(hash(cols)) ${f.duckTargetMs} ms, ratio ${f.ratioTarget}x (goal <= 3x)`,
    `  total ${f.oursTotalMs} ms, ${f.rowsPerSecond.toLocaleString('en-US')} rows/s (both sides); peak RSS ${f.peakRssMb} MB; setup ${f.setupMs} ms`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = process.argv[2] ? Number(process.argv[2]) : undefined;
  benchReconcile({ rows }).then((f) => { process.stdout.write(formatReconcileFigures(f) + '\n'); }, (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(3);
  });
}
