// Row digests through the product's own code (canonical.ts builds the canonical text and the md5
// halves, checksum.ts combines them): the experiments measure what the reconcile pass computes.
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlIdent } from '../engine/duck';
import { rowDigestHalves, type CanonicalColumn } from '../reconcile/canonical';
import { combineHalves, toHex128 } from '../reconcile/checksum';

export async function describeColumns(conn: DuckDBConnection, view: string): Promise<CanonicalColumn[]> {
  const r = await conn.runAndReadAll(`DESCRIBE ${sqlIdent(view)}`);
  return r.getRowObjectsJS().map((x) => ({ name: String(x.column_name), type: String(x.column_type) }));
}

/** SQL of (h1, h2, plus the extra columns asked for) per row of `fromSql`, the md5 digest as reconcile makes it. */
export function digestRowsSql(fromSql: string, columns: CanonicalColumn[], naiveIsUtc: boolean, keep: string[] = []): string {
  const d = rowDigestHalves(columns, naiveIsUtc, 'md5');
  const extra = keep.map((k) => `, ${sqlIdent(k)}`).join('');
  return `SELECT ${d.h1} AS h1, ${d.h2} AS h2${extra} FROM (SELECT ${d.inner} AS _lk_d${extra} FROM (${fromSql}) _lk_src) _lk_in`;
}

export interface Combined {
  rows: number;
  sum: string;
  xor: string;
}

/** The sum mod 2^128 (the product's combiner) and the XOR of the same per-row digests. */
export async function combine(conn: DuckDBConnection, digestSql: string): Promise<Combined> {
  const r = await conn.runAndReadAll(`SELECT count(*)::VARCHAR AS n, coalesce(sum(h1::HUGEINT), 0)::VARCHAR AS hs, coalesce(sum(h2::HUGEINT), 0)::VARCHAR AS ls,
    coalesce(bit_xor(h1), 0)::VARCHAR AS hx, coalesce(bit_xor(h2), 0)::VARCHAR AS lx FROM (${digestSql}) _lk_d`);
  const x = r.getRowObjectsJS()[0];
  const xor = (BigInt(String(x.hx)) << 64n) | BigInt(String(x.lx));
  return { rows: Number(x.n), sum: toHex128(combineHalves(String(x.hs), String(x.ls))), xor: toHex128(xor) };
}
