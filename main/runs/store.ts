// The local run history: every proof, reconcile and bisect run, kept in one DuckDB file in the
// user's app-data folder so the window can list them. The file is opened per call and closed at
// once: the window and a CLI run in another process may both record, and DuckDB lets one process
// hold a database file at a time (a busy file is retried briefly).
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { guardOutputPath } from '../engine/outputs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { LakerecError } from '../../shared/errors';
import type { RunKind, RunRecord } from '../../shared/proof';

export const RUNS_FILE = 'runs.duckdb';

/**
 * The app-data folder: `LAKEREC_DATA_DIR`, else `$XDG_DATA_HOME/lakerec`, else (Windows)
 * `%APPDATA%\lakerec`, else `~/.local/share/lakerec`.
 */
export function defaultDataDir(env: Record<string, string | undefined> = process.env): string {
  if (env.LAKEREC_DATA_DIR) return env.LAKEREC_DATA_DIR;
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'lakerec');
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'lakerec');
  return join(env.HOME || homedir(), '.local', 'share', 'lakerec');
}

export interface RunInput {
  /** The run's id when the run has one already (a proof's); default a new UUID. */
  id?: string;
  kind: RunKind;
  status: string;
  title: string;
  startedAt?: string;
  finishedAt?: string | null;
  /** The kind's own result summary; must be JSON-serialisable (masked as every report is). */
  summary: unknown;
}

const KINDS: readonly RunKind[] = ['proof', 'reconcile', 'bisect', 'mutate'];

async function withDb<T>(dir: string, body: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  // DuckDB writes the file (and its WAL) itself: the output guard checks the folder first, so a
  // LAKEREC_DATA_DIR pointed into a table is refused like any output.
  guardOutputPath(join(dir, RUNS_FILE), 'the run history');
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (process.platform !== 'win32') chmodSync(dir, 0o700);
  }
  const path = join(dir, RUNS_FILE);
  let instance: DuckDBInstance | null = null;
  let lastError: unknown = null;
  for (let attempt = 0; attempt < 20 && !instance; attempt++) {
    try {
      instance = await DuckDBInstance.create(path, { threads: '1', autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
    } catch (e) {
      lastError = e;
      if (!/lock/i.test(String((e as Error).message))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (!instance) {
    throw new LakerecError('io_error', `the run history ${path} cannot be opened: ${(lastError as Error)?.message ?? 'unknown error'}`, { path });
  }
  const conn = await instance.connect();
  try {
    await conn.run(`CREATE TABLE IF NOT EXISTS runs (
      id VARCHAR PRIMARY KEY, kind VARCHAR NOT NULL, started_at VARCHAR NOT NULL, finished_at VARCHAR,
      status VARCHAR NOT NULL, title VARCHAR NOT NULL, summary VARCHAR NOT NULL)`);
    return await body(conn);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Records one run; returns it with its id. */
export async function recordRun(dir: string, input: RunInput): Promise<RunRecord> {
  if (!KINDS.includes(input.kind)) throw new LakerecError('usage', `unknown run kind "${String(input.kind)}"`);
  const rec: RunRecord = {
    id: input.id ?? randomUUID(),
    kind: input.kind,
    startedAt: input.startedAt ?? new Date().toISOString(),
    finishedAt: input.finishedAt === undefined ? new Date().toISOString() : input.finishedAt,
    status: input.status,
    title: input.title,
    summary: input.summary ?? null,
  };
  const summary = JSON.stringify(rec.summary, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  await withDb(dir, async (conn) => {
    const st = await conn.prepare('INSERT INTO runs VALUES ($1, $2, $3, $4, $5, $6, $7)');
    st.bind([rec.id, rec.kind, rec.startedAt, rec.finishedAt, rec.status, rec.title, summary]);
    await st.run();
  });
  return rec;
}

export interface ListOptions {
  kind?: RunKind;
  /** Newest first; default 200. */
  limit?: number;
  /** Leave the summaries out (the window's list needs only the headings). */
  withoutSummary?: boolean;
}

/** The runs, newest first. An absent history is an empty list. */
export async function listRuns(dir: string, opts: ListOptions = {}): Promise<RunRecord[]> {
  if (!existsSync(join(dir, RUNS_FILE))) return [];
  const limit = Math.max(1, Math.min(opts.limit ?? 200, 10_000));
  return withDb(dir, async (conn) => {
    const where = opts.kind ? 'WHERE kind = $1' : '';
    const sql = `SELECT id, kind, started_at, finished_at, status, title, ${opts.withoutSummary ? "'null'" : 'summary'} AS summary FROM runs ${where} ORDER BY started_at DESC, id LIMIT ${limit}`;
    const st = await conn.prepare(sql);
    if (opts.kind) st.bind([opts.kind]);
    const r = await st.runAndReadAll();
    return r.getRowObjects().map((o) => ({
      id: String(o.id), kind: String(o.kind) as RunKind, startedAt: String(o.started_at),
      finishedAt: o.finished_at === null ? null : String(o.finished_at), status: String(o.status), title: String(o.title),
      summary: JSON.parse(String(o.summary)) as unknown,
    }));
  });
}

/** One run by id, or null. */
export async function getRun(dir: string, id: string): Promise<RunRecord | null> {
  if (!existsSync(join(dir, RUNS_FILE))) return null;
  const rows = await withDb(dir, async (conn) => {
    const st = await conn.prepare('SELECT id, kind, started_at, finished_at, status, title, summary FROM runs WHERE id = $1');
    st.bind([id]);
    return (await st.runAndReadAll()).getRowObjects();
  });
  const o = rows[0];
  if (!o) return null;
  return {
    id: String(o.id), kind: String(o.kind) as RunKind, startedAt: String(o.started_at),
    finishedAt: o.finished_at === null ? null : String(o.finished_at), status: String(o.status), title: String(o.title),
    summary: JSON.parse(String(o.summary)) as unknown,
  };
}
