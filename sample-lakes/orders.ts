// The one clean orders table every scenario starts from: six daily partitions of orders, made by a
// seeded generator so the same seed always gives the same rows. Loaded into a DuckDB temp table
// that the scenarios cut batches from.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { StructType } from '../shared/delta';

export const DAYS = ['2026-08-10', '2026-08-11', '2026-08-12', '2026-08-13', '2026-08-14', '2026-08-15'] as const;

/** Product names; some are non-ASCII, and some of those (é, ñ, ü, Å) have a different NFD form. */
export const SKUS = [
  'Café crème', 'Jalapeño salsa', 'Crème brûlée', 'Zürich Müsli', 'Ångström lamp', 'naïve tea',
  'Smørrebrød', 'Straße-Karte', '日本茶 sencha', 'plain widget', 'gadget-42', 'Ærøskøbing map',
] as const;

export function ordersSchema(opts: { orderIdNotNull?: boolean } = {}): StructType {
  const f = (name: string, type: string, nullable = true): StructType['fields'][number] => ({ name, type, nullable, metadata: {} });
  return {
    type: 'struct',
    fields: [
      f('order_id', 'long', !(opts.orderIdNotNull ?? true)),
      f('customer_id', 'long'),
      f('amount', 'decimal(12,2)'),
      f('amount_float', 'double'),
      f('sku', 'string'),
      f('ts', 'timestamp'),
      f('updated_at', 'timestamp'),
      f('dt', 'date'),
    ],
  };
}

/** The column list in table order (for SELECTs that must match the schema exactly). */
export const ORDER_COLUMNS = 'order_id, customer_id, amount, amount_float, sku, ts, updated_at, dt';

/** mulberry32: a small, well-mixed 32-bit PRNG; deterministic across platforms. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface OrderRow {
  order_id: number;
  customer_id: number;
  /** Decimal text with two places. */
  amount: string;
  amount_float: number;
  sku: string;
  /** ms since epoch (UTC). */
  ts: number;
  updated_at: number;
  dt: string;
}

/**
 * Generates `perDay` orders for each day, ids from `firstId` upwards. amount_float holds the same
 * money as amount, as a double (the column float drift recomputes).
 */
export function generateOrders(seed: number, perDay: number, days: readonly string[] = DAYS, firstId = 100_001): OrderRow[] {
  const r = rng(seed);
  const out: OrderRow[] = [];
  let id = firstId;
  for (const day of days) {
    const dayStart = Date.parse(`${day}T00:00:00Z`);
    for (let i = 0; i < perDay; i++) {
      const cents = 100 + Math.floor(r() * 50_000);
      const ts = dayStart + Math.floor(r() * 86_400_000);
      out.push({
        order_id: id++,
        customer_id: 1 + Math.floor(r() * 500),
        amount: (cents / 100).toFixed(2),
        amount_float: cents / 100,
        sku: SKUS[Math.floor(r() * SKUS.length)],
        ts,
        updated_at: ts + Math.floor(r() * 3_600_000),
        dt: day,
      });
    }
  }
  return out;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '+00');
}

/** Loads rows into a typed DuckDB temp table (through the appender: no SQL text per row). */
export async function loadOrders(conn: DuckDBConnection, table: string, rows: OrderRow[]): Promise<void> {
  const raw = `${table}_raw`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${raw} (order_id BIGINT, customer_id BIGINT, amount VARCHAR, amount_float DOUBLE, sku VARCHAR, ts VARCHAR, updated_at VARCHAR, dt VARCHAR)`);
  const app = await conn.createAppender(raw);
  for (const o of rows) {
    app.appendBigInt(BigInt(o.order_id));
    app.appendBigInt(BigInt(o.customer_id));
    app.appendVarchar(o.amount);
    app.appendDouble(o.amount_float);
    app.appendVarchar(o.sku);
    app.appendVarchar(iso(o.ts));
    app.appendVarchar(iso(o.updated_at));
    app.appendVarchar(o.dt);
    app.endRow();
  }
  app.flushSync();
  app.closeSync();
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${table} AS SELECT order_id, customer_id, CAST(amount AS DECIMAL(12,2)) AS amount,
    amount_float, sku, CAST(ts AS TIMESTAMPTZ) AS ts, CAST(updated_at AS TIMESTAMPTZ) AS updated_at, CAST(dt AS DATE) AS dt
    FROM ${raw} ORDER BY order_id`);
  await conn.run(`DROP TABLE ${raw}`);
}
