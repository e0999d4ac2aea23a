// The duckdb engine: Parquet written by DuckDB's COPY and read by DuckDB's read_parquet (through
// our reader's snapshot view); the Delta log is ours.
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import { throwIfCancelled, type JobContext } from '../../../shared/jobs';
import { openDuck, sqlIdent, sqlString } from '../../engine/duck';
import { registerSnapshotView } from '../../delta/scan';
import type { Snapshot } from '../../delta/types';
import { buildTable, deltaFieldOf, deltaSchemaOf, tableRows } from '../cells';
import { commitNewTable, dataFileName } from '../delta-log';
import { arrowTypeOfDuck, cellOfDuck, loadRows } from './duckdb-values';
import { openSnapshot, withDeltaFields } from './common';
import type { Engine, EngineRead, EngineWrite } from './types';

let duckVersion: string | null = null;

async function version(): Promise<string> {
  if (duckVersion) return duckVersion;
  const d = await openDuck({ threads: 1 });
  try {
    const r = await d.conn.runAndReadAll('SELECT version()');
    duckVersion = String(r.getRows()[0][0]).replace(/^v/, '');
  } finally { d.close(); }
  return duckVersion;
}

export const duckdbEngine: Engine = {
  name: 'duckdb',
  description: 'Parquet written and read by DuckDB (COPY, read_parquet); our Delta log and reader',
  engineInfoPrefix: 'lakerec-duckdb/',
  // What our reader's snapshot view handles (it casts every column to the table's type).
  readerFeatures: new Set(['timestampNtz', 'deletionVectors', 'columnMapping', 'v2Checkpoint', 'vacuumProtocolCheck', 'typeWidening', 'typeWidening-preview']),

  async write(root: string, table: A.Table, ctx?: JobContext): Promise<EngineWrite> {
    throwIfCancelled(ctx);
    mkdirSync(root, { recursive: true });
    const duck = await openDuck({ threads: 1 });
    try {
      const input = deltaSchemaOf(table.schema);
      await loadRows(duck.conn, 'proof_src', input, tableRows(table));
      throwIfCancelled(ctx);
      const file = dataFileName(0);
      await duck.conn.run(`COPY ${sqlIdent('proof_src')} TO ${sqlString(join(root, file))} (FORMAT parquet, COMPRESSION snappy)`);
      // The schema the log gets is DuckDB's own account of the columns it wrote.
      const desc = await duck.conn.runAndReadAll(`SELECT * FROM read_parquet(${sqlString(join(root, file))}) LIMIT 0`);
      const types = new Map(desc.columnNames().map((n, i) => [n, arrowTypeOfDuck(desc.columnTypes()[i])]));
      const schema = { type: 'struct' as const, fields: withDeltaFields(input, types).fields.map(deltaFieldOf) };
      const counts = await duck.conn.runAndReadAll(`SELECT count(*) AS n, ${input.fields.map((f, i) => `count(*) - count(${sqlIdent(f.name)}) AS c${i}`).join(', ')} FROM ${sqlIdent('proof_src')}`);
      const row = counts.getRows()[0];
      const nullCount: Record<string, number> = {};
      input.fields.forEach((f, i) => { if (typeof f.type === 'string') nullCount[f.name] = Number(row[i + 1]); });
      const rows = Number(row[0]);
      const info = `lakerec-duckdb/${await version()}`;
      const { version: v } = await commitNewTable({ root, schema, engineInfo: info, files: [{ path: file, size: statSync(join(root, file)).size, numRecords: rows, nullCount }] });
      return { version: v, files: 1, rows, schema };
    } finally { duck.close(); }
  },

  async read(root: string, ctx?: JobContext): Promise<EngineRead> {
    throwIfCancelled(ctx);
    const { snapshot, featuresChecked } = await openSnapshot(this, root);
    return { table: await readSnapshotDuckdb(snapshot), schema: snapshot.schema, protocol: snapshot.protocol, featuresChecked, version: snapshot.version };
  },
};

/** A snapshot's logical rows read by DuckDB (our reader's view) into Arrow, exactly. */
export async function readSnapshotDuckdb(snapshot: Snapshot, opts: { allowOutsidePaths?: boolean } = {}): Promise<A.Table> {
  const duck = await openDuck({ threads: 1 });
  try {
    await registerSnapshotView(duck.conn, snapshot, 'proof_read', { allowOutsidePaths: opts.allowOutsidePaths });
    const r = await duck.conn.runAndReadAll('SELECT * FROM proof_read');
    const names = r.columnNames();
    const types = new Map(names.map((n, i) => [n, arrowTypeOfDuck(r.columnTypes()[i])]));
    const schema = withDeltaFields(snapshot.schema, types);
    const order = schema.fields.map((f) => names.indexOf(f.name));
    const rows = r.getRows().map((row) => order.map((i) => cellOfDuck(row[i])));
    return buildTable(schema, rows);
  } finally { duck.close(); }
}
