// The portable digest written per SQL dialect: ADR 0003's canonical text of a row, its md5, and the
// md5 read as a little-endian 128-bit integer in four 32-bit limbs that any engine can sum exactly
// (ADR 0010). The DuckDB dialect here is written the same way as the others (limbs from the hex
// text), not by calling the local engine's md5_number: the tests run it against the local engine's
// own SQL (main/reconcile/canonical.ts) to prove the two agree.
import { compareFamily, decimalScale, type TypeFamily } from '../reconcile/canonical';
import { LakerecError } from '../../shared/errors';

export type Dialect = 'duckdb' | 'spark' | 'snowflake' | 'trino';
export const DIALECTS: readonly Dialect[] = ['duckdb', 'spark', 'snowflake', 'trino'];

export function isDialect(x: unknown): x is Dialect {
  return typeof x === 'string' && (DIALECTS as readonly string[]).includes(x);
}

/** A column as the generator sees it: its name and the DuckDB type name the local engine gives it. */
export interface WarehouseColumn {
  name: string;
  /** DuckDB type as DESCRIBE prints it (the family and a decimal's scale are taken from it). */
  type: string;
}

/** Families the pushed digest defines in every dialect; the rest only in DuckDB's (ADR 0010). */
const PORTABLE: ReadonlySet<TypeFamily> = new Set<TypeFamily>(['integer', 'decimal', 'string', 'boolean', 'date', 'timestamp', 'timestamp_naive', 'blob']);

export interface DialectSql {
  ident(name: string): string;
  /** A string literal. */
  str(s: string): string;
  /** Text of a non-null value of `family` (no 'V', no '|'); null in, null out. */
  valueText(x: string, family: TypeFamily, scale: number): string;
  /** Byte length of a UTF-8 string, as text. */
  byteLength(x: string): string;
  /** Lower-case hex md5 of a string's UTF-8 bytes. */
  md5Hex(x: string): string;
  /** An 8-hex-digit string as an exact integer (0 .. 2^32-1). */
  hex32(x: string): string;
  substr(x: string, from: number, len: number): string;
  /** Exact integer type for the limb sums. */
  exactInt: string;
  /** Text type for casts. */
  text: string;
  /** log base 2, power and floor of doubles; NaN test; the double type. */
  log2(x: string): string;
  isNan(x: string): string;
  double: string;
  /** The schema statement. */
  describe(relation: string): string;
  /** The relation at a table version, where the dialect can time-travel (null: it cannot). */
  versionAsOf(relation: string, version: number): string | null;
  /** A LIMIT clause. */
  limit(n: number): string;
}

const quoteDouble = (n: string): string => `"${n.replace(/"/g, '""')}"`;
const quoteTick = (n: string): string => `\`${n.replace(/`/g, '``')}\``;
const sqlStr = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** Epoch microseconds of a Trino timestamp(6) without zone (wall clock read as UTC). */
export function trinoMicros(naive: string): string {
  // Trino's date_diff has no microsecond unit: whole seconds from date_diff, the six fraction
  // digits from the value's text ('YYYY-MM-DD HH:MM:SS.ffffff'; date_trunc floors, so the
  // fraction is never negative, also before 1970).
  return `(date_diff('second', TIMESTAMP '1970-01-01 00:00:00', date_trunc('second', ${naive})) * 1000000 + CAST(substr(CAST(${naive} AS VARCHAR), 21, 6) AS BIGINT))`;
}

export const DIALECT_SQL: Record<Dialect, DialectSql> = {
  duckdb: {
    ident: quoteDouble,
    str: sqlStr,
    valueText(x, family) {
      switch (family) {
        case 'boolean': return `CASE WHEN ${x} THEN 't' WHEN NOT ${x} THEN 'f' END`;
        case 'timestamp': case 'timestamp_naive': return `CAST(epoch_us(${x}) AS VARCHAR)`;
        case 'blob': return `hex(${x})`;
        case 'string': return x;
        case 'nested': return `CAST(to_json(${x}) AS VARCHAR)`;
        default: return `CAST(${x} AS VARCHAR)`;
      }
    },
    byteLength: (x) => `CAST(strlen(${x}) AS VARCHAR)`,
    md5Hex: (x) => `md5(${x})`,
    hex32: (x) => `CAST(CAST('0x' || ${x} AS UBIGINT) AS HUGEINT)`,
    substr: (x, f, l) => `substr(${x}, ${f}, ${l})`,
    exactInt: 'HUGEINT',
    text: 'VARCHAR',
    log2: (x) => `log2(${x})`,
    isNan: (x) => `isnan(${x})`,
    double: 'DOUBLE',
    describe: (r) => `DESCRIBE SELECT * FROM ${r}`,
    versionAsOf: () => null,
    limit: (n) => `LIMIT ${n}`,
  },
  spark: {
    ident: quoteTick,
    // Spark string literals take backslash escapes: double them as well as the quote.
    str: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
    valueText(x, family, scale) {
      switch (family) {
        // CAST(decimal AS STRING) is Java's BigDecimal.toString, which writes 0E-10 for a zero of
        // scale 10; format_number writes plain digits with every scale digit (and US grouping commas).
        case 'decimal': return scale === 0 ? `CAST(${x} AS STRING)` : `replace(format_number(${x}, ${scale}), ',', '')`;
        case 'boolean': return `CASE WHEN ${x} THEN 't' WHEN NOT ${x} THEN 'f' END`;
        case 'date': return `date_format(${x}, 'yyyy-MM-dd')`;
        // unix_micros of a TIMESTAMP (an instant) does not depend on the session time zone;
        // a TIMESTAMP_NTZ is its wall clock read as UTC, by difference from the NTZ epoch.
        case 'timestamp': return `CAST(unix_micros(${x}) AS STRING)`;
        case 'timestamp_naive': return `CAST(timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', ${x}) AS STRING)`;
        case 'blob': return `hex(${x})`;
        case 'string': return x;
        default: return `CAST(${x} AS STRING)`;
      }
    },
    byteLength: (x) => `CAST(octet_length(${x}) AS STRING)`,
    md5Hex: (x) => `md5(encode(${x}, 'UTF-8'))`,
    hex32: (x) => `CAST(conv(${x}, 16, 10) AS DECIMAL(38,0))`,
    substr: (x, f, l) => `substr(${x}, ${f}, ${l})`,
    exactInt: 'DECIMAL(38,0)',
    text: 'STRING',
    log2: (x) => `log2(${x})`,
    isNan: (x) => `isnan(${x})`,
    double: 'DOUBLE',
    // EXTENDED: the columns, then '#' sections (partitioning, details) the reader stops at.
    describe: (r) => `DESCRIBE TABLE EXTENDED ${r}`,
    versionAsOf: (r, v) => `${r} VERSION AS OF ${v}`,
    limit: (n) => `LIMIT ${n}`,
  },
  snowflake: {
    ident: quoteDouble,
    str: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`,
    valueText(x, family) {
      switch (family) {
        // TO_VARCHAR of a NUMBER(p,s) writes every scale digit (12.30 stays 12.30).
        case 'integer': case 'decimal': return `TO_VARCHAR(${x})`;
        case 'boolean': return `CASE WHEN ${x} THEN 't' WHEN NOT ${x} THEN 'f' END`;
        case 'date': return `TO_VARCHAR(${x}, 'YYYY-MM-DD')`;
        // EPOCH_MICROSECOND of a TIMESTAMP_TZ/LTZ is the instant's; of a TIMESTAMP_NTZ, its wall clock read as UTC.
        case 'timestamp': case 'timestamp_naive': return `TO_VARCHAR(DATE_PART(EPOCH_MICROSECOND, ${x}))`;
        case 'blob': return `HEX_ENCODE(${x}, 1)`;
        case 'time': return `REGEXP_REPLACE(TO_VARCHAR(${x}, 'HH24:MI:SS.FF6'), '[.]?0+$', '')`;
        case 'string': return x;
        default: return `TO_VARCHAR(${x})`;
      }
    },
    byteLength: (x) => `TO_VARCHAR(OCTET_LENGTH(${x}))`,
    md5Hex: (x) => `MD5(${x})`,
    hex32: (x) => `TO_NUMBER(${x}, 'XXXXXXXX')`,
    substr: (x, f, l) => `SUBSTR(${x}, ${f}, ${l})`,
    exactInt: 'NUMBER(38,0)',
    text: 'VARCHAR',
    log2: (x) => `LOG(2, ${x})`,
    isNan: (x) => `(${x} = 'NaN'::FLOAT)`,
    double: 'DOUBLE',
    describe: (r) => `DESCRIBE TABLE ${r}`,
    // Snowflake's AT(...) travels a Snowflake table's own history, not a Delta version.
    versionAsOf: () => null,
    limit: (n) => `LIMIT ${n}`,
  },
  trino: {
    ident: quoteDouble,
    str: sqlStr,
    valueText(x, family) {
      switch (family) {
        case 'boolean': return `CASE WHEN ${x} THEN 't' WHEN NOT ${x} THEN 'f' END`;
        case 'timestamp': return `CAST(${trinoMicros(`CAST(${x} AT TIME ZONE 'UTC' AS TIMESTAMP(6))`)} AS VARCHAR)`;
        case 'timestamp_naive': return `CAST(${trinoMicros(`CAST(${x} AS TIMESTAMP(6))`)} AS VARCHAR)`;
        case 'blob': return `to_hex(${x})`;
        // DuckDB's texts: a uuid lower case with hyphens (Trino's cast writes the same); a time as
        // HH:MM:SS and only the fraction digits up to the last non-zero one (none: no point).
        case 'uuid': return `CAST(${x} AS VARCHAR)`;
        case 'time': return `regexp_replace(CAST(CAST(${x} AS TIME(6)) AS VARCHAR), '[.]?0+$', '')`;
        case 'string': return x;
        default: return `CAST(${x} AS VARCHAR)`;
      }
    },
    byteLength: (x) => `CAST(length(to_utf8(${x})) AS VARCHAR)`,
    md5Hex: (x) => `lower(to_hex(md5(to_utf8(${x}))))`,
    hex32: (x) => `CAST(from_base(${x}, 16) AS DECIMAL(38,0))`,
    substr: (x, f, l) => `substr(${x}, ${f}, ${l})`,
    exactInt: 'DECIMAL(38,0)',
    text: 'VARCHAR',
    log2: (x) => `log2(${x})`,
    isNan: (x) => `is_nan(${x})`,
    double: 'DOUBLE',
    describe: (r) => `DESCRIBE ${r}`,
    versionAsOf: (r, v) => `${r} FOR VERSION AS OF ${v}`,
    limit: (n) => `LIMIT ${n}`,
  },
};

/**
 * Why a column of a family outside the portable set has no exact canonical text in a warehouse
 * dialect (null: it has one, written in valueText). ADR 0003 defines time, uuid and interval as
 * DuckDB's text, and nested values as DuckDB's JSON text.
 */
function notPortable(col: WarehouseColumn, fam: TypeFamily, dialect: Exclude<Dialect, 'duckdb'>): string | null {
  if (PORTABLE.has(fam)) return null;
  const zoned = /WITH TIME ZONE|TIMETZ/i.test(col.type);
  switch (fam) {
    case 'uuid':
      return dialect === 'trino' ? null : `${dialect === 'spark' ? 'Databricks SQL' : 'Snowflake'} has no UUID type (a uuid kept there is a string, and compares as one)`;
    case 'time':
      if (zoned) return "DuckDB's text of a TIME WITH TIME ZONE carries the offset in DuckDB's own form, which no warehouse dialect writes";
      return dialect === 'spark' ? 'Databricks SQL has no TIME type' : null;
    case 'interval':
      return dialect === 'snowflake' ? 'Snowflake has no interval column type'
        : `DuckDB's interval text keeps months, days and microseconds apart in one value ('1 month 2 days 03:00:00'), and ${dialect} splits intervals into year-month and day-time types written in other forms`;
    case 'nested':
      return `its canonical text is DuckDB's JSON text of the value (its number forms, key order and spacing), and ${dialect}'s JSON text of a ${/^MAP/i.test(col.type) ? 'map' : /^STRUCT/i.test(col.type) ? 'struct' : 'list'} is not the same bytes`;
    default:
      return 'pushed digests define integers, decimals, strings, booleans, dates, timestamps, binary, times and (Trino) uuids';
  }
}

/** The family a column's canonical field is written in, refused where the dialect has no definition. */
export function pushedFamily(col: WarehouseColumn, dialect: Dialect, naiveIsUtc: boolean): TypeFamily {
  const fam = compareFamily(col.type, naiveIsUtc);
  if (fam === 'float') throw new LakerecError('contract_mismatch', `column "${col.name}" is a float: it has no canonical bytes (ADR 0003); its exact sums are pushed instead`);
  const why = dialect === 'duckdb' ? null : notPortable(col, fam, dialect);
  if (why !== null) throw new LakerecError('contract_mismatch', `column "${col.name}" (${col.type}) has no canonical text for ${dialect}: ${why}; ignore it in the contract or reconcile that side locally`);
  return fam;
}

/**
 * One column's canonical field as SQL, exactly ADR 0003's: 'N|' for null; 'V' + text + '|' for
 * fixed-form types; 'V' + byte length + ':' + bytes for strings and nested values.
 */
export function canonicalFieldSql(col: WarehouseColumn, dialect: Dialect, naiveIsUtc: boolean, qualifier?: string): string {
  const d = DIALECT_SQL[dialect];
  const x = (qualifier ? qualifier + '.' : '') + d.ident(col.name);
  const fam = pushedFamily(col, dialect, naiveIsUtc);
  const text = d.valueText(x, fam, decimalScale(col.type) ?? 0);
  const delimited = fam !== 'string' && fam !== 'nested' && !(dialect === 'duckdb' && fam === 'other');
  const value = delimited ? `concat('V', ${text}, '|')` : `concat('V', ${d.byteLength(text)}, ':', ${text})`;
  return `CASE WHEN ${x} IS NULL THEN 'N|' ELSE ${value} END`;
}

/** The whole row's canonical text: fields in the given (sorted) order; '' for no columns. */
export function canonicalRowSql(cols: WarehouseColumn[], dialect: Dialect, naiveIsUtc: boolean, qualifier?: string): string {
  if (cols.length === 0) return "''";
  if (cols.length === 1) return canonicalFieldSql(cols[0], dialect, naiveIsUtc, qualifier);
  return `concat(${cols.map((c) => canonicalFieldSql(c, dialect, naiveIsUtc, qualifier)).join(', ')})`;
}

/**
 * The four 32-bit limbs of the md5 read as a little-endian 128-bit integer, over a column `h`
 * holding the lower-case hex md5: limb j (bits 32j..32j+31) is bytes 4j..4j+3, most significant
 * byte last in the hex text, so each limb's 8 hex digits are its 4 byte pairs reversed.
 */
export function limbsSql(h: string, dialect: Dialect): string[] {
  const d = DIALECT_SQL[dialect];
  const out: string[] = [];
  for (let j = 0; j < 4; j++) {
    const pairs = [3, 2, 1, 0].map((b) => d.substr(h, 8 * j + 2 * b + 1, 2));
    out.push(d.hex32(`concat(${pairs.join(', ')})`));
  }
  return out;
}

/**
 * A double's exact parts, as main/reconcile/checksum.ts defines them (x = m * 2^(e-52)): e and m
 * for finite non-zero values, else null; special 'nan', '+inf', '-inf' or null. Written in three
 * nested SELECTs (x and a first exponent; the corrected exponent; the mantissa) so each stage
 * names the one before instead of repeating it: the SQL stays linear in size.
 * `keep` are passed through (expressions aliased in the first stage, names after it).
 */
export function floatPartsSelect(dialect: Dialect, from: string, keep: { expr: string; as: string }[], floats: { expr: string; out: string }[]): string {
  const d = DIALECT_SQL[dialect];
  const inf = dialect === 'snowflake' ? `'inf'::FLOAT` : dialect === 'trino' ? 'infinity()' : `CAST('Infinity' AS ${d.double})`;
  const half = (e: string) => `FLOOR((52 - (${e})) / 2.0)`;
  const scaled = (x: string, e: string) => `(${x} * power(2.0, ${half(e)}) * power(2.0, (52 - (${e})) - ${half(e)}))`;
  const k = keep.map((c) => c.as);
  const s1 = floats.flatMap((f) => {
    const x = `CAST(${f.expr} AS ${d.double})`;
    const nan = d.isNan(x);
    const finite = `(${x} IS NOT NULL AND ${x} <> 0 AND NOT ${nan} AND ${x} <> ${inf} AND ${x} <> -${inf})`;
    return [
      `${x} AS ${f.out}_x`,
      `CASE WHEN ${finite} THEN GREATEST(-1022, CAST(FLOOR(${d.log2(`abs(${x})`)}) AS INTEGER)) END AS ${f.out}_e0`,
      `CASE WHEN ${nan} THEN 'nan' WHEN ${x} = ${inf} THEN '+inf' WHEN ${x} = -${inf} THEN '-inf' END AS ${f.out}_s`,
    ];
  });
  // floor(log2|x|) can be off by one near powers of two; the mantissa's size corrects it.
  const s2 = floats.flatMap((f) => {
    const x = `${f.out}_x`;
    const e0 = `${f.out}_e0`;
    return [x, `${f.out}_s`, `CASE WHEN ${e0} IS NULL THEN NULL WHEN abs(${scaled(x, e0)}) >= 9007199254740992.0 THEN ${e0} + 1 WHEN abs(${scaled(x, e0)}) < 4503599627370496.0 AND ${e0} > -1022 THEN ${e0} - 1 ELSE ${e0} END AS ${f.out}_e`];
  });
  const s3 = floats.flatMap((f) => [`${f.out}_e`, `CASE WHEN ${f.out}_e IS NULL THEN NULL ELSE CAST(${scaled(`${f.out}_x`, `${f.out}_e`)} AS BIGINT) END AS ${f.out}_m`, `${f.out}_s`]);
  const first = `SELECT ${[...keep.map((c) => `${c.expr} AS ${c.as}`), ...s1].join(', ')} FROM ${from}`;
  const second = `SELECT ${[...k, ...s2].join(', ')} FROM (${first}) f1`;
  return `SELECT ${[...k, ...s3].join(', ')} FROM (${second}) f2`;
}
