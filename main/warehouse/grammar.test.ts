// Every statement of every level, in every dialect, parsed by a real grammar: dt-sql-parser's
// Spark SQL grammar for spark (Databricks SQL), its Trino grammar for trino. No Snowflake grammar
// is available here: Snowflake's SELECT statements are parsed with the PostgreSQL grammar (the
// closest: `::` casts, double-quoted identifiers, the same SELECT), and the Snowflake-only forms
// (DESCRIBE TABLE, TO_NUMBER's hex format, DATE_PART(EPOCH_MICROSECOND, ..)) are pinned by the
// specific tests below. DuckDB's own statements are executed by DuckDB (executor.test.ts).
import { describe, expect, it } from 'vitest';
import { PostgreSQL, SparkSQL, TrinoSQL } from 'dt-sql-parser';
import { parseContract } from '../reconcile/contract';
import { statementsFor, PUSHED_LEVELS, type PushSide } from './levels';
import { AWKWARD_VALUES } from './awkward';
import { checkStatements } from './check';
import type { Dialect } from './dialect';

const contract = parseContract(`
version: 1
name: orders
keys: [order_id, 'we"ird name']
partitioning: { column: dt }
columns:
  amount_float: { float: { tolerance: 1.0e-9 } }
timestamps: { naive_is_utc: true }
laws: { day: dt, measures: [amount, qty] }
`);

const columns = [
  { name: 'order_id', type: 'BIGINT' }, { name: 'we"ird name', type: 'VARCHAR' }, { name: 'qty', type: 'INTEGER' },
  { name: 'amount', type: 'DECIMAL(18,2)' }, { name: 'amount_float', type: 'DOUBLE' }, { name: 'sku', type: 'VARCHAR' },
  { name: 'paid', type: 'BOOLEAN' }, { name: 'dt', type: 'DATE' }, { name: 'ts', type: 'TIMESTAMP WITH TIME ZONE' },
  { name: 'updated_at', type: 'TIMESTAMP' }, { name: 'raw', type: 'BLOB' },
];

const relation: Record<Dialect, string> = {
  spark: 'main.sales.orders', trino: 'delta.sales.orders', snowflake: 'ANALYTICS.SALES.ORDERS', duckdb: 'orders',
};

function side(dialect: Dialect): PushSide {
  return { dialect, relation: relation[dialect], columns, contract };
}

function all(dialect: Dialect): { what: string; sql: string }[] {
  const out: { what: string; sql: string }[] = [];
  for (const level of PUSHED_LEVELS) {
    if (level === 'bisect' && dialect === 'snowflake') continue;
    for (const s of statementsFor(side(dialect), level, { partitions: ['dt=2026-08-10', 'dt=(null)', "dt=it's"], versions: [3, 7], predicate: level === 'bisect' ? 'unique-keys' : undefined })) {
      out.push({ what: `${level}: ${s.purpose}`, sql: s.sql });
    }
  }
  out.push({ what: 'bisect no-null-keys', sql: statementsFor(side(dialect), 'bisect', { versions: [1], relationAt: dialect === 'snowflake' ? () => relation.snowflake : undefined })[0].sql });
  const check = checkStatements(dialect, AWKWARD_VALUES);
  out.push({ what: 'warehouse check: text and md5', sql: check.text.sql }, { what: 'warehouse check: float parts', sql: check.floats.sql });
  return out;
}

function errorsOf(parser: { validate(sql: string): { message: string }[] }, sql: string): string[] {
  return parser.validate(sql.replace(/^--.*\n/gm, '')).map((e) => e.message);
}

describe('Spark SQL grammar (dt-sql-parser) parses every spark statement', () => {
  const parser = new SparkSQL();
  for (const s of all('spark')) it(s.what, () => expect(errorsOf(parser, s.sql)).toEqual([]));
  it('and refuses a broken one (the check can fail)', () => {
    expect(errorsOf(parser, 'SELECT p, COUNT(* AS n FROM t GROUP BY p').length).toBeGreaterThan(0);
  });
});

describe('Trino grammar (dt-sql-parser) parses every trino statement', () => {
  const parser = new TrinoSQL();
  for (const s of all('trino')) it(s.what, () => expect(errorsOf(parser, s.sql)).toEqual([]));
  it('and refuses a broken one', () => {
    expect(errorsOf(parser, 'SELECT p FROM t GROUP p').length).toBeGreaterThan(0);
  });
});

describe('Snowflake: SELECTs under the PostgreSQL grammar (the closest available), Snowflake-only forms pinned', { timeout: 180_000 }, () => {
  const parser = new PostgreSQL();
  for (const s of all('snowflake').filter((x) => !/^\s*DESCRIBE/m.test(x.sql.replace(/^--.*\n/gm, '')))) {
    it(s.what, () => expect(errorsOf(parser, s.sql)).toEqual([]));
  }
  it('DESCRIBE TABLE names the relation', () => {
    expect(statementsFor(side('snowflake'), 'schema')[0].sql).toMatch(/\nDESCRIBE TABLE ANALYTICS\.SALES\.ORDERS$/);
    expect(statementsFor(side('spark'), 'schema')[0].sql).toMatch(/\nDESCRIBE TABLE EXTENDED main\.sales\.orders$/);
  });
  it('hex limbs through TO_NUMBER with an 8-digit hex format; micros through DATE_PART(EPOCH_MICROSECOND, ..)', () => {
    const sql = statementsFor(side('snowflake'), 'checksum')[0].sql;
    expect(sql.match(/TO_NUMBER\(concat\(SUBSTR\(h, \d+, 2\), SUBSTR\(h, \d+, 2\), SUBSTR\(h, \d+, 2\), SUBSTR\(h, \d+, 2\)\), 'XXXXXXXX'\)/g)?.length).toBe(4);
    expect(sql).toContain('DATE_PART(EPOCH_MICROSECOND, "ts")');
    expect(sql).toContain('MD5(');
  });
  it('has no Delta version to travel to: bisect is refused with a line', () => {
    expect(() => statementsFor(side('snowflake'), 'bisect', { versions: [1] })).toThrow(/snowflake cannot read a Delta table at a version/);
  });
});

describe('what the generator refuses', () => {
  it('a partition column the side lacks, not derived first (derive.test.ts derives it)', () => {
    const c = parseContract('version: 1\nkeys: [order_id]\npartitioning: { column: day, expression: "date(ts)" }\n');
    expect(() => statementsFor({ ...side('trino'), contract: c }, 'counts')).toThrow(/has no partition column "day" and it was not derived from the contract's expression for this statement/);
  });
  it('a float without a rule, and a type with no portable text', () => {
    const c = parseContract('version: 1\nkeys: [order_id]\n');
    expect(() => statementsFor({ ...side('spark'), contract: c }, 'checksum')).toThrow(/column "amount_float" is a float/);
    expect(() => statementsFor({ ...side('spark'), contract: c, columns: [{ name: 'order_id', type: 'BIGINT' }, { name: 'l', type: 'INTEGER[]' }] }, 'checksum'))
      .toThrow(/column "l" \(INTEGER\[\]\) has no canonical text for spark: its canonical text is DuckDB.s JSON text/);
  });
  it('identifiers and partition labels are quoted, never spliced', () => {
    const sql = statementsFor(side('spark'), 'rows', { partitions: ["dt=x') OR (1=1"] })[0].sql;
    expect(sql).toContain("IN ('x\\') OR (1=1')");
    expect(errorsOf(new SparkSQL(), sql)).toEqual([]);
    expect(statementsFor(side('trino'), 'keys')[0].sql).toContain('"we""ird name"');
  });
});
