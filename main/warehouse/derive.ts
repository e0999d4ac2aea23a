// A contract's partition expression, for a warehouse side that lacks the partition column: the
// expression is parsed and checked once by DuckDB's parser (main/engine/expression.ts), and the
// checked tree (never the user's text) is rendered in each dialect. Timestamps are carried as
// exact UTC epoch microseconds, the figure every dialect's canonical text already computes, so a
// day is an exact floor division by 86,400,000,000 in integer arithmetic, the same in every engine.
// Only a small part of the allow-listed grammar has a translation; the rest is refused by name.
import { LakerecError } from '../../shared/errors';
import { openDuck } from '../engine/duck';
import { checkScalarExpression } from '../engine/expression';
import { compareFamily } from '../reconcile/canonical';
import type { Contract } from '../reconcile/contract';
import { DIALECT_SQL, trinoMicros, type Dialect, type WarehouseColumn } from './dialect';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A translated value: its SQL and what it holds ('timestamp': exact UTC epoch microseconds). */
interface Value { sql: string; type: 'timestamp' | 'date' | 'string' | 'integer' }

/** What has a translation: said in every refusal. */
const TRANSLATED = "column names, text and integer constants, timezone('UTC', ..) and AT TIME ZONE 'UTC', casts to DATE and VARCHAR";

const DAY_US = '86400000000';

/** Exact UTC epoch microseconds of a timestamp column (an instant, or a wall clock read as UTC). */
function micros(x: string, naive: boolean, dialect: Dialect): string {
  switch (dialect) {
    case 'duckdb': return `epoch_us(${x})`;
    case 'spark': return naive ? `timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', ${x})` : `unix_micros(${x})`;
    case 'snowflake': return `DATE_PART(EPOCH_MICROSECOND, ${x})`;
    case 'trino': return trinoMicros(naive ? `CAST(${x} AS TIMESTAMP(6))` : `CAST(${x} AT TIME ZONE 'UTC' AS TIMESTAMP(6))`);
  }
}

/** The UTC date of epoch microseconds `m`: days by exact floor division (integer arithmetic only). */
function dateOfMicros(m: string, dialect: Dialect): string {
  switch (dialect) {
    // DuckDB's `/` is a double division; `//` on an exact multiple is exact.
    case 'duckdb': return `(DATE '1970-01-01' + CAST((${m} - (((${m}) % ${DAY_US}) + ${DAY_US}) % ${DAY_US}) // ${DAY_US} AS INTEGER))`;
    // Spark's `/` is a double division; pmod is never negative and `div` is exact on a multiple.
    case 'spark': return `date_from_unix_date(CAST((${m} - pmod(${m}, ${DAY_US})) div ${DAY_US} AS INT))`;
    case 'snowflake': return `DATEADD(day, CAST((${m} - MOD(MOD(${m}, ${DAY_US}) + ${DAY_US}, ${DAY_US})) / ${DAY_US} AS INTEGER), '1970-01-01'::DATE)`;
    // Trino's `/` on BIGINT is an integer division, exact on a multiple.
    case 'trino': return `date_add('day', (${m} - mod(mod(${m}, ${DAY_US}) + ${DAY_US}, ${DAY_US})) / ${DAY_US}, DATE '1970-01-01')`;
  }
}

function refuse(what: string, dialect: Dialect): never {
  throw new LakerecError('contract_mismatch', `partition expression: ${what} has no ${dialect} translation (translated: ${TRANSLATED}); push a view that has the partition column, or reconcile this side locally`);
}

function render(node: Node, dialect: Dialect, columns: WarehouseColumn[]): Value {
  const d = DIALECT_SQL[dialect];
  const cls = String(node.class ?? '');
  if (cls === 'COLUMN_REF') {
    const name = Array.isArray(node.column_names) ? String(node.column_names[0]) : '';
    const col = columns.find((c) => c.name === name);
    if (!col) throw new LakerecError('contract_mismatch', `partition expression: unknown column "${name}"`);
    const x = d.ident(col.name);
    const fam = compareFamily(col.type, false);
    if (fam === 'timestamp' || fam === 'timestamp_naive') return { sql: micros(x, fam === 'timestamp_naive', dialect), type: 'timestamp' };
    if (fam === 'date' || fam === 'string' || fam === 'integer') return { sql: x, type: fam };
    return refuse(`column "${name}" (${col.type})`, dialect);
  }
  if (cls === 'CONSTANT') {
    const v = isNode(node.value) ? node.value : {};
    const id = isNode(v.type) ? String(v.type.id) : '';
    if (v.is_null === true) return refuse('a NULL constant', dialect);
    if (id === 'VARCHAR') return { sql: d.str(String(v.value)), type: 'string' };
    if (/^(TINYINT|SMALLINT|INTEGER|BIGINT)$/.test(id) && /^-?\d+$/.test(String(v.value))) return { sql: String(v.value), type: 'integer' };
    return refuse(`a ${id.toLowerCase() || 'typed'} constant`, dialect);
  }
  if (cls === 'FUNCTION') {
    const name = String(node.function_name ?? '').toLowerCase();
    const args = Array.isArray(node.children) ? node.children.filter(isNode) : [];
    if (name === 'timezone' && args.length === 2) {
      const zone = args[0];
      const zv = isNode(zone.value) ? zone.value : {};
      if (zone.class !== 'CONSTANT' || String(zv.value).toUpperCase() !== 'UTC') return refuse('timezone() with a zone other than the constant \'UTC\'', dialect);
      const x = render(args[1], dialect, columns);
      if (x.type !== 'timestamp') return refuse(`timezone('UTC', ..) of a ${x.type}`, dialect);
      // Both directions (instant to UTC wall clock, UTC wall clock to instant) keep the UTC epoch microseconds.
      return x;
    }
    return refuse(`function ${name}()`, dialect);
  }
  if (cls === 'CAST') {
    const to = isNode(node.cast_type) ? String(node.cast_type.id) : '';
    if (node.try_cast === true) return refuse('TRY_CAST', dialect);
    const x = render(isNode(node.child) ? node.child : {}, dialect, columns);
    if (to === 'DATE') {
      if (x.type === 'timestamp') return { sql: dateOfMicros(x.sql, dialect), type: 'date' };
      if (x.type === 'date') return x;
    }
    if (to === 'VARCHAR') {
      if (x.type === 'string') return x;
      if (x.type === 'date' || x.type === 'integer') return { sql: d.valueText(x.sql, x.type, 0), type: 'string' };
    }
    return refuse(`a cast of a ${x.type} to ${to || 'an unnamed type'}`, dialect);
  }
  return refuse(cls ? cls.toLowerCase().replace(/_/g, ' ') : 'this construct', dialect);
}

const DUCK_TYPE: Record<Value['type'], string> = { date: 'DATE', string: 'VARCHAR', integer: 'BIGINT', timestamp: '' };

/** The checked tree rendered in `dialect`: the SQL of the partition value and its DuckDB type. */
export function translatePartitionTree(tree: Node, dialect: Dialect, columns: WarehouseColumn[]): { sql: string; type: string } {
  const v = render(tree, dialect, columns);
  if (v.type === 'timestamp') return refuse('a timestamp partition value (write a cast to DATE)', dialect);
  return { sql: v.sql, type: DUCK_TYPE[v.type] };
}

/** Parses and checks the expression with DuckDB's parser (the local engine's rule), returning the checked tree. */
export async function checkedPartitionTree(expression: string, columns: string[]): Promise<Node> {
  const duck = await openDuck({ threads: 1 });
  try {
    const checked = await checkScalarExpression(duck.conn, expression, columns);
    if (!checked.ok) throw new LakerecError('contract_mismatch', `partition expression refused: ${checked.problem}`);
    return checked.tree;
  } finally {
    duck.close();
  }
}

/**
 * A side that lacks the contract's partition column, with the column derived in its own dialect:
 * the relation wrapped as `(SELECT *, <translated> AS column FROM relation)`, and the column added
 * with its DuckDB type (it is compared and digested as the local engine's derived column is).
 * A side that has the column, or a contract without an expression, is returned as it was.
 */
export async function derivePartitionSide(side: { dialect: Dialect; relation: string; columns: WarehouseColumn[] }, contract: Contract, isSource: boolean): Promise<{ relation: string; columns: WarehouseColumn[] }> {
  const part = contract.partitioning;
  if (!part?.expression) return side;
  const own = isSource ? Object.entries(contract.renames).find(([, t]) => t === part.column)?.[0] ?? part.column : part.column;
  if (side.columns.some((c) => c.name === own)) return side;
  const tree = await checkedPartitionTree(part.expression, side.columns.map((c) => c.name));
  const t = translatePartitionTree(tree, side.dialect, side.columns);
  const d = DIALECT_SQL[side.dialect];
  return { relation: `(SELECT *, ${t.sql} AS ${d.ident(own)} FROM ${side.relation}) lakerec_derived`, columns: [...side.columns, { name: own, type: t.type }] };
}
