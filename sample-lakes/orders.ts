// The one clean orders table every scenario starts from: six daily partitions of orders, made by a
// seeded generator (in DuckDB SQL) so the same seed always gives the same rows. Loaded into a
// DuckDB temp table that the scenarios cut batches from.
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

/** SQL for `n` pseudo-random bits of a row's md5: md5 is stable across platforms and DuckDB versions. */
function bits(from: number, hexDigits: number): string {
  return `('0x' || substr(h, ${from}, ${hexDigits}))::UBIGINT`;
}

/**
 * SQL generating `perDay` orders for each day, ids from `firstId` upwards; every value is derived
 * from md5(seed:order_id), so the same seed gives the same rows on any machine, at any size, and
 * DuckDB generates a million rows in well under a second. amount_float holds the same money as
 * amount, as a double (the column float drift recomputes).
 */
export function ordersSql(seed: number, perDay: number, days: readonly string[] = DAYS, firstId = 100_001): string {
  const dayRows = days.map((d, k) => `(${k}, DATE '${d}')`).join(', ');
  const skus = `[${SKUS.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ')}]`;
  return `SELECT order_id,
      CAST(1 + ${bits(17, 4)} % 500 AS BIGINT) AS customer_id,
      CAST(CAST(100 + ${bits(1, 8)} % 50000 AS DECIMAL(18,0)) * 0.01 AS DECIMAL(12,2)) AS amount,
      CAST(100 + ${bits(1, 8)} % 50000 AS DOUBLE) / 100 AS amount_float,
      ${skus}[1 + CAST(${bits(21, 4)} % ${SKUS.length} AS INTEGER)] AS sku,
      timezone('UTC', make_timestamp(epoch_us(CAST(day AS TIMESTAMP)) + 1000 * CAST(${bits(9, 8)} % 86400000 AS BIGINT))) AS ts,
      timezone('UTC', make_timestamp(epoch_us(CAST(day AS TIMESTAMP)) + 1000 * CAST(${bits(9, 8)} % 86400000 + ${bits(25, 8)} % 3600000 AS BIGINT))) AS updated_at,
      day AS dt
    FROM (
      SELECT CAST(${firstId} + k * ${perDay} + r AS BIGINT) AS order_id, day, md5('${seed}:' || (${firstId} + k * ${perDay} + r)) AS h
      FROM range(${perDay}) t(r) CROSS JOIN (VALUES ${dayRows}) d(k, day)
    )
    ORDER BY order_id`;
}

/** Generates orders into a DuckDB temp table. */
export async function loadOrders(conn: DuckDBConnection, table: string, seed: number, perDay: number, days: readonly string[] = DAYS, firstId = 100_001): Promise<void> {
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${table} AS ${ordersSql(seed, perDay, days, firstId)}`);
}
