// One place that opens DuckDB, so every engine module gets the same settings: a temp directory
// for spilling (tables larger than RAM), bounded memory, and no network.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Duck {
  instance: DuckDBInstance;
  conn: DuckDBConnection;
  /** Closes the connection and removes the spill folder. */
  close(): void;
}

export interface DuckOptions {
  memoryLimit?: string;
  threads?: number;
}

export async function openDuck(opts: DuckOptions = {}): Promise<Duck> {
  const spill = mkdtempSync(join(tmpdir(), 'lakerec-duck-'));
  const instance = await DuckDBInstance.create(':memory:', {
    temp_directory: spill,
    memory_limit: opts.memoryLimit ?? '4GB',
    ...(opts.threads ? { threads: String(opts.threads) } : {}),
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const conn = await instance.connect();
  // Timestamps are compared and printed in UTC, whatever the machine's zone.
  await conn.run("SET TimeZone = 'UTC'");
  return {
    instance,
    conn,
    close() {
      try { conn.closeSync(); } catch { /* already closed */ }
      try { instance.closeSync(); } catch { /* already closed */ }
      rmSync(spill, { recursive: true, force: true });
    },
  };
}

/** A SQL string literal (single quotes doubled). */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** A SQL identifier (double quotes doubled). */
export function sqlIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}
