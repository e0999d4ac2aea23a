// One place that opens DuckDB, so every engine module gets the same settings: a temp directory
// for spilling (tables larger than RAM), memory bounded to the machine, no network, no extension
// loading, and (once a run has registered its files) no file access beyond them.
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { createRequire } from 'node:module';
import { realpathSync } from 'node:fs';
import { totalmem } from 'node:os';
import { dirname, resolve, sep } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { makeTempDir, removeTempDir } from './tempdirs';

export interface Duck {
  instance: DuckDBInstance;
  conn: DuckDBConnection;
  /**
   * Limits DuckDB's file access to these folders and files from now on, for good: external
   * access off, the allow lists set, the configuration locked (no later SET can undo it). Call it
   * once the run knows every file it will read or write.
   */
  restrict(access: DuckAccess): Promise<void>;
  /** Closes the connection and removes the spill folder. */
  close(): void;
}

export interface DuckAccess {
  /** Folders whose files (recursively) may be read; a table root, a source folder. */
  dirs?: string[];
  /** Single files that may be read or written (a source file, an output). */
  files?: string[];
}

export interface DuckOptions {
  memoryLimit?: string;
  threads?: number;
  /**
   * Hand freed memory back to the OS early (DuckDB's allocator_flush_threshold, e.g. "16MB", and its
   * background threads): a run near its memory limit otherwise keeps hundreds of MB of freed pages
   * resident (issue #14: 100M rows at rows level peaked 0.7-1 GB above the limit without it).
   */
  allocatorFlush?: string;
}

/**
 * The DuckDB package, loaded on first open and through require: an ESM import of this CommonJS
 * package makes Node lex every file it re-exports (about 40 ms of a 0.3 s counts-level run).
 */
let api: typeof import('@duckdb/node-api') | null = null;
function duckdbApi(): typeof import('@duckdb/node-api') {
  api ??= createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
  return api;
}

const MEMORY_RE = /^\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$/i;

/**
 * DuckDB's memory limit when a caller gives none: LAKEREC_DUCKDB_MEMORY (e.g. "2GB"), else half
 * the machine's memory, at least 256 MiB and at most 8 GiB; beyond it DuckDB spills to disk.
 */
export function defaultMemoryLimit(env: Record<string, string | undefined> = process.env, total = totalmem()): string {
  const v = env.LAKEREC_DUCKDB_MEMORY;
  if (v !== undefined && v !== '') {
    if (!MEMORY_RE.test(v)) throw new LakerecError('usage', `LAKEREC_DUCKDB_MEMORY must look like 512MB or 4GB, got ${JSON.stringify(v)}`);
    return v.trim();
  }
  const half = Math.floor(total / 2);
  const mib = Math.max(256, Math.min(8 * 1024, Math.floor(half / (1024 * 1024))));
  return `${mib}MiB`;
}

/**
 * A memory limit for work that only needs to stream or spill (bisect's per-file caches): the
 * machine's default, but at most `maxMiB`, so a 40M-row table keeps the process under 1 GB (the
 * rest spills to the temp folder). LAKEREC_DUCKDB_MEMORY still decides when set.
 */
export function boundedMemoryLimit(maxMiB: number, env: Record<string, string | undefined> = process.env, total = totalmem()): string {
  if (env.LAKEREC_DUCKDB_MEMORY) return defaultMemoryLimit(env, total);
  const mib = Number(/^(\d+)MiB$/.exec(defaultMemoryLimit(env, total))?.[1] ?? maxMiB);
  return `${Math.min(mib, maxMiB)}MiB`;
}

export async function openDuck(opts: DuckOptions = {}): Promise<Duck> {
  const memoryLimit = opts.memoryLimit ?? defaultMemoryLimit();
  const spill = makeTempDir('duck');
  let instance: DuckDBInstance;
  try {
    instance = await duckdbApi().DuckDBInstance.create(':memory:', {
      temp_directory: spill,
      memory_limit: memoryLimit,
      ...(opts.threads ? { threads: String(opts.threads) } : {}),
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
  } catch (e) {
    removeTempDir(spill);
    throw wrapDuckError(e, 'could not start DuckDB');
  }
  const conn = await instance.connect();
  // Timestamps are compared and printed in UTC, whatever the machine's zone.
  await conn.run("SET TimeZone = 'UTC'");
  if (opts.allocatorFlush) {
    if (!MEMORY_RE.test(opts.allocatorFlush)) throw new LakerecError('usage', `allocator flush threshold must be a size like 16MB, got "${opts.allocatorFlush}"`);
    await conn.run(`SET allocator_flush_threshold = ${sqlString(opts.allocatorFlush)}; SET allocator_background_threads = true`);
  }
  let restricted = false;
  return {
    instance,
    conn,
    async restrict(access: DuckAccess) {
      if (restricted) throw new LakerecError('internal', 'DuckDB file access was already restricted for this run');
      restricted = true;
      const dirs = new Set<string>();
      const files = new Set<string>();
      // Both the path as given and its real path: DuckDB checks the string it is handed.
      for (const d of access.dirs ?? []) for (const p of spellings(d)) dirs.add(p.endsWith(sep) ? p : p + sep);
      for (const f of access.files ?? []) for (const p of spellings(f)) files.add(p);
      const list = (xs: Set<string>) => `[${[...xs].map(sqlString).join(', ')}]::VARCHAR[]`;
      await conn.run(`SET allowed_directories = ${list(dirs)}`);
      await conn.run(`SET allowed_paths = ${list(files)}`);
      await conn.run('SET enable_external_access = false');
      await conn.run('SET lock_configuration = true');
    },
    close() {
      try { conn.closeSync(); } catch { /* already closed */ }
      try { instance.closeSync(); } catch { /* already closed */ }
      removeTempDir(spill);
    },
  };
}

/** A path as given (absolute) and as its real path (or its parent's real path if it does not exist yet). */
function spellings(p: string): string[] {
  const abs = resolve(p);
  const out = [abs];
  try {
    out.push(realpathSync(abs));
  } catch {
    try { out.push(resolve(realpathSync(dirname(abs)), abs.slice(dirname(abs).length + 1))); } catch { /* parent missing too */ }
  }
  return [...new Set(out)];
}

/**
 * A DuckDB failure as one line of a named lakerec error: DuckDB's messages run over several lines
 * (LINE 1: ..., a caret) and may quote the SQL; only the first line is kept.
 */
export function wrapDuckError(e: unknown, what: string, code: 'io_error' | 'source_unreadable' | 'internal' = 'internal'): LakerecError {
  if (e instanceof LakerecError) return e;
  const first = (e instanceof Error ? e.message : String(e)).split('\n')[0].trim();
  return new LakerecError(code, `${what}: ${first}`);
}

/** A SQL string literal (single quotes doubled). */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** A SQL identifier (double quotes doubled). */
export function sqlIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/**
 * Cancelling a job stops the running query too, not just the next step: interrupts `conn` when
 * `signal` aborts. Returns the function that detaches the listener (call it in `finally`).
 */
export function interruptOnAbort(conn: { interrupt(): void }, signal: AbortSignal | undefined): () => void {
  const onAbort = () => { try { conn.interrupt(); } catch { /* already closed */ } };
  signal?.addEventListener('abort', onAbort);
  return () => signal?.removeEventListener('abort', onAbort);
}

/** The time limit of one interactive query (a grid page, its count, a WHERE filter): 30 s. */
export const DEFAULT_QUERY_TIME_LIMIT_MS = 30_000;

/** LAKEREC_QUERY_TIME_LIMIT_MS (at least 100), else DEFAULT_QUERY_TIME_LIMIT_MS. */
export function queryTimeLimitMs(env: Record<string, string | undefined> = process.env): number {
  const v = Number(env.LAKEREC_QUERY_TIME_LIMIT_MS);
  return Number.isInteger(v) && v >= 100 ? v : DEFAULT_QUERY_TIME_LIMIT_MS;
}

/**
 * Runs `run` (queries on `conn`) under a time limit: when it passes, the running query is
 * interrupted and the call fails with `limit_exceeded`, one line naming the limit and its knob.
 */
export async function withTimeLimit<T>(conn: { interrupt(): void }, ms: number, what: string, run: () => Promise<T>): Promise<T> {
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    try { conn.interrupt(); } catch { /* already closed */ }
  }, ms);
  try {
    return await run();
  } catch (e) {
    if (fired) {
      throw new LakerecError('limit_exceeded', `${what} ran longer than its time limit of ${ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`} and was stopped (LAKEREC_QUERY_TIME_LIMIT_MS sets the limit).`, { limitMs: ms });
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
