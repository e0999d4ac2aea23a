// The Data tab's SQL WHERE box. The text is hostile: it is parsed by DuckDB's own parser
// (json_serialize_sql), and only a single boolean expression over the snapshot's columns and an
// allow-list of scalar functions passes. No table functions (read_csv, read_parquet, glob, ...),
// no subqueries, no parameters, no second statement. What runs is DuckDB's own rendering of the
// tree that was checked (json_deserialize_sql), never the user's text; and the connection that
// runs it has file access locked to the table's folder (rows.ts), a second wall behind this one.
import type { DuckDBConnection } from '@duckdb/node-api';
import { LakerecError } from '../../shared/errors';
import { sqlIdent, sqlString } from '../engine/duck';
import { pushTo } from '../../shared/group';
import { stringSizeProblem } from '../engine/string-size';

export const MAX_WHERE_CHARS = 4000;

/** Scalar functions a filter may call (lower-case). Operators (`+`, `~~` for LIKE, ...) are listed too. */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set([
  // operators as the parser names them
  '+', '-', '*', '/', '//', '%', '^', '**', '||', '&', '|', '<<', '>>', '~', '!',
  '~~', '!~~', '~~*', '!~~*', '~~~', '!~~~', '^@', 'glob_pattern_never',
  // strings
  'lower', 'upper', 'lcase', 'ucase', 'length', 'len', 'strlen', 'char_length', 'character_length',
  'trim', 'ltrim', 'rtrim', 'substr', 'substring', 'left', 'right', 'lpad', 'rpad', 'replace',
  'concat', 'concat_ws', 'starts_with', 'ends_with', 'suffix', 'prefix', 'contains', 'strpos',
  'instr', 'position', 'reverse', 'repeat', 'split_part', 'like_escape', 'ilike_escape',
  'regexp_matches', 'regexp_full_match', 'regexp_extract', 'regexp_replace', 'md5', 'sha256', 'hash',
  'levenshtein', 'jaro_winkler_similarity', 'ascii', 'chr', 'format', 'printf', 'to_hex',
  // numbers
  'abs', 'round', 'floor', 'ceil', 'ceiling', 'sign', 'trunc', 'mod', 'greatest', 'least',
  'sqrt', 'ln', 'log', 'log10', 'log2', 'exp', 'pow', 'power', 'isnan', 'isinf', 'isfinite',
  // nulls and types
  'coalesce', 'ifnull', 'nullif', 'typeof', 'try_cast',
  // dates and times
  'year', 'month', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'quarter',
  'week', 'weekofyear', 'dayofweek', 'dayofmonth', 'dayofyear', 'isodow', 'yearweek', 'era',
  'date_trunc', 'datetrunc', 'date_part', 'datepart', 'date_diff', 'datediff', 'date_sub', 'datesub',
  'date_add', 'epoch', 'epoch_ms', 'epoch_us', 'strftime', 'strptime', 'make_date', 'make_timestamp',
  'to_timestamp', 'current_date', 'today', 'now', 'current_timestamp', 'get_current_timestamp',
  'last_day', 'dayname', 'monthname', 'age',
  // nested values
  'list_contains', 'list_has', 'array_contains', 'array_has', 'list_extract', 'array_extract',
  'list_element', 'element_at', 'struct_extract', 'array_length', 'cardinality', 'map_extract',
  'list_position', 'array_position', 'map_keys', 'map_values',
]);

/** Expression node classes of DuckDB's serialised parse tree a filter may contain. */
const ALLOWED_CLASSES: ReadonlySet<string> = new Set([
  'COLUMN_REF', 'CONSTANT', 'COMPARISON', 'CONJUNCTION', 'OPERATOR', 'BETWEEN', 'CAST', 'CASE', 'FUNCTION', 'COLLATE',
]);

const CLASS_WORDS: Record<string, string> = {
  SUBQUERY: 'a subquery', STAR: 'a * (all columns)', LAMBDA: 'a lambda', PARAMETER: 'a parameter ($1 or ?)',
  WINDOW: 'a window function', DEFAULT: 'DEFAULT', POSITIONAL_REFERENCE: 'a positional reference (#1)',
  COLUMNS: 'a COLUMNS(...) expression', LAMBDA_REF: 'a lambda', TABLE_STAR: 'a * (all columns)',
};

export interface WhereColumns {
  /** Logical column names a filter may reference. */
  names: readonly string[];
  /** Columns a filter may not reference (confidential: a filter could probe their values). */
  forbidden?: ReadonlySet<string>;
}

export interface CheckedWhere {
  /** The query to run: DuckDB's rendering of the checked tree, `SELECT * FROM <view> WHERE (...)`. */
  sql: string;
  /** Columns the filter references (logical names). */
  columns: string[];
}

function refuse(message: string): LakerecError {
  return new LakerecError('usage', message, { field: 'where' });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Checks a WHERE expression for a snapshot view and returns the SELECT to run. Throws a `usage`
 * LakerecError (detail `field: 'where'`) naming what is wrong: a parse error, a second statement,
 * an unknown column, a function not on the list, a subquery, ...
 */
export async function checkWhere(conn: DuckDBConnection, text: string, view: string, cols: WhereColumns): Promise<CheckedWhere> {
  const expr = text.trim();
  if (expr === '') throw refuse('The filter is empty.');
  if (expr.length > MAX_WHERE_CHARS) throw refuse(`The filter is longer than ${MAX_WHERE_CHARS} characters.`);
  if (expr.includes(';')) throw refuse('The filter is one expression: a ";" (a second statement) is not allowed.');
  if (expr.includes('\0')) throw refuse('The filter contains a NUL character.');
  // Newlines around the text: a trailing `--` comment cannot swallow the closing parenthesis.
  const probe = `SELECT * FROM ${sqlIdent(view)} WHERE (\n${expr}\n)`;
  let tree: unknown;
  try {
    const r = await conn.runAndReadAll(`SELECT CAST(json_serialize_sql(${sqlString(probe)}) AS VARCHAR) AS j`);
    tree = JSON.parse(String(r.getRows()[0][0]));
  } catch (e) {
    throw refuse(`The filter could not be checked: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObject(tree)) throw refuse('The filter could not be parsed.');
  if (tree.error === true) {
    const msg = typeof tree.error_message === 'string' ? tree.error_message : 'syntax error';
    throw refuse(`The filter does not parse: ${msg.replace(/^Parser Error: /, '').split('\n')[0]}`);
  }
  const emptyList = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
  const statements = tree.statements;
  if (!Array.isArray(statements) || statements.length !== 1) throw refuse('The filter is one expression, not several statements.');
  const stmt = statements[0] as Record<string, unknown>;
  const node = stmt.node as Record<string, unknown> | undefined;
  if (!isObject(node) || node.type !== 'SELECT_NODE') throw refuse('The filter is one boolean expression (as after WHERE).');
  if (!emptyList(stmt.named_param_map)) throw refuse('The filter may not contain a parameter ($1 or ?): write the value itself.');
  const from = node.from_table as Record<string, unknown> | undefined;
  const cteEmpty = isObject(node.cte_map) ? emptyList((node.cte_map as Record<string, unknown>).map) : node.cte_map === undefined;
  const shapeOk = isObject(from) && from.type === 'BASE_TABLE' && from.table_name === view && from.schema_name === '' && from.catalog_name === '' && from.at_clause === null
    && Array.isArray(node.select_list) && node.select_list.length === 1 && isObject(node.select_list[0]) && (node.select_list[0] as Record<string, unknown>).class === 'STAR'
    && emptyList(node.modifiers) && cteEmpty && emptyList(node.group_expressions) && emptyList(node.group_sets)
    && (node.having ?? null) === null && (node.qualify ?? null) === null && (node.sample ?? null) === null
    && emptyList(stmt.named_param_map) && isObject(node.where_clause);
  if (!shapeOk) throw refuse('The filter is one boolean expression (as after WHERE): it cannot close the parenthesis or add clauses (ORDER BY, LIMIT, UNION, ...).');

  const byLower = new Map<string, string[]>();
  for (const n of cols.names) pushTo(byLower, n.toLowerCase(), n);
  const referenced = new Set<string>();

  const visit = (v: unknown, depth: number): void => {
    if (depth > 200) throw refuse('The filter is nested too deeply.');
    if (Array.isArray(v)) {
      for (const x of v) visit(x, depth + 1);
      return;
    }
    if (!isObject(v)) return;
    const cls = v.class;
    if (typeof cls === 'string') {
      if (!ALLOWED_CLASSES.has(cls)) throw refuse(`The filter may not contain ${CLASS_WORDS[cls] ?? cls.toLowerCase().replace(/_/g, ' ')}.`);
      if (cls === 'COLUMN_REF') {
        const names = v.column_names;
        if (!Array.isArray(names) || names.length !== 1 || typeof names[0] !== 'string') {
          throw refuse(`The filter names "${Array.isArray(names) ? names.join('.') : '?'}": refer to a column by its name alone (struct fields with struct_extract).`);
        }
        const name = names[0];
        const exact = cols.names.includes(name) ? name : null;
        const ci = byLower.get(name.toLowerCase());
        const col = exact ?? (ci && ci.length === 1 ? ci[0] : null);
        if (col === null) throw refuse(`The filter names column "${name}", which this version does not have.`);
        if (cols.forbidden?.has(col)) throw refuse(`Column "${col}" is confidential: its values cannot be filtered on (a filter could reveal them).`);
        referenced.add(col);
      }
      if (cls === 'FUNCTION') {
        const fn = typeof v.function_name === 'string' ? v.function_name.toLowerCase() : '';
        if ((v.schema ?? '') !== '' || (v.catalog ?? '') !== '') throw refuse(`The filter may not call a qualified function (${String(v.schema)}.${fn}).`);
        if (!ALLOWED_FUNCTIONS.has(fn)) {
          throw refuse(`The filter may not call ${fn}(): only scalar functions on the list are allowed (no table, file or aggregate functions).`);
        }
        if (v.distinct === true || (v.filter ?? null) !== null) throw refuse('The filter may not use aggregate modifiers (DISTINCT, FILTER).');
        const size = stringSizeProblem(fn, v.children);
        if (size !== null) throw refuse(`The filter may not make an unbounded string: ${size}.`);
        const ob = v.order_bys as Record<string, unknown> | undefined;
        if (isObject(ob) && Array.isArray(ob.orders) && ob.orders.length > 0) throw refuse('The filter may not use ORDER BY inside a function.');
      }
    } else if (typeof v.type === 'string' && /(_NODE|TABLE_FUNCTION|SUBQUERY|JOIN|BASE_TABLE)$/.test(v.type)) {
      // A query or table node outside a known expression: never part of a plain expression.
      throw refuse('The filter may not contain a query or a table.');
    }
    for (const [k, x] of Object.entries(v)) if (k !== 'class') visit(x, depth + 1);
  };
  visit(node.where_clause, 0);

  let sql: string;
  try {
    // Serialised again by DuckDB (JSON numbers like query_location do not survive JS): the same
    // text gives the same tree that was just checked.
    const r = await conn.runAndReadAll(`SELECT json_deserialize_sql(json_serialize_sql(${sqlString(probe)})) AS s`);
    sql = String(r.getRows()[0][0]);
  } catch (e) {
    throw refuse(`The filter could not be checked: ${(e as Error).message.split('\n')[0]}`);
  }
  return { sql, columns: [...referenced] };
}
