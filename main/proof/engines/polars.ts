// The polars engine: Parquet written and read by Rust Polars through nodejs-polars (a third
// Parquet implementation beside DuckDB's C++ and parquet-wasm's arrow-rs); the Delta log is ours.
// Arrow crosses into and out of Polars as an Arrow IPC stream. The table's active files are the
// ones our reader lists, deletion vectors applied as the protocol says (files.ts).
//
// nodejs-polars is a native module. It is loaded on first use, never at import, so a machine
// where it cannot load still installs, starts the CLI at its usual speed, and offers the other
// engines; asking for polars there is refused with one line saying why.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import type * as PL from 'nodejs-polars';
import type { DataType } from '../../../shared/delta';
import { LakerecError } from '../../../shared/errors';
import { throwIfCancelled, type JobContext } from '../../../shared/jobs';
import { buildData, columnCells, deltaFieldOf, deltaSchemaOf, deltaTypeOf, MapCell, arrowTypeOf, type Cell } from '../cells';
import { commitNewTable, dataFileName } from '../delta-log';
import { typeText } from '../checks';
import { withDeltaFields } from './common';
import { readActiveFiles } from './files';
import type { Engine, EngineRead, EngineWrite } from './types';

export const POLARS_VERSION = '0.25.2';

type Polars = typeof PL;

let loaded: { pl: Polars } | { error: string } | null = null;

/** The first line of why a module did not load (no stack). */
function firstLine(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.split('\n')[0].slice(0, 300);
}

/** Loads a module by name; exported for the refusal test (a name that does not exist). */
export function tryLoad(name: string): { pl: Polars } | { error: string } {
  try {
    const require = createRequire(import.meta.url);
    return { pl: require(name) as Polars };
  } catch (e) {
    return { error: firstLine(e) };
  }
}

/** Whether nodejs-polars loads here, and if not, the one line that says why. */
export function polarsAvailability(): { available: true } | { available: false; reason: string } {
  loaded ??= tryLoad('nodejs-polars');
  return 'pl' in loaded ? { available: true } : { available: false, reason: unavailableLine(loaded.error) };
}

export function unavailableLine(error: string): string {
  return `the polars engine is not available here: nodejs-polars ${POLARS_VERSION} could not load its native module (${error}). `
    + `npm skips its platform build (nodejs-polars-<platform>) when Node is older than the build declares (>= 22); `
    + `install it with "npm i --no-save --force nodejs-polars-linux-x64-gnu@${POLARS_VERSION}" (or your platform's build)`;
}

function polars(): Polars {
  loaded ??= tryLoad('nodejs-polars');
  if ('pl' in loaded) return loaded.pl;
  throw new LakerecError('usage', unavailableLine(loaded.error), { feature: 'polars' });
}

/** A Polars DataFrame as apache-arrow, through Polars' IPC stream writer. */
function arrowOf(df: PL.DataFrame): A.Table {
  return A.tableFromIPC(new Uint8Array(df.writeIPCStream()));
}

/** An apache-arrow table as a Polars DataFrame, through Polars' IPC stream reader. */
function dataFrameOf(pl: Polars, table: A.Table): PL.DataFrame {
  return pl.readIPCStream(Buffer.from(A.tableToIPC(table, 'stream')));
}

/**
 * Map columns as the list of {key, value} structs Polars holds them as, nulls kept. Polars has
 * no map type; its own Arrow import of a map (nodejs-polars 0.25.2) also turns a null map into
 * an empty list (findings.test.ts pins it), which would be a loss of our bridge, not of Polars'
 * Parquet writer, so the engine hands Polars the list itself.
 */
export function mapsAsEntries(table: A.Table): A.Table {
  const fields = table.schema.fields;
  if (!fields.some((f) => f.type.typeId === A.Type.Map)) return table;
  const children = fields.map((f, i) => {
    if (f.type.typeId !== A.Type.Map) return concatData(table, i);
    const entry = (f.type as A.Map_).children[0].type as A.Struct;
    const type = new A.List(new A.Field('item', new A.Struct([new A.Field('key', entry.children[0].type, true), new A.Field('value', entry.children[1].type, true)]), true));
    const cells = columnCells(table, i).map((c): Cell => (c === null ? null : (c as MapCell).entries.map(([key, value]) => ({ key, value }))));
    return buildData(type, cells);
  });
  const schema = new A.Schema(fields.map((f, i) => new A.Field(f.name, children[i].type, f.nullable, f.metadata)));
  const data = A.makeData({ type: new A.Struct(schema.fields), length: table.numRows, nullCount: 0, children });
  return new A.Table(schema, [new A.RecordBatch(schema, data)]);
}

/** Parquet bytes written by Polars (snappy), as a Polars pipeline writes them. */
export function writeParquetPolars(table: A.Table, damage?: PolarsDamage): Uint8Array {
  const pl = polars();
  let df = dataFrameOf(pl, mapsAsEntries(table));
  if (damage) df = damage(pl, df, table);
  return new Uint8Array(df.writeParquet({ compression: 'snappy' }));
}

/** Parquet bytes read by Polars' own reader, as apache-arrow. */
export function readParquetPolars(bytes: Uint8Array): A.Table {
  return arrowOf(polars().readParquet(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
}

/** `array<struct<key, value>>`, the shape a map has in Polars (which has no map type). */
function isEntriesOf(got: DataType, want: DataType): boolean {
  if (typeof want === 'string' || want.type !== 'map' || typeof got === 'string' || got.type !== 'array') return false;
  const e = got.elementType;
  return typeof e !== 'string' && e.type === 'struct' && e.fields.length === 2 && e.fields[0].name === 'key' && e.fields[1].name === 'value';
}

/**
 * Polars reads a Parquet map as a list of {key, value} structs. The log's type is the contract
 * (as for nullability and tags), so a top-level column the log says is a map and Polars returned
 * as such a list is rebuilt as the map, and the change is named. Any other difference in type is
 * left as Polars returned it, for schema_match to report.
 */
export function restoreMaps(read: EngineRead): EngineRead {
  const adjustments: string[] = [...(read.adjustments ?? [])];
  const fields = read.table.schema.fields;
  const cols = fields.map((f, i) => {
    const want = read.schema.fields.find((x) => x.name === f.name)?.type;
    const got = deltaTypeOf(f.type);
    if (!want || !isEntriesOf(got, want)) return { field: f, data: null };
    const type = arrowTypeOf(want);
    const cells = columnCells(read.table, i).map((c): Cell => (c === null ? null : new MapCell((c as Record<string, Cell>[]).map((e) => [e.key, e.value]))));
    adjustments.push(`${f.name}: Polars read the map as ${typeText(got)} (Polars has no map type); rebuilt as the log's ${typeText(want)}`);
    return { field: new A.Field(f.name, type, f.nullable, f.metadata), data: buildData(type, cells) };
  });
  if (!cols.some((c) => c.data)) return read;
  const schema = new A.Schema(cols.map((c) => c.field));
  // The untouched columns keep Polars' own data.
  const whole = cols.map((c, i) => c.data ?? concatData(read.table, i));
  const data = A.makeData({ type: new A.Struct(schema.fields), length: read.table.numRows, nullCount: 0, children: whole });
  return { ...read, table: new A.Table(schema, [new A.RecordBatch(schema, data)]), adjustments };
}

/** One column of a table as a single Data chunk (rebuilt from its cells when it has several). */
function concatData(table: A.Table, i: number): A.Data {
  const col = table.getChildAt(i)!;
  if (col.data.length === 1) return col.data[0];
  return buildData(arrowTypeOf(deltaTypeOf(col.type)), columnCells(table, i));
}

/** What a test double may do to the DataFrame before Polars writes it. */
export type PolarsDamage = (pl: Polars, df: PL.DataFrame, input: A.Table) => PL.DataFrame;

export function makePolarsEngine(opts: { name?: string; damage?: PolarsDamage; testOnly?: boolean; description?: string } = {}): Engine {
  const name = opts.name ?? 'polars';
  return {
    name,
    description: opts.description ?? `Parquet written and read by Rust Polars (nodejs-polars ${POLARS_VERSION}); our Delta log and reader, deletion vectors applied`,
    // Test doubles commit under polars' name: they are Polars with one known damage.
    engineInfoPrefix: 'lakerec-polars/',
    readerFeatures: new Set(['timestampNtz', 'deletionVectors', 'v2Checkpoint', 'vacuumProtocolCheck']),
    testOnly: opts.testOnly,
    availability: polarsAvailability,

    async write(root: string, table: A.Table, ctx?: JobContext): Promise<EngineWrite> {
      throwIfCancelled(ctx);
      const pl = polars();
      mkdirSync(root, { recursive: true });
      const file = dataFileName(0);
      const bytes = writeParquetPolars(table, opts.damage);
      writeFileSync(join(root, file), bytes);
      // The log gets Polars' own account of the columns it wrote (its reader on its own file);
      // nullability and tags as given, like every engine.
      const written = arrowOf(pl.readParquet(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
      const input = deltaSchemaOf(table.schema);
      const types = new Map(written.schema.fields.map((f) => [f.name, f.type]));
      const schema = { type: 'struct' as const, fields: withDeltaFields(input, types).fields.map(deltaFieldOf) };
      const nullCount: Record<string, number> = {};
      schema.fields.forEach((f) => {
        const i = written.schema.fields.findIndex((x) => x.name === f.name);
        if (typeof f.type === 'string' && i >= 0) nullCount[f.name] = written.getChildAt(i)?.nullCount ?? 0;
      });
      const { version } = await commitNewTable({
        root, schema, engineInfo: `lakerec-polars/nodejs-polars-${POLARS_VERSION}`,
        files: [{ path: file, size: bytes.length, numRecords: written.numRows, nullCount }],
      });
      return { version, files: 1, rows: written.numRows, schema };
    },

    async read(root: string, ctx?: JobContext): Promise<EngineRead> {
      throwIfCancelled(ctx);
      polars();
      const r = await readActiveFiles(this, root, (bytes) => readParquetPolars(bytes), { deletionVectors: true }, ctx);
      return restoreMaps(r);
    },
  };
}

export const polarsEngine: Engine = makePolarsEngine();

/**
 * TEST DOUBLES: Polars with one known damage before its write, as a naive Polars pipeline does
 * it. Never offered to users (the CLI accepts them only with LAKEREC_PROOF_TEST_ENGINES=1).
 */
export const polarsLossyEngines: Engine[] = [
  makePolarsEngine({
    name: 'lossy-polars-nan', testOnly: true,
    description: 'TEST DOUBLE: Polars writing after fill_nan(null) on every float column',
    damage: (pl, df, input) => df.withColumns(...input.schema.fields.filter((f) => f.type.typeId === A.Type.Float).map((f) => pl.col(f.name).fillNan(null))),
  }),
  makePolarsEngine({
    name: 'lossy-polars-decimal', testOnly: true,
    description: 'TEST DOUBLE: Polars writing decimal(38,10) cast to decimal(38,2)',
    damage: (pl, df, input) => df.withColumns(...input.schema.fields.filter((f) => f.type.typeId === A.Type.Decimal && (f.type as A.Decimal).scale > 2).map((f) => pl.col(f.name).cast(pl.Decimal((f.type as A.Decimal).precision, 2)))),
  }),
];
