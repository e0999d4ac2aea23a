// Exact conversion between the proof's cells and DuckDB: SQL literals typed by the column's
// Delta type (so nothing goes through a lossy JS number), and DuckDB result values back to cells
// with the Arrow type DuckDB's own column type stands for.
import * as A from 'apache-arrow';
import {
  DuckDBDateValue, DuckDBDecimalValue, DuckDBListValue, DuckDBMapValue, DuckDBStructValue,
  DuckDBTimestampTZValue, DuckDBTimestampValue, DuckDBTypeId,
  type DuckDBDecimalType, type DuckDBListType, type DuckDBMapType, type DuckDBStructType, type DuckDBType, type DuckDBValue,
} from '@duckdb/node-api';
import type { DataType as DeltaType } from '../../../shared/delta';
import { LakerecError } from '../../../shared/errors';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { StructType } from '../../../shared/delta';
import { sqlIdent, sqlString } from '../../engine/duck';
import { MapCell, type Cell } from '../cells';
import { decimalText, dateText } from '../fingerprint';

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

function floatLiteral(v: number, sqlType: string): string {
  const text = Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : String(v);
  return `CAST('${text}' AS ${sqlType})`;
}

/** A DuckDB SQL literal of a cell, typed by the column's Delta type. */
export function duckLiteral(c: Cell, t: DeltaType): string {
  const sqlType = duckTypeOf(t);
  if (c === null) return `CAST(NULL AS ${sqlType})`;
  if (typeof t === 'string') {
    if (t.startsWith('decimal')) return `CAST('${decimalText(c as bigint, Number(/,\s*(\d+)\)/.exec(t)?.[1] ?? 0))}' AS ${sqlType})`;
    switch (t) {
      case 'byte': case 'short': case 'integer': case 'long': return `CAST('${String(c)}' AS ${sqlType})`;
      case 'float': case 'double': return floatLiteral(c as number, sqlType);
      case 'boolean': return c ? 'TRUE' : 'FALSE';
      case 'string': return sqlString(c as string);
      case 'date': return `CAST('${dateText(c as number)}' AS DATE)`;
      case 'timestamp_ntz': return `make_timestamp(CAST('${String(c)}' AS BIGINT))`;
      case 'timestamp': return `CAST(make_timestamp(CAST('${String(c)}' AS BIGINT)) AS TIMESTAMPTZ)`;
      default: throw new LakerecError('unsupported_feature', `the DuckDB engine cannot write the Delta type ${t}`);
    }
  }
  if (t.type === 'array') return `CAST([${(c as Cell[]).map((x) => duckLiteral(x, t.elementType)).join(', ')}] AS ${sqlType})`;
  if (t.type === 'struct') {
    const o = c as Record<string, Cell>;
    return `CAST({${t.fields.map((f) => `${sqlString(f.name)}: ${duckLiteral(o[f.name] ?? null, f.type)}`).join(', ')}} AS ${sqlType})`;
  }
  const entries = (c as MapCell).entries;
  return `CAST(MAP {${entries.map(([k, v]) => `${duckLiteral(k, t.keyType)}: ${duckLiteral(v, t.valueType)}`).join(', ')}} AS ${sqlType})`;
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
  if (v instanceof DuckDBDateValue) return v.days;
  if (v instanceof DuckDBTimestampValue || v instanceof DuckDBTimestampTZValue) return v.micros;
  if (v instanceof DuckDBListValue) return v.items.map(cellOfDuck);
  if (v instanceof DuckDBStructValue) return Object.fromEntries(Object.entries(v.entries).map(([k, x]) => [k, cellOfDuck(x)]));
  if (v instanceof DuckDBMapValue) return new MapCell(v.entries.map((e) => [cellOfDuck(e.key), cellOfDuck(e.value)]));
  throw new LakerecError('unsupported_feature', `the DuckDB engine read a value the proof does not handle (${String(v)})`);
}

/** Creates table `name` with `schema` in DuckDB and inserts `rows` as typed literals. */
export async function loadRows(conn: DuckDBConnection, name: string, schema: StructType, rows: Cell[][]): Promise<void> {
  const cols = schema.fields.map((f) => `${sqlIdent(f.name)} ${duckTypeOf(f.type)}${f.nullable ? '' : ' NOT NULL'}`).join(', ');
  await conn.run(`CREATE OR REPLACE TABLE ${sqlIdent(name)} (${cols})`);
  const batch = 200;
  for (let i = 0; i < rows.length; i += batch) {
    const values = rows.slice(i, i + batch).map((r) => `(${schema.fields.map((f, k) => duckLiteral(r[k], f.type)).join(', ')})`);
    await conn.run(`INSERT INTO ${sqlIdent(name)} VALUES ${values.join(',\n')}`);
  }
}
