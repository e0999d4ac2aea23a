// lakerec's Delta writer: what real pipelines do to a table, through the ordinary write path, so
// the log afterwards is a genuine log. Parquet is written by DuckDB COPY; every data commit carries
// add actions with full stats and a commitInfo with operation, parameters, metrics and engineInfo.
// A commit is atomic (commit.ts): of two writers racing for a version one loses cleanly.
//
// DeltaWriter is the public face; the work is in one file per seam: the commit protocol
// (commit.ts, core.ts), data files (datafiles.ts), DML (dml.ts), maintenance (maintenance.ts),
// table features (features.ts), and the shapes (options.ts).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AddFile, Metadata, Protocol, RemoveFile, StructField, StructType } from '../../shared/delta';
import { openDuck, type Duck } from '../engine/duck';
import { openTable } from '../delta/open';
import { WriterCore } from './core';
import { BATCH, currentRowsSql, prepareBatch, writeFiles, writeMetrics } from './datafiles';
import * as dml from './dml';
import { protocolFor, refuseConstraints, refuseUnsupportedTable } from './features';
import * as maintenance from './maintenance';
import {
  misuse, type CommitResult, type CreateTableOptions, type MergeOptions, type OverwriteOptions, type RowSource,
  type VacuumOptions, type VacuumResult, type WriteOptions, type WriterOptions, type WriterState,
} from './options';
import { duckType, parseSchema, partitionValueSql } from './schema';

export { WRITER_ENGINE_INFO } from './options';
export type {
  RowSource, WriterOptions, CreateTableOptions, WriterState, CommitResult, WriteOptions, OverwriteOptions,
  MergeOptions, VacuumOptions, VacuumResult,
} from './options';
export { versionFileName } from './commit';
export { protocolFor } from './features';
export { deltaTypeOfDuck } from './schema';

export class DeltaWriter {
  private readonly core: WriterCore;

  private constructor(core: WriterCore) {
    this.core = core;
  }

  /** Creates a new table (version 0: protocol, metaData and commitInfo; with `data`, its files too). */
  static async create(root: string, opts: CreateTableOptions): Promise<DeltaWriter> {
    const abs = resolve(root);
    const logDir = join(abs, '_delta_log');
    if (existsSync(logDir) && readdirSync(logDir).some((f) => /^\d{20}\.(json|checkpoint\.)/.test(f))) {
      throw misuse(`a Delta table already exists at ${abs}`, { path: abs });
    }
    const partitionColumns = opts.partitionColumns ?? [];
    const names = new Set<string>();
    for (const f of opts.schema.fields) {
      if (names.has(f.name.toLowerCase())) throw misuse(`column "${f.name}" appears twice in the schema`);
      names.add(f.name.toLowerCase());
      duckType(f.type);
    }
    for (const p of partitionColumns) {
      const f = opts.schema.fields.find((x) => x.name === p);
      if (!f) throw misuse(`partition column "${p}" is not in the schema`);
      partitionValueSql(p, f.type);
    }
    if (partitionColumns.length === opts.schema.fields.length) throw misuse('a table needs at least one column that is not a partition column');
    refuseConstraints(opts.schema, opts.configuration, '; a table declaring them would not be kept to them');
    const createdLogDir = !existsSync(logDir);
    mkdirSync(logDir, { recursive: true });
    const clock = opts.clock ?? Date.now;
    const protocol: Protocol = protocolFor(opts.schema, undefined, opts.configuration);
    const metadata: Metadata = {
      id: opts.id ?? randomUUID(),
      name: opts.name ?? null,
      description: opts.description ?? null,
      format: { provider: 'parquet', options: {} },
      schemaString: JSON.stringify(opts.schema),
      partitionColumns,
      configuration: opts.configuration ?? {},
      createdTime: clock(),
    };
    const duck = opts.duck ?? await openDuck({ threads: 2 });
    const core = new WriterCore(abs, { version: -1, protocol, metadata, files: new Map(), tombstones: new Map() }, duck, !opts.duck, opts, maintenance.autoCheckpoint);
    const w = new DeltaWriter(core);
    try {
      const adds: AddFile[] = [];
      const written: string[] = [];
      let rows = 0;
      if (opts.data) {
        rows = await prepareBatch(core, opts.data, {});
        adds.push(...await writeFiles(core, BATCH, true, written));
      }
      const params: Record<string, string> = {
        isManaged: 'false',
        description: opts.description ?? '',
        partitionBy: JSON.stringify(partitionColumns),
        properties: JSON.stringify(metadata.configuration ?? {}),
      };
      await core.commit({
        operation: opts.data ? 'CREATE TABLE AS SELECT' : 'CREATE TABLE',
        parameters: params,
        metrics: opts.data ? writeMetrics(adds, rows) : {},
        protocol, metadata, adds, removes: [], written, blindAppend: true,
      });
    } catch (e) {
      w.close();
      // Leave the folder as it was: no empty _delta_log that would look like a broken table.
      if (createdLogDir && readdirSync(logDir).length === 0) rmSync(logDir, { recursive: true, force: true });
      throw e;
    }
    return w;
  }

  /**
   * A writer over a known state (what `open` builds from the reader's snapshot; tests use it to
   * stage two writers at the same version). It commits at state.version + 1.
   */
  static async fromState(root: string, state: WriterState, opts: WriterOptions = {}): Promise<DeltaWriter> {
    const duck = opts.duck ?? await openDuck({ threads: 2 });
    return new DeltaWriter(new WriterCore(root, state, duck, !opts.duck, opts, maintenance.autoCheckpoint));
  }

  /**
   * Opens an existing table at its latest version through lakerec's reader. The writer writes
   * protocol 1/2 tables (and 3/7 with timestampNtz only): a table that needs anything else
   * (column mapping, deletion vectors, CHECK constraints, column invariants, ...) is refused rather
   * than written without honouring it. `delta.appendOnly` is honoured: only appends.
   */
  static async open(root: string, opts: WriterOptions = {}): Promise<DeltaWriter> {
    const table = await openTable(root, { allowOutsidePaths: opts.allowOutsidePaths ?? false });
    const snap = await table.snapshot();
    const p = snap.protocol;
    refuseUnsupportedTable(p, snap.columnMapping);
    refuseConstraints(snap.schema, snap.metadata.configuration, ', so this table is not written');
    const files = new Map<string, AddFile>(snap.files.map((f) => [f.add.path, f.add]));
    const tombstones = new Map<string, RemoveFile>();
    try {
      // Tombstones give vacuum the time each file stopped being referenced.
      for (const c of await table.changes({}, opts.ctx)) {
        for (const r of c.removes) if (!files.has(r.path)) tombstones.set(r.path, r);
        for (const a of c.adds) tombstones.delete(a.path);
      }
    } catch {
      /* history partly gone (log cleanup): vacuum falls back to file times */
    }
    return DeltaWriter.fromState(snap.root, { version: snap.version, protocol: snap.protocol, metadata: snap.metadata, files, tombstones }, opts);
  }

  /** The version, schema and files as of the writer's last commit. */
  get state(): Readonly<WriterState> {
    return this.core.st;
  }

  get root(): string {
    return this.core.root;
  }

  get version(): number {
    return this.core.st.version;
  }

  get schema(): StructType {
    return parseSchema(this.core.st.metadata.schemaString);
  }

  get partitionColumns(): string[] {
    return this.core.st.metadata.partitionColumns;
  }

  /** Things that went wrong without failing a commit (an automatic checkpoint). */
  get warnings(): string[] {
    return this.core.warnings;
  }

  /** The writer's DuckDB connection (to build row sources as temp tables). */
  get conn(): Duck['conn'] {
    return this.core.duck.conn;
  }

  close(): void {
    if (this.core.ownsDuck) this.core.duck.close();
  }

  // ---- DML (dml.ts) ----

  /** WRITE mode Append. */
  append(source: RowSource, opts: WriteOptions = {}): Promise<CommitResult> {
    return dml.append(this.core, source, opts);
  }

  /** WRITE mode Overwrite: the whole table, or with `replaceWhere` only the rows matching it. */
  overwrite(source: RowSource, opts: OverwriteOptions = {}): Promise<CommitResult> {
    return dml.overwrite(this.core, source, opts);
  }

  /** DELETE with a predicate over logical columns (deletion vectors when the table enables them). */
  deleteWhere(predicate: string): Promise<CommitResult> {
    return dml.deleteWhere(this.core, predicate);
  }

  /** Whether DELETE marks rows in deletion vectors instead of rewriting files. */
  get deletionVectorsEnabled(): boolean {
    return dml.deletionVectorsEnabled(this.core);
  }

  /** UPDATE: `set` maps a column to a SQL expression over the row; only rows matching `where` change. */
  update(set: Record<string, string>, where = 'true'): Promise<CommitResult> {
    return dml.update(this.core, set, where);
  }

  /** MERGE by key: matched target rows are updated (or deleted), unmatched source rows inserted. */
  merge(source: RowSource, opts: MergeOptions): Promise<CommitResult> {
    return dml.merge(this.core, source, opts);
  }

  /** ADD COLUMNS: a metadata-only commit adding nullable columns at the end of the schema. */
  evolveSchema(newFields: StructField[]): Promise<CommitResult> {
    return dml.evolveSchema(this.core, newFields);
  }

  // ---- maintenance (maintenance.ts) ----

  /** OPTIMIZE (compaction), optionally only partitions holding rows matching `where`. */
  optimize(where?: string): Promise<CommitResult> {
    return maintenance.optimize(this.core, where);
  }

  /** A classic single-part Parquet checkpoint of the current version, and `_last_checkpoint`. */
  checkpoint(): Promise<{ version: number; path: string; size: number }> {
    return maintenance.checkpoint(this.core);
  }

  /** Deletes the log files below the newest checkpoint at or before `beforeVersion`. */
  cleanupLog(beforeVersion: number = this.core.st.version): string[] {
    return maintenance.cleanupLog(this.core, beforeVersion);
  }

  /** VACUUM: deletes unreferenced data files older than the retention. */
  vacuum(opts: VacuumOptions = {}): VacuumResult {
    return maintenance.vacuum(this.core, opts);
  }

  // ---- reading back (datafiles.ts) ----

  /**
   * SQL for the logical rows of the writer's current version (partition columns filled in,
   * columns added by schema evolution null in older files), for checks and read-back.
   */
  currentRowsSql(): Promise<string> {
    return currentRowsSql(this.core);
  }

  absolutePath(path: string): string {
    return this.core.absolutePath(path);
  }
}
