// The table schema (schemaString), its DuckDB types, and column mapping (logical <-> physical).
import { LakerecError } from '../../shared/errors';
import type { ColumnMappingMode, DataType, Metadata, StructField, StructType } from '../../shared/delta';
import { sqlIdent } from '../engine/duck';

export function parseSchemaString(metadata: Metadata): StructType {
  if (typeof metadata.schemaString !== 'string') {
    throw new LakerecError('metadata_missing', 'the metaData action has no schemaString, so the table\'s schema is unknown');
  }
  let s: unknown;
  try {
    s = JSON.parse(metadata.schemaString);
  } catch (e) {
    throw new LakerecError('log_corrupt', `metaData.schemaString is not valid JSON: ${(e as Error).message}`);
  }
  if (!s || typeof s !== 'object' || (s as StructType).type !== 'struct' || !Array.isArray((s as StructType).fields)) {
    throw new LakerecError('log_corrupt', 'metaData.schemaString is not a struct type');
  }
  return s as StructType;
}

/** How deep types may nest (structs, arrays, maps); Spark's own tests stop far below. */
export const MAX_SCHEMA_DEPTH = 100;

/**
 * Refuses metaData the protocol does not allow, as Spark and delta-kernel do: fields without a
 * name, two fields of one name at any struct level (case-insensitively: Spark's resolution is),
 * partitionColumns that is not a list of names, names a column twice, names a column the schema
 * lacks, or names a nested column. Walks with a stack (a hostile schema may nest deeply).
 */
export function validateMetadata(metadata: Metadata, schema: StructType, version: number): void {
  const bad = (msg: string): LakerecError => new LakerecError('metadata_invalid', `the metaData at or before version ${version} is invalid: ${msg}`, { version });
  const stack: { fields: unknown; where: string; depth: number }[] = [{ fields: schema.fields, where: 'the schema', depth: 0 }];
  while (stack.length > 0) {
    const { fields, where, depth } = stack.pop()!;
    // Code that maps types walks them recursively: a schema nested thousands deep would overflow it.
    if (depth > MAX_SCHEMA_DEPTH) throw bad(`the schema nests types more than ${MAX_SCHEMA_DEPTH} levels deep`);
    if (!Array.isArray(fields)) throw bad(`${where} has no list of fields`);
    const seen = new Map<string, string>();
    for (const f of fields as unknown[]) {
      const name = (f as StructField | null)?.name;
      if (typeof name !== 'string') throw bad(`${where} has a field without a name`);
      const lower = name.toLowerCase();
      const prev = seen.get(lower);
      if (prev !== undefined) throw bad(`${where} has two columns named ${JSON.stringify(prev)} and ${JSON.stringify(name)} (column names are case-insensitive)`);
      seen.set(lower, name);
      // Nested structs, also inside arrays and maps. Every type is a name or an object naming one.
      const types: { t: unknown; d: number; of: string }[] = [{ t: (f as StructField).type, d: depth + 1, of: `the column ${JSON.stringify(name)}` }];
      while (types.length > 0) {
        const { t: ty, d, of } = types.pop()!;
        if (d > MAX_SCHEMA_DEPTH) throw bad(`the schema nests types more than ${MAX_SCHEMA_DEPTH} levels deep`);
        const t = ty as { type?: string; fields?: unknown; elementType?: unknown; keyType?: unknown; valueType?: unknown } | string | null;
        if (typeof t === 'string') continue;
        if (t === null || typeof t !== 'object' || typeof t.type !== 'string') throw bad(`${where}: ${of} has no type`);
        if (t.type === 'struct') stack.push({ fields: t.fields, where: `the struct ${JSON.stringify(name)}`, depth: d });
        else if (t.type === 'array') types.push({ t: t.elementType, d: d + 1, of: `the elements of ${of}` });
        else if (t.type === 'map') types.push({ t: t.keyType, d: d + 1, of: `the keys of ${of}` }, { t: t.valueType, d: d + 1, of: `the values of ${of}` });
      }
    }
  }
  const pcs: unknown = metadata.partitionColumns ?? [];
  if (!Array.isArray(pcs)) throw bad('partitionColumns is not a list');
  const seenPc = new Set<string>();
  for (const pc of pcs as unknown[]) {
    if (typeof pc !== 'string') throw bad('partitionColumns holds something that is not a column name');
    if (seenPc.has(pc)) throw bad(`partitionColumns names ${JSON.stringify(pc)} twice`);
    seenPc.add(pc);
    const field = schema.fields.find((f) => f.name === pc);
    if (!field) throw bad(`partitionColumns names ${JSON.stringify(pc)}, which is not a column of the schema`);
    if (typeof field.type === 'object' && field.type !== null) throw bad(`partition column ${JSON.stringify(pc)} is a nested (${(field.type as { type: string }).type}) column`);
  }
}

export function columnMappingMode(metadata: Metadata): ColumnMappingMode {
  const m = metadata.configuration?.['delta.columnMapping.mode'];
  if (m === 'name' || m === 'id') return m;
  return 'none';
}

/** The name a field has in the Parquet files (its physical name under column mapping). */
export function physicalName(field: StructField, mode: ColumnMappingMode): string {
  if (mode === 'none') return field.name;
  const p = field.metadata?.['delta.columnMapping.physicalName'];
  return typeof p === 'string' && p.length > 0 ? p : field.name;
}

/** The Parquet field id of a field under `id` column mapping, if recorded. */
export function fieldId(field: StructField): number | null {
  const id = field.metadata?.['delta.columnMapping.id'];
  return typeof id === 'number' ? id : null;
}

const decimalRe = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/;

/** The DuckDB type of a Delta type (timestamp is an instant: TIMESTAMPTZ; timestamp_ntz: TIMESTAMP). */
export function deltaTypeToDuckDb(type: DataType): string {
  if (typeof type === 'string') {
    switch (type) {
      case 'string': return 'VARCHAR';
      case 'long': return 'BIGINT';
      case 'integer': return 'INTEGER';
      case 'short': return 'SMALLINT';
      case 'byte': return 'TINYINT';
      case 'float': return 'FLOAT';
      case 'double': return 'DOUBLE';
      case 'boolean': return 'BOOLEAN';
      case 'binary': return 'BLOB';
      case 'date': return 'DATE';
      case 'timestamp': return 'TIMESTAMPTZ';
      case 'timestamp_ntz': return 'TIMESTAMP';
      case 'void': return 'VARCHAR';
      case 'decimal': return 'DECIMAL(10,0)';
      default: {
        const m = decimalRe.exec(type);
        if (m) return `DECIMAL(${Number(m[1])},${Number(m[2])})`;
        throw new LakerecError('unsupported_feature', `column type "${type}" is not supported by this reader`, { feature: type });
      }
    }
  }
  if (type.type === 'struct') {
    return `STRUCT(${type.fields.map((f) => `${sqlIdent(f.name)} ${deltaTypeToDuckDb(f.type)}`).join(', ')})`;
  }
  if (type.type === 'array') return `${deltaTypeToDuckDb(type.elementType)}[]`;
  if (type.type === 'map') return `MAP(${deltaTypeToDuckDb(type.keyType)}, ${deltaTypeToDuckDb(type.valueType)})`;
  throw new LakerecError('unsupported_feature', `unknown column type ${JSON.stringify(type)}`);
}

/** Whether a type (or anything nested in it) has a field whose physical name differs from its name. */
export function hasRenamedNested(type: DataType, mode: ColumnMappingMode): boolean {
  if (mode === 'none' || typeof type === 'string') return false;
  if (type.type === 'struct') return type.fields.some((f) => physicalName(f, mode) !== f.name || hasRenamedNested(f.type, mode));
  if (type.type === 'array') return hasRenamedNested(type.elementType, mode);
  return hasRenamedNested(type.keyType, mode) || hasRenamedNested(type.valueType, mode);
}

/**
 * A SQL expression turning a physical value `expr` into the logical type: nested fields renamed
 * from physical to logical names, everything cast to the Delta type.
 */
export function logicalValueExpr(expr: string, type: DataType, mode: ColumnMappingMode, depth = 0): string {
  if (!hasRenamedNested(type, mode) || typeof type === 'string') return `CAST(${expr} AS ${deltaTypeToDuckDb(type)})`;
  const v = `x${depth}`;
  if (type.type === 'struct') {
    const parts = type.fields.map((f) => `${sqlIdent(f.name)} := ${logicalValueExpr(`(${expr}).${sqlIdent(physicalName(f, mode))}`, f.type, mode, depth + 1)}`);
    return `CASE WHEN ${expr} IS NULL THEN NULL ELSE struct_pack(${parts.join(', ')}) END`;
  }
  if (type.type === 'array') {
    return `list_transform(${expr}, ${v} -> ${logicalValueExpr(v, type.elementType, mode, depth + 1)})`;
  }
  return `map_from_entries(list_transform(map_entries(${expr}), ${v} -> struct_pack(key := ${logicalValueExpr(`${v}.key`, type.keyType, mode, depth + 1)}, value := ${logicalValueExpr(`${v}.value`, type.valueType, mode, depth + 1)})))`;
}

/** SQL turning a partition value (a string column or literal, per PROTOCOL.md "Partition Value Serialization") into its type. */
export function partitionValueExpr(expr: string, type: DataType): string {
  if (typeof type !== 'string') {
    throw new LakerecError('log_corrupt', 'a partition column has a nested type');
  }
  const nullIfEmpty = `NULLIF(${expr}, '')`;
  if (type === 'binary') return `encode(${nullIfEmpty})`;
  if (type === 'string') return nullIfEmpty;
  return `CAST(${nullIfEmpty} AS ${deltaTypeToDuckDb(type)})`;
}

/** Logical name by physical name for the top-level fields (partitionValues and stats use physical names under column mapping). */
export function physicalToLogical(schema: StructType, mode: ColumnMappingMode): Map<string, string> {
  const m = new Map<string, string>();
  for (const f of schema.fields) m.set(physicalName(f, mode), f.name);
  return m;
}

/**
 * A log's partitionValues (keyed by physical column name under column mapping) keyed by logical
 * name, a missing value as null: the one decoder, for the snapshot's files and the history's
 * entries. Without column mapping (`toLogical` null) the object itself.
 */
export function decodePartitionValues(pv: Record<string, string | null>, toLogical: ReadonlyMap<string, string> | null): Record<string, string | null> {
  if (!toLogical) return pv;
  const out: Record<string, string | null> = {};
  for (const k of Object.keys(pv)) out[toLogical.get(k) ?? k] = pv[k] ?? null;
  return out;
}

/** Renames physical keys of a stats object (minValues etc.) to logical names, recursively. */
export function statsToLogical(values: unknown, schema: StructType, mode: ColumnMappingMode): unknown {
  if (mode === 'none' || !values || typeof values !== 'object' || Array.isArray(values)) return values;
  const out: Record<string, unknown> = {};
  const byPhys = new Map<string, StructField>();
  for (const f of schema.fields) byPhys.set(physicalName(f, mode), f);
  for (const [k, v] of Object.entries(values as Record<string, unknown>)) {
    const f = byPhys.get(k);
    if (!f) { out[k] = v; continue; }
    out[f.name] = typeof f.type === 'object' && f.type.type === 'struct' ? statsToLogical(v, f.type, mode) : v;
  }
  return out;
}
