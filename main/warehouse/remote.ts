// The three warehouse connectors, each over its vendor's own Node driver: Databricks SQL
// (@databricks/sql), Snowflake (snowflake-sdk), Trino (trino-client). Each runs one read-only
// statement (assertReadOnly), reads at most maxRows rows, cancels on abort or timeout through the
// driver's own cancel, reports the engine's query id and the bytes of result text it received,
// and turns every driver error into one line with the connection's secrets removed. The drivers
// are loaded only when a connection of theirs is opened. None of the three warehouses is
// reachable from the machine these were built on: see README's limits.
import { LakerecError } from '../../shared/errors';
import { assertReadOnly, cellText, DEFAULT_MAX_ROWS, textBytes, withDeadline, type Connector, type QueryOptions, type QueryResult } from './connector';
import { connectionSummary, redact, secretsOf, type DatabricksConnection, type SnowflakeConnection, type TrinoConnection, type WarehouseConnection } from './connections';
import { DIALECT_OF } from './connections';
import type { Dialect } from './dialect';

function fail(c: WarehouseConnection, e: unknown, what: string): LakerecError {
  if (e instanceof LakerecError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new LakerecError('io_error', `${c.kind} ${c.name}: ${what}: ${redact(msg, secretsOf(c))}`);
}

abstract class RemoteConnector implements Connector {
  readonly dialect: Dialect;
  constructor(protected readonly conn: WarehouseConnection) { this.dialect = DIALECT_OF[conn.kind]; }
  get name(): string { return this.conn.name; }
  describe(): string { const s = connectionSummary(this.conn); return `${s.kind} ${s.name} at ${s.where}`; }
  abstract query(sql: string, opts?: QueryOptions): Promise<QueryResult>;
  abstract close(): Promise<void>;
}

// ---- Trino ----

export class TrinoConnector extends RemoteConnector {
  declare protected readonly conn: TrinoConnection;
  private client: import('trino-client').Trino | null = null;

  private async open(): Promise<import('trino-client').Trino> {
    if (this.client) return this.client;
    const { Trino, BasicAuth } = await import('trino-client');
    this.client = Trino.create({
      server: this.conn.server, source: 'lakerec', catalog: this.conn.catalog ?? undefined, schema: this.conn.schema ?? undefined,
      auth: new BasicAuth(this.conn.user, this.conn.password?.reveal()),
    });
    return this.client;
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<QueryResult> {
    assertReadOnly(sql);
    const max = opts.maxRows ?? DEFAULT_MAX_ROWS;
    const t0 = performance.now();
    const client = await this.open();
    let queryId: string | null = null;
    let bytes = 0;
    const read = async (): Promise<QueryResult> => {
      let columns: string[] = [];
      const rows: (string | null)[][] = [];
      let capped = false;
      try {
        const iter = await client.query(sql);
        for await (const page of iter) {
          queryId ??= page.id ?? null;
          if (page.error) throw new Error(`${page.error.errorName}: ${page.error.message}`);
          if (page.columns && columns.length === 0) columns = page.columns.map((c) => c.name.toLowerCase());
          for (const r of page.data ?? []) {
            if (rows.length >= max) { capped = true; break; }
            rows.push((r as unknown[]).map(cellText));
          }
          bytes += JSON.stringify(page.data ?? []).length;
          if (capped) { if (queryId) await client.cancel(queryId).catch(() => undefined); break; }
        }
      } catch (e) {
        throw fail(this.conn, e, 'the query failed');
      }
      return { columns, rows, capped, bytes: Math.max(bytes, textBytes(columns, rows)), queryId, ms: performance.now() - t0 };
    };
    return withDeadline(read, async () => { if (queryId) await client.cancel(queryId).catch(() => undefined); }, opts, `trino ${this.conn.name}`);
  }

  async close(): Promise<void> { this.client = null; }
}

// ---- Databricks SQL ----

/** A logger that keeps nothing: the driver's log lines may carry connection details. */
const silentLogger = { log: (): void => undefined };

export class DatabricksConnector extends RemoteConnector {
  declare protected readonly conn: DatabricksConnection;
  private session: import('@databricks/sql/dist/contracts/IDBSQLSession').default | null = null;
  private client: import('@databricks/sql').DBSQLClient | null = null;

  private async open(opts: QueryOptions): Promise<import('@databricks/sql/dist/contracts/IDBSQLSession').default> {
    if (this.session) return this.session;
    const { DBSQLClient } = await import('@databricks/sql');
    const client = new DBSQLClient({ logger: silentLogger as unknown as import('@databricks/sql/dist/contracts/IDBSQLLogger').default });
    this.client = client;
    const m = /^([^:/]+)(?::(\d+))?$/.exec(this.conn.host);
    if (!m) throw new LakerecError('usage', `databricks ${this.conn.name}: host must be a host name, got "${this.conn.host}"`);
    const connect = async () => {
      try {
        await client.connect({ host: m[1], ...(m[2] ? { port: Number(m[2]) } : {}), path: this.conn.httpPath, token: this.conn.token.reveal(), socketTimeout: opts.timeoutMs });
        return await client.openSession({ initialCatalog: this.conn.catalog ?? undefined, initialSchema: this.conn.schema ?? undefined });
      } catch (e) {
        throw fail(this.conn, e, 'could not connect');
      }
    };
    this.session = await withDeadline(connect, () => client.close().catch(() => undefined), opts, `databricks ${this.conn.name}`);
    return this.session;
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<QueryResult> {
    assertReadOnly(sql);
    const max = opts.maxRows ?? DEFAULT_MAX_ROWS;
    const t0 = performance.now();
    const session = await this.open(opts);
    let op: import('@databricks/sql/dist/contracts/IOperation').default | null = null;
    const read = async (): Promise<QueryResult> => {
      try {
        op = await session.executeStatement(sql, { runAsync: true, maxRows: Math.min(max + 1, 100_000) });
        const got: object[] = [];
        while (got.length <= max) {
          const chunk = await op.fetchChunk({ maxRows: Math.min(max + 1 - got.length, 100_000) });
          got.push(...chunk);
          if (!(await op.hasMoreRows())) break;
        }
        const capped = got.length > max;
        if (capped) await op.cancel().catch(() => undefined);
        await op.close().catch(() => undefined);
        const kept = got.slice(0, max) as Record<string, unknown>[];
        const columns = kept.length ? Object.keys(kept[0]).map((c) => c.toLowerCase()) : [];
        const rows = kept.map((r) => Object.values(r).map(cellText));
        return { columns, rows, capped, bytes: textBytes(columns, rows), queryId: op.id, ms: performance.now() - t0 };
      } catch (e) {
        throw fail(this.conn, e, 'the query failed');
      }
    };
    return withDeadline(read, async () => { await op?.cancel().catch(() => undefined); }, opts, `databricks ${this.conn.name}`);
  }

  async close(): Promise<void> {
    await this.session?.close().catch(() => undefined);
    await this.client?.close().catch(() => undefined);
    this.session = null;
    this.client = null;
  }
}

// ---- Snowflake ----

type SnowflakeSdk = typeof import('snowflake-sdk');

export class SnowflakeConnector extends RemoteConnector {
  declare protected readonly conn: SnowflakeConnection;
  private connection: import('snowflake-sdk').Connection | null = null;

  private async open(opts: QueryOptions): Promise<import('snowflake-sdk').Connection> {
    if (this.connection) return this.connection;
    const sdk = (await import('snowflake-sdk')) as SnowflakeSdk & { default?: SnowflakeSdk };
    const sf = sdk.default ?? sdk;
    // The driver logs nothing (its lines may carry connection details).
    sf.configure({ logLevel: 'OFF' });
    const c = this.conn;
    const connection = sf.createConnection({
      account: c.account, username: c.user,
      ...(c.password ? { password: c.password.reveal() } : {}),
      ...(c.token ? { token: c.token.reveal(), authenticator: c.authenticator ?? 'OAUTH' } : c.authenticator ? { authenticator: c.authenticator } : {}),
      ...(c.warehouse ? { warehouse: c.warehouse } : {}), ...(c.database ? { database: c.database } : {}),
      ...(c.schema ? { schema: c.schema } : {}), ...(c.role ? { role: c.role } : {}),
      ...(c.accessUrl ? { accessUrl: c.accessUrl } : {}),
      application: 'lakerec',
    });
    const connect = () => new Promise<import('snowflake-sdk').Connection>((res, rej) => {
      connection.connect((err) => (err ? rej(fail(this.conn, err, 'could not connect')) : res(connection)));
    });
    this.connection = await withDeadline(connect, () => connection.destroy(() => undefined), opts, `snowflake ${c.name}`);
    return this.connection;
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<QueryResult> {
    assertReadOnly(sql);
    const max = opts.maxRows ?? DEFAULT_MAX_ROWS;
    const t0 = performance.now();
    const connection = await this.open(opts);
    let statement: import('snowflake-sdk').RowStatement | null = null;
    const read = () => new Promise<QueryResult>((res, rej) => {
      const rows: (string | null)[][] = [];
      let columns: string[] = [];
      let capped = false;
      statement = connection.execute({
        sqlText: sql, streamResult: true, fetchAsString: ['Number', 'Date', 'JSON', 'Boolean'],
        complete: (err, st) => {
          if (err) { rej(fail(this.conn, err, 'the query failed')); return; }
          columns = (st.getColumns() ?? []).map((col) => col.getName().toLowerCase());
          const stream = st.streamRows();
          stream.on('data', (r: Record<string, unknown>) => {
            if (rows.length >= max) { capped = true; stream.destroy(); st.cancel(() => undefined); return; }
            rows.push(columns.map((_, i) => cellText(Object.values(r)[i])));
          });
          const done = () => res({ columns, rows, capped, bytes: textBytes(columns, rows), queryId: st.getQueryId() ?? null, ms: performance.now() - t0 });
          stream.on('end', done);
          stream.on('close', done);
          stream.on('error', (e: Error) => rej(fail(this.conn, e, 'reading the result failed')));
        },
      });
    });
    return withDeadline(read, () => { statement?.cancel(() => undefined); }, opts, `snowflake ${this.conn.name}`);
  }

  async close(): Promise<void> {
    const c = this.connection;
    this.connection = null;
    if (c) await new Promise<void>((res) => c.destroy(() => res()));
  }
}

/** The connector of a remote connection (DuckDB connections are opened over a table's files instead). */
export function remoteConnector(c: WarehouseConnection): Connector {
  switch (c.kind) {
    case 'trino': return new TrinoConnector(c);
    case 'databricks': return new DatabricksConnector(c);
    case 'snowflake': return new SnowflakeConnector(c);
    case 'duckdb': throw new LakerecError('internal', 'a duckdb connection is opened over a table (DuckdbConnector.open)');
  }
}
