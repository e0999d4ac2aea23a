// Schema at a version and schema history, from the log alone: each metaData action's schema
// compared with the one before. With column mapping a column's identity is its
// delta.columnMapping.id, so a rename is the same id under a new name (the physical name stays);
// without it identity is the name, and a rename reads as a drop and an add (as the protocol has it).
import type { StructField, StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import type { JobContext } from '../../shared/jobs';
import { columnTags } from '../../shared/sensitivity';
import {
  typeText, type SchemaAt, type SchemaChange, type SchemaField, type SchemaHistory, type SchemaVersion,
} from '../../shared/views';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import { columnMappingMode, parseSchemaString } from '../delta/schema';
import type { Metadata } from '../../shared/delta';

const ID_KEY = 'delta.columnMapping.id';
const PHYS_KEY = 'delta.columnMapping.physicalName';

function field(f: StructField, partitions: Set<string>): SchemaField {
  const tags = columnTags(f.metadata);
  const id = f.metadata?.[ID_KEY];
  const phys = f.metadata?.[PHYS_KEY];
  return {
    name: f.name, type: typeText(f.type), dataType: f.type, nullable: f.nullable, metadata: f.metadata ?? {},
    description: tags.description, sensitivity: tags.sensitivity, tags: tags.tags,
    columnMappingId: typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : null,
    physicalName: typeof phys === 'string' ? phys : null,
    partition: partitions.has(f.name),
  };
}

/** The columns of a version: types, nullability, field metadata, column-mapping id and physical name. */
export async function schemaAt(root: string, version: number | undefined, ctx?: JobContext, open?: DeltaTable): Promise<SchemaAt> {
  const table = open ?? await openTable(root);
  const v = version ?? table.latestVersion;
  let snap;
  try {
    snap = await table.snapshot({ version: v }, ctx);
  } catch (e) {
    if (e instanceof LakerecError) throw new LakerecError(e.code, `The schema of version ${v} cannot be read: ${e.message}`, { ...e.detail, version: v });
    throw e;
  }
  const parts = new Set(snap.partitionColumns);
  return { version: snap.version, columnMapping: snap.columnMapping, partitionColumns: snap.partitionColumns, fields: snap.schema.fields.map((f) => field(f, parts)) };
}

function metaText(f: SchemaField): string {
  const { [ID_KEY]: _id, [PHYS_KEY]: _p, ...rest } = f.metadata;
  return JSON.stringify(rest, Object.keys(rest).sort());
}

/** What changed between two schemas (top-level columns). */
export function schemaChanges(before: SchemaField[], after: SchemaField[], byId: boolean): SchemaChange[] {
  const ident = (f: SchemaField): string => (byId && f.columnMappingId !== null ? `id:${f.columnMappingId}` : `name:${f.name.toLowerCase()}`);
  const old = new Map(before.map((f) => [ident(f), f]));
  const now = new Map(after.map((f) => [ident(f), f]));
  const out: SchemaChange[] = [];
  for (const f of after) {
    const o = old.get(ident(f));
    if (!o) { out.push({ kind: 'added', column: f.name, from: null, to: f.type }); continue; }
    if (o.name !== f.name) out.push({ kind: 'renamed', column: f.name, from: o.name, to: f.name });
    if (o.type !== f.type) out.push({ kind: 'retyped', column: f.name, from: o.type, to: f.type });
    if (o.nullable !== f.nullable) out.push({ kind: 'nullability', column: f.name, from: o.nullable ? 'nullable' : 'not null', to: f.nullable ? 'nullable' : 'not null' });
    if (metaText(o) !== metaText(f)) out.push({ kind: 'metadata', column: f.name, from: metaText(o), to: metaText(f) });
  }
  for (const o of before) if (!now.has(ident(o))) out.push({ kind: 'dropped', column: o.name, from: o.type, to: null });
  return out;
}

function fieldsOf(schema: StructType, partitionColumns: string[]): SchemaField[] {
  const parts = new Set(partitionColumns);
  return schema.fields.map((f) => field(f, parts));
}

/** Every version whose metaData changed the schema, with what was added, dropped, retyped or renamed.
 *  Read from the reader's one history (the metadata in force at each version, a checkpoint's where
 *  the log starts at one); pass the open table (the service's) so its cached history is reused. */
export async function schemaHistory(root: string, ctx?: JobContext, table?: DeltaTable): Promise<SchemaHistory> {
  const h = await (table ?? (await openTable(root))).history(ctx);
  const versions: SchemaVersion[] = [];
  let prev: SchemaField[] | null = null;
  let prevMeta: Metadata | null = null;
  let anyMapping = false;
  for (const st of h.states) {
    const meta = st.metadata;
    // Only a version whose metadata action (or the checkpoint the log starts at) set it is compared.
    if (!meta || meta === prevMeta) continue;
    prevMeta = meta;
    let schema: StructType;
    try {
      schema = parseSchemaString(meta);
    } catch (e) {
      throw new LakerecError('log_corrupt', `The schema written at version ${st.version} cannot be read: ${(e as Error).message}`, { version: st.version });
    }
    const byId = columnMappingMode(meta) !== 'none';
    anyMapping ||= byId;
    const fields = fieldsOf(schema, meta.partitionColumns ?? []);
    const changes = prev === null
      ? fields.map((f): SchemaChange => ({ kind: 'added', column: f.name, from: null, to: f.type }))
      : schemaChanges(prev, fields, byId);
    prev = fields;
    if (changes.length === 0) continue;
    const op = st.change?.commitInfo?.operation;
    versions.push({
      version: st.version, timestamp: st.change?.timestamp ?? 0,
      operation: typeof op === 'string' ? op : null,
      changes, fieldCount: fields.length,
    });
  }
  return { path: root, versions, identity: anyMapping ? 'column_mapping' : 'name' };
}
