// What the engines that read Parquet files themselves share: the table's active files as our
// reader lists them (partition values, deletion vectors applied as the protocol says, columns
// missing from older files), each read by the engine's own Parquet reader, gathered into one
// Arrow table named and ordered as the Delta schema.
import { readFileSync } from 'node:fs';
import * as A from 'apache-arrow';
import type { DataType, FileStats } from '../../../shared/delta';
import { LakerecError } from '../../../shared/errors';
import { throwIfCancelled, type JobContext } from '../../../shared/jobs';
import { readDeletionVector } from '../../delta/dv';
import { numRecordsOfAdd } from '../../delta/replay';
import { checkedDataFile } from '../../delta/scan';
import { arrowSchemaOf, arrowTypeOf, buildTable, columnCells, deltaTypeOf, tableRows, type Cell } from '../cells';
import { daysFromCivil, micros } from '../generate';
import { openSnapshot, withDeltaFields } from './common';
import type { Engine, EngineRead } from './types';

export interface ReadFilesOptions {
  /** Apply deletion vectors (else a file with one is refused by name). */
  deletionVectors: boolean;
}

/** The rows of `table` whose 0-based index is not in `deleted` (rebuilt in the proof's Arrow types for the same Delta types). */
export function keepRows(table: A.Table, deleted: ReadonlySet<number>): A.Table {
  if (!deleted.size) return table;
  const rows = tableRows(table).filter((_, i) => !deleted.has(i));
  const schema = new A.Schema(table.schema.fields.map((f) => new A.Field(f.name, arrowTypeOf(deltaTypeOf(f.type)), f.nullable, f.metadata)));
  return buildTable(schema, rows);
}

/** A Delta table read by an engine's own Parquet reader, one data file at a time. */
export async function readActiveFiles(
  engine: Pick<Engine, 'name' | 'readerFeatures'>, root: string,
  readFile: (bytes: Uint8Array, path: string) => A.Table, opts: ReadFilesOptions, ctx?: JobContext,
): Promise<EngineRead> {
    throwIfCancelled(ctx);
    const { snapshot, featuresChecked } = await openSnapshot(engine, root);
    if (snapshot.columnMapping !== 'none') {
      throw new LakerecError('unsupported_feature', `the ${engine.name} engine does not read column mapping (mode ${snapshot.columnMapping})`, { feature: 'columnMapping' });
    }
    const partCols = new Set(snapshot.partitionColumns);
    const dataFields = snapshot.schema.fields.filter((f) => !partCols.has(f.name));
    const parts: { table: A.Table; partitionValues: Record<string, string | null> }[] = [];
    for (const f of snapshot.files) {
      throwIfCancelled(ctx);
      if (f.deletionVector && !opts.deletionVectors) throw new LakerecError('unsupported_feature', `the ${engine.name} engine does not apply deletion vectors`, { feature: 'deletionVectors' });
      let table = readFile(new Uint8Array(readFileSync(await checkedDataFile(snapshot, f))), f.path);
      refuseOverflowingNanos(table, f.stats, f.path, engine.name);
      if (f.deletionVector) {
        // PROTOCOL.md "Deletion Vectors": the DV lists the 0-based row indexes of the file that are
        // deleted; the file's other rows are its logical rows, in order.
        const deleted = new Set(await readDeletionVector(f.deletionVector, root, { numRecords: numRecordsOfAdd(f.add) }));
        table = keepRows(table, deleted);
      }
      parts.push({ table, partitionValues: f.partitionValues });
    }
    const done = (table: A.Table): EngineRead => ({ table, schema: snapshot.schema, protocol: snapshot.protocol, featuresChecked, version: snapshot.version });
    // No files: nothing read, so the table's own types.
    if (!parts.length) return done(buildTable(arrowSchemaOf(snapshot.schema), []));
    // The usual case: every file has every column with the same type, no partition columns.
    const typeOf = (t: A.Table, name: string): string | null => { const c = t.schema.fields.find((x) => x.name === name); return c ? String(c.type) : null; };
    const uniform = !partCols.size && dataFields.every((f) => {
      const first = typeOf(parts[0].table, f.name);
      return first !== null && parts.every((p) => typeOf(p.table, f.name) === first);
    });
    if (uniform) {
      const schema = withDeltaFields(snapshot.schema, new Map(dataFields.map((f) => [f.name, parts[0].table.schema.fields.find((x) => x.name === f.name)!.type])));
      const batches = parts.flatMap((p) => p.table.batches.map((b) => {
        const children = schema.fields.map((f) => b.getChild(f.name)!.data[0]);
        return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: b.numRows, nullCount: 0, children }));
      }));
      return done(new A.Table(schema, batches));
    }
    // Otherwise (partition columns, a column missing from older files, Utf8 in one file and
    // LargeUtf8 in another) the values are gathered exactly and rebuilt in the table's types.
    const schema = arrowSchemaOf(snapshot.schema);
    const rows: Cell[][] = [];
    for (const p of parts) {
      const cols = snapshot.schema.fields.map((f): Cell[] => {
        if (partCols.has(f.name)) return new Array<Cell>(p.table.numRows).fill(partitionCell(p.partitionValues[f.name] ?? null, f.type));
        const i = p.table.schema.fields.findIndex((x) => x.name === f.name);
        if (i < 0) return new Array<Cell>(p.table.numRows).fill(null);
        const ft = p.table.schema.fields[i].type;
        if (ft.typeId === A.Type.Decimal && `decimal(${(ft as A.Decimal).precision},${(ft as A.Decimal).scale})` !== String(f.type).replace(/\s+/g, '')) {
          throw new LakerecError('unsupported_feature', `column "${f.name}" is ${String(ft)} in a file and ${String(f.type)} in the table; the ${engine.name} engine does not widen decimals`);
        }
        return columnCells(p.table, i);
      });
      for (let r = 0; r < p.table.numRows; r++) rows.push(cols.map((c) => c[r]));
    }
    return done(buildTable(withDeltaFields(snapshot.schema, new Map(schema.fields.map((f) => [f.name, f.type]))), rows));
}

/** Nanoseconds since the epoch as int64 cover 1677-09-21T00:12:43.145Z to 2262-04-11T23:47:16.854Z. */
const NANOS_MIN_MS = -9_223_372_036_854;
const NANOS_MAX_MS = 9_223_372_036_854;

/**
 * parquet-wasm reads a Parquet INT96 timestamp (Spark's default) as int64 nanoseconds and
 * silently wraps values outside 1677-2262: 9999-12-31 comes back as 1816-03-29. A nanosecond
 * column is accepted only when the file's stats show every value inside that range; otherwise
 * the engine refuses it by name rather than return wrong timestamps.
 */
export function refuseOverflowingNanos(table: A.Table, stats: FileStats | null, path: string, engine = 'arrow'): void {
  for (const field of table.schema.fields) {
    if (field.type.typeId !== A.Type.Timestamp || (field.type as A.Timestamp).unit !== A.TimeUnit.NANOSECOND) continue;
    const lo = Date.parse(String(stats?.minValues?.[field.name] ?? ''));
    const hi = Date.parse(String(stats?.maxValues?.[field.name] ?? ''));
    const inside = Number.isFinite(lo) && Number.isFinite(hi) && lo >= NANOS_MIN_MS && hi <= NANOS_MAX_MS;
    if (!inside) {
      throw new LakerecError('unsupported_feature',
        `column "${field.name}" of ${path} is read by the ${engine} engine as nanoseconds (an INT96 timestamp), which only cover 1677-09-21 to 2262-04-11, and the file's stats do not show its values inside that range; the ${engine} engine refuses it rather than return wrong timestamps`,
        { feature: 'int96Timestamps', column: field.name, path, engine });
    }
  }
}

/** A partition value (the log's string form, PROTOCOL.md "Partition Value Serialization") as a cell. */
export function partitionCell(raw: string | null, t: DataType): Cell {
  if (raw === null) return null;
  if (typeof t !== 'string') throw new LakerecError('unsupported_feature', 'a nested partition column');
  const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
  if (dec) {
    const scale = Number(dec[2]);
    const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(raw.trim());
    if (!m) throw new LakerecError('log_corrupt', `partition value "${raw}" is not a decimal`);
    const frac = (m[3] ?? '').padEnd(scale, '0');
    if (frac.length > scale) throw new LakerecError('log_corrupt', `partition value "${raw}" has more than ${scale} decimals`);
    const v = BigInt((m[2] || '0') + frac);
    return m[1] ? -v : v;
  }
  switch (t) {
    case 'byte': case 'short': case 'integer': case 'long': return BigInt(raw);
    case 'float': case 'double': return Number(raw);
    case 'boolean': return raw.toLowerCase() === 'true';
    case 'string': return raw;
    case 'binary': return new TextEncoder().encode(raw);
    case 'date': {
      const m = /^(\d{4,})-(\d{2})-(\d{2})$/.exec(raw);
      if (!m) throw new LakerecError('log_corrupt', `partition value "${raw}" is not a date`);
      return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
    }
    case 'timestamp': case 'timestamp_ntz': {
      // "2021-01-01 10:00:00[.ffffff]" (UTC for timestamp) or ISO 8601 with Z or an offset.
      const m = /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/.exec(raw.trim());
      if (!m) throw new LakerecError('log_corrupt', `partition value "${raw}" is not a timestamp`);
      const us = BigInt((m[7] ?? '').padEnd(6, '0').slice(0, 6) || '0');
      let v = micros(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + us;
      if (m[8] && m[8] !== 'Z') {
        const sign = m[8][0] === '-' ? -1n : 1n;
        const digits = m[8].slice(1).replace(':', '');
        v -= sign * (BigInt(Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000_000n);
      }
      return v;
    }
    default: throw new LakerecError('unsupported_feature', `a partition column of type ${t}`);
  }
}
