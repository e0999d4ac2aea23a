// What a value's bytes are, per type, and what is refused rather than guessed. The canonical
// text of a row is built in DuckDB SQL (rows never come to JavaScript); docs/adr/0003 is the
// written definition and this file must agree with it.
import { CANONICAL_VERSION, FAST_DIGEST } from '../../shared/digest';
import { sqlIdent, sqlString } from '../engine/duck';

export { CANONICAL_VERSION, FAST_DIGEST };

export type TypeFamily =
  | 'integer' | 'decimal' | 'string' | 'boolean' | 'date' | 'timestamp' | 'timestamp_naive'
  | 'time' | 'blob' | 'uuid' | 'interval' | 'float' | 'nested' | 'other';

/** Family of a DuckDB type name (as DESCRIBE prints it). */
export function typeFamily(duckType: string): TypeFamily {
  const t = duckType.toUpperCase().trim();
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|INT\d*)$/.test(t)) return 'integer';
  if (t.startsWith('DECIMAL') || t.startsWith('NUMERIC')) return 'decimal';
  if (t === 'VARCHAR' || t.startsWith('VARCHAR(') || t === 'TEXT' || t === 'STRING') return 'string';
  if (t === 'BOOLEAN' || t === 'BOOL') return 'boolean';
  if (t === 'DATE') return 'date';
  if (t === 'TIMESTAMP WITH TIME ZONE' || t === 'TIMESTAMPTZ') return 'timestamp';
  if (t === 'TIMESTAMP' || t === 'TIMESTAMP_NS' || t === 'TIMESTAMP_MS' || t === 'TIMESTAMP_S' || t === 'DATETIME') return 'timestamp_naive';
  if (t === 'TIME' || t === 'TIME WITH TIME ZONE') return 'time';
  if (t === 'BLOB' || t === 'BYTEA') return 'blob';
  if (t === 'UUID') return 'uuid';
  if (t === 'INTERVAL') return 'interval';
  if (t === 'FLOAT' || t === 'DOUBLE' || t === 'REAL' || t === 'FLOAT4' || t === 'FLOAT8') return 'float';
  if (t.endsWith('[]') || /\[\d+\]$/.test(t) || t.startsWith('STRUCT') || t.startsWith('MAP') || t.startsWith('UNION')) return 'nested';
  return 'other';
}

/**
 * The family a column compares in. A naive timestamp counts as UTC only when the contract says
 * so; otherwise it is its own family and will not compare with a zoned one.
 */
export function compareFamily(duckType: string, naiveIsUtc: boolean): TypeFamily {
  const f = typeFamily(duckType);
  return f === 'timestamp_naive' && naiveIsUtc ? 'timestamp' : f;
}

/** Decimal scale, to say "decimals keep scale" in a type comparison. */
export function decimalScale(duckType: string): number | null {
  const m = /^DECIMAL\((\d+),\s*(\d+)\)$/i.exec(duckType.trim());
  return m ? Number(m[2]) : null;
}

/** Whether two column types compare value by value (same family, and same scale for decimals). */
export function typesComparable(a: string, b: string, naiveIsUtc: boolean): boolean {
  const fa = compareFamily(a, naiveIsUtc);
  const fb = compareFamily(b, naiveIsUtc);
  if (fa !== fb || fa === 'other') return false;
  if (fa === 'decimal') return decimalScale(a) === decimalScale(b);
  if (fa === 'nested') return a.toUpperCase() === b.toUpperCase();
  return true;
}

/** Text of one non-null value (SQL over expression `x`); text of fixed-form types never holds '|'. */
function valueText(x: string, family: TypeFamily): { text: string; delimited: boolean } {
  switch (family) {
    case 'integer':
    case 'decimal': // DuckDB prints a decimal with all its scale digits: 12.30 stays "12.30"
    case 'date':
    case 'time':
    case 'uuid':
    case 'interval':
      return { text: `CAST(${x} AS VARCHAR)`, delimited: true };
    case 'boolean':
      // NULL stays NULL (it is 'N|', never false).
      return { text: `CASE WHEN ${x} THEN 't' WHEN NOT ${x} THEN 'f' END`, delimited: true };
    case 'timestamp':
    case 'timestamp_naive':
      // UTC microseconds since the epoch: one integer, whatever the precision or zone it was stored in.
      return { text: `CAST(epoch_us(${x}) AS VARCHAR)`, delimited: true };
    case 'blob':
      return { text: `hex(${x})`, delimited: true };
    case 'string':
      // UTF-8 bytes as stored: no trimming, no case folding, no Unicode normalisation.
      return { text: x, delimited: false };
    case 'nested':
      // JSON text escapes strings, so nested values cannot be confused with one another.
      return { text: `CASE WHEN ${x} IS NOT NULL THEN CAST(to_json(${x}) AS VARCHAR) END`, delimited: false };
    default:
      return { text: `CAST(${x} AS VARCHAR)`, delimited: false };
  }
}

/**
 * SQL pieces of one column's canonical field: 'N|' for null; 'V' + text + '|' for fixed-form
 * types; 'V' + byte length + ':' + text for strings and nested values (so no separator can be
 * forged). Pieces, not one expression, so a whole row is a single flat concat() (concat skips
 * NULL pieces): one string built per row instead of one per operator.
 */
function canonicalPieces(column: string, duckType: string, naiveIsUtc: boolean, opts: { qualifier?: string; nfc?: boolean } = {}): string[] {
  const x = (opts.qualifier ? opts.qualifier + '.' : '') + sqlIdent(column);
  const fam = compareFamily(duckType, naiveIsUtc);
  if (fam === 'float') throw new Error(`float column ${column} has no canonical bytes`);
  const vt = valueText(x, fam);
  // Only for classification (never for the checksum): strings compared after NFC normalisation.
  const text = opts.nfc && fam === 'string' ? `nfc_normalize(${vt.text})` : vt.text;
  if (vt.delimited) return [`CASE WHEN ${x} IS NULL THEN 'N' ELSE 'V' END`, text, `'|'`];
  return [`CASE WHEN ${x} IS NULL THEN 'N|' ELSE 'V' END`, `CAST(strlen(${text}) AS VARCHAR)`, `CASE WHEN ${x} IS NOT NULL THEN ':' END`, text];
}

/** SQL for one column's canonical field (see canonicalPieces). */
export function canonicalField(column: string, duckType: string, naiveIsUtc: boolean, opts: { qualifier?: string; nfc?: boolean } = {}): string {
  return `concat(${canonicalPieces(column, duckType, naiveIsUtc, opts).join(', ')})`;
}

export interface CanonicalColumn {
  name: string;
  type: string;
  /** Same type on both sides of the run: the fast digest may hash the value as stored. */
  raw?: boolean;
}

/** SQL text of the whole row's canonical bytes: fields in the given (sorted) column order. */
export function canonicalRow(columns: CanonicalColumn[], naiveIsUtc: boolean, opts: { qualifier?: string; nfc?: boolean } = {}): string {
  if (columns.length === 0) return sqlString('');
  return `concat(${columns.flatMap((c) => canonicalPieces(c.name, c.type, naiveIsUtc, opts)).join(', ')})`;
}

export type DigestMode = 'md5' | 'fast';

/** The digest a run uses unless told otherwise: DuckDB's vectorised hash (ADR 0001). */
export const DEFAULT_DIGEST: DigestMode = 'fast';

/**
 * The digest identity recorded in results and baselines: algorithm and, where the algorithm is
 * DuckDB's own hash(), the DuckDB version. Checksums compare only under the same identity.
 */
export function digestName(mode: DigestMode, duckdbVersion: string): string {
  return mode === 'md5' ? CANONICAL_VERSION : `${FAST_DIGEST}@${duckdbVersion}`;
}

/**
 * SQL for the 128-bit row digest as two UBIGINT halves (h1 upper, h2 lower). Storing halves keeps
 * the one pass cheap (no 128-bit shifts per row) and is what the sums need anyway.
 * - md5: md5 of the canonical text (stable across DuckDB versions and machines; ADR 0003). The
 *   caller computes it once per row in a subquery (`inner`) and splits it outside.
 * - fast: DuckDB's hash() over the per-column hashes of the canonically typed values (h1),
 *   and hash(h1) as h2. One pass of
 *   hashing per row, vectorised. Two rows are equal when their h1 are (64 bits); the checksum sums
 *   both halves, and since hash(h1) is not linear in h1, two different multisets of rows agree
 *   on both sums only by a second, independent accident. DuckDB does not promise hash() stable
 *   across versions: the digest identity carries the DuckDB version, and a baseline written
 *   under another identity is not inherited (ADR 0001).
 */
export function rowDigestHalves(columns: CanonicalColumn[], naiveIsUtc: boolean, mode: DigestMode): { inner: string; h1: string; h2: string } {
  if (mode === 'md5') {
    return {
      inner: `md5_number(${canonicalRow(columns, naiveIsUtc)})`,
      h1: 'CAST(_lk_d >> 64 AS UBIGINT)',
      h2: 'CAST(_lk_d & 18446744073709551615::UHUGEINT AS UBIGINT)',
    };
  }
  const hashes = columns.map((c) => columnHashSql(c.name, c.type, naiveIsUtc, c.raw === true));
  if (hashes.length === 0) hashes.push("hash('')");
  return { inner: `hash(${hashes.join(', ')})`, h1: '_lk_d', h2: 'hash(_lk_d)' };
}

/**
 * One column's 64-bit hash (DuckDB hash() of the canonically typed value). The fast row digest is
 * hash() over these in column order; the rows level keeps them per row (32 bits each) to say
 * which columns of a changed row differ.
 */
export function columnHashSql(column: string, duckType: string, naiveIsUtc: boolean, raw = false, qualifier?: string): string {
  const x = (qualifier ? qualifier + '.' : '') + sqlIdent(column);
  // A column of one type on both sides hashes as stored (a cast per value is the pass's largest
  // cost after the hash); a baseline records which columns were hashed so (baseline.ts).
  const f = compareFamily(duckType, naiveIsUtc);
  if (raw && f !== 'nested' && f !== 'other') return `hash(${x})`;
  return `hash(${typedValue(x, duckType, naiveIsUtc)})`;
}

/** A value cast to one type per family, so equal values hash equally whatever width they were stored in. */
function typedValue(x: string, duckType: string, naiveIsUtc: boolean): string {
  switch (compareFamily(duckType, naiveIsUtc)) {
    case 'integer': return /^(HUGEINT|UHUGEINT|UBIGINT)$/i.test(duckType.trim()) ? `CAST(${x} AS HUGEINT)` : `CAST(${x} AS BIGINT)`;
    case 'decimal': return `CAST(${x} AS DECIMAL(38,${decimalScale(duckType) ?? 0}))`;
    case 'timestamp':
    case 'timestamp_naive': return `epoch_us(${x})`;
    case 'string':
    case 'boolean':
    case 'date':
    case 'blob':
    case 'uuid': return x;
    case 'nested': return `CAST(to_json(${x}) AS VARCHAR)`;
    default: return `CAST(${x} AS VARCHAR)`;
  }
}

/** Display text of a value of any type (for example rows): DuckDB's own cast. */
export function displayText(column: string): string {
  return `CAST(${sqlIdent(column)} AS VARCHAR)`;
}
