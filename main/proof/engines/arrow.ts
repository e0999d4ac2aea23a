// The arrow engine: Parquet written by parquet-wasm (arrow-rs compiled to WebAssembly) from an
// Arrow IPC stream, read back by parquet-wasm into Arrow IPC and then apache-arrow; the Delta log
// is ours. A Parquet implementation independent of DuckDB's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import * as P from 'parquet-wasm';
import { throwIfCancelled, type JobContext } from '../../../shared/jobs';
import { deltaSchemaOf } from '../cells';
import { commitNewTable, dataFileName } from '../delta-log';
import { readActiveFiles } from './files';
import type { Engine, EngineRead, EngineWrite } from './types';

export const PARQUET_WASM_VERSION = '0.8.0';
export const APACHE_ARROW_VERSION = '21.2.0';

/** Parquet bytes of an Arrow table, written by parquet-wasm. */
export function writeParquetArrow(table: A.Table): Uint8Array {
  const wasmTable = P.Table.fromIPCStream(A.tableToIPC(table, 'stream'));
  const props = new P.WriterPropertiesBuilder()
    .setCompression(P.Compression.SNAPPY)
    .setCreatedBy(`lakerec-arrow (parquet-wasm ${PARQUET_WASM_VERSION})`)
    .build();
  return P.writeParquet(wasmTable, props);
}

/** An Arrow table of Parquet bytes, read by parquet-wasm. */
export function readParquetArrow(bytes: Uint8Array): A.Table {
  return A.tableFromIPC(P.readParquet(bytes).intoIPCStream());
}

/** Writes `table` as one parquet-wasm file and commits version 0 with `engineInfo`. */
export async function writeArrowTable(root: string, table: A.Table, engineInfo: string): Promise<EngineWrite> {
  mkdirSync(root, { recursive: true });
  const file = dataFileName(0);
  const bytes = writeParquetArrow(table);
  writeFileSync(join(root, file), bytes);
  const schema = deltaSchemaOf(table.schema);
  const nullCount: Record<string, number> = {};
  schema.fields.forEach((f, i) => { if (typeof f.type === 'string') nullCount[f.name] = table.getChildAt(i)?.nullCount ?? 0; });
  const { version } = await commitNewTable({ root, schema, engineInfo, files: [{ path: file, size: bytes.length, numRecords: table.numRows, nullCount }] });
  return { version, files: 1, rows: table.numRows, schema };
}

export const arrowEngine: Engine = {
  name: 'arrow',
  description: `Parquet written and read by parquet-wasm ${PARQUET_WASM_VERSION} (arrow-rs), Arrow by apache-arrow ${APACHE_ARROW_VERSION}; our Delta log and reader`,
  engineInfoPrefix: 'lakerec-arrow/',
  // No deletion vectors and no column mapping: this engine reads the files as they are. The
  // log-level features are our reader's.
  readerFeatures: new Set(['timestampNtz', 'v2Checkpoint', 'vacuumProtocolCheck']),

  async write(root: string, table: A.Table, ctx?: JobContext): Promise<EngineWrite> {
    throwIfCancelled(ctx);
    return writeArrowTable(root, table, `lakerec-arrow/parquet-wasm-${PARQUET_WASM_VERSION} apache-arrow-${APACHE_ARROW_VERSION}`);
  },

  async read(root: string, ctx?: JobContext): Promise<EngineRead> {
    return readActiveFiles(this, root, (bytes) => readParquetArrow(bytes), { deletionVectors: false }, ctx);
  },
};

export { partitionCell, refuseOverflowingNanos } from './files';
