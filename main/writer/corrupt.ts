// The corruption scenarios as operations on ANY table: what the sample lakes do to the orders
// table, generalised to a table described only by its keys, its partition column and (where a
// corruption needs one) an ordering or timestamp column. Each is one real commit through the
// writer, meant for a scratch copy of a table (mutation testing: does this table's contract catch
// this corruption?). A corruption the table cannot take (no string column for Unicode, a NOT NULL
// key for null keys) is reported as not applied, with the reason, never faked.
import type { DataType, StructField } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import type { FindingMode } from '../../shared/reconcile';
import { sqlIdent, sqlString } from '../engine/duck';
import { duckType, partitionLiteralSql } from './schema';
import type { DeltaWriter } from './writer';

export const CORRUPTIONS = [
  'double_load', 'missing_rows', 'extra_rows', 'partition_wipe', 'overwrite_too_wide',
  'timezone_partition_shift', 'stale_rows', 'content_divergence', 'schema_drift',
  'recomputed_double', 'unicode_normalisation', 'null_keys', 'float_drift',
] as const;
export type Corruption = (typeof CORRUPTIONS)[number];

/** The finding reconcile should name for each corruption (null: must stay silent). */
export const EXPECTED_MODE: Record<Corruption, FindingMode | null> = {
  double_load: 'double_load',
  missing_rows: 'missing_rows',
  extra_rows: 'extra_rows',
  partition_wipe: 'partition_wipe',
  overwrite_too_wide: 'overwrite_too_wide',
  timezone_partition_shift: 'timezone_partition_shift',
  stale_rows: 'stale_rows',
  content_divergence: 'content_divergence',
  schema_drift: 'schema_drift',
  recomputed_double: 'content_divergence',
  unicode_normalisation: 'unicode_normalisation',
  null_keys: 'null_keys',
  float_drift: null,
};

export interface CorruptionTarget {
  /** Key columns (the contract's keys). */
  keys: string[];
  /** The partition column to aim at; default the table's first partition column. */
  partitionColumn?: string | null;
  /** The column ordering two versions of a row (stale rows). */
  ordering?: string | null;
  /** The timestamp the partition (a date) is derived from in UTC (timezone shift). */
  timestampColumn?: string | null;
  /** Mixed into the key hash that picks the rows touched (same seed, same rows); none: the unseeded choice. */
  seed?: number;
}

export interface Injection {
  corruption: Corruption;
  expectedMode: FindingMode | null;
  applied: boolean;
  /** The version the corrupting commit created (null when not applied). */
  version: number | null;
  /** The partition it aimed at ("dt=2026-08-10"), null for the whole table. */
  partition: string | null;
  /** Rows the corruption touched (added, removed, changed or moved). */
  rows: number;
  /** What was done, or why it could not be. */
  note: string;
}

const NUMERIC = /^(long|integer|short|byte|decimal\(.*\)|double|float)$/;

interface Scope {
  column: StructField | null;
  /** Partitions with their row counts (from the log's stats), largest first. */
  partitions: { value: string | null; rows: number }[];
}

function label(col: StructField | null, value: string | null): string | null {
  return col ? `${col.name}=${value ?? '__null__'}` : null;
}

function predicate(col: StructField | null, value: string | null): string {
  if (!col) return 'true';
  return `${sqlIdent(col.name)} IS NOT DISTINCT FROM ${partitionLiteralSql(value, col.type)}`;
}

function scopeOf(w: DeltaWriter, t: CorruptionTarget): Scope {
  const name = t.partitionColumn === undefined ? (w.partitionColumns[0] ?? null) : t.partitionColumn;
  const column = name ? w.schema.fields.find((f) => f.name === name) ?? null : null;
  if (name && !column) throw new LakerecError('writer_misuse', `partition column "${name}" is not a column of the table`);
  const counts = new Map<string | null, number>();
  for (const f of w.state.files.values()) {
    const v = column && w.partitionColumns.includes(column.name) ? (f.partitionValues[column.name] ?? null) : null;
    const n = f.stats ? Number((JSON.parse(f.stats) as { numRecords?: number }).numRecords ?? 0) - (f.deletionVector?.cardinality ?? 0) : 0;
    counts.set(v, (counts.get(v) ?? 0) + n);
  }
  const partitions = [...counts.entries()].map(([value, rows]) => ({ value, rows }))
    .sort((a, b) => b.rows - a.rows || String(a.value).localeCompare(String(b.value)));
  return { column: column && w.partitionColumns.includes(column.name) ? column : null, partitions };
}

function dataColumn(w: DeltaWriter, t: CorruptionTarget, test: (ty: DataType) => boolean): StructField | null {
  return w.schema.fields.find((f) => !t.keys.includes(f.name) && !w.partitionColumns.includes(f.name)
    && f.name !== t.ordering && test(f.type)) ?? null;
}

async function scalar(w: DeltaWriter, sql: string): Promise<number> {
  const r = await w.conn.runAndReadAll(sql);
  return Number(r.getRows()[0]?.[0] ?? 0);
}

/**
 * Applies one corruption to the table behind `w` as one commit. Aims at the partition with the
 * most rows (the whole table when unpartitioned). Throws only for misuse of this function; a
 * corruption the table cannot take comes back with `applied: false` and the reason.
 */
export async function injectCorruption(w: DeltaWriter, corruption: Corruption, t: CorruptionTarget): Promise<Injection> {
  if (t.keys.length === 0) throw new LakerecError('writer_misuse', 'corruptions need the key columns');
  for (const k of t.keys) if (!w.schema.fields.some((f) => f.name === k)) throw new LakerecError('writer_misuse', `key column "${k}" is not a column of the table`);
  const scope = scopeOf(w, t);
  const target = scope.partitions[0];
  const base: Omit<Injection, 'applied' | 'version' | 'rows' | 'note'> = {
    corruption, expectedMode: EXPECTED_MODE[corruption], partition: target ? label(scope.column, target.value) : null,
  };
  const skip = (note: string): Injection => ({ ...base, applied: false, version: null, rows: 0, note });
  if (!target || target.rows === 0) return skip('the table has no rows');
  const inScope = predicate(scope.column, target.value);
  const rowsSql = `SELECT * FROM (${await w.currentRowsSql()}) WHERE ${inScope}`;
  // Overwrites stay inside the aimed partition (replaceWhere), or replace an unpartitioned table.
  const overwriteScope = async (sql: string, mergeSchema = false) => (scope.column
    ? w.overwrite({ sql }, { replaceWhere: inScope, mergeSchema })
    : w.overwrite({ sql }, { mergeSchema }));
  if (t.seed !== undefined && !Number.isSafeInteger(t.seed)) throw new LakerecError('writer_misuse', `seed must be an integer, got ${String(t.seed)}`);
  const keyHash = `hash(${t.keys.map(sqlIdent).join(', ')}${t.seed === undefined ? '' : `, ${t.seed}`})`;
  // "1 in m rows by key hash", with the residue of an actual row so that small partitions are hit too.
  const oneIn = async (m: number): Promise<string> => {
    const r = await scalar(w, `SELECT min(${keyHash}) % ${m} FROM (${rowsSql})`);
    return `${keyHash} % ${m} = ${r}`;
  };
  const done = (version: number, rows: number, note: string): Injection => ({ ...base, applied: true, version, rows, note });

  switch (corruption) {
    case 'double_load': {
      const r = await w.append({ sql: rowsSql });
      return done(r.version, target.rows, `the ${target.rows} row(s) of ${base.partition ?? 'the table'} appended again (a retried batch)`);
    }
    case 'missing_rows': {
      const pred = `${inScope} AND ${await oneIn(10)}`;
      const n = await scalar(w, `SELECT count(*) FROM (${await w.currentRowsSql()}) WHERE ${pred}`);
      if (n === 0 || n === target.rows) return skip('no proper subset of the partition to delete');
      const r = await w.deleteWhere(pred);
      return done(r.version, n, `DELETE of ${n} row(s) (1 in 10 by key hash) in ${base.partition ?? 'the table'}`);
    }
    case 'extra_rows': {
      const k = w.schema.fields.find((f) => f.name === t.keys[0])!;
      const n = Math.max(1, Math.min(40, Math.floor(target.rows / 20)));
      const fresh = typeof k.type === 'string' && NUMERIC.test(k.type)
        ? `(SELECT max(${sqlIdent(k.name)}) FROM (${await w.currentRowsSql()})) + row_number() OVER ()`
        : typeof k.type === 'string' && k.type === 'string' ? `${sqlIdent(k.name)} || '-qa-' || row_number() OVER ()` : null;
      if (!fresh) return skip(`cannot make new values for key column "${k.name}" of type ${JSON.stringify(k.type)}`);
      const r = await w.append({ sql: `SELECT * REPLACE (CAST(${fresh} AS ${duckOf(w, k.name)}) AS ${sqlIdent(k.name)}) FROM (${rowsSql} LIMIT ${n})` });
      return done(r.version, n, `${n} row(s) with keys the source never had appended to ${base.partition ?? 'the table'}`);
    }
    case 'partition_wipe': {
      if (!scope.column) return skip('the table is not partitioned');
      const r = await w.overwrite({ sql: `${rowsSql} AND false` }, { replaceWhere: inScope });
      return done(r.version, target.rows, `${base.partition} overwritten with no rows`);
    }
    case 'overwrite_too_wide': {
      if (!scope.column || scope.partitions.length < 2) return skip('needs a partitioned table with at least two partitions');
      const sorted = scope.partitions.filter((p) => p.value !== null).map((p) => p.value!).sort();
      if (sorted.length < 2) return skip('needs two non-null partition values');
      const from = sorted[sorted.length - 2];
      const col = sqlIdent(scope.column.name);
      const lit = partitionLiteralSql(from, scope.column.type);
      const lost = scope.partitions.filter((p) => p.value !== null && p.value > from).reduce((s, p) => s + p.rows, 0);
      const r = await w.overwrite({ sql: `SELECT * FROM (${await w.currentRowsSql()}) WHERE ${col} = ${lit}` }, { replaceWhere: `${col} >= ${lit}` });
      return { ...base, partition: label(scope.column, sorted[sorted.length - 1]), applied: true, version: r.version, rows: lost, note: `replaceWhere ${scope.column.name} >= ${from} with the data of ${from} only: ${lost} row(s) of later partitions removed` };
    }
    case 'timezone_partition_shift': {
      const ts = t.timestampColumn ? w.schema.fields.find((f) => f.name === t.timestampColumn) : null;
      if (!scope.column || scope.column.type !== 'date') return skip('needs a date partition column');
      if (!ts || (ts.type !== 'timestamp' && ts.type !== 'timestamp_ntz')) return skip('needs the timestamp column the partition date is derived from');
      const local = ts.type === 'timestamp' ? `timezone('America/New_York', ${sqlIdent(ts.name)})` : `timezone('America/New_York', timezone('UTC', ${sqlIdent(ts.name)}))`;
      const all = await w.currentRowsSql();
      const shifted = `SELECT * REPLACE (CAST(${local} AS DATE) AS ${sqlIdent(scope.column.name)}) FROM (${all})`;
      const moved = await scalar(w, `SELECT count(*) FROM (${all}) WHERE CAST(${local} AS DATE) IS DISTINCT FROM ${sqlIdent(scope.column.name)}`);
      if (moved === 0) return skip('no row would change partition');
      const r = await w.overwrite({ sql: shifted });
      return { ...base, partition: null, applied: true, version: r.version, rows: moved, note: `table overwritten with ${scope.column.name} derived in America/New_York: ${moved} row(s) moved` };
    }
    case 'stale_rows': {
      const ord = t.ordering ? w.schema.fields.find((f) => f.name === t.ordering) : null;
      if (!ord || typeof ord.type !== 'string') return skip('needs the contract\'s ordering column');
      const older = ord.type.startsWith('timestamp') ? `${sqlIdent(ord.name)} - INTERVAL 2 HOUR`
        : ord.type === 'date' ? `${sqlIdent(ord.name)} - INTERVAL 1 DAY`
          : NUMERIC.test(ord.type) ? `${sqlIdent(ord.name)} - 1` : null;
      if (!older) return skip(`cannot make an older value for ordering column "${ord.name}"`);
      const other = dataColumn(w, t, (ty) => ty === 'string' || (typeof ty === 'string' && NUMERIC.test(ty)));
      const change = other ? `, CAST(${changedValue(other)} AS ${duckOf(w, other.name)}) AS ${sqlIdent(other.name)}` : '';
      const batch = `SELECT * REPLACE (CAST(${older} AS ${duckOf(w, ord.name)}) AS ${sqlIdent(ord.name)}${change}) FROM (${rowsSql} AND ${await oneIn(15)})`;
      const n = await scalar(w, `SELECT count(*) FROM (${batch})`);
      if (n === 0) return skip('no row selected');
      const r = await w.merge({ sql: batch }, { on: t.keys });
      return done(r.version, n, `MERGE of older versions of ${n} row(s) (${ord.name} earlier${other ? `, ${other.name} changed` : ''})`);
    }
    case 'content_divergence': {
      const col = dataColumn(w, t, (ty) => ty === 'string' || (typeof ty === 'string' && NUMERIC.test(ty)));
      if (!col) return skip('needs a string or numeric column that is not a key');
      const where = `${inScope} AND ${await oneIn(7)} AND ${sqlIdent(col.name)} IS NOT NULL`;
      const n = await scalar(w, `SELECT count(*) FROM (${await w.currentRowsSql()}) WHERE ${where}`);
      if (n === 0) return skip('no row selected');
      const r = await w.update({ [col.name]: changedValue(col) }, where);
      return done(r.version, n, `UPDATE of ${col.name} on ${n} row(s)${t.ordering ? `, ${t.ordering} untouched` : ''}`);
    }
    case 'schema_drift': {
      const name = w.schema.fields.some((f) => f.name === 'lakerec_channel') ? 'lakerec_channel_2' : 'lakerec_channel';
      const r = await overwriteScope(`SELECT *, 'web' AS ${sqlIdent(name)} FROM (${rowsSql})`, true);
      return done(r.version, target.rows, `${base.partition ?? 'the table'} rewritten with mergeSchema and a new column ${name}`);
    }
    case 'recomputed_double': {
      const col = dataColumn(w, t, (ty) => ty === 'double' || ty === 'float');
      if (!col) return skip('needs a double or float column');
      const where = `${inScope} AND ${sqlIdent(col.name)} IS NOT NULL AND ${sqlIdent(col.name)} <> 0 AND isfinite(${sqlIdent(col.name)})`;
      const keyRow = await w.conn.runAndReadAll(`SELECT ${t.keys.map(sqlIdent).join(', ')} FROM (${await w.currentRowsSql()}) WHERE ${where} ORDER BY ${keyHash} LIMIT 1`);
      const key = keyRow.getRowObjectsJS()[0];
      if (!key) return skip(`no finite non-zero value in ${col.name}`);
      const keyPred = t.keys.map((k) => (key[k] === null ? `${sqlIdent(k)} IS NULL` : `CAST(${sqlIdent(k)} AS VARCHAR) = ${sqlString(String(key[k]))}`)).join(' AND ');
      const r = await w.update({ [col.name]: `${sqlIdent(col.name)} * 1.0825` }, `${where} AND ${keyPred}`);
      return done(r.version, 1, `${col.name} of one row recomputed (x 1.0825)`);
    }
    case 'unicode_normalisation': {
      const col = dataColumn(w, t, (ty) => ty === 'string');
      if (!col) return skip('needs a string column that is not a key');
      const values = (await w.conn.runAndReadAll(`SELECT DISTINCT ${sqlIdent(col.name)} AS v FROM (${rowsSql}) WHERE ${sqlIdent(col.name)} IS NOT NULL AND regexp_matches(${sqlIdent(col.name)}, '[^\\x00-\\x7F]') LIMIT 10000`))
        .getRowObjectsJS().map((x) => String(x.v)).filter((v) => v.normalize('NFD') !== v);
      if (values.length === 0) return skip(`no value of ${col.name} in ${base.partition ?? 'the table'} changes under NFD`);
      const mapping = `CASE ${sqlIdent(col.name)} ${values.map((v) => `WHEN ${sqlString(v)} THEN ${sqlString(v.normalize('NFD'))}`).join(' ')} ELSE ${sqlIdent(col.name)} END`;
      const n = await scalar(w, `SELECT count(*) FROM (${rowsSql}) WHERE ${mapping} <> ${sqlIdent(col.name)}`);
      const r = await overwriteScope(`SELECT * REPLACE (${mapping} AS ${sqlIdent(col.name)}) FROM (${rowsSql})`);
      return done(r.version, n, `${col.name} rewritten in NFD on ${n} row(s)`);
    }
    case 'null_keys': {
      const k = t.keys[0];
      const pick = await oneIn(36);
      const n = await scalar(w, `SELECT count(*) FROM (${rowsSql}) WHERE ${pick}`);
      try {
        const r = await overwriteScope(`SELECT * REPLACE (CASE WHEN ${pick} THEN NULL ELSE ${sqlIdent(k)} END AS ${sqlIdent(k)}) FROM (${rowsSql})`);
        return done(r.version, n, `${n} row(s) of ${base.partition ?? 'the table'} rewritten with a null ${k}`);
      } catch (e) {
        if (e instanceof LakerecError && e.code === 'writer_misuse' && /NOT NULL/.test(e.message)) {
          return skip(`refused by the table: ${k} is NOT NULL, so null keys cannot land (${e.message})`);
        }
        throw e;
      }
    }
    case 'float_drift': {
      const col = dataColumn(w, t, (ty) => ty === 'double');
      if (!col) return skip('needs a double column');
      const c = sqlIdent(col.name);
      const expr = `(${c} * 0.7 + ${c} * 0.2) + ${c} * 0.1`;
      const n = await scalar(w, `SELECT count(*) FROM (${rowsSql}) WHERE ${expr} <> ${c}`);
      const r = await overwriteScope(`SELECT * REPLACE (${expr} AS ${c}) FROM (${rowsSql})`);
      return done(r.version, n, `${col.name} recomputed as (v*0.7 + v*0.2) + v*0.1: ${n} row(s) differ bitwise`);
    }
  }
}

function duckOf(w: DeltaWriter, column: string): string {
  return duckType(w.schema.fields.find((x) => x.name === column)!.type);
}

/** A different value of the same type (what a bad transformation writes). */
function changedValue(col: StructField): string {
  const c = sqlIdent(col.name);
  if (col.type === 'string') return `CASE WHEN upper(${c}) <> ${c} THEN upper(${c}) ELSE ${c} || '*' END`;
  return `${c} + 1`;
}
