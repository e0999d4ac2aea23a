// Values as the proof handles them, and the exact conversion between them, Arrow and Delta types.
// Cells keep every value exactly: integers as bigint, decimals as their unscaled bigint (the
// scale is the column type's), dates as days, timestamps as microseconds since the epoch (bigint).
// Arrow buffers are read and built directly, not through Arrow JS's convenience getters, which
// turn timestamps into milliseconds and int64 into lossy numbers.
import * as A from 'apache-arrow';
import type { DataType as DeltaType, StructField, StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';

export class MapCell {
  constructor(readonly entries: [Cell, Cell][]) {}
}

export type Cell = null | boolean | number | bigint | string | Uint8Array | Cell[] | MapCell | { [field: string]: Cell };

export type Row = Cell[];

// ---- types ----

const unsupported = (what: string): LakerecError => new LakerecError('unsupported_feature', `the proof cannot handle ${what}`);

/** The Arrow type the proof uses for a Delta type (timestamps in microseconds). */
export function arrowTypeOf(t: DeltaType): A.DataType {
  if (typeof t === 'string') {
    const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
    if (dec) return new A.Decimal(Number(dec[2]), Number(dec[1]), 128);
    switch (t) {
      case 'byte': return new A.Int8();
      case 'short': return new A.Int16();
      case 'integer': return new A.Int32();
      case 'long': return new A.Int64();
      case 'float': return new A.Float32();
      case 'double': return new A.Float64();
      case 'boolean': return new A.Bool();
      case 'string': return new A.Utf8();
      case 'binary': return new A.Binary();
      case 'date': return new A.DateDay();
      case 'timestamp': return new A.TimestampMicrosecond('UTC');
      case 'timestamp_ntz': return new A.TimestampMicrosecond(null);
      default: throw unsupported(`the Delta type ${t}`);
    }
  }
  if (t.type === 'array') return new A.List(new A.Field('element', arrowTypeOf(t.elementType), t.containsNull));
  if (t.type === 'struct') return new A.Struct(t.fields.map((f) => arrowFieldOf(f)));
  const entries = new A.Struct([new A.Field('key', arrowTypeOf(t.keyType), false), new A.Field('value', arrowTypeOf(t.valueType), t.valueContainsNull)]);
  return new A.Map_(new A.Field('entries', entries, false), false);
}

/** Delta field metadata as Arrow field metadata: strings as they are, anything else as JSON. */
export function arrowMetadataOf(meta: Record<string, unknown>): Map<string, string> {
  return new Map(Object.entries(meta).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}

/** Arrow field metadata back to Delta metadata (JSON arrays and objects parsed back). */
export function deltaMetadataOf(meta: Map<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of meta) {
    if (/^[[{]/.test(v)) {
      try { out[k] = JSON.parse(v); continue; } catch { /* a plain string that starts with a bracket */ }
    }
    out[k] = v;
  }
  return out;
}

export function arrowFieldOf(f: StructField): A.Field {
  return new A.Field(f.name, arrowTypeOf(f.type), f.nullable, arrowMetadataOf(f.metadata ?? {}));
}

export function arrowSchemaOf(schema: StructType): A.Schema {
  return new A.Schema(schema.fields.map(arrowFieldOf));
}

/** The Delta type an Arrow type stands for (what an engine writes into its log). */
export function deltaTypeOf(t: A.DataType): DeltaType {
  switch (t.typeId) {
    case A.Type.Int: {
      const it = t as A.Int;
      if (!it.isSigned) throw unsupported(`unsigned ${it.bitWidth}-bit integers (Delta has none)`);
      return ({ 8: 'byte', 16: 'short', 32: 'integer', 64: 'long' } as const)[it.bitWidth];
    }
    case A.Type.Float: return (t as A.Float).precision === A.Precision.DOUBLE ? 'double' : 'float';
    case A.Type.Bool: return 'boolean';
    case A.Type.Utf8: case A.Type.LargeUtf8: return 'string';
    case A.Type.Binary: case A.Type.LargeBinary: case A.Type.FixedSizeBinary: return 'binary';
    case A.Type.Date: return 'date';
    case A.Type.Timestamp: return (t as A.Timestamp).timezone ? 'timestamp' : 'timestamp_ntz';
    case A.Type.Decimal: { const d = t as A.Decimal; return `decimal(${d.precision},${d.scale})`; }
    case A.Type.List: case A.Type.FixedSizeList: case A.Type.LargeList: {
      const child = (t as A.List).children[0];
      return { type: 'array', elementType: deltaTypeOf(child.type), containsNull: child.nullable };
    }
    case A.Type.Struct: return { type: 'struct', fields: (t as A.Struct).children.map((f) => deltaFieldOf(f)) };
    case A.Type.Map: {
      const [k, v] = (t as A.Map_).children[0].type.children;
      return { type: 'map', keyType: deltaTypeOf(k.type), valueType: deltaTypeOf(v.type), valueContainsNull: v.nullable };
    }
    case A.Type.Dictionary: return deltaTypeOf((t as A.Dictionary).dictionary);
    default: throw unsupported(`the Arrow type ${String(t)}`);
  }
}

export function deltaFieldOf(f: A.Field): StructField {
  return { name: f.name, type: deltaTypeOf(f.type), nullable: f.nullable, metadata: deltaMetadataOf(f.metadata) };
}

export function deltaSchemaOf(schema: A.Schema): StructType {
  return { type: 'struct', fields: schema.fields.map(deltaFieldOf) };
}

// ---- building Arrow from cells ----

function validity(cells: Cell[]): { bitmap: Uint8Array; nullCount: number } {
  const bitmap = new Uint8Array(Math.ceil(cells.length / 8) || 1);
  let nullCount = 0;
  cells.forEach((c, i) => { if (c === null) nullCount++; else bitmap[i >> 3] |= 1 << (i & 7); });
  return { bitmap, nullCount };
}

function asBigInt(c: Cell, what: string): bigint {
  if (typeof c === 'bigint') return c;
  if (typeof c === 'number' && Number.isInteger(c)) return BigInt(c);
  throw new LakerecError('internal', `${what}: expected an integer, got ${String(c)}`);
}

/** Arrow data of `type` holding `cells` (one per row). */
export function buildData(type: A.DataType, cells: Cell[]): A.Data {
  const length = cells.length;
  const { bitmap: nullBitmap, nullCount } = validity(cells);
  const base = { type, length, nullCount, nullBitmap };
  switch (type.typeId) {
    case A.Type.Int: {
      const it = type as A.Int;
      if (it.bitWidth === 64) return A.makeData({ ...base, type: it, data: BigInt64Array.from(cells, (c) => (c === null ? 0n : asBigInt(c, 'int64'))) } as never);
      const Arr = it.bitWidth === 8 ? Int8Array : it.bitWidth === 16 ? Int16Array : Int32Array;
      return A.makeData({ ...base, data: new Arr(cells.map((c) => (c === null ? 0 : Number(asBigInt(c, 'int'))))) } as never);
    }
    case A.Type.Float: {
      const Arr = (type as A.Float).precision === A.Precision.DOUBLE ? Float64Array : Float32Array;
      return A.makeData({ ...base, data: new Arr(cells.map((c) => (c === null ? 0 : Number(c)))) } as never);
    }
    case A.Type.Bool: {
      const data = new Uint8Array(Math.ceil(length / 8) || 1);
      cells.forEach((c, i) => { if (c === true) data[i >> 3] |= 1 << (i & 7); });
      return A.makeData({ ...base, data } as never);
    }
    case A.Type.Utf8: {
      const enc = new TextEncoder();
      const parts = cells.map((c) => (c === null ? new Uint8Array(0) : enc.encode(String(c))));
      const valueOffsets = new Int32Array(length + 1);
      parts.forEach((p, i) => { valueOffsets[i + 1] = valueOffsets[i] + p.length; });
      const data = new Uint8Array(valueOffsets[length]);
      parts.forEach((p, i) => data.set(p, valueOffsets[i]));
      return A.makeData({ ...base, valueOffsets, data } as never);
    }
    case A.Type.Binary: {
      const parts = cells.map((c) => (c instanceof Uint8Array ? c : new Uint8Array(0)));
      const valueOffsets = new Int32Array(length + 1);
      parts.forEach((p, i) => { valueOffsets[i + 1] = valueOffsets[i] + p.length; });
      const data = new Uint8Array(valueOffsets[length]);
      parts.forEach((p, i) => data.set(p, valueOffsets[i]));
      return A.makeData({ ...base, valueOffsets, data } as never);
    }
    case A.Type.Date: return A.makeData({ ...base, data: Int32Array.from(cells, (c) => (c === null ? 0 : Number(c))) } as never);
    case A.Type.Timestamp: {
      if ((type as A.Timestamp).unit !== A.TimeUnit.MICROSECOND) throw new LakerecError('internal', 'the proof builds microsecond timestamps only');
      return A.makeData({ ...base, data: BigInt64Array.from(cells, (c) => (c === null ? 0n : asBigInt(c, 'timestamp'))) } as never);
    }
    case A.Type.Decimal: {
      const data = new Uint32Array(length * 4);
      cells.forEach((c, i) => {
        if (c === null) return;
        let v = BigInt.asUintN(128, asBigInt(c, 'decimal'));
        for (let w = 0; w < 4; w++) { data[i * 4 + w] = Number(v & 0xffffffffn); v >>= 32n; }
      });
      return A.makeData({ ...base, data } as never);
    }
    case A.Type.List: {
      const child = (type as A.List).children[0];
      const valueOffsets = new Int32Array(length + 1);
      const flat: Cell[] = [];
      cells.forEach((c, i) => { if (Array.isArray(c)) flat.push(...c); valueOffsets[i + 1] = flat.length; });
      return A.makeData({ ...base, valueOffsets, child: buildData(child.type, flat) } as never);
    }
    case A.Type.Struct: {
      const fields = (type as A.Struct).children;
      const children = fields.map((f) => buildData(f.type, cells.map((c) => (c === null ? null : ((c as Record<string, Cell>)[f.name] ?? null)))));
      return A.makeData({ ...base, children } as never);
    }
    case A.Type.Map: {
      const entriesType = (type as A.Map_).children[0].type as A.Struct;
      const valueOffsets = new Int32Array(length + 1);
      const keys: Cell[] = [];
      const values: Cell[] = [];
      cells.forEach((c, i) => {
        if (c instanceof MapCell) for (const [k, v] of c.entries) { keys.push(k); values.push(v); }
        valueOffsets[i + 1] = keys.length;
      });
      const entries = A.makeData({
        type: entriesType, length: keys.length, nullCount: 0,
        children: [buildData(entriesType.children[0].type, keys), buildData(entriesType.children[1].type, values)],
      });
      return A.makeData({ ...base, valueOffsets, child: entries } as never);
    }
    default: throw unsupported(`building the Arrow type ${String(type)}`);
  }
}

/** An Arrow table of `schema` holding `rows` (cells in schema field order). */
export function buildTable(schema: A.Schema, rows: Row[]): A.Table {
  const children = schema.fields.map((f, i) => buildData(f.type, rows.map((r) => r[i])));
  const data = A.makeData({ type: new A.Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new A.Table(schema, [new A.RecordBatch(schema, data)]);
}

// ---- reading Arrow into cells ----

const decoder = new TextDecoder('utf-8', { fatal: true });

function valid(data: A.Data, i: number): boolean {
  return data.nullCount === 0 || data.getValid(i);
}

function wordsToBigInt(words: Uint32Array, at: number, n: number): bigint {
  let v = 0n;
  for (let w = n - 1; w >= 0; w--) v = (v << 32n) | BigInt(words[at + w]);
  return BigInt.asIntN(32 * n, v);
}

const MICROS_PER: Record<number, bigint> = {
  [A.TimeUnit.SECOND]: 1_000_000n, [A.TimeUnit.MILLISECOND]: 1000n, [A.TimeUnit.MICROSECOND]: 1n,
};

/** Every row's cell of one Arrow data chunk. */
export function readData(data: A.Data): Cell[] {
  const t = data.type;
  if (data.offset !== 0 && (t.typeId === A.Type.List || t.typeId === A.Type.LargeList || t.typeId === A.Type.Struct || t.typeId === A.Type.Map)) {
    throw new LakerecError('internal', 'the proof reads unsliced nested Arrow data only');
  }
  const out: Cell[] = new Array(data.length);
  const vals = data.values as ArrayLike<number | bigint> & { [i: number]: number | bigint };
  switch (t.typeId) {
    case A.Type.Int:
      for (let i = 0; i < data.length; i++) out[i] = valid(data, i) ? BigInt(vals[i]) : null;
      return out;
    case A.Type.Float: {
      const half = (t as A.Float).precision === A.Precision.HALF;
      for (let i = 0; i < data.length; i++) out[i] = valid(data, i) ? (half ? A.util.uint16ToFloat64(Number(vals[i])) : Number(vals[i])) : null;
      return out;
    }
    case A.Type.Bool: {
      const bytes = data.values as Uint8Array;
      for (let i = 0; i < data.length; i++) {
        const bit = data.offset + i;
        out[i] = valid(data, i) ? ((bytes[bit >> 3] >> (bit & 7)) & 1) === 1 : null;
      }
      return out;
    }
    case A.Type.Utf8: case A.Type.LargeUtf8: {
      const offs = data.valueOffsets as Int32Array | BigInt64Array;
      const bytes = data.values as Uint8Array;
      for (let i = 0; i < data.length; i++) out[i] = valid(data, i) ? decoder.decode(bytes.subarray(Number(offs[i]), Number(offs[i + 1]))) : null;
      return out;
    }
    case A.Type.Binary: case A.Type.LargeBinary: {
      const offs = data.valueOffsets as Int32Array | BigInt64Array;
      const bytes = data.values as Uint8Array;
      for (let i = 0; i < data.length; i++) out[i] = valid(data, i) ? bytes.slice(Number(offs[i]), Number(offs[i + 1])) : null;
      return out;
    }
    case A.Type.FixedSizeBinary: {
      const w = (t as A.FixedSizeBinary).byteWidth;
      const bytes = data.values as Uint8Array;
      for (let i = 0; i < data.length; i++) out[i] = valid(data, i) ? bytes.slice(i * w, (i + 1) * w) : null;
      return out;
    }
    case A.Type.Date: {
      const ms = (t as A.Date_).unit === A.DateUnit.MILLISECOND;
      for (let i = 0; i < data.length; i++) out[i] = valid(data, i) ? (ms ? Math.floor(Number(vals[i]) / 86_400_000) : Number(vals[i])) : null;
      return out;
    }
    case A.Type.Timestamp: {
      const unit = (t as A.Timestamp).unit;
      for (let i = 0; i < data.length; i++) {
        if (!valid(data, i)) { out[i] = null; continue; }
        const v = BigInt(vals[i]);
        // Nanoseconds to microseconds rounds toward negative infinity, like every engine's floor.
        out[i] = unit === A.TimeUnit.NANOSECOND ? (v >= 0n ? v / 1000n : -((-v + 999n) / 1000n)) : v * MICROS_PER[unit];
      }
      return out;
    }
    case A.Type.Decimal: {
      const words = (t as A.Decimal).bitWidth / 32;
      const u32 = data.values as Uint32Array;
      for (let i = 0; i < data.length; i++) out[i] = valid(data, i) ? wordsToBigInt(u32, i * words, words) : null;
      return out;
    }
    case A.Type.List: case A.Type.LargeList: case A.Type.Map: {
      // 32-bit offsets, or 64-bit for a LargeList (Polars' lists).
      const offs = data.valueOffsets as Int32Array | BigInt64Array;
      // Arrow JS may leave out the child of a list whose rows are all null or empty.
      const child = data.children[0] ? readData(data.children[0]) : [];
      for (let i = 0; i < data.length; i++) {
        if (!valid(data, i)) { out[i] = null; continue; }
        const items = child.slice(Number(offs[i]), Number(offs[i + 1]));
        out[i] = t.typeId !== A.Type.Map ? items : new MapCell(items.map((e) => {
          const entry = e as Record<string, Cell>;
          const [k, v] = Object.keys(entry);
          return [entry[k], entry[v]] as [Cell, Cell];
        }));
      }
      return out;
    }
    case A.Type.Struct: {
      const names = (t as A.Struct).children.map((f) => f.name);
      const kids = data.children.map((c) => readData(c));
      for (let i = 0; i < data.length; i++) {
        if (!valid(data, i)) { out[i] = null; continue; }
        const o: Record<string, Cell> = {};
        names.forEach((n, k) => { o[n] = kids[k][i]; });
        out[i] = o;
      }
      return out;
    }
    case A.Type.Dictionary: {
      const dict = data.dictionary;
      if (!dict) throw new LakerecError('internal', 'dictionary data without a dictionary');
      const dictCells = dict.data.flatMap((d) => readData(d));
      for (let i = 0; i < data.length; i++) out[i] = valid(data, i) ? dictCells[Number(vals[i])] : null;
      return out;
    }
    default: throw unsupported(`reading the Arrow type ${String(t)}`);
  }
}

/** One column's cells over every batch. */
export function columnCells(table: A.Table, index: number): Cell[] {
  const col = table.getChildAt(index);
  if (!col) return [];
  return col.data.flatMap((d) => readData(d));
}

/** The table as rows of cells, in the table's order. */
export function tableRows(table: A.Table): Row[] {
  const cols = table.schema.fields.map((_, i) => columnCells(table, i));
  const rows: Row[] = [];
  for (let r = 0; r < table.numRows; r++) rows.push(cols.map((c) => c[r]));
  return rows;
}
