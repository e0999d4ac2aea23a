// What is pushed to a warehouse, per level, from one contract and one side's schema: nothing but
// partials comes back (per-partition counts, limb sums, key digests, a capped list of keys of the
// few partitions that disagree, the fingerprint's one row, per-day totals, per-version counts).
// One generator for every dialect; the DuckDB dialect is the one the tests execute here.
import { createHash } from 'node:crypto';
import { LakerecError } from '../../shared/errors';
import type { StructType, DataType } from '../../shared/delta';
import { fingerprintSql, type FingerprintDialect } from '../../shared/fingerprint';
import { compareFamily, decimalScale } from '../reconcile/canonical';
import type { Contract } from '../reconcile/contract';
import { NULL_LABEL } from '../reconcile/sql';
import { DIALECT_SQL, canonicalRowSql, floatPartsSelect, limbsSql, type Dialect, type WarehouseColumn } from './dialect';
import { PUSHED_DIGEST } from './partials';

export const PUSHED_LEVELS = ['schema', 'counts', 'checksum', 'keys', 'rows', 'fingerprint', 'laws', 'bisect'] as const;
export type PushedLevel = (typeof PUSHED_LEVELS)[number];

/** Default cap on the key-level rows fetched from one run's disagreeing partitions. */
export const DEFAULT_ROW_CAP = 10_000;

export interface PushedStatement {
  level: PushedLevel;
  /** What the statement returns, in words. */
  purpose: string;
  sql: string;
  /** sha256 of the SQL text, 16 hex digits: the identity the report quotes. */
  id: string;
  /** A float column's exact sums, or a bisect version: what this statement is for. */
  column?: string;
  version?: number;
}

export interface PushSide {
  dialect: Dialect;
  /** The table as that engine knows it, inserted as given (catalog.schema.table, delta.`s3://…`, read_parquet([...])). */
  relation: string;
  /** The side's columns (its own names) with the DuckDB type the local engine gives each. */
  columns: WarehouseColumn[];
  contract: Contract;
  /** Source side: the contract's renames map its names to the target's (digest order is by target name). */
  isSource?: boolean;
  /** The columns both sides compare (target names), as the local schema level decided; default every column not ignored. */
  compared?: string[];
}

export function sqlId(sql: string): string {
  return createHash('sha256').update(sql).digest('hex').slice(0, 16);
}

function stmt(level: PushedLevel, purpose: string, sql: string, extra: Partial<PushedStatement> = {}): PushedStatement {
  return { level, purpose, sql, id: sqlId(sql), ...extra };
}

/** The side's name of a target column (renames run source -> target). */
function sideName(side: PushSide, target: string): string {
  if (!side.isSource) return target;
  for (const [s, t] of Object.entries(side.contract.renames)) if (t === target) return s;
  return target;
}

function targetName(side: PushSide, name: string): string {
  return side.isSource ? side.contract.renames[name] ?? name : name;
}

function column(side: PushSide, name: string): WarehouseColumn {
  const c = side.columns.find((x) => x.name === name);
  if (!c) throw new LakerecError('contract_mismatch', `column "${name}" is not a column of ${side.relation}`);
  return c;
}

/** Digest columns (side names) in ADR 0003's order, and the float columns: as the local pass plans them. */
export function digestPlan(side: PushSide): { digest: WarehouseColumn[]; floats: WarehouseColumn[] } {
  const ignored = new Set(side.contract.ignore);
  const compared = side.compared ? new Set(side.compared) : null;
  const cols = side.columns.filter((c) => !ignored.has(targetName(side, c.name)) && (compared === null || compared.has(targetName(side, c.name))));
  const floats = cols.filter((c) => compareFamily(c.type, false) === 'float');
  const digest = cols.filter((c) => compareFamily(c.type, false) !== 'float')
    .sort((a, b) => (targetName(side, a.name) < targetName(side, b.name) ? -1 : targetName(side, a.name) > targetName(side, b.name) ? 1 : 0));
  return { digest, floats };
}

/** The partition value as text, as the local engine's labels write it (null stays null). */
function partitionText(side: PushSide): { sql: string; column: string | null } {
  const d = DIALECT_SQL[side.dialect];
  const part = side.contract.partitioning;
  if (!part) return { sql: 'NULL', column: null };
  // As the local engine: the side's own partition column when it has one; a side that lacks it
  // has it derived by the contract's expression before statements are made (derive.ts).
  const own = side.columns.find((x) => x.name === sideName(side, part.column));
  if (!own) {
    throw new LakerecError('contract_mismatch', `${side.relation} has no partition column "${part.column}"${part.expression ? ' and it was not derived from the contract\'s expression for this statement' : ''}`);
  }
  const c = own;
  const x = d.ident(c.name);
  const fam = compareFamily(c.type, false);
  if (fam === 'integer' || fam === 'string' || fam === 'date') return { sql: fam === 'string' ? x : d.valueText(x, fam, 0), column: part.column };
  if (fam === 'boolean') return { sql: `CASE WHEN ${x} THEN 'true' WHEN NOT ${x} THEN 'false' END`, column: part.column };
  if (side.dialect === 'duckdb') return { sql: `CAST(${x} AS VARCHAR)`, column: part.column };
  throw new LakerecError('contract_mismatch', `partition column "${part.column}" is ${c.type}: pushed partition labels are written for integers, strings, dates and booleans`);
}

/** The label the local engine gives a partition value (partition column null: the table). */
export function partitionLabel(column: string | null, value: string | null): string {
  return column === null ? '(table)' : `${column}=${value ?? NULL_LABEL}`;
}

/** A WHERE condition selecting the partitions named by labels (text comparison, null as IS NULL). */
export function partitionsWhere(side: PushSide, labels: string[]): string {
  const p = partitionText(side);
  if (p.column === null) return '1 = 1';
  const d = DIALECT_SQL[side.dialect];
  const vals = labels.map((l) => l.slice(l.indexOf('=') + 1));
  const lits = vals.filter((v) => v !== NULL_LABEL).map((v) => d.str(v));
  const parts: string[] = [];
  if (lits.length) parts.push(`(${p.sql}) IN (${lits.join(', ')})`);
  if (vals.includes(NULL_LABEL)) parts.push(`(${p.sql}) IS NULL`);
  return parts.length ? `(${parts.join(' OR ')})` : '1 = 0';
}

function limbSums(): string {
  return [0, 1, 2, 3].map((j) => `SUM(l${j}) AS l${j}`).join(', ');
}

/** Per-partition count and limb sums of md5(text) over `text` (SQL over the relation's columns). */
function digestSumsSql(side: PushSide, text: string, where?: string): string {
  const d = DIALECT_SQL[side.dialect];
  const p = partitionText(side).sql;
  const limbs = limbsSql('h', side.dialect).map((l, j) => `${l} AS l${j}`).join(', ');
  return [
    `SELECT p, COUNT(*) AS n, ${limbSums()}`,
    `FROM (SELECT p, ${limbs} FROM (SELECT ${p} AS p, ${d.md5Hex(text)} AS h FROM ${side.relation}${where ? ` WHERE ${where}` : ''}) t1) t2`,
    'GROUP BY p',
  ].join('\n');
}

function header(side: PushSide, level: PushedLevel): string {
  return `-- lakerec ${level} (${side.dialect}; digest ${PUSHED_DIGEST}; contract ${side.contract.name}${side.contract.naiveIsUtc ? '; naive timestamps read as UTC' : ''})\n`;
}

export function schemaStatement(side: PushSide): PushedStatement {
  return stmt('schema', 'the columns and types as the warehouse describes them', header(side, 'schema') + DIALECT_SQL[side.dialect].describe(side.relation));
}

export function countsStatement(side: PushSide): PushedStatement {
  const p = partitionText(side).sql;
  return stmt('counts', 'rows per partition (p, n)', header(side, 'counts') + `SELECT p, COUNT(*) AS n FROM (SELECT ${p} AS p FROM ${side.relation}) t GROUP BY p`);
}

/** The checksum level: one statement for the digest partials, one per float column for its exact sums. */
export function checksumStatements(side: PushSide): PushedStatement[] {
  const d = DIALECT_SQL[side.dialect];
  const { digest, floats } = digestPlan(side);
  const text = canonicalRowSql(digest, side.dialect, side.contract.naiveIsUtc);
  const out = [stmt('checksum', 'rows and the four 32-bit limb sums of the row digests per partition (p, n, l0..l3)', header(side, 'checksum') + digestSumsSql(side, text))];
  const p = partitionText(side).sql;
  for (const f of floats) {
    if (!side.contract.floats[targetName(side, f.name)]) {
      throw new LakerecError('contract_mismatch', `column "${targetName(side, f.name)}" is a float: the contract must say what equal means ({ float: exclude } or { float: { tolerance: T } })`);
    }
    const parts = floatPartsSelect(side.dialect, side.relation, [{ expr: p, as: 'p' }], [{ expr: d.ident(f.name), out: 'f' }]);
    out.push(stmt('checksum', `exact sums of float column ${f.name} per partition and exponent (p, e, special, ms, n)`,
      header(side, 'checksum') + `SELECT p, f_e AS e, f_s AS special, SUM(CAST(f_m AS ${d.exactInt})) AS ms, COUNT(*) AS n FROM (${parts}) t GROUP BY p, f_e, f_s`,
      { column: f.name }));
  }
  return out;
}

function keyColumns(side: PushSide): WarehouseColumn[] {
  return side.contract.keys.map((k) => column(side, sideName(side, k)));
}

/** Per-partition key digests: count and limb sums of md5(canonical text of the key columns, in key order). */
export function keysStatement(side: PushSide): PushedStatement {
  const text = canonicalRowSql(keyColumns(side), side.dialect, side.contract.naiveIsUtc);
  return stmt('keys', 'rows and the limb sums of the key digests per partition (p, n, l0..l3)', header(side, 'keys') + digestSumsSql(side, text));
}

/**
 * The rows level, for the partitions that disagree only: each row's key (canonical text) and row
 * digest (hex md5), ordered by key, at most `cap` + 1 rows (one more says the cap was reached).
 */
export function rowsStatement(side: PushSide, labels: string[], cap = DEFAULT_ROW_CAP): PushedStatement {
  const d = DIALECT_SQL[side.dialect];
  const { digest } = digestPlan(side);
  const key = canonicalRowSql(keyColumns(side), side.dialect, side.contract.naiveIsUtc);
  const row = canonicalRowSql(digest, side.dialect, side.contract.naiveIsUtc);
  const p = partitionText(side).sql;
  // The contract's ordering column, as canonical text (integers and timestamps as integers), so
  // stale rows (an older ordering value in the target) are named as the local engine names them.
  const ord = orderingText(side);
  // Float columns compared within a tolerance are compared row by row, as locally: their values come back too.
  const fl = tolerantFloats(side).map((f, i) => `, CAST(${d.ident(f.name)} AS ${d.double}) AS f${i}`).join('');
  const sql = `SELECT ${p} AS p, ${key} AS k, ${d.md5Hex(row)} AS h${ord ? `, ${ord} AS o` : ''}${fl} FROM ${side.relation} WHERE ${partitionsWhere(side, labels)} ORDER BY k, h ${d.limit(cap + 1)}`;
  return stmt('rows', `key and row digest of each row of ${labels.length} disagreeing partition(s), at most ${cap} (p, k, h${ord ? ', o' : ''})`, header(side, 'rows') + sql);
}

/** The float columns the contract compares within a tolerance, in target-name order, with their target names. */
export function tolerantFloats(side: PushSide): { name: string; target: string; tolerance: number }[] {
  return digestPlan(side).floats
    .map((f) => ({ name: f.name, target: targetName(side, f.name), rule: side.contract.floats[targetName(side, f.name)] }))
    .filter((f): f is { name: string; target: string; rule: { tolerance: number } } => !!f.rule && f.rule !== 'exclude')
    .sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0))
    .map((f) => ({ name: f.name, target: f.target, tolerance: f.rule.tolerance }));
}

/** The ordering column's value as text comparable by orderingCompare, or null (no ordering, or a type it is not written for). */
function orderingText(side: PushSide): string | null {
  const o = side.contract.ordering;
  if (!o) return null;
  const c = side.columns.find((x) => x.name === sideName(side, o));
  if (!c) return null;
  const fam = compareFamily(c.type, side.contract.naiveIsUtc);
  if (!['integer', 'decimal', 'timestamp', 'timestamp_naive', 'date', 'string'].includes(fam)) return null;
  const d = DIALECT_SQL[side.dialect];
  return d.valueText(d.ident(c.name), fam, decimalScale(c.type) ?? 0);
}

/** Orders two ordering texts as the values they came from: integers and timestamps (epoch micros) as numbers, dates and strings as text. */
export function orderingCompare(a: string, b: string): number {
  const num = /^(-?)(\d+)(?:\.(\d+))?$/;
  const ma = num.exec(a);
  const mb = num.exec(b);
  if (ma && mb) {
    // Integers, epoch microseconds and decimals (their scale digits padded to one length): exactly.
    const w = Math.max(ma[3]?.length ?? 0, mb[3]?.length ?? 0);
    const big = (m: RegExpExecArray) => BigInt(`${m[1]}${m[2]}${(m[3] ?? '').padEnd(w, '0')}`);
    const x = big(ma);
    const y = big(mb);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A Delta type for a column the local engine typed (the fingerprint is defined over Delta types). */
export function deltaTypeOf(duckType: string): DataType {
  switch (compareFamily(duckType, false)) {
    case 'integer': return 'long';
    case 'decimal': { const m = /^DECIMAL\((\d+),\s*(\d+)\)$/i.exec(duckType.trim()); return m ? `decimal(${m[1]},${m[2]})` : 'decimal(38,0)'; }
    case 'string': return 'string';
    case 'boolean': return 'boolean';
    case 'date': return 'date';
    case 'timestamp': return 'timestamp';
    case 'timestamp_naive': return 'timestamp_ntz';
    case 'float': return 'double';
    default: return 'binary';
  }
}

/** The Delta schema the fingerprint of these columns is defined over. */
export function fingerprintSchema(columns: WarehouseColumn[]): StructType {
  return { type: 'struct', fields: columns.map((c) => ({ name: c.name, type: deltaTypeOf(c.type), nullable: true, metadata: {} })) };
}

export function fingerprintStatement(side: PushSide): PushedStatement {
  const sql = fingerprintSql(fingerprintSchema(side.columns), side.dialect as FingerprintDialect, side.relation);
  return stmt('fingerprint', 'the ods fingerprint v1: one row', sql);
}

/** The data laws' per-day totals: rows and each measure's sum per day (exact for integers and decimals). */
export function lawsStatement(side: PushSide): PushedStatement {
  const laws = side.contract.laws;
  if (!laws || !laws.day) throw new LakerecError('usage', 'the contract has no laws.day: the per-day totals need the day column');
  const d = DIALECT_SQL[side.dialect];
  const day = column(side, sideName(side, laws.day));
  const measures = (laws.measures ?? side.columns.filter((c) => ['integer', 'decimal', 'float'].includes(compareFamily(c.type, false)) && !side.contract.keys.includes(targetName(side, c.name))).map((c) => targetName(side, c.name)))
    .map((m) => column(side, sideName(side, m)));
  const dayText = compareFamily(day.type, false) === 'date' ? d.valueText(d.ident(day.name), 'date', 0)
    : ['timestamp', 'timestamp_naive'].includes(compareFamily(day.type, false)) ? d.valueText(`CAST(${d.ident(day.name)} AS DATE)`, 'date', 0)
      : `CAST(${d.ident(day.name)} AS ${d.text})`;
  const sums = measures.map((m, i) => {
    const fam = compareFamily(m.type, false);
    const scale = decimalScale(m.type) ?? 0;
    const x = d.ident(m.name);
    return fam === 'float' ? `SUM(CAST(${x} AS ${d.double})) AS m${i}` : `SUM(CAST(${x} AS DECIMAL(38,${scale}))) AS m${i}`;
  });
  const cols = measures.map((m, i) => `m${i} = ${m.name}`).join(', ');
  return stmt('laws', `rows and measure totals per day (d, n${measures.length ? ', ' + measures.map((_, i) => `m${i}`).join(', ') : ''}${cols ? '; ' + cols : ''})`,
    header(side, 'laws') + `SELECT ${dayText} AS d, COUNT(*) AS n${sums.length ? ', ' + sums.join(', ') : ''} FROM ${side.relation} GROUP BY ${dayText}`);
}

export type BisectPredicate = 'no-null-keys' | 'unique-keys' | 'row-count';

/**
 * Bisect's per-version probe: one count per version, at the version where the dialect time-travels
 * (VERSION AS OF on Databricks, FOR VERSION AS OF on Trino's Delta connector); `relationAt` gives
 * it instead (the DuckDB executor: the files the log lists at that version).
 */
export function bisectStatement(side: PushSide, predicate: BisectPredicate, version: number, relationAt?: (v: number) => string): PushedStatement {
  const d = DIALECT_SQL[side.dialect];
  const rel = relationAt ? relationAt(version) : d.versionAsOf(side.relation, version);
  if (rel === null) throw new LakerecError('usage', `${side.dialect} cannot read a Delta table at a version (no VERSION AS OF): bisect this table locally`);
  const keys = keyColumns(side).map((k) => d.ident(k.name));
  let sql: string;
  let purpose: string;
  if (predicate === 'no-null-keys') { sql = `SELECT COUNT(*) AS bad FROM ${rel} WHERE ${keys.map((k) => `${k} IS NULL`).join(' OR ')}`; purpose = 'rows with a null key (bad)'; }
  else if (predicate === 'unique-keys') { sql = `SELECT COUNT(*) AS bad FROM (SELECT ${keys.join(', ')} FROM ${rel} GROUP BY ${keys.join(', ')} HAVING COUNT(*) > 1) t`; purpose = 'keys held by more than one row (bad)'; }
  else { sql = `SELECT COUNT(*) AS n FROM ${rel}`; purpose = 'rows (n)'; }
  return stmt('bisect', `${predicate} at version ${version}: ${purpose}`, header(side, 'bisect') + sql, { version });
}

/** Every statement of a level (rows and bisect need their partitions / versions). */
export function statementsFor(side: PushSide, level: PushedLevel, opts: { partitions?: string[]; cap?: number; versions?: number[]; predicate?: BisectPredicate; relationAt?: (v: number) => string } = {}): PushedStatement[] {
  switch (level) {
    case 'schema': return [schemaStatement(side)];
    case 'counts': return [countsStatement(side)];
    case 'checksum': return checksumStatements(side);
    case 'keys': return [keysStatement(side)];
    case 'rows': return [rowsStatement(side, opts.partitions ?? [], opts.cap)];
    case 'fingerprint': return [fingerprintStatement(side)];
    case 'laws': return [lawsStatement(side)];
    case 'bisect': return (opts.versions ?? [0]).map((v) => bisectStatement(side, opts.predicate ?? 'no-null-keys', v, opts.relationAt));
  }
}
