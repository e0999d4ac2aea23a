// DuckDB's own parser as the one way lineage reads SQL: json_serialize_sql gives the statement's
// syntax tree, json_deserialize_sql writes a (rewritten) tree back as SQL. Nothing here looks at
// SQL text by pattern; the guard decides from the tree whether a model may run.
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../engine/duck';

/** A node of DuckDB's serialized syntax tree (objects and arrays of JSON values). */
export type Node = { [k: string]: unknown };

export function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
export function nodes(v: unknown): Node[] {
  return Array.isArray(v) ? v.filter(isNode) : [];
}
export function str(n: Node, k: string): string {
  const v = n[k];
  return typeof v === 'string' ? v : '';
}
export function child(n: Node, k: string): Node | null {
  const v = n[k];
  return isNode(v) ? v : null;
}

export type Parsed =
  | { ok: true; statement: Node }
  | { ok: false; reason: string };

/**
 * Parses a model's SQL into one SELECT statement's tree, or says why it is not one read-only
 * query: more than one statement, a statement other than SELECT (DDL, DML, COPY, ATTACH, SET,
 * CREATE TABLE AS), or SQL DuckDB cannot parse.
 */
export async function parseQuery(conn: DuckDBConnection, sql: string): Promise<Parsed> {
  let count: number;
  try {
    count = (await conn.extractStatements(sql)).count;
  } catch (e) {
    return { ok: false, reason: `DuckDB cannot parse it: ${firstLine(e)}` };
  }
  if (count === 0) return { ok: false, reason: 'it holds no SQL statement' };
  if (count > 1) return { ok: false, reason: `it holds ${count} statements; only a model that is one read-only query runs` };
  const r = await conn.runAndReadAll(`SELECT json_serialize_sql(${sqlString(sql)})`);
  const tree = JSON.parse(String(r.getRows()[0][0])) as Node;
  if (tree.error === true) {
    const msg = str(tree, 'error_message');
    if (/Only SELECT statements/i.test(msg)) {
      return { ok: false, reason: 'it is not a query: DuckDB parses it as a statement other than SELECT (DDL, DML, COPY, ATTACH, SET or the like)' };
    }
    return { ok: false, reason: `DuckDB cannot parse it: ${msg.split('\n')[0]}` };
  }
  const st = nodes(tree.statements)[0];
  if (!st) return { ok: false, reason: 'it holds no SQL statement' };
  return { ok: true, statement: st };
}

/** Writes a statement's tree back as SQL through DuckDB. */
export async function deparse(conn: DuckDBConnection, statement: Node): Promise<string> {
  // Source positions are 64-bit (2^64-1 for "none"), past what a JS number holds exactly; the
  // deserializer does not need them.
  const doc = JSON.stringify({ error: false, statements: [statement] }, (k, v: unknown) => (k === 'query_location' ? undefined : v));
  const r = await conn.runAndReadAll(`SELECT json_deserialize_sql(${sqlString(doc)}::JSON)`);
  return String(r.getRows()[0][0]);
}

/** Every BASE_TABLE node of a tree (a FROM item naming a table or a CTE). */
export function baseTables(tree: unknown, out: Node[] = []): Node[] {
  if (Array.isArray(tree)) for (const v of tree) baseTables(v, out);
  else if (isNode(tree)) {
    if (tree.type === 'BASE_TABLE' && typeof tree.table_name === 'string') out.push(tree);
    for (const v of Object.values(tree)) if (typeof v === 'object' && v !== null) baseTables(v, out);
  }
  return out;
}

/** The names every CTE of a tree defines (lower case). */
export function cteNames(tree: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(tree)) for (const v of tree) cteNames(v, out);
  else if (isNode(tree)) {
    const map = child(tree, 'cte_map');
    if (map) for (const e of nodes(map.map)) if (typeof e.key === 'string') out.add(e.key.toLowerCase());
    for (const v of Object.values(tree)) if (typeof v === 'object' && v !== null) cteNames(v, out);
  }
  return out;
}

/** Table functions a model may call: they read no file and no other database. */
const PURE_TABLE_FUNCTIONS = new Set(['range', 'generate_series', 'unnest']);

/**
 * Why a parsed query may not run read-only, or null: a table function that reads files or other
 * databases (read_csv, read_parquet, glob, query_table, a scanner of another catalog...).
 */
export function guardQuery(tree: unknown): string | null {
  if (Array.isArray(tree)) {
    for (const v of tree) { const r = guardQuery(v); if (r) return r; }
    return null;
  }
  if (!isNode(tree)) return null;
  if (tree.type === 'TABLE_FUNCTION') {
    const fn = child(tree, 'function');
    const name = fn ? str(fn, 'function_name').toLowerCase() : '';
    if (!PURE_TABLE_FUNCTIONS.has(name)) return `it calls the table function ${name || '(unnamed)'}(), which may read files or other databases`;
  }
  for (const v of Object.values(tree)) {
    if (typeof v === 'object' && v !== null) { const r = guardQuery(v); if (r) return r; }
  }
  return null;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0].trim();
}
