// Exact conversion between the proof's cells and DuckDB: DuckDB values typed by the column's
// Delta type for the appender (so nothing goes through a lossy JS number), and DuckDB result
// values back to cells with the Arrow type DuckDB's own column type stands for.
import * as A from 'apache-arrow';
import {
  BIGINT, BLOB, BOOLEAN, DATE, DECIMAL, DOUBLE, FLOAT, INTEGER, LIST, MAP, SMALLINT, STRUCT, TIMESTAMP, TIMESTAMPTZ, TINYINT, VARCHAR,
  DuckDBBlobValue, DuckDBDateValue, DuckDBDecimalValue, DuckDBListValue, DuckDBMapValue, DuckDBStructValue,
  DuckDBTimestampTZValue, DuckDBTimestampValue, DuckDBTypeId,
  type DuckDBDecimalType, type DuckDBListType, type DuckDBMapType, type DuckDBStructType, type DuckDBType, type DuckDBValue,
} from '@duckdb/node-api';
import type { DataType as DeltaType } from '../../../shared/delta';
import { LakerecError } from '../../../shared/errors';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { StructType } from '../../../shared/delta';
import { sqlIdent } from '../../engine/duck';
import { MapCell, type Cell } from '../cells';

/** The DuckDB column type for a Delta type. */
export function duckTypeOf(t: DeltaType): string {
  if (typeof t === 'string') {
    const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
    if (dec) return `DECIMAL(${dec[1]},${dec[2]})`;
    const map: Record<string, string> = {
      byte: 'TINYINT', short: 'SMALLINT', integer: 'INTEGER', long: 'BIGINT', float: 'FLOAT', double: 'DOUBLE',
      boolean: 'BOOLEAN', string: 'VARCHAR', binary: 'BLOB', date: 'DATE', timestamp: 'TIMESTAMPTZ', timestamp_ntz: 'TIMESTAMP',
    };
    if (map[t]) return map[t];
    throw new LakerecError('unsupported_feature', `the DuckDB engine cannot write the Delta type ${t}`);
  }
  if (t.type === 'array') return `${duckTypeOf(t.elementType)}[]`;
  if (t.type === 'struct') return `STRUCT(${t.fields.map((f) => `${sqlIdent(f.name)} ${duckTypeOf(f.type)}`).join(', ')})`;
  return `MAP(${duckTypeOf(t.keyType)}, ${duckTypeOf(t.valueType)})`;
}

/** The Arrow type a DuckDB column type stands for (what DuckDB says it read). */
export function arrowTypeOfDuck(t: DuckDBType): A.DataType {
  switch (t.typeId) {
    case DuckDBTypeId.TINYINT: return new A.Int8();
    case DuckDBTypeId.SMALLINT: return new A.Int16();
    case DuckDBTypeId.INTEGER: return new A.Int32();
    case DuckDBTypeId.BIGINT: return new A.Int64();
    case DuckDBTypeId.FLOAT: return new A.Float32();
    case DuckDBTypeId.DOUBLE: return new A.Float64();
    case DuckDBTypeId.BOOLEAN: return new A.Bool();
    case DuckDBTypeId.VARCHAR: return new A.Utf8();
    case DuckDBTypeId.BLOB: return new A.Binary();
    case DuckDBTypeId.DATE: return new A.DateDay();
    case DuckDBTypeId.TIMESTAMP: return new A.TimestampMicrosecond(null);
    case DuckDBTypeId.TIMESTAMP_TZ: return new A.TimestampMicrosecond('UTC');
    case DuckDBTypeId.DECIMAL: { const d = t as DuckDBDecimalType; return new A.Decimal(d.scale, d.width, 128); }
    case DuckDBTypeId.LIST: return new A.List(new A.Field('element', arrowTypeOfDuck((t as DuckDBListType).valueType), true));
    case DuckDBTypeId.STRUCT: {
      const s = t as DuckDBStructType;
      return new A.Struct(s.entryNames.map((n, i) => new A.Field(n, arrowTypeOfDuck(s.entryTypes[i]), true)));
    }
    case DuckDBTypeId.MAP: {
      const m = t as DuckDBMapType;
      const entries = new A.Struct([new A.Field('key', arrowTypeOfDuck(m.keyType), false), new A.Field('value', arrowTypeOfDuck(m.valueType), true)]);
      return new A.Map_(new A.Field('entries', entries, false), false);
    }
    default: throw new LakerecError('unsupported_feature', `the DuckDB engine read a column of type ${t.toString()}, which the proof does not handle`);
  }
}

/** A DuckDB result value as a cell. */
export function cellOfDuck(v: DuckDBValue): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string' || typeof v === 'bigint') return v;
  if (typeof v === 'number') return v;
  if (v instanceof DuckDBDecimalValue) return v.value;
  if (v instanceof DuckDBBlobValue) return v.bytes;
  if (v instanceof DuckDBDateValue) return v.days;
  if (v instanceof DuckDBTimestampValue || v instanceof DuckDBTimestampTZValue) return v.micros;
  if (v instanceof DuckDBListValue) return v.items.map(cellOfDuck);
  if (v instanceof DuckDBStructValue) return Object.fromEntries(Object.entries(v.entries).map(([k, x]) => [k, cellOfDuck(x)]));
  if (v instanceof DuckDBMapValue) return new MapCell(v.entries.map((e) => [cellOfDuck(e.key), cellOfDuck(e.value)]));
  throw new LakerecError('unsupported_feature', `the DuckDB engine read a value the proof does not handle (${String(v)})`);
}

/** The DuckDB value type for a Delta type (for the appender). */
export function duckValueTypeOf(t: DeltaType): DuckDBType {
  if (typeof t === 'string') {
    const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
    if (dec) return DECIMAL(Number(dec[1]), Number(dec[2]));
    const map: Record<string, DuckDBType> = {
      byte: TINYINT, short: SMALLINT, integer: INTEGER, long: BIGINT, float: FLOAT, double: DOUBLE,
      boolean: BOOLEAN, string: VARCHAR, binary: BLOB, date: DATE, timestamp: TIMESTAMPTZ, timestamp_ntz: TIMESTAMP,
    };
    if (map[t]) return map[t];
    throw new LakerecError('unsupported_feature', `the DuckDB engine cannot write the Delta type ${t}`);
  }
  if (t.type === 'array') return LIST(duckValueTypeOf(t.elementType));
  if (t.type === 'struct') return STRUCT(Object.fromEntries(t.fields.map((f) => [f.name, duckValueTypeOf(f.type)])));
  return MAP(duckValueTypeOf(t.keyType), duckValueTypeOf(t.valueType));
}

/** A cell as a DuckDB value of the column's Delta type (exact: no JS number for int64 or decimals). */
export function duckValueOf(c: Cell, t: DeltaType): DuckDBValue {
  if (c === null) return null;
  if (typeof t === 'string') {
    const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
    if (dec) return new DuckDBDecimalValue(c as bigint, Number(dec[1]), Number(dec[2]));
    switch (t) {
      case 'long': return typeof c === 'bigint' ? c : BigInt(c as number);
      case 'byte': case 'short': case 'integer': return Number(c);
      case 'float': case 'double': case 'boolean': case 'string': return c as number | boolean | string;
      case 'binary': return new DuckDBBlobValue(c as Uint8Array);
      case 'date': return new DuckDBDateValue(c as number);
      case 'timestamp': return new DuckDBTimestampTZValue(c as bigint);
      case 'timestamp_ntz': return new DuckDBTimestampValue(c as bigint);
      default: throw new LakerecError('unsupported_feature', `the DuckDB engine cannot write the Delta type ${t}`);
    }
  }
  if (t.type === 'array') return new DuckDBListValue((c as Cell[]).map((x) => duckValueOf(x, t.elementType)));
  if (t.type === 'struct') {
    const o = c as Record<string, Cell>;
    return new DuckDBStructValue(Object.fromEntries(t.fields.map((f) => [f.name, duckValueOf(o[f.name] ?? null, f.type)])));
  }
  return new DuckDBMapValue((c as MapCell).entries.map(([k, v]) => ({ key: duckValueOf(k, t.keyType), value: duckValueOf(v, t.valueType) })));
}

/** Creates table `name` with `schema` in DuckDB and appends `rows` with DuckDB's appender. */
export async function loadRows(conn: DuckDBConnection, name: string, schema: StructType, rows: Cell[][]): Promise<void> {
  const cols = schema.fields.map((f) => `${sqlIdent(f.name)} ${duckTypeOf(f.type)}${f.nullable ? '' : ' NOT NULL'}`).join(', ');
  await conn.run(`CREATE OR REPLACE TABLE ${sqlIdent(name)} (${cols})`);
  const types = schema.fields.map((f) => duckValueTypeOf(f.type));
  const appender = await conn.createAppender(name);
  try {
    for (const r of rows) {
      schema.fields.forEach((f, i) => appender.appendValue(duckValueOf(r[i], f.type), types[i]));
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}
