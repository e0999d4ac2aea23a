// The ods fingerprint, version 1: one row of numbers that says two tables hold the same data,
// whatever the row order or file layout. Defined so that any SQL engine can compute it; this
// file generates that SQL for DuckDB, Spark and Snowflake from a Delta schema, and compares two
// fingerprints. Pure: the TypeScript computation over Arrow lives in main/proof/.
//
// Per table: rows. Per top-level column:
//   integer, decimal, string, boolean, date, timestamp: nulls, and hash = the sum over non-null
//     rows of the integer value of the first 15 hex digits of md5(canonical text);
//   float, double: nulls, nan, posinf, neginf, and over finite values only min, max, sum;
//   list, struct, map (and binary, variant, which v1 does not define a text for): nulls only.
// Canonical text: integers and decimals cast to a string (decimals keep their scale, 12.30);
// booleans true / false; dates YYYY-MM-DD; timestamps as integer microseconds since
// 1970-01-01 UTC (a timestamp without time zone is read as UTC); strings as they are.
import type { DataType, StructType } from './delta';

export const FINGERPRINT_VERSION = 'ods-fingerprint-v1';

export type FingerprintDialect = 'duckdb' | 'spark' | 'snowflake' | 'trino';
export const FINGERPRINT_DIALECTS: readonly FingerprintDialect[] = ['duckdb', 'spark', 'snowflake', 'trino'];

/** How a column is fingerprinted. */
export type FingerprintKind = 'hash' | 'float' | 'nulls';

/** The canonical-text rule a hashed column follows. */
export type CanonicalRule = 'integer' | 'decimal' | 'boolean' | 'date' | 'timestamp' | 'timestamp_ntz' | 'string';

export interface ColumnFingerprint {
  name: string;
  kind: FingerprintKind;
  nulls: number;
  /** kind 'hash': exact decimal digits (the sum exceeds 2^53, so it is never a JS number). */
  hash?: string;
  /** kind 'float': counts, and min / max / sum over finite values (null when there are none). */
  nan?: number;
  posinf?: number;
  neginf?: number;
  min?: number | null;
  max?: number | null;
  sum?: number | null;
}

export interface OdsFingerprint {
  version: typeof FINGERPRINT_VERSION;
  rows: number;
  columns: ColumnFingerprint[];
}

/** Relative tolerance for float sums (float addition depends on order). */
export const FLOAT_SUM_TOLERANCE = 1e-9;

const INTEGER_TYPES = new Set(['byte', 'short', 'integer', 'long']);

/** The fingerprint rule for a Delta type: its kind and, for hashed columns, its canonical text. */
export function fingerprintRule(t: DataType): { kind: FingerprintKind; rule?: CanonicalRule } {
  if (typeof t !== 'string') return { kind: 'nulls' };
  if (INTEGER_TYPES.has(t)) return { kind: 'hash', rule: 'integer' };
  if (/^decimal\(/.test(t)) return { kind: 'hash', rule: 'decimal' };
  if (t === 'float' || t === 'double') return { kind: 'float' };
  if (t === 'boolean') return { kind: 'hash', rule: 'boolean' };
  if (t === 'date') return { kind: 'hash', rule: 'date' };
  if (t === 'timestamp') return { kind: 'hash', rule: 'timestamp' };
  if (t === 'timestamp_ntz') return { kind: 'hash', rule: 'timestamp_ntz' };
  if (t === 'string') return { kind: 'hash', rule: 'string' };
  return { kind: 'nulls' };
}

/** The scale of a decimal type (0 for anything else). */
export function decimalScale(t: DataType): number {
  const m = typeof t === 'string' ? /^decimal\(\d+,\s*(\d+)\)$/.exec(t) : null;
  return m ? Number(m[1]) : 0;
}

interface Dialect {
  ident(name: string): string;
  /** Canonical text of column expression `c` under `rule` (`scale`: a decimal's); null stays null. */
  text(c: string, rule: CanonicalRule, scale: number): string;
  /** Sum over rows of the first 15 hex digits of md5(text), 0 when there are no rows. */
  hashSum(text: string): string;
  countIf(cond: string): string;
  isNan(c: string): string;
  posInf(c: string): string;
  negInf(c: string): string;
  toDouble(c: string): string;
}

const boolText = (c: string): string => `CASE WHEN ${c} IS NULL THEN NULL WHEN ${c} THEN 'true' ELSE 'false' END`;

const duckdb: Dialect = {
  ident: (n) => `"${n.replace(/"/g, '""')}"`,
  text(c, rule) {
    switch (rule) {
      case 'integer': case 'decimal': return `CAST(${c} AS VARCHAR)`;
      case 'boolean': return boolText(c);
      case 'date': return `CAST(${c} AS VARCHAR)`;
      case 'timestamp': case 'timestamp_ntz': return `CAST(epoch_us(${c}) AS VARCHAR)`;
      case 'string': return c;
    }
  },
  hashSum: (t) => `COALESCE(SUM(CAST(CAST('0x' || left(md5(${t}), 15) AS UBIGINT) AS HUGEINT)), 0)`,
  countIf: (cond) => `COALESCE(SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`,
  isNan: (c) => `isnan(${c})`,
  posInf: (c) => `${c} = CAST('Infinity' AS DOUBLE)`,
  negInf: (c) => `${c} = CAST('-Infinity' AS DOUBLE)`,
  toDouble: (c) => `CAST(${c} AS DOUBLE)`,
};

const spark: Dialect = {
  ident: (n) => `\`${n.replace(/`/g, '``')}\``,
  text(c, rule, scale) {
    switch (rule) {
      case 'integer': return `CAST(${c} AS STRING)`;
      // CAST(decimal AS STRING) gives Java's BigDecimal.toString, which writes 0E-10 for a zero
      // of scale 10; format_number writes plain digits with the scale (and US grouping commas).
      case 'decimal': return scale === 0 ? `CAST(${c} AS STRING)` : `replace(format_number(${c}, ${scale}), ',', '')`;
      case 'boolean': return boolText(c);
      case 'date': return `date_format(${c}, 'yyyy-MM-dd')`;
      // Run with spark.sql.session.timeZone=UTC, so a timestamp_ntz is read as UTC.
      case 'timestamp': return `CAST(unix_micros(${c}) AS STRING)`;
      case 'timestamp_ntz': return `CAST(unix_micros(CAST(${c} AS TIMESTAMP)) AS STRING)`;
      case 'string': return c;
    }
  },
  hashSum: (t) => `COALESCE(SUM(CAST(conv(substr(md5(encode(${t}, 'UTF-8')), 1, 15), 16, 10) AS DECIMAL(38,0))), 0)`,
  countIf: (cond) => `COALESCE(SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`,
  isNan: (c) => `isnan(${c})`,
  posInf: (c) => `${c} = CAST('Infinity' AS DOUBLE)`,
  negInf: (c) => `${c} = CAST('-Infinity' AS DOUBLE)`,
  toDouble: (c) => `CAST(${c} AS DOUBLE)`,
};

const snowflake: Dialect = {
  ident: (n) => `"${n.replace(/"/g, '""')}"`,
  text(c, rule) {
    switch (rule) {
      case 'integer': case 'decimal': return `TO_VARCHAR(${c})`;
      case 'boolean': return boolText(c);
      case 'date': return `TO_VARCHAR(${c}, 'YYYY-MM-DD')`;
      case 'timestamp': case 'timestamp_ntz': return `TO_VARCHAR(DATE_PART(EPOCH_MICROSECOND, ${c}))`;
      case 'string': return c;
    }
  },
  hashSum: (t) => `COALESCE(SUM(TO_NUMBER(SUBSTR(MD5(${t}), 1, 15), 'XXXXXXXXXXXXXXX')), 0)`,
  countIf: (cond) => `COALESCE(SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`,
  isNan: (c) => `${c} = 'NaN'::FLOAT`,
  posInf: (c) => `${c} = 'inf'::FLOAT`,
  negInf: (c) => `${c} = '-inf'::FLOAT`,
  toDouble: (c) => `CAST(${c} AS DOUBLE)`,
};

// Trino (added for pushed work, main/warehouse/): date_diff has no microsecond unit, so the epoch
// microseconds are whole seconds plus the six fraction digits of the value's timestamp(6) text.
const trinoMicros = (naive: string): string =>
  `(date_diff('second', TIMESTAMP '1970-01-01 00:00:00', date_trunc('second', ${naive})) * 1000000 + CAST(substr(CAST(${naive} AS VARCHAR), 21, 6) AS BIGINT))`;
const trino: Dialect = {
  ident: (n) => `"${n.replace(/"/g, '""')}"`,
  text(c, rule) {
    switch (rule) {
      case 'integer': case 'decimal': case 'date': return `CAST(${c} AS VARCHAR)`;
      case 'boolean': return boolText(c);
      case 'timestamp': return `CAST(${trinoMicros(`CAST(${c} AT TIME ZONE 'UTC' AS TIMESTAMP(6))`)} AS VARCHAR)`;
      case 'timestamp_ntz': return `CAST(${trinoMicros(`CAST(${c} AS TIMESTAMP(6))`)} AS VARCHAR)`;
      case 'string': return c;
    }
  },
  hashSum: (t) => `COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(${t})))), 1, 15), 16) AS DECIMAL(38,0))), 0)`,
  countIf: (cond) => `COALESCE(SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END), 0)`,
  isNan: (c) => `is_nan(${c})`,
  posInf: (c) => `${c} = infinity()`,
  negInf: (c) => `${c} = -infinity()`,
  toDouble: (c) => `CAST(${c} AS DOUBLE)`,
};

const DIALECTS: Record<FingerprintDialect, Dialect> = { duckdb, spark, snowflake, trino };

/** Default relation placeholder per dialect, when the caller names none. */
export const DEFAULT_RELATION: Record<FingerprintDialect, string> = {
  duckdb: 'delta_table',
  spark: 'delta_table',
  snowflake: 'DELTA_TABLE',
  trino: 'delta_table',
};

/** The result column name of a figure: `c<i>_<figure>` (portable: no quoting, no case issues). */
export function figureAlias(index: number, figure: string): string {
  return `c${index}_${figure}`;
}

/**
 * The SQL that computes the ods fingerprint v1 of `relation` (a table name or a table function
 * call, inserted as given) with `schema`'s top-level columns. One result row: `row_count`, then
 * per column `c<i>_nulls` and `c<i>_hash`, or the float figures.
 */
export function fingerprintSql(schema: StructType, dialect: FingerprintDialect, relation?: string): string {
  const d = DIALECTS[dialect];
  if (!d) throw new Error(`unknown fingerprint dialect ${String(dialect)}`);
  const lines: string[] = [];
  const header = [
    `-- ${FINGERPRINT_VERSION} (${dialect})`,
    ...(dialect === 'spark' ? ['-- run with spark.sql.session.timeZone=UTC'] : []),
    ...schema.fields.map((f, i) => `-- c${i} = ${f.name.replace(/[\r\n]/g, ' ')} (${typeof f.type === 'string' ? f.type : f.type.type}: ${fingerprintRule(f.type).kind})`),
  ];
  lines.push('COUNT(*) AS row_count');
  schema.fields.forEach((f, i) => {
    const c = d.ident(f.name);
    const { kind, rule } = fingerprintRule(f.type);
    lines.push(`COUNT(*) - COUNT(${c}) AS ${figureAlias(i, 'nulls')}`);
    if (kind === 'hash' && rule) {
      lines.push(`${d.hashSum(d.text(c, rule, decimalScale(f.type)))} AS ${figureAlias(i, 'hash')}`);
    } else if (kind === 'float') {
      const finite = `NOT (${d.isNan(c)}) AND NOT (${d.posInf(c)}) AND NOT (${d.negInf(c)})`;
      const v = `CASE WHEN ${finite} THEN ${d.toDouble(c)} END`;
      lines.push(`${d.countIf(d.isNan(c))} AS ${figureAlias(i, 'nan')}`);
      lines.push(`${d.countIf(d.posInf(c))} AS ${figureAlias(i, 'posinf')}`);
      lines.push(`${d.countIf(d.negInf(c))} AS ${figureAlias(i, 'neginf')}`);
      lines.push(`MIN(${v}) AS ${figureAlias(i, 'min')}`);
      lines.push(`MAX(${v}) AS ${figureAlias(i, 'max')}`);
      lines.push(`SUM(${v}) AS ${figureAlias(i, 'sum')}`);
    }
  });
  return `${header.join('\n')}\nSELECT\n  ${lines.join(',\n  ')}\nFROM ${relation ?? DEFAULT_RELATION[dialect]}\n`;
}

function toCount(v: unknown, what: string): number {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  throw new Error(`fingerprint result: ${what} is not an integer (${String(v)})`);
}

function toExact(v: unknown, what: string): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v === 'string' && /^-?\d+(\.0+)?$/.test(v)) return v.replace(/\.0+$/, '');
  throw new Error(`fingerprint result: ${what} is not an exact integer (${String(v)})`);
}

function toFloat(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' || typeof v === 'string') return Number(v);
  throw new Error(`fingerprint result: not a number (${String(v)})`);
}

/** Reads the one result row of `fingerprintSql` (keys matched case-insensitively). */
export function fingerprintFromSqlRow(schema: StructType, row: Record<string, unknown>): OdsFingerprint {
  const lower = new Map(Object.entries(row).map(([k, v]) => [k.toLowerCase(), v]));
  const get = (k: string): unknown => lower.get(k);
  const columns = schema.fields.map((f, i): ColumnFingerprint => {
    const { kind } = fingerprintRule(f.type);
    const col: ColumnFingerprint = { name: f.name, kind, nulls: toCount(get(figureAlias(i, 'nulls')), `${f.name} nulls`) };
    if (kind === 'hash') col.hash = toExact(get(figureAlias(i, 'hash')), `${f.name} hash`);
    if (kind === 'float') {
      col.nan = toCount(get(figureAlias(i, 'nan')), `${f.name} nan`);
      col.posinf = toCount(get(figureAlias(i, 'posinf')), `${f.name} posinf`);
      col.neginf = toCount(get(figureAlias(i, 'neginf')), `${f.name} neginf`);
      col.min = toFloat(get(figureAlias(i, 'min')));
      col.max = toFloat(get(figureAlias(i, 'max')));
      col.sum = toFloat(get(figureAlias(i, 'sum')));
    }
    return col;
  });
  return { version: FINGERPRINT_VERSION, rows: toCount(get('row_count'), 'row_count'), columns };
}

function sumsAgree(a: number | null | undefined, b: number | null | undefined): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return false;
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return Math.abs(a - b) <= FLOAT_SUM_TOLERANCE * scale;
}

/**
 * The differences between two fingerprints, in words; empty when they are equal. Columns are
 * matched by name; sums are compared with a relative tolerance, everything else exactly.
 */
export function compareFingerprints(expected: OdsFingerprint, actual: OdsFingerprint): string[] {
  const out: string[] = [];
  if (expected.rows !== actual.rows) out.push(`rows: ${expected.rows} expected, ${actual.rows} found`);
  const byName = new Map(actual.columns.map((c) => [c.name, c]));
  for (const e of expected.columns) {
    const a = byName.get(e.name);
    if (!a) { out.push(`${e.name}: column missing`); continue; }
    byName.delete(e.name);
    if (e.kind !== a.kind) { out.push(`${e.name}: fingerprinted as ${e.kind}, found ${a.kind}`); continue; }
    const exact: (keyof ColumnFingerprint)[] = ['nulls', 'hash', 'nan', 'posinf', 'neginf', 'min', 'max'];
    for (const k of exact) {
      if (e[k] !== a[k] && !(e[k] === undefined && a[k] === undefined)) out.push(`${e.name}.${k}: ${String(e[k])} expected, ${String(a[k])} found`);
    }
    if (e.kind === 'float' && !sumsAgree(e.sum, a.sum)) out.push(`${e.name}.sum: ${String(e.sum)} expected, ${String(a.sum)} found (relative tolerance ${FLOAT_SUM_TOLERANCE})`);
  }
  for (const name of byName.keys()) out.push(`${name}: unexpected column`);
  return out;
}

/** A fingerprint as aligned text lines (the CLI's output). */
export function formatFingerprint(fp: OdsFingerprint): string {
  const lines = [`${fp.version}`, `rows ${fp.rows}`];
  const w = Math.max(0, ...fp.columns.map((c) => c.name.length));
  for (const c of fp.columns) {
    const figures: string[] = [`nulls=${c.nulls}`];
    if (c.kind === 'hash') figures.push(`hash=${c.hash}`);
    if (c.kind === 'float') {
      figures.push(`nan=${c.nan}`, `posinf=${c.posinf}`, `neginf=${c.neginf}`,
        `min=${c.min === null ? 'null' : String(c.min)}`, `max=${c.max === null ? 'null' : String(c.max)}`,
        `sum=${c.sum === null ? 'null' : String(c.sum)}`);
    }
    lines.push(`${c.name.padEnd(w)}  ${c.kind.padEnd(5)}  ${figures.join('  ')}`);
  }
  return lines.join('\n') + '\n';
}
