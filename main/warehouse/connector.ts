// The one way lakerec talks to an engine that holds a table: run one read-only statement, stream
// back a small result (capped), cancel it, time it out, and say how many bytes came back and
// which query id the engine gave it. Every connector refuses a statement that is not a single
// SELECT / VALUES / DESCRIBE (read-only by construction, whatever the generator produced), and
// every error line a connector raises goes through redact() (secrets never leave the engine).
import { LakerecError } from '../../shared/errors';
import type { Dialect } from './dialect';

export interface QueryOptions {
  signal?: AbortSignal;
  /** Milliseconds before the statement is cancelled and refused (default DEFAULT_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Rows beyond this are not read: the result says it was capped (default DEFAULT_MAX_ROWS). */
  maxRows?: number;
}

export const DEFAULT_TIMEOUT_MS = 15 * 60_000;
export const DEFAULT_MAX_ROWS = 100_000;

export interface QueryResult {
  /** Column names as the engine returned them, lower-cased. */
  columns: string[];
  /** Values as text (exact integers stay exact); null is null. */
  rows: (string | null)[][];
  /** More rows existed than maxRows. */
  capped: boolean;
  /** Bytes of result transferred, as the connector measured them (the result's text, when the driver does not say). */
  bytes: number;
  /** The engine's id of the statement, null when it gives none. */
  queryId: string | null;
  ms: number;
}

export interface Connector {
  /** The connection's name (never a secret). */
  name: string;
  dialect: Dialect;
  /** What the report says ran the statement ("trino at https://host:443, catalog delta"). */
  describe(): string;
  query(sql: string, opts?: QueryOptions): Promise<QueryResult>;
  close(): Promise<void>;
}

/** Strips comments, then allows one SELECT, WITH, VALUES or DESCRIBE statement and nothing after it. */
export function assertReadOnly(sql: string): void {
  const body = sql.replace(/--[^\n]*\n?/g, ' ').trim().replace(/;\s*$/, '');
  if (!/^(SELECT|WITH|VALUES|DESCRIBE)\b/i.test(body)) throw new LakerecError('usage', 'refused: a warehouse connector runs only one SELECT, VALUES or DESCRIBE statement');
  // A ';' outside string literals would start a second statement.
  const outside = body.replace(/'(?:[^'\\]|''|\\.)*'/g, "''");
  if (outside.includes(';')) throw new LakerecError('usage', 'refused: a warehouse connector runs one statement, not several');
}

/** Runs `fn` under a timeout and an abort signal; `cancel` is called on either. */
export async function withDeadline<T>(fn: () => Promise<T>, cancel: () => void | Promise<void>, opts: QueryOptions, what: string): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  if (opts.signal?.aborted) throw new LakerecError('cancelled', 'The job was cancelled.');
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => { void cancel(); reject(new LakerecError('io_error', `${what}: no answer within ${Math.round(timeoutMs / 1000)} s; the statement was cancelled`)); }, timeoutMs);
    onAbort = () => { void cancel(); reject(new LakerecError('cancelled', 'The job was cancelled.')); };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([fn(), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** A driver value as text: bigints and exact decimals stay exact; a Date as ISO text. */
export function cellText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
}

/** The bytes a result's text takes (what a connector reports when its driver does not count). */
export function textBytes(columns: string[], rows: (string | null)[][]): number {
  let n = columns.reduce((a, c) => a + Buffer.byteLength(c), 0);
  for (const r of rows) for (const c of r) n += c === null ? 1 : Buffer.byteLength(c) + 1;
  return n;
}

/** Rows of a result as records keyed by its (lower-case) column names. */
export function records(r: QueryResult): Record<string, string | null>[] {
  return r.rows.map((row) => Object.fromEntries(r.columns.map((c, i) => [c, row[i]])));
}
