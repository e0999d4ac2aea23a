// A contract's partition expression is SQL someone else wrote. It is parsed by DuckDB's own parser
// (json_serialize_sql) as `SELECT <expr>`; only one statement with one select item, no FROM, and
// an expression tree of known columns, constants and allow-listed scalar functions is accepted.
// The SQL that runs is DuckDB's re-rendering of that tree (json_deserialize_sql), not the text, so
// comments or quoting tricks in the text cannot change what runs.
import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from './duck';
import { stringSizeProblem } from './string-size';

/** Scalar functions with no side effect and no file or setting access (DuckDB names, lower case). */
const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  // operators (DuckDB serialises them as functions)
  '+', '-', '*', '/', '//', '%', '||', '~~', '!~~', '~~*', '!~~*', '^', '**',
  // dates and times
  'strftime', 'strptime', 'try_strptime', 'date_trunc', 'datetrunc', 'date_part', 'datepart', 'extract', 'year', 'month', 'day',
  'hour', 'minute', 'second', 'dayofweek', 'dayofmonth', 'dayofyear', 'week', 'weekofyear', 'quarter', 'isodow', 'isoyear',
  'timezone', 'make_date', 'make_time', 'make_timestamp', 'make_timestamptz', 'epoch', 'epoch_ms', 'epoch_us', 'to_timestamp',
  'date_add', 'date_sub', 'date_diff', 'datediff', 'datesub', 'to_days', 'to_hours', 'to_minutes', 'to_seconds', 'to_months',
  'to_years', 'last_day', 'yearweek',
  // text
  'concat', 'concat_ws', 'substr', 'substring', 'left', 'right', 'lower', 'upper', 'lcase', 'ucase', 'trim', 'ltrim', 'rtrim',
  'lpad', 'rpad', 'replace', 'split_part', 'length', 'strlen', 'regexp_replace', 'regexp_extract', 'regexp_matches', 'starts_with',
  'ends_with', 'contains', 'prefix', 'suffix', 'format', 'printf', 'md5', 'hash',
  // numbers and nulls
  'coalesce', 'ifnull', 'nullif', 'abs', 'floor', 'ceil', 'ceiling', 'round', 'trunc', 'greatest', 'least', 'mod', 'sign',
]);

/** Node classes that may appear; anything else (SUBQUERY, STAR, LAMBDA, WINDOW, PARAMETER, ...) is refused. */
const ALLOWED_CLASSES: ReadonlySet<string> = new Set([
  'COLUMN_REF', 'CONSTANT', 'FUNCTION', 'CAST', 'OPERATOR', 'COMPARISON', 'CONJUNCTION', 'CASE', 'BETWEEN',
]);

const ALLOWED_OPERATORS: ReadonlySet<string> = new Set([
  'OPERATOR_COALESCE', 'OPERATOR_IS_NULL', 'OPERATOR_IS_NOT_NULL', 'OPERATOR_NOT', 'COMPARE_IN', 'COMPARE_NOT_IN', 'OPERATOR_NULLIF',
]);

/** On success: the SQL to run (DuckDB's rendering) and the checked tree itself, for a translation to another dialect. */
export type ExpressionCheck = { ok: true; sql: string; tree: Record<string, unknown> } | { ok: false; problem: string };

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkTree(node: Node, columns: ReadonlySet<string>, problems: string[]): void {
  const cls = String(node.class ?? '');
  if (!ALLOWED_CLASSES.has(cls)) {
    problems.push(cls === 'SUBQUERY' ? 'a subquery is not allowed' : `${cls.toLowerCase() || 'this construct'} is not allowed`);
    return;
  }
  if (cls === 'COLUMN_REF') {
    const names = Array.isArray(node.column_names) ? node.column_names.map(String) : [];
    if (names.length !== 1) problems.push(`column reference ${names.join('.')} is not a plain column name`);
    else if (!columns.has(names[0])) problems.push(`unknown column "${names[0]}"`);
    return;
  }
  if (cls === 'FUNCTION') {
    const name = String(node.function_name ?? '').toLowerCase();
    const schema = String(node.schema ?? '');
    if (!ALLOWED_FUNCTIONS.has(name) || (schema !== '' && schema !== 'main') || String(node.catalog ?? '') !== '') {
      problems.push(`function ${name || '?'}() is not allowed in a partition expression`);
      return;
    }
    if (node.filter !== null && node.filter !== undefined) problems.push('FILTER is not allowed');
    if (node.distinct === true) problems.push('DISTINCT is not allowed');
    const size = stringSizeProblem(name, node.children);
    if (size !== null) problems.push(size);
    const orders = isNode(node.order_bys) && Array.isArray(node.order_bys.orders) ? node.order_bys.orders : [];
    if (orders.length > 0) problems.push('ORDER BY is not allowed');
  }
  if (cls === 'OPERATOR' && !ALLOWED_OPERATORS.has(String(node.type))) {
    problems.push(`operator ${String(node.type).toLowerCase()} is not allowed`);
    return;
  }
  if (cls === 'CAST') {
    const t = isNode(node.cast_type) ? String(node.cast_type.id) : '';
    if (t === 'USER' || t === '') problems.push('a cast to a user-defined type is not allowed');
  }
  // Walk every child node, whatever field holds it (children, child, left, right, case_checks, ...).
  for (const [k, v] of Object.entries(node)) {
    if (k === 'cast_type' || k === 'value' || k === 'order_bys') continue;
    const items = Array.isArray(v) ? v : [v];
    for (const it of items) {
      if (!isNode(it)) continue;
      if (typeof it.class === 'string') checkTree(it, columns, problems);
      else for (const inner of Object.values(it)) if (isNode(inner) && typeof inner.class === 'string') checkTree(inner, columns, problems);
    }
  }
}

/**
 * Checks `expr` as one scalar SQL expression over `columns`; returns the SQL to run (DuckDB's own
 * rendering of the parsed tree) or the first problems found.
 */
export async function checkScalarExpression(conn: DuckDBConnection, expr: string, columns: Iterable<string>): Promise<ExpressionCheck> {
  if (expr.length > 4096) return { ok: false, problem: 'the expression is longer than 4096 characters' };
  if (expr.includes('\u0000')) return { ok: false, problem: 'the expression holds a NUL character' };
  let parsed: unknown;
  let json: string;
  try {
    const r = await conn.runAndReadAll(`SELECT json_serialize_sql(${sqlString('SELECT ' + expr)}) AS j`);
    json = String(r.getRowsJS()[0][0]);
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, problem: 'the expression could not be parsed' };
  }
  if (!isNode(parsed) || parsed.error === true) {
    const why = isNode(parsed) && typeof parsed.error_message === 'string' ? parsed.error_message.split('\n')[0] : 'it does not parse';
    return { ok: false, problem: `not a single SQL expression (${why})` };
  }
  const statements = Array.isArray(parsed.statements) ? parsed.statements : [];
  if (statements.length !== 1) return { ok: false, problem: 'one expression only: no ";" and no second statement' };
  const st = statements[0] as Node;
  const sel = isNode(st.node) ? st.node : {};
  const fromEmpty = isNode(sel.from_table) && sel.from_table.type === 'EMPTY';
  const cte = isNode(sel.cte_map) && Array.isArray(sel.cte_map.map) ? sel.cte_map.map.length : 0;
  const list = Array.isArray(sel.select_list) ? sel.select_list : [];
  const extras = sel.where_clause || sel.having || sel.qualify || sel.sample
    || (Array.isArray(sel.group_expressions) && sel.group_expressions.length > 0)
    || (Array.isArray(sel.modifiers) && sel.modifiers.length > 0) || cte > 0;
  if (sel.type !== 'SELECT_NODE' || !fromEmpty || extras || list.length !== 1 || !isNode(list[0])) {
    return { ok: false, problem: 'one scalar expression only (no FROM, WHERE, alias list or second column)' };
  }
  if (list[0].alias) return { ok: false, problem: 'an alias (AS ...) is not allowed' };
  const problems: string[] = [];
  checkTree(list[0], new Set(columns), problems);
  if (problems.length > 0) return { ok: false, problem: [...new Set(problems)].slice(0, 5).join('; ') };
  try {
    const r = await conn.runAndReadAll(`SELECT json_deserialize_sql(${sqlString(json)}) AS s`);
    const sql = String(r.getRowsJS()[0][0]);
    if (!sql.startsWith('SELECT ')) return { ok: false, problem: 'the expression could not be re-rendered' };
    return { ok: true, sql: sql.slice('SELECT '.length), tree: list[0] };
  } catch {
    return { ok: false, problem: 'the expression could not be re-rendered' };
  }
}
