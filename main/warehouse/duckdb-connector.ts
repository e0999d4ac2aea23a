// The DuckDB connector: the local executor of the pushed SQL, over exactly the files lakerec's own
// snapshot lists (deletion vectors, column mapping and partition values from the log applied by
// registerSnapshotView). DuckDB's file access is then locked to the tables' folders. The tests run
// every level's DuckDB-dialect SQL through it and require the local engine's figures.
import { LakerecError } from '../../shared/errors';
import { openDuck, sqlIdent, type Duck } from '../engine/duck';
import { outsideLocalFiles, registerSnapshotView } from '../delta/scan';
import { checkScalarExpression } from '../engine/expression';
import type { Snapshot } from '../delta/types';
import { assertReadOnly, cellText, DEFAULT_MAX_ROWS, textBytes, withDeadline, type Connector, type QueryOptions, type QueryResult } from './connector';

export interface DuckdbTable {
  /** The relation name the SQL uses. */
  name: string;
  snapshot: Snapshot;
  root: string;
  allowOutsidePaths?: boolean;
}

/** A view lakerec defines (a local Parquet source), with the contract's partition column derived where it lacks it. */
export interface DuckdbView {
  name: string;
  sql: string;
  derive?: { column: string; expression: string };
}

async function createView(duck: Duck, v: DuckdbView): Promise<void> {
  const raw = v.derive ? `${v.name}_raw` : v.name;
  await duck.conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(raw)} AS ${v.sql}`);
  if (!v.derive) return;
  const cols = (await duck.conn.runAndReadAll(`DESCRIBE ${sqlIdent(raw)}`)).getRowObjectsJS().map((r) => String(r.column_name));
  let select = 'SELECT *';
  if (!cols.includes(v.derive.column)) {
    // Someone else's SQL: checked as one scalar expression over the columns, and only DuckDB's rendering runs.
    const checked = await checkScalarExpression(duck.conn, v.derive.expression, cols);
    if (!checked.ok) throw new LakerecError('contract_mismatch', `partition expression refused: ${checked.problem}`);
    select = `SELECT *, (${checked.sql}) AS ${sqlIdent(v.derive.column)}`;
  }
  await duck.conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(v.name)} AS ${select} FROM ${sqlIdent(raw)}`);
}

export class DuckdbConnector implements Connector {
  readonly dialect = 'duckdb' as const;
  private constructor(readonly name: string, private readonly duck: Duck, private readonly tables: DuckdbTable[]) {}

  /** Opens DuckDB with one view per table (its snapshot's files), then locks file access to their folders. */
  static async open(name: string, tables: DuckdbTable[], opts: { extraDirs?: string[]; extraFiles?: string[]; views?: DuckdbView[] } = {}): Promise<DuckdbConnector> {
    const duck = await openDuck({ threads: 2 });
    try {
      for (const t of tables) await registerSnapshotView(duck.conn, t.snapshot, t.name, { allowOutsidePaths: t.allowOutsidePaths });
      // Other relations (a local Parquet source): views defined by lakerec itself, never user SQL.
      for (const v of opts.views ?? []) await createView(duck, v);
      const outside = tables.flatMap((t) => outsideLocalFiles(t.snapshot.files));
      await duck.restrict({ dirs: [...tables.map((t) => t.root), ...(opts.extraDirs ?? [])], files: [...outside, ...(opts.extraFiles ?? [])] });
    } catch (e) {
      duck.close();
      throw e;
    }
    return new DuckdbConnector(name, duck, tables);
  }

  describe(): string {
    return `duckdb (this machine), over the files lakerec's snapshot lists${this.tables.length ? ` (${this.tables.map((t) => `${t.name} = ${t.root} v${t.snapshot.version}`).join('; ')})` : ''}`;
  }

  /** A view name for the table at a version is the caller's; this gives the relation of a registered table. */
  relation(name: string): string {
    if (!this.tables.some((t) => t.name === name)) throw new LakerecError('internal', `no table ${name} registered`);
    return sqlIdent(name);
  }

  /** Registers one more snapshot (bisect's versions) under a view name, before or after the lock (same folders). */
  async addView(name: string, snapshot: Snapshot, allowOutsidePaths = false): Promise<string> {
    await registerSnapshotView(this.duck.conn, snapshot, name, { allowOutsidePaths });
    return sqlIdent(name);
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<QueryResult> {
    assertReadOnly(sql);
    const max = opts.maxRows ?? DEFAULT_MAX_ROWS;
    const t0 = performance.now();
    const reader = await withDeadline(async () => {
      try {
        return await this.duck.conn.runAndReadUntil(sql, max + 1);
      } catch (e) {
        throw new LakerecError('io_error', `duckdb: ${(e as Error).message.split('\n')[0]}`);
      }
    }, () => this.duck.conn.interrupt(), opts, 'duckdb');
    const columns = reader.columnNames().map((c) => c.toLowerCase());
    const all = reader.getRowsJS();
    const capped = all.length > max;
    const rows = all.slice(0, max).map((r) => r.map(cellText));
    return { columns, rows, capped, bytes: textBytes(columns, rows), queryId: null, ms: performance.now() - t0 };
  }

  async close(): Promise<void> {
    this.duck.close();
  }
}
