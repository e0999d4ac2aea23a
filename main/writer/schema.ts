// Delta schema types as DuckDB types, and the protocol's string forms of partition values.
// The writer speaks DuckDB SQL to produce rows and Parquet, so every Delta type needs exactly one
// DuckDB spelling; anything without one is refused rather than guessed.
import type { DataType, StructField, StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { sqlIdent } from '../engine/duck';

const primitives: Record<string, string> = {
  string: 'VARCHAR',
  long: 'BIGINT',
  integer: 'INTEGER',
  short: 'SMALLINT',
  byte: 'TINYINT',
  float: 'FLOAT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  binary: 'BLOB',
  date: 'DATE',
  // Delta `timestamp` is an instant (UTC-adjusted in Parquet); `timestamp_ntz` is wall-clock.
  timestamp: 'TIMESTAMP WITH TIME ZONE',
  timestamp_ntz: 'TIMESTAMP',
};

const decimalRe = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/;

/** The DuckDB type that holds a Delta type exactly. */
export function duckType(t: DataType): string {
  if (typeof t === 'string') {
    const p = primitives[t];
    if (p) return p;
    const m = decimalRe.exec(t);
    if (m) {
      const precision = Number(m[1]);
      if (precision > 38) throw new LakerecError('writer_misuse', `decimal precision ${precision} is above 38`);
      return `DECIMAL(${m[1]},${m[2]})`;
    }
    throw new LakerecError('writer_misuse', `the writer cannot write Delta type "${t}"`);
  }
  if (t.type === 'struct') return `STRUCT(${t.fields.map((f) => `${sqlIdent(f.name)} ${duckType(f.type)}`).join(', ')})`;
  if (t.type === 'array') return `${duckType(t.elementType)}[]`;
  return `MAP(${duckType(t.keyType)}, ${duckType(t.valueType)})`;
}

/** DuckDB's DESCRIBE spelling of a type, normalised for comparison. */
export function normaliseDuckType(t: string): string {
  return t.toUpperCase().replace(/\s+/g, ' ').replace(/"/g, '').replace(/TIMESTAMPTZ/g, 'TIMESTAMP WITH TIME ZONE').trim();
}

/** Widenings an append may make silently (the value is kept exactly). */
const safeWidenings: Record<string, string[]> = {
  BIGINT: ['INTEGER', 'SMALLINT', 'TINYINT'],
  INTEGER: ['SMALLINT', 'TINYINT'],
  SMALLINT: ['TINYINT'],
  DOUBLE: ['FLOAT'],
};

/** Whether a source column of DuckDB type `from` may be written into a column of Delta type `to`. */
export function assignable(from: string, to: DataType): boolean {
  const target = normaliseDuckType(duckType(to));
  const src = normaliseDuckType(from);
  if (src === target || src === '"NULL"' || src === 'NULL') return true;
  return (safeWidenings[target] ?? []).includes(src);
}

export function isPrimitive(t: DataType): t is string {
  return typeof t === 'string';
}

/** Types whose min/max the writer records in stats (as Delta writers do: no booleans, binary, nested). */
export function hasMinMax(t: DataType): boolean {
  if (typeof t !== 'string') return false;
  return t !== 'boolean' && t !== 'binary' && t !== 'variant';
}

/**
 * SQL turning a column into its partition value string per the protocol (PROTOCOL.md, "Partition
 * Value Serialization"): dates as yyyy-mm-dd, timestamps as `yyyy-mm-dd hh:mm:ss.ffffff` (UTC for
 * `timestamp`), booleans true/false, numbers in plain decimal, null as null.
 */
export function partitionValueSql(col: string, t: DataType): string {
  const c = sqlIdent(col);
  if (t === 'date') return `strftime(${c}, '%Y-%m-%d')`;
  if (t === 'timestamp') return `strftime(timezone('UTC', ${c}), '%Y-%m-%d %H:%M:%S.%f')`;
  if (t === 'timestamp_ntz') return `strftime(${c}, '%Y-%m-%d %H:%M:%S.%f')`;
  if (t === 'boolean') return `CASE WHEN ${c} THEN 'true' ELSE 'false' END`;
  if (t === 'binary') throw new LakerecError('writer_misuse', `binary partition column "${col}" is not supported by the writer`);
  if (typeof t !== 'string') throw new LakerecError('writer_misuse', `partition column "${col}" must have a primitive type`);
  return `CAST(${c} AS VARCHAR)`;
}

/** SQL reading a partition value string back as its typed value. */
export function partitionLiteralSql(value: string | null, t: DataType): string {
  const ty = duckType(t);
  if (value === null) return `CAST(NULL AS ${ty})`;
  const lit = `'${value.replace(/'/g, "''")}'`;
  if (t === 'timestamp') return `CAST(${lit} || '+00' AS ${ty})`;
  return `CAST(${lit} AS ${ty})`;
}

/**
 * Hive-style directory name for a partition value: characters that are unsafe in a path segment
 * become %XX (as Spark does); the log's path then percent-encodes the whole relative path.
 */
export function partitionDirName(col: string, value: string | null): string {
  const v = value === null ? '__HIVE_DEFAULT_PARTITION__' : value.replace(/[\u0000-\u001f"#%'*/:=?\\\u007f{[\]^]/g,
    (ch) => '%' + ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
  return `${col}=${v}`;
}

/** A relative on-disk path as a URI path for the log (each segment percent-encoded). */
export function logPath(relative: string): string {
  // As Hadoop's Path.toUri does: characters legal in a URI path segment (like `=`) stay as they are.
  return relative.split('/').map((s) => encodeURIComponent(s).replace(/%(3D|40|21|24|26|2B|2C|3B)/g, (m) => decodeURIComponent(m))).join('/');
}

export function fieldByName(schema: StructType, name: string): StructField | undefined {
  return schema.fields.find((f) => f.name === name);
}

export function parseSchema(schemaString: string): StructType {
  const s = JSON.parse(schemaString) as StructType;
  if (!s || s.type !== 'struct' || !Array.isArray(s.fields)) {
    throw new LakerecError('writer_misuse', 'metadata schemaString is not a struct type');
  }
  return s;
}

/** The Delta type for a DuckDB column type (schema evolution from data). */
export function deltaTypeOfDuck(t: string): string {
  const u = t.toUpperCase();
  const m = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(u);
  if (m) return `decimal(${m[1]},${m[2]})`;
  const map: Record<string, string> = {
    VARCHAR: 'string', BIGINT: 'long', INTEGER: 'integer', SMALLINT: 'short', TINYINT: 'byte', FLOAT: 'float',
    DOUBLE: 'double', BOOLEAN: 'boolean', BLOB: 'binary', DATE: 'date', 'TIMESTAMP WITH TIME ZONE': 'timestamp',
    TIMESTAMPTZ: 'timestamp', TIMESTAMP: 'timestamp_ntz',
  };
  const d = map[u];
  if (!d) throw new LakerecError('writer_misuse', `schema evolution: no Delta type for DuckDB type ${t}`);
  return d;
}
