// A commit's declared predicate (an overwrite's replaceWhere, a delete's predicate): the one parser
// and the one evaluator, shared by forensics (files a commit removed outside its predicate) and the
// reconcile counts level (did a commit's predicate cover a partition it removed). The predicate is
// SQL someone else wrote into the log: it runs only as DuckDB's re-rendering of a checked scalar
// expression over the named columns (main/engine/expression.ts), never as the text.
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlIdent, sqlString } from '../engine/duck';
import { checkScalarExpression } from '../engine/expression';

/**
 * The predicate as one SQL boolean, or null when the commit declared none. Spark writes a JSON
 * array of strings, every one of which must hold; delta-rs writes a string. Each part of an array
 * of several is parenthesised, so ["a OR b", "c"] is (a OR b) AND (c), never a OR (b AND c).
 */
export function declaredPredicate(params: Record<string, unknown> | undefined | null): string | null {
  if (!params) return null;
  const raw = params.predicate ?? params.replaceWhere;
  if (raw === undefined || raw === null || raw === '') return null;
  const all = (arr: unknown[]) => (arr.length === 0 ? null : arr.length === 1 ? String(arr[0]) : arr.map((p) => `(${String(p)})`).join(' AND '));
  if (Array.isArray(raw)) return all(raw);
  const s = String(raw);
  if (s.startsWith('[')) {
    try {
      const arr = JSON.parse(s) as unknown;
      if (Array.isArray(arr)) return all(arr);
    } catch { /* not JSON: use as written */ }
  }
  return s;
}

export interface PredicateColumn {
  name: string;
  /** DuckDB type the log's text values are read as (VARCHAR when unknown). */
  type: string;
}

/**
 * Whether `predicate` holds on each row of values (text, as partitionValues hold them; SQL NULL
 * counts as not holding). Null when it cannot be evaluated on these columns alone: it names
 * another column, or is not a plain scalar expression.
 */
export async function evaluatePredicate(conn: DuckDBConnection, predicate: string, columns: PredicateColumn[], rows: (string | null)[][]): Promise<boolean[] | null> {
  const checked = await checkScalarExpression(conn, predicate, columns.map((c) => c.name));
  if (!checked.ok) return null;
  if (rows.length === 0) return [];
  const values = rows.map((r, i) => `(${[String(i), ...columns.map((c, j) => {
    const v = r[j];
    return v === null || v === undefined ? `CAST(NULL AS ${c.type})` : `TRY_CAST(${sqlString(v)} AS ${c.type})`;
  })].join(', ')})`);
  const names = ['_lk_i', ...columns.map((c) => sqlIdent(c.name))].join(', ');
  try {
    const r = await conn.runAndReadAll(`SELECT _lk_i, coalesce((${checked.sql}), false) AS ok FROM (VALUES ${values.join(', ')}) t(${names}) ORDER BY _lk_i`);
    return r.getRowObjectsJS().map((x) => x.ok === true);
  } catch {
    return null;
  }
}
