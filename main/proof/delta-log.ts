// The proof's Delta log: each engine writes its own Parquet files, then this writes version 0 of
// the table around them (protocol, metaData with the schema and its field metadata tags, one add
// per file with stats, commitInfo naming the engine). The same log code for every engine, so a
// difference between two proof tables is a difference between Parquet implementations.
// (main/writer writes its Parquet through DuckDB, so a table whose files another
// implementation wrote is committed here, through the writer's one atomic commit.)
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Action, AddFile, CommitInfo, Metadata, Protocol, StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { commitVersion, protocolFor as writerProtocolFor, tableStorage } from '../writer';

export interface WrittenFile {
  /** Relative to the table root. */
  path: string;
  size: number;
  numRecords: number;
  /** Null counts of the top-level primitive columns. */
  nullCount: Record<string, number>;
}

/** The protocol a schema needs: table features 3/7 with timestampNtz when it has one, else 1/2 (the writer's rule). */
export function protocolFor(schema: StructType): Protocol {
  return writerProtocolFor(schema);
}

/** The reader features a schema needs (what a correct table must declare). */
export function requiredReaderFeatures(schema: StructType): string[] {
  return protocolFor(schema).readerFeatures ?? [];
}

export interface CreateCommit {
  root: string;
  schema: StructType;
  files: WrittenFile[];
  engineInfo: string;
  name?: string;
  clock?: () => number;
  /** Tests only: commit this protocol instead of the one the schema needs. */
  protocol?: Protocol;
}

/** Writes version 0 of a new table; fails if a version 0 exists. */
export async function commitNewTable(c: CreateCommit): Promise<{ version: number; actions: Action[] }> {
  const now = (c.clock ?? Date.now)();
  const logDir = join(c.root, '_delta_log');
  mkdirSync(logDir, { recursive: true });
  const protocol = c.protocol ?? protocolFor(c.schema);
  const metaData: Metadata = {
    id: randomUUID(),
    name: c.name ?? null,
    description: null,
    format: { provider: 'parquet', options: {} },
    schemaString: JSON.stringify(c.schema),
    partitionColumns: [],
    configuration: {},
    createdTime: now,
  };
  const adds: AddFile[] = c.files.map((f) => ({
    path: f.path,
    partitionValues: {},
    size: f.size,
    modificationTime: now,
    dataChange: true,
    stats: JSON.stringify({ numRecords: f.numRecords, nullCount: f.nullCount }),
  }));
  const numOutputRows = c.files.reduce((n, f) => n + f.numRecords, 0);
  const commitInfo: CommitInfo = {
    timestamp: now,
    operation: 'CREATE TABLE AS SELECT',
    operationParameters: { isManaged: 'false', partitionBy: '[]', properties: '{}' },
    isolationLevel: 'Serializable',
    isBlindAppend: true,
    operationMetrics: { numFiles: String(adds.length), numOutputRows: String(numOutputRows), numOutputBytes: String(c.files.reduce((n, f) => n + f.size, 0)) },
    engineInfo: c.engineInfo,
    txnId: randomUUID(),
  };
  const actions: Action[] = [{ commitInfo }, { protocol }, { metaData }, ...adds.map((add) => ({ add }))];
  await commitVersion(tableStorage(c.root), 0, actions, () => new LakerecError('commit_conflict', `a table already exists at ${c.root}`, { path: c.root }));
  return { version: 0, actions };
}

/** A data file name in the usual Delta form. */
export function dataFileName(index = 0): string {
  return `part-${String(index).padStart(5, '0')}-${randomUUID()}-c000.snappy.parquet`;
}
