// SQL helpers of the reconcile engine: running a query (profiled with LAKEREC_PROFILE=1), reading
// values back, partition labels. Identifiers and literals go through sqlIdent/sqlString only.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CellText } from '../../shared/reconcile';
import { report, type JobContext } from '../../shared/jobs';
import { sqlIdent, sqlString } from '../engine/duck';
import { compareFamily, typeFamily } from './canonical';

export const NULL_LABEL = '(null)';

export interface PartitionSpec {
  column: string | null;
  /** SQL for the partition value as text, per side (over that side's view). */
  sourceSql: string;
  targetSql: string;
  /** The target's Delta partition column is the contract's: file sets map to partitions. */
  targetIsDeltaPartition: boolean;
  /** DuckDB type of the partition column in the target. */
  type: string | null;
  /** The contract's partition expression as DuckDB re-rendered it after checking it (null: none). */
  expressionSql: string | null;
}

/** The partition expression without its text cast (to group by the typed value). */
export function uncast(partSql: string): string {
  const m = /^CAST\((.*) AS VARCHAR\)$/s.exec(partSql);
  return m ? m[1] : partSql;
}

export function label(col: string | null, value: string | null): string {
  if (col === null) return '(table)';
  return `${col}=${value ?? NULL_LABEL}`;
}

// LAKEREC_PROFILE=1 prints each query's time to stderr (for the benchmark's slow spots).
export const profile = typeof process !== 'undefined' && !!process.env.LAKEREC_PROFILE;
export function profiled(sql: string, t0: number, cpu0?: NodeJS.CpuUsage): void {
  // LAKEREC_PROFILE=full prints each statement whole.
  const shown = process.env.LAKEREC_PROFILE === 'full' ? sql : sql.replace(/\s+/g, ' ').slice(0, 160);
  const cpu = cpu0 ? process.cpuUsage(cpu0) : null;
  const cpuMs = cpu ? ` (cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms)` : '';
  if (profile) process.stderr.write(`[lakerec] ${(performance.now() - t0).toFixed(0)} ms${cpuMs}  ${shown}\n`);
}

export async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const t0 = performance.now();
  const c0 = profile ? process.cpuUsage() : undefined;
  const r = await conn.runAndReadAll(sql);
  profiled(sql, t0, c0);
  // LAKEREC_PROFILE=explain also prints the plan, with each operator's time, of a slow SELECT (run again).
  if (process.env.LAKEREC_PROFILE === 'explain' && performance.now() - t0 > 100) {
    const plan = await conn.runAndReadAll(`EXPLAIN ANALYZE ${sql}`);
    process.stderr.write(plan.getRows().map((x) => String(x[1])).join('\n') + '\n');
  }
  return r.getRowObjectsJS() as Record<string, unknown>[];
}

export async function exec(conn: DuckDBConnection, sql: string): Promise<void> {
  const t0 = performance.now();
  const c0 = profile ? process.cpuUsage() : undefined;
  await conn.run(sql);
  profiled(sql, t0, c0);
}

export function text(v: unknown): CellText {
  if (v === null || v === undefined) return null;
  return String(v);
}

export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** Day number of a 'YYYY-MM-DD' value (null when not a date). */
export function dayOf(v: string | null): number | null {
  if (v === null || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
  const t = Date.parse(v + 'T00:00:00Z');
  return Number.isNaN(t) ? null : Math.round(t / 86_400_000);
}

/** The ordering column as a comparable value (timestamps as UTC micros). */
export function orderingSql(col: string, type: string): string {
  const f = compareFamily(type, true);
  if (f === 'timestamp') return `epoch_us(${sqlIdent(col)})`;
  if (f === 'date') return `CAST(${sqlIdent(col)} AS DATE) - DATE '1970-01-01'`;
  if (f === 'integer' || f === 'decimal' || f === 'float') return `CAST(${sqlIdent(col)} AS DOUBLE)`;
  return `CAST(${sqlIdent(col)} AS VARCHAR)`;
}

export async function duckVersion(conn: DuckDBConnection): Promise<string> {
  const r = await rows(conn, 'SELECT version() AS v');
  return String(r[0].v);
}

/**
 * Runs a statement and, while it runs, polls DuckDB's query progress (every 200 ms) so a long scan
 * can report rows done. The fraction is DuckDB's estimate of the work done, 0..1.
 */
export async function execWithProgress(conn: DuckDBConnection, sql: string, onProgress?: (fraction: number) => void): Promise<void> {
  if (!onProgress) return exec(conn, sql);
  const timer = setInterval(() => {
    try {
      const p = conn.progress;
      if (p && p.percentage >= 0) onProgress(Math.min(1, p.percentage / 100));
    } catch { /* no query running */ }
  }, 200);
  try {
    await exec(conn, sql);
  } finally {
    clearInterval(timer);
  }
  onProgress(1);
}

/**
 * A side's progress in rows: DuckDB's fraction of the scan times the side's row count when it is
 * known (from the log's stats or the Parquet footers), else percent of the scan.
 */
export function sideProgress(ctx: JobContext | undefined, phase: string, totalRows: number | null): (fraction: number) => void {
  report(ctx, { phase, done: 0, total: totalRows ?? 100, ...(totalRows === null ? { message: 'percent of the scan' } : {}) });
  return (f) => {
    if (totalRows === null) report(ctx, { phase, done: Math.round(f * 100), total: 100, message: 'percent of the scan' });
    else report(ctx, { phase, done: Math.round(f * totalRows), total: totalRows });
  };
}

/** The source's row count from its metadata when it has some (Parquet footers, a Delta log), else null. */
export async function sourceRowTotal(conn: DuckDBConnection, source: { parquetFiles: string[] | null; snapshot: { files: { numRecords: number | null }[] } | null }): Promise<number | null> {
  if (source.snapshot) return source.snapshot.files.every((f) => f.numRecords !== null) ? source.snapshot.files.reduce((a, f) => a + (f.numRecords ?? 0), 0) : null;
  if (!source.parquetFiles || source.parquetFiles.length === 0) return null;
  try {
    const r = await rows(conn, `SELECT sum(num_rows) AS n FROM parquet_file_metadata([${source.parquetFiles.map(sqlString).join(', ')}])`);
    return r[0]?.n === null || r[0]?.n === undefined ? null : Number(r[0].n);
  } catch {
    return null;
  }
}

/**
 * `expr` is one of the partitions `labels` name ("dt=2026-08-12", "dt=(null)"); never NULL itself,
 * so NOT of it is safe. A typed `expr` is compared with typed literals (no text per row); `type`
 * must be a type DuckDB itself printed (DESCRIBE), never text from a log.
 */
export function partitionIn(expr: string, type: string | null, labels: string[]): string {
  const vals = labels.map((l) => l.slice(l.indexOf('=') + 1));
  const asText = type === null || typeFamily(type) === 'string';
  const lits = vals.filter((v) => asText || v !== NULL_LABEL).map((v) => (asText ? sqlString(v) : `CAST(${sqlString(v)} AS ${type})`));
  const parts: string[] = [];
  if (lits.length) parts.push(`coalesce(${expr} IN (${lits.join(', ')}), false)`);
  if (vals.includes(NULL_LABEL)) parts.push(`${expr} IS NULL`);
  return parts.length ? `(${parts.join(' OR ')})` : 'false';
}
