// lakerec's Delta writer: what real pipelines do to a table, through the ordinary write path, so
// the log afterwards is a genuine log. Parquet is written by DuckDB COPY; every data commit carries
// add actions with full stats and a commitInfo with operation, parameters, metrics and engineInfo.
// A commit is atomic: the JSON is written to a temp file and then linked to its version's name,
// which fails if the version exists, so of two writers racing for a version one loses cleanly.
import { LAKEREC_VERSION } from '../../../shared/version';
import { randomUUID } from 'node:crypto';
import {
  existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type {
  Action, AddFile, CommitInfo, DataType, Metadata, Protocol, RemoveFile, StructField, StructType,
} from '../../../shared/delta';
import { LakerecError } from '../../../shared/errors';
import { throwIfCancelled, type JobContext } from '../../../shared/jobs';
import { openDuck, sqlIdent, sqlString, type Duck } from '../../engine/duck';
import { DeltaTable } from '../table';
import { deletionVectorLocation, readDeletionVector } from '../dv';
import { writeDeletionVectorFile } from './dv';
import {
  assignable, duckType, logPath, parseSchema, partitionDirName, partitionLiteralSql, partitionValueSql,
} from './schema';
import { dataColumnsOf, statsJson, statsSelectList } from './stats';

export const WRITER_ENGINE_INFO = `lakerec/${LAKEREC_VERSION}`;

/** Rows to write: a DuckDB SELECT (run on the writer's connection) or plain objects. */
export type RowSource = { sql: string } | { rows: Record<string, unknown>[] };

export interface WriterOptions {
  /** ms since epoch for commit timestamps and file modification times (tests pin it). */
  clock?: () => number;
  engineInfo?: string;
  /** A DuckDB to borrow (not closed by the writer); otherwise the writer opens its own. */
  duck?: Duck;
  ctx?: JobContext;
}

export interface CreateTableOptions extends WriterOptions {
  schema: StructType;
  partitionColumns?: string[];
  name?: string;
  description?: string;
  configuration?: Record<string, string>;
  /** Metadata id; a random UUID by default. */
  id?: string;
  /** Rows of the first commit (CREATE TABLE AS SELECT). */
  data?: RowSource;
}

/** The table as the writer knows it after its last commit. */
export interface WriterState {
  version: number;
  protocol: Protocol;
  metadata: Metadata;
  /** Active files by log path. */
  files: Map<string, AddFile>;
  /** Remove actions still inside the tombstone retention (kept for checkpoints and vacuum). */
  tombstones: Map<string, RemoveFile>;
}

export interface CommitResult {
  version: number;
  commitInfo: CommitInfo;
  adds: AddFile[];
  removes: RemoveFile[];
}

export interface WriteOptions {
  /** Columns in the data and not in the table are added to the schema in the same commit. */
  mergeSchema?: boolean;
  /** Extra commitInfo.operationParameters (e.g. a pipeline's own batch id). */
  extraParameters?: Record<string, string>;
}

export interface OverwriteOptions extends WriteOptions {
  /** SQL predicate over logical columns: only rows matching it are replaced (Delta's replaceWhere). */
  replaceWhere?: string;
}

export interface MergeOptions {
  /** Key columns matching source rows to target rows. */
  on: string[];
  whenMatched?: 'update' | 'delete' | 'ignore';
  whenNotMatched?: 'insert' | 'ignore';
}

export interface VacuumOptions {
  /** Files unreferenced for less than this are kept (default 7 days, Delta's default). */
  retentionMs?: number;
  /** "now" for the retention comparison (default the real clock). */
  now?: number;
  dryRun?: boolean;
}

export interface VacuumResult {
  /** Deleted files, relative to the table root. */
  deleted: string[];
  /** Unreferenced files kept because they are younger than the retention. */
  kept: string[];
}

const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;
const BATCH = '_lk_batch';
const REWRITE = '_lk_rewrite';

/** Table features the writer honours (a table needing any other is refused). */
const SUPPORTED_FEATURES = new Set(['timestampNtz', 'deletionVectors']);

function usesType(t: DataType, name: string): boolean {
  if (typeof t === 'string') return t === name;
  if (t.type === 'array') return usesType(t.elementType, name);
  if (t.type === 'map') return usesType(t.keyType, name) || usesType(t.valueType, name);
  return t.fields.some((f) => usesType(f.type, name));
}

/**
 * The protocol a table needs, given the current one: (1, 2) by default; table features (3, 7) once
 * a timestamp_ntz column exists (timestampNtz) or deletion vectors are enabled
 * (`delta.enableDeletionVectors`: deletionVectors). PROTOCOL.md, "Table Features".
 */
export function protocolFor(schema: StructType, current?: Protocol, configuration?: Record<string, string>): Protocol {
  const need: string[] = [];
  if (schema.fields.some((f) => usesType(f.type, 'timestamp_ntz'))) need.push('timestampNtz');
  if (configuration?.['delta.enableDeletionVectors'] === 'true') need.push('deletionVectors');
  const missing = need.filter((f) => !(current?.readerFeatures ?? []).includes(f));
  if (missing.length === 0) return current ?? { minReaderVersion: 1, minWriterVersion: 2 };
  const rf = new Set([...(current?.readerFeatures ?? []), ...need]);
  const wf = new Set([...(current?.writerFeatures ?? []), ...need]);
  return { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: [...rf].sort(), writerFeatures: [...wf].sort() };
}

function sameProtocol(a: Protocol, b: Protocol): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function versionFileName(v: number): string {
  return `${String(v).padStart(20, '0')}.json`;
}

function misuse(message: string, detail?: Record<string, string | number | boolean | null>): LakerecError {
  return new LakerecError('writer_misuse', message, detail);
}

function sqlList(items: string[]): string {
  return `[${items.map(sqlString).join(', ')}]`;
}

function jsonReplacer(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

export class DeltaWriter {
  readonly root: string;
  private readonly logDir: string;
  private readonly duck: Duck;
  private readonly ownsDuck: boolean;
  private readonly clock: () => number;
  private readonly engineInfo: string;
  private readonly ctx?: JobContext;
  private st: WriterState;
  private dvTables = 0;
  /** Things that went wrong without failing a commit (an automatic checkpoint). */
  readonly warnings: string[] = [];

  private constructor(root: string, state: WriterState, duck: Duck, ownsDuck: boolean, opts: WriterOptions) {
    this.root = resolve(root);
    this.logDir = join(this.root, '_delta_log');
    this.st = state;
    this.duck = duck;
    this.ownsDuck = ownsDuck;
    this.clock = opts.clock ?? Date.now;
    this.engineInfo = opts.engineInfo ?? WRITER_ENGINE_INFO;
    this.ctx = opts.ctx;
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
    const invariants = opts.schema.fields.filter((f) => f.metadata && 'delta.invariants' in f.metadata).map((f) => f.name);
    const checks = Object.keys(opts.configuration ?? {}).filter((k) => k.startsWith('delta.constraints.'));
    if (invariants.length > 0 || checks.length > 0) {
      throw misuse(`the writer does not evaluate ${invariants.length > 0 ? `column invariants (${invariants.join(', ')})` : `CHECK constraints (${checks.join(', ')})`}; a table declaring them would not be kept to them`);
    }
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
    const w = new DeltaWriter(abs, { version: -1, protocol, metadata, files: new Map(), tombstones: new Map() }, duck, !opts.duck, opts);
    try {
      const adds: AddFile[] = [];
      const written: string[] = [];
      let rows = 0;
      if (opts.data) {
        rows = await w.prepareBatch(opts.data, {});
        adds.push(...await w.writeFiles(BATCH, true, written));
      }
      const params: Record<string, string> = {
        isManaged: 'false',
        description: opts.description ?? '',
        partitionBy: JSON.stringify(partitionColumns),
        properties: JSON.stringify(metadata.configuration ?? {}),
      };
      await w.commit({
        operation: opts.data ? 'CREATE TABLE AS SELECT' : 'CREATE TABLE',
        parameters: params,
        metrics: opts.data ? w.writeMetrics(adds, rows) : {},
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
    return new DeltaWriter(root, state, duck, !opts.duck, opts);
  }

  /**
   * Opens an existing table at its latest version through lakerec's reader. The writer writes
   * protocol 1/2 tables (and 3/7 with timestampNtz only): a table that needs anything else
   * (column mapping, deletion vectors, CHECK constraints, column invariants, ...) is refused rather
   * than written without honouring it. `delta.appendOnly` is honoured: only appends.
   */
  static async open(root: string, opts: WriterOptions = {}): Promise<DeltaWriter> {
    const table = await DeltaTable.open(root);
    const snap = await table.snapshot();
    const p = snap.protocol;
    const unsupported = [...(p.readerFeatures ?? []), ...(p.writerFeatures ?? [])].filter((f) => !SUPPORTED_FEATURES.has(f));
    const legacyBeyond = (p.minWriterVersion > 2 && p.minWriterVersion < 7) || (p.minReaderVersion === 2);
    if (unsupported.length > 0 || legacyBeyond || snap.columnMapping !== 'none') {
      const what = unsupported.length > 0 ? `table features ${[...new Set(unsupported)].join(', ')}` : snap.columnMapping !== 'none' ? `column mapping (${snap.columnMapping})` : `protocol ${p.minReaderVersion}/${p.minWriterVersion}`;
      throw misuse(`the writer cannot honour ${what}; it writes protocol 1/2 tables (and 3/7 with timestampNtz and deletionVectors) only, so this table is not written`);
    }
    const invariants = snap.schema.fields.filter((f) => f.metadata && 'delta.invariants' in f.metadata).map((f) => f.name);
    const checks = Object.keys(snap.metadata.configuration ?? {}).filter((k) => k.startsWith('delta.constraints.'));
    if (invariants.length > 0 || checks.length > 0) {
      throw misuse(`the writer does not evaluate ${invariants.length > 0 ? `column invariants (${invariants.join(', ')})` : `CHECK constraints (${checks.join(', ')})`}, so this table is not written`);
    }
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
    return this.st;
  }

  get version(): number {
    return this.st.version;
  }

  get schema(): StructType {
    return parseSchema(this.st.metadata.schemaString);
  }

  get partitionColumns(): string[] {
    return this.st.metadata.partitionColumns;
  }

  /** The writer's DuckDB connection (to build row sources as temp tables). */
  get conn(): Duck['conn'] {
    return this.duck.conn;
  }

  close(): void {
    if (this.ownsDuck) this.duck.close();
  }

  // ---- operations ----

  /** WRITE mode Append. */
  async append(source: RowSource, opts: WriteOptions = {}): Promise<CommitResult> {
    const prevMeta = this.st.metadata;
    const written: string[] = [];
    try {
      const rows = await this.prepareBatch(source, opts);
      const adds = await this.writeFiles(BATCH, true, written);
      return await this.commit({
        operation: 'WRITE',
        parameters: { mode: 'Append', partitionBy: JSON.stringify(this.partitionColumns), ...opts.extraParameters },
        metrics: this.writeMetrics(adds, rows),
        metadata: this.st.metadata !== prevMeta ? this.st.metadata : undefined,
        adds, removes: [], written, blindAppend: true,
      });
    } catch (e) {
      this.st.metadata = prevMeta;
      this.discard(written);
      throw e;
    }
  }

  /** WRITE mode Overwrite: the whole table, or with `replaceWhere` only the rows matching it. */
  async overwrite(source: RowSource, opts: OverwriteOptions = {}): Promise<CommitResult> {
    this.refuseIfAppendOnly('WRITE mode Overwrite');
    const prevMeta = this.st.metadata;
    const written: string[] = [];
    try {
      const rows = await this.prepareBatch(source, opts);
      const pred = opts.replaceWhere;
      if (pred !== undefined) {
        const outside = await this.scalar(`SELECT count(*) FROM ${BATCH} WHERE NOT coalesce((${pred}), false)`, 'replaceWhere');
        if (outside > 0) {
          throw misuse(`${outside} row(s) of the data do not match replaceWhere (${pred}); nothing was written`, { replaceWhere: pred, rowsOutside: outside });
        }
      }
      const adds = await this.writeFiles(BATCH, true, written);
      const { removes, rewritten, copiedRows, removedRows } = pred === undefined
        ? this.removeAll()
        : await this.removeMatching(pred, written);
      const params: Record<string, string> = { mode: 'Overwrite', partitionBy: JSON.stringify(this.partitionColumns) };
      if (pred !== undefined) params.predicate = JSON.stringify([pred]);
      Object.assign(params, opts.extraParameters);
      return await this.commit({
        operation: 'WRITE',
        parameters: params,
        metrics: {
          ...this.writeMetrics(adds, rows),
          numRemovedFiles: String(removes.length),
          numCopiedRows: String(copiedRows),
          numDeletedRows: String(removedRows),
        },
        metadata: this.st.metadata !== prevMeta ? this.st.metadata : undefined,
        adds: [...adds, ...rewritten], removes, written, blindAppend: false,
      });
    } catch (e) {
      this.st.metadata = prevMeta;
      this.discard(written);
      throw e;
    }
  }

  /** DELETE with a predicate over logical columns; files holding matches are rewritten without them. */
  async deleteWhere(predicate: string): Promise<CommitResult> {
    this.refuseIfAppendOnly('DELETE');
    if (this.deletionVectorsEnabled) return this.deleteWithDeletionVectors(predicate);
    const written: string[] = [];
    try {
      const { removes, rewritten, copiedRows, removedRows } = await this.removeMatching(predicate, written);
      return await this.commit({
        operation: 'DELETE',
        parameters: { predicate: JSON.stringify([predicate]) },
        metrics: {
          numRemovedFiles: String(removes.length),
          numAddedFiles: String(rewritten.length),
          numDeletedRows: String(removedRows),
          numCopiedRows: String(copiedRows),
        },
        adds: rewritten, removes, written, blindAppend: false,
      });
    } catch (e) {
      this.discard(written);
      throw e;
    }
  }

  /** Whether DELETE marks rows in deletion vectors instead of rewriting files. */
  get deletionVectorsEnabled(): boolean {
    return this.st.metadata.configuration?.['delta.enableDeletionVectors'] === 'true'
      && (this.st.protocol.writerFeatures ?? []).includes('deletionVectors');
  }

  /**
   * DELETE as Delta does with deletion vectors enabled: a file whose rows all go is removed; a file
   * losing some rows is re-added under the same path with a deletion vector naming them (its
   * earlier DV's rows included). No data file is rewritten.
   */
  private async deleteWithDeletionVectors(predicate: string): Promise<CommitResult> {
    const touched = (await this.filesMatching(predicate)).filter((t) => t.hit > 0);
    const whole = touched.filter((t) => t.hit === t.rows);
    const partial = touched.filter((t) => t.hit < t.rows);
    const removes = touched.map((t) => this.removeOf(t.add, true));
    const adds: AddFile[] = [];
    const written: string[] = [];
    try {
      if (partial.length > 0) {
        const scan = await this.scanSql(partial.map((t) => t.add));
        const r = await this.rows(`SELECT _lk_file AS f, list(_lk_row ORDER BY _lk_row) AS rows FROM (${scan}) WHERE coalesce((${predicate}), false) GROUP BY ALL`);
        const newRows = new Map(r.map((x) => [String(x.f), (x.rows as (number | bigint)[]).map(Number)]));
        const dvs = await Promise.all(partial.map(async (t) => {
          const old = t.add.deletionVector ? await readDeletionVector(t.add.deletionVector, this.root) : [];
          return [...old, ...(newRows.get(this.absolutePath(t.add.path)) ?? [])];
        }));
        const { descriptors, file } = writeDeletionVectorFile(this.root, dvs);
        written.push(file);
        // The file's min/max still bound its remaining rows, but may no longer be tight.
        const loose = (stats: string | null | undefined): string | null | undefined =>
          stats && !stats.includes('"tightBounds"') ? stats.replace(/\}\s*$/, ',"tightBounds":false}') : stats;
        partial.forEach((t, i) => adds.push({ ...t.add, stats: loose(t.add.stats), modificationTime: this.clock(), dataChange: true, deletionVector: descriptors[i] }));
      }
      return await this.commit({
        operation: 'DELETE',
        parameters: { predicate: JSON.stringify([predicate]) },
        metrics: {
          numRemovedFiles: String(whole.length),
          numAddedFiles: '0',
          numDeletedRows: String(touched.reduce((s, t) => s + t.hit, 0)),
          numCopiedRows: '0',
          numDeletionVectorsAdded: String(adds.length),
          numDeletionVectorsRemoved: String(touched.filter((t) => t.add.deletionVector).length),
        },
        adds, removes, written, blindAppend: false,
      });
    } catch (e) {
      this.discard(written);
      throw e;
    }
  }

  /** UPDATE: `set` maps a column to a SQL expression over the row; only rows matching `where` change. */
  async update(set: Record<string, string>, where = 'true'): Promise<CommitResult> {
    this.refuseIfAppendOnly('UPDATE');
    const schema = this.schema;
    for (const col of Object.keys(set)) {
      if (!schema.fields.some((f) => f.name === col)) throw misuse(`UPDATE sets "${col}", which is not a column of the table`);
      if (this.partitionColumns.includes(col)) throw misuse(`UPDATE of partition column "${col}" is not supported; overwrite the partitions instead`);
    }
    const written: string[] = [];
    try {
      const touched = await this.filesMatching(where);
      const files = touched.filter((t) => t.hit > 0).map((t) => t.add);
      let updated = 0;
      let copied = 0;
      let rewritten: AddFile[] = [];
      if (files.length > 0) {
        const scan = await this.scanSql(files);
        const cols = schema.fields.map((f) => {
          const id = sqlIdent(f.name);
          const expr = set[f.name];
          return expr === undefined ? id : `CASE WHEN coalesce((${where}), false) THEN CAST((${expr}) AS ${duckType(f.type)}) ELSE ${id} END AS ${id}`;
        });
        await this.run(`CREATE OR REPLACE TEMP TABLE ${REWRITE} AS SELECT ${cols.join(', ')} FROM (${scan})`, 'UPDATE');
        await this.checkNotNull(REWRITE, schema);
        updated = touched.reduce((s, t) => s + t.hit, 0);
        copied = touched.filter((t) => t.hit > 0).reduce((s, t) => s + t.rows - t.hit, 0);
        rewritten = await this.writeFiles(REWRITE, true, written);
      }
      const removes = files.map((f) => this.removeOf(f, true));
      return await this.commit({
        operation: 'UPDATE',
        parameters: { predicate: JSON.stringify([where]) },
        metrics: {
          numRemovedFiles: String(removes.length),
          numAddedFiles: String(rewritten.length),
          numUpdatedRows: String(updated),
          numCopiedRows: String(copied),
        },
        adds: rewritten, removes, written, blindAppend: false,
      });
    } catch (e) {
      this.discard(written);
      throw e;
    }
  }

  /** MERGE by key: matched target rows are updated (or deleted), unmatched source rows inserted. */
  async merge(source: RowSource, opts: MergeOptions): Promise<CommitResult> {
    const whenMatched = opts.whenMatched ?? 'update';
    const whenNotMatched = opts.whenNotMatched ?? 'insert';
    if (whenMatched !== 'ignore') this.refuseIfAppendOnly('MERGE with WHEN MATCHED');
    const schema = this.schema;
    if (opts.on.length === 0) throw misuse('MERGE needs at least one key column');
    for (const k of opts.on) if (!schema.fields.some((f) => f.name === k)) throw misuse(`MERGE key "${k}" is not a column of the table`);
    const written: string[] = [];
    try {
      const sourceRows = await this.prepareBatch(source, {});
      const keys = opts.on.map(sqlIdent);
      const dupes = await this.scalar(`SELECT count(*) FROM (SELECT ${keys.join(', ')} FROM ${BATCH} GROUP BY ALL HAVING count(*) > 1)`, 'MERGE');
      if (dupes > 0) throw misuse(`${dupes} key(s) appear more than once in the MERGE source; a target row may match only one source row`, { duplicateKeys: dupes });
      const on = opts.on.map((k) => `t.${sqlIdent(k)} = s.${sqlIdent(k)}`).join(' AND ');
      const all = [...this.st.files.values()];
      let touchedFiles: AddFile[] = [];
      let matched = 0;
      let copied = 0;
      const cols = schema.fields.map((f) => sqlIdent(f.name)).join(', ');
      if (all.length > 0) {
        const scan = await this.scanSql(all);
        await this.run(`CREATE OR REPLACE TEMP TABLE _lk_target AS ${scan}`, 'MERGE');
        const r = await this.rows(`SELECT t._lk_file AS f, count(*) AS n FROM _lk_target t JOIN ${BATCH} s ON ${on} GROUP BY ALL`);
        const byAbs = this.byAbsolutePath(all);
        touchedFiles = whenMatched === 'ignore' ? [] : r.map((x) => byAbs.get(String(x.f))).filter((x): x is AddFile => !!x);
        matched = r.reduce((s, x) => s + Number(x.n), 0);
      }
      const touchedAbs = touchedFiles.map((f) => this.absolutePath(f.path));
      const parts: string[] = [];
      if (touchedFiles.length > 0) {
        // Unmatched rows of the touched files are copied into the new files.
        parts.push(`SELECT ${cols} FROM _lk_target t WHERE t._lk_file IN (SELECT unnest(${sqlList(touchedAbs)})) AND NOT EXISTS (SELECT 1 FROM ${BATCH} s WHERE ${on})`);
        copied = await this.scalar(`SELECT count(*) FROM (${parts[0]})`, 'MERGE');
      }
      if (whenMatched === 'update' && matched > 0) {
        parts.push(`SELECT ${cols} FROM ${BATCH} s WHERE EXISTS (SELECT 1 FROM _lk_target t WHERE ${on})`);
      }
      let inserted = 0;
      if (whenNotMatched === 'insert') {
        const ins = all.length > 0
          ? `SELECT ${cols} FROM ${BATCH} s WHERE NOT EXISTS (SELECT 1 FROM _lk_target t WHERE ${on})`
          : `SELECT ${cols} FROM ${BATCH} s`;
        inserted = await this.scalar(`SELECT count(*) FROM (${ins})`, 'MERGE');
        parts.push(ins);
      }
      let adds: AddFile[] = [];
      if (parts.length > 0) {
        await this.run(`CREATE OR REPLACE TEMP TABLE ${REWRITE} AS ${parts.join(' UNION ALL ')}`, 'MERGE');
        adds = await this.writeFiles(REWRITE, true, written);
      }
      const removes = touchedFiles.map((f) => this.removeOf(f, true));
      const actionType = whenMatched === 'delete' ? 'delete' : 'update';
      return await this.commit({
        operation: 'MERGE',
        parameters: {
          predicate: JSON.stringify(opts.on.map((k) => `t.${k} = s.${k}`).join(' AND ')),
          matchedPredicates: JSON.stringify(whenMatched === 'ignore' ? [] : [{ actionType }]),
          notMatchedPredicates: JSON.stringify(whenNotMatched === 'insert' ? [{ actionType: 'insert' }] : []),
        },
        metrics: {
          numSourceRows: String(sourceRows),
          numTargetRowsUpdated: String(whenMatched === 'update' ? matched : 0),
          numTargetRowsDeleted: String(whenMatched === 'delete' ? matched : 0),
          numTargetRowsInserted: String(inserted),
          numTargetRowsCopied: String(copied),
          numTargetFilesAdded: String(adds.length),
          numTargetFilesRemoved: String(removes.length),
        },
        adds, removes, written, blindAppend: false,
      });
    } catch (e) {
      this.discard(written);
      throw e;
    } finally {
      await this.duck.conn.run('DROP TABLE IF EXISTS _lk_target');
    }
  }

  /** ADD COLUMNS: a metadata-only commit adding nullable columns at the end of the schema. */
  async evolveSchema(newFields: StructField[]): Promise<CommitResult> {
    const schema = this.schema;
    for (const f of newFields) {
      if (schema.fields.some((x) => x.name.toLowerCase() === f.name.toLowerCase())) throw misuse(`column "${f.name}" already exists`);
      if (!f.nullable) throw misuse(`a column added to a table with data must be nullable ("${f.name}")`);
      duckType(f.type);
    }
    const next: StructType = { type: 'struct', fields: [...schema.fields, ...newFields] };
    const metadata: Metadata = { ...this.st.metadata, schemaString: JSON.stringify(next) };
    return this.commit({
      operation: 'ADD COLUMNS',
      parameters: { columns: JSON.stringify(newFields.map((column) => ({ column }))) },
      metrics: {},
      metadata, adds: [], removes: [], written: [], blindAppend: false,
    });
  }

  /**
   * OPTIMIZE (compaction): each partition with more than one file, or with a deletion vector, is
   * rewritten as one file (deleted rows purged); dataChange false.
   */
  async optimize(where?: string): Promise<CommitResult> {
    const groups = new Map<string, AddFile[]>();
    for (const f of this.st.files.values()) {
      const k = JSON.stringify(this.partitionColumns.map((c) => f.partitionValues[c] ?? null));
      groups.set(k, [...(groups.get(k) ?? []), f]);
    }
    // Several small files become one; a file with a deletion vector is rewritten without its deleted rows.
    let candidates = [...groups.values()].filter((g) => g.length > 1 || g.some((f) => f.deletionVector));
    if (where !== undefined) {
      const hits = new Set((await this.filesMatching(where)).filter((t) => t.hit > 0).map((t) => t.add.path));
      candidates = candidates.filter((g) => g.some((f) => hits.has(f.path)));
    }
    const written: string[] = [];
    try {
      const files = candidates.flat();
      let adds: AddFile[] = [];
      if (files.length > 0) {
        const scan = await this.scanSql(files);
        const cols = this.schema.fields.map((f) => sqlIdent(f.name)).join(', ');
        await this.run(`CREATE OR REPLACE TEMP TABLE ${REWRITE} AS SELECT ${cols} FROM (${scan})`, 'OPTIMIZE');
        adds = await this.writeFiles(REWRITE, false, written);
      }
      const removes = files.map((f) => this.removeOf(f, false));
      return await this.commit({
        operation: 'OPTIMIZE',
        parameters: { predicate: JSON.stringify(where === undefined ? [] : [where]), zOrderBy: '[]' },
        metrics: {
          numRemovedFiles: String(removes.length),
          numAddedFiles: String(adds.length),
          numRemovedBytes: String(files.reduce((s, f) => s + f.size, 0)),
          numAddedBytes: String(adds.reduce((s, f) => s + f.size, 0)),
        },
        adds, removes, written, blindAppend: false,
      });
    } catch (e) {
      this.discard(written);
      throw e;
    }
  }

  /**
   * A classic single-part Parquet checkpoint of the current version, and `_last_checkpoint`.
   * Rows: protocol, metaData, every active add, and the tombstones still within retention.
   */
  async checkpoint(): Promise<{ version: number; path: string; size: number }> {
    const v = this.st.version;
    const lines: string[] = [];
    lines.push(JSON.stringify({ protocol: this.st.protocol }));
    lines.push(JSON.stringify({ metaData: this.st.metadata }));
    for (const r of this.st.tombstones.values()) lines.push(JSON.stringify({ remove: r }));
    for (const a of this.st.files.values()) lines.push(JSON.stringify({ add: { ...a, dataChange: false } }));
    const scratch = mkdtempSync(join(tmpdir(), 'lakerec-cp-'));
    const name = `${String(v).padStart(20, '0')}.checkpoint.parquet`;
    const final = join(this.logDir, name);
    const tmpParquet = join(this.logDir, `.${name}.${randomUUID()}.tmp`);
    try {
      const nd = join(scratch, 'actions.json');
      writeFileSync(nd, lines.join('\n') + '\n');
      const map = 'MAP(VARCHAR, VARCHAR)';
      const dv = 'STRUCT(storageType VARCHAR, pathOrInlineDv VARCHAR, "offset" INTEGER, sizeInBytes INTEGER, cardinality BIGINT)';
      const columns: Record<string, string> = {
        txn: 'STRUCT(appId VARCHAR, version BIGINT, lastUpdated BIGINT)',
        add: `STRUCT(path VARCHAR, partitionValues ${map}, size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR, tags ${map}, deletionVector ${dv})`,
        remove: `STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, extendedFileMetadata BOOLEAN, partitionValues ${map}, size BIGINT, deletionVector ${dv})`,
        metaData: `STRUCT(id VARCHAR, name VARCHAR, description VARCHAR, format STRUCT(provider VARCHAR, options ${map}), schemaString VARCHAR, partitionColumns VARCHAR[], configuration ${map}, createdTime BIGINT)`,
        protocol: 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER, readerFeatures VARCHAR[], writerFeatures VARCHAR[])',
      };
      const spec = `{${Object.entries(columns).map(([k, t]) => `${sqlString(k)}: ${sqlString(t)}`).join(', ')}}`;
      await this.run(
        `COPY (SELECT ${Object.keys(columns).map(sqlIdent).join(', ')} FROM read_json(${sqlString(nd)}, format='newline_delimited', columns=${spec}))
         TO ${sqlString(tmpParquet)} (FORMAT parquet)`, 'CHECKPOINT');
      // Rename is atomic: a reader sees no checkpoint or the whole one.
      renameNoClobber(tmpParquet, final);
      const size = lines.length;
      const lastTmp = join(this.logDir, `._last_checkpoint.${randomUUID()}.tmp`);
      writeFileSync(lastTmp, JSON.stringify({ version: v, size, sizeInBytes: statSync(final).size, numOfAddFiles: this.st.files.size }));
      renameReplace(lastTmp, join(this.logDir, '_last_checkpoint'));
      return { version: v, path: final, size };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      rmSync(tmpParquet, { force: true });
    }
  }

  /**
   * Log cleanup as Delta does it after a checkpoint: commit files (and older checkpoints) below
   * the newest checkpoint at or before `beforeVersion` are deleted. Versions before that
   * checkpoint can no longer be reconstructed. Returns the deleted log file names.
   */
  cleanupLog(beforeVersion: number = this.st.version): string[] {
    const names = readdirSync(this.logDir);
    const cps = names.map((n) => /^(\d{20})\.checkpoint\.parquet$/.exec(n)).filter((m): m is RegExpExecArray => !!m)
      .map((m) => Number(m[1])).filter((v) => v <= beforeVersion);
    if (cps.length === 0) throw misuse(`log cleanup needs a checkpoint at or before version ${beforeVersion}`);
    const keep = Math.max(...cps);
    const deleted: string[] = [];
    for (const n of names) {
      const m = /^(\d{20})\.(json|checkpoint\.parquet|crc)$/.exec(n);
      if (m && Number(m[1]) < keep) {
        unlinkSync(join(this.logDir, n));
        deleted.push(n);
      }
    }
    return deleted.sort();
  }

  /**
   * VACUUM: deletes data files under the root that the current version does not reference and
   * that have been unreferenced for longer than the retention (tombstone time for removed files,
   * the file's mtime for files the log never named). `_delta_log` and hidden folders are untouched.
   */
  vacuum(opts: VacuumOptions = {}): VacuumResult {
    const retention = opts.retentionMs ?? DEFAULT_RETENTION_MS;
    if (retention < 0) throw misuse('vacuum retention cannot be negative');
    const now = opts.now ?? Date.now();
    const active = new Set([...this.st.files.keys()].map((p) => this.absolutePath(p)));
    for (const f of this.st.files.values()) {
      const loc = f.deletionVector ? deletionVectorLocation(f.deletionVector, this.root) : null;
      if (loc?.absolute) active.add(loc.absolute);
    }
    const tombstoneTime = new Map<string, number>();
    for (const r of this.st.tombstones.values()) tombstoneTime.set(this.absolutePath(r.path), r.deletionTimestamp ?? 0);
    const deleted: string[] = [];
    const kept: string[] = [];
    const walk = (dir: string, rel: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.name.startsWith('_') || e.name.startsWith('.')) continue;
        const abs = join(dir, e.name);
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) { walk(abs, r); continue; }
        if (active.has(abs)) continue;
        const since = tombstoneTime.get(abs) ?? statSync(abs).mtimeMs;
        if (now - since >= retention) {
          if (!opts.dryRun) unlinkSync(abs);
          deleted.push(r);
        } else {
          kept.push(r);
        }
      }
    };
    walk(this.root, '');
    if (!opts.dryRun) {
      for (const r of deleted) {
        const abs = join(this.root, r);
        if (!existsSync(abs)) this.st.tombstones.delete(logPath(r));
      }
    }
    return { deleted: deleted.sort(), kept: kept.sort() };
  }

  /**
   * SQL for the logical rows of the writer's current version (partition columns filled in,
   * columns added by schema evolution null in older files), for checks and read-back.
   */
  async currentRowsSql(): Promise<string> {
    const files = [...this.st.files.values()];
    const cols = this.schema.fields.map((f) => sqlIdent(f.name)).join(', ');
    if (files.length === 0) {
      return `SELECT ${this.schema.fields.map((f) => `CAST(NULL AS ${duckType(f.type)}) AS ${sqlIdent(f.name)}`).join(', ')} WHERE false`;
    }
    return `SELECT ${cols} FROM (${await this.scanSql(files)})`;
  }

  // ---- internals ----

  /** `delta.appendOnly`: a table that promises its readers rows are never removed or changed. */
  private refuseIfAppendOnly(operation: string): void {
    if (this.st.metadata.configuration?.['delta.appendOnly'] === 'true') {
      throw misuse(`the table is append-only (delta.appendOnly = true): ${operation} is not allowed`, { operation });
    }
  }

  private async run(sql: string, what: string): Promise<void> {
    throwIfCancelled(this.ctx);
    try {
      await this.duck.conn.run(sql);
    } catch (e) {
      throw this.sqlError(e, what);
    }
  }

  private async rows(sql: string): Promise<Record<string, unknown>[]> {
    throwIfCancelled(this.ctx);
    try {
      const r = await this.duck.conn.runAndReadAll(sql);
      return r.getRowObjectsJS() as Record<string, unknown>[];
    } catch (e) {
      throw this.sqlError(e, 'query');
    }
  }

  private async scalar(sql: string, what: string): Promise<number> {
    try {
      const r = await this.duck.conn.runAndReadAll(sql);
      return Number(r.getRows()[0]?.[0] ?? 0);
    } catch (e) {
      throw this.sqlError(e, what);
    }
  }

  private sqlError(e: unknown, what: string): LakerecError {
    if (e instanceof LakerecError) return e;
    const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    // A table's own file that cannot be read is not the caller's mistake: say which file.
    if (/^IO Error: No files found/.test(msg)) return new LakerecError('data_file_missing', `${what}: a data file of the table is missing: ${msg}`);
    if (/^(IO Error|Invalid Input Error: File )/.test(msg)) return new LakerecError('io_error', `${what}: a file could not be read or written: ${msg}`);
    return misuse(`${what}: DuckDB rejected the statement: ${msg}`);
  }

  absolutePath(path: string): string {
    return join(this.root, ...path.split('/').map((s) => decodeURIComponent(s)));
  }

  private byAbsolutePath(files: AddFile[]): Map<string, AddFile> {
    return new Map(files.map((f) => [this.absolutePath(f.path), f]));
  }

  /**
   * Loads the rows to write into the temp table `_lk_batch` with the table's column order and
   * types, after checking them: same columns (or new ones under mergeSchema), assignable types,
   * and no null in a NOT NULL column. Returns the row count.
   */
  private async prepareBatch(source: RowSource, opts: WriteOptions): Promise<number> {
    let schema = this.schema;
    let scratch: string | null = null;
    try {
      let select: string;
      if ('rows' in source) {
        scratch = mkdtempSync(join(tmpdir(), 'lakerec-rows-'));
        const known = new Set(schema.fields.map((f) => f.name));
        for (const r of source.rows) {
          for (const k of Object.keys(r)) {
            if (!known.has(k)) throw misuse(`the data has a column "${k}" that the table does not have`, { column: k });
          }
        }
        const file = join(scratch, 'rows.json');
        writeFileSync(file, source.rows.map((r) => JSON.stringify(r, jsonReplacer)).join('\n') + '\n');
        const spec = `{${schema.fields.map((f) => `${sqlString(f.name)}: ${sqlString(duckType(f.type))}`).join(', ')}}`;
        select = source.rows.length === 0
          ? `SELECT ${schema.fields.map((f) => `CAST(NULL AS ${duckType(f.type)}) AS ${sqlIdent(f.name)}`).join(', ')} WHERE false`
          : `SELECT * FROM read_json(${sqlString(file)}, format='newline_delimited', columns=${spec})`;
      } else {
        select = source.sql;
      }
      const desc = await this.rows(`DESCRIBE SELECT * FROM (${select})`).catch((e: unknown) => {
        throw this.sqlError(e, 'the data query');
      });
      const srcCols = desc.map((d) => ({ name: String(d.column_name), type: String(d.column_type) }));
      const srcNames = new Set(srcCols.map((c) => c.name));
      const missing = schema.fields.filter((f) => !srcNames.has(f.name)).map((f) => f.name);
      if (missing.length > 0) {
        throw misuse(`schema mismatch: the data lacks column(s) ${missing.join(', ')} of the table; nothing was written`, { missing: missing.join(',') });
      }
      const extra = srcCols.filter((c) => !schema.fields.some((f) => f.name === c.name));
      if (extra.length > 0) {
        if (!opts.mergeSchema) {
          throw misuse(`schema mismatch: the data has column(s) ${extra.map((c) => c.name).join(', ')} that the table does not have (mergeSchema is off); nothing was written`, { extra: extra.map((c) => c.name).join(',') });
        }
        const added: StructField[] = extra.map((c) => ({ name: c.name, type: deltaTypeOfDuck(c.type), nullable: true, metadata: {} }));
        schema = { type: 'struct', fields: [...schema.fields, ...added] };
        this.st.metadata = { ...this.st.metadata, schemaString: JSON.stringify(schema) };
      }
      for (const f of schema.fields) {
        const src = srcCols.find((c) => c.name === f.name);
        if (src && !assignable(src.type, f.type)) {
          throw misuse(`schema mismatch: column "${f.name}" is ${src.type} in the data and ${typeof f.type === 'string' ? f.type : f.type.type} in the table; nothing was written`, { column: f.name });
        }
      }
      const cols = schema.fields.map((f) => `CAST(${sqlIdent(f.name)} AS ${duckType(f.type)}) AS ${sqlIdent(f.name)}`);
      await this.run(`CREATE OR REPLACE TEMP TABLE ${BATCH} AS SELECT ${cols.join(', ')} FROM (${select})`, 'the data query');
      await this.checkNotNull(BATCH, schema);
      return await this.scalar(`SELECT count(*) FROM ${BATCH}`, 'count');
    } finally {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    }
  }

  /** NOT NULL is enforced at commit time, as Delta does: one null and nothing is written. */
  private async checkNotNull(table: string, schema: StructType): Promise<void> {
    const required = schema.fields.filter((f) => !f.nullable);
    if (required.length === 0) return;
    const r = await this.rows(`SELECT ${required.map((f, i) => `count(*) FILTER (WHERE ${sqlIdent(f.name)} IS NULL) AS n${i}`).join(', ')} FROM ${table}`);
    required.forEach((f, i) => {
      const n = Number(r[0]?.[`n${i}`] ?? 0);
      if (n > 0) {
        throw misuse(`NOT NULL constraint violated: ${n} row(s) have a null "${f.name}"; nothing was written`, { column: f.name, rows: n });
      }
    });
  }

  /** Writes the rows of a temp table as one Parquet file per partition; returns their add actions. */
  private async writeFiles(table: string, dataChange: boolean, written: string[]): Promise<AddFile[]> {
    const schema = this.schema;
    const parts = this.partitionColumns;
    const statCols = dataColumnsOf(schema, parts);
    const pvSql = parts.map((p, i) => `${partitionValueSql(p, schema.fields.find((f) => f.name === p)!.type)} AS _p${i}`);
    const groups = await this.rows(
      `SELECT ${[...pvSql, statsSelectList(statCols)].join(', ')} FROM ${table}${parts.length ? ` GROUP BY ${parts.map((_p, i) => `_p${i}`).join(', ')} ORDER BY ${parts.map((_p, i) => `_p${i}`).join(', ')}` : ''}`);
    const dataCols = statCols.dataColumns.map((c) => sqlIdent(c.name)).join(', ');
    const adds: AddFile[] = [];
    for (const g of groups) {
      const n = Number(g._s_n);
      if (n === 0) continue;
      const values: Record<string, string | null> = {};
      parts.forEach((p, i) => { values[p] = g[`_p${i}`] === null || g[`_p${i}`] === undefined ? null : String(g[`_p${i}`]); });
      const dirs = parts.map((p) => partitionDirName(p, values[p]));
      const rel = [...dirs, `part-00000-${randomUUID()}-c000.snappy.parquet`].join('/');
      const abs = join(this.root, ...rel.split('/'));
      mkdirSync(dirname(abs), { recursive: true });
      const where = parts.length
        ? ' WHERE ' + parts.map((p) => {
          const t = schema.fields.find((f) => f.name === p)!.type;
          const v = values[p];
          return v === null ? `${sqlIdent(p)} IS NULL` : `${partitionValueSql(p, t)} = ${sqlString(v)}`;
        }).join(' AND ')
        : '';
      written.push(abs);
      await this.run(`COPY (SELECT ${dataCols} FROM ${table}${where}) TO ${sqlString(abs)} (FORMAT parquet, COMPRESSION snappy)`, 'writing Parquet');
      adds.push({
        path: logPath(rel),
        partitionValues: values,
        size: statSync(abs).size,
        modificationTime: this.clock(),
        dataChange,
        stats: statsJson(statCols, g),
      });
    }
    return adds;
  }

  /** SQL for the logical rows of some active files, with `_lk_file` (absolute path) per row. */
  private async scanSql(files: AddFile[]): Promise<string> {
    const schema = this.schema;
    const abs = files.map((f) => this.absolutePath(f.path));
    const list = sqlList(abs);
    const desc = await this.rows(`DESCRIBE SELECT * FROM read_parquet(${list}, union_by_name=true)`);
    const present = new Set(desc.map((d) => String(d.column_name)));
    const cols = schema.fields.map((f) => {
      const id = sqlIdent(f.name);
      const ty = duckType(f.type);
      if (this.partitionColumns.includes(f.name)) {
        const cases = files.map((af, i) => `WHEN ${sqlString(abs[i])} THEN ${partitionLiteralSql(af.partitionValues[f.name] ?? null, f.type)}`);
        return `CASE filename ${cases.join(' ')} END AS ${id}`;
      }
      return present.has(f.name) ? `CAST(${id} AS ${ty}) AS ${id}` : `CAST(NULL AS ${ty}) AS ${id}`;
    });
    let from = `read_parquet(${list}, union_by_name=true, filename=true, file_row_number=true)`;
    // Rows a deletion vector deletes are not rows of the table.
    const withDv = files.filter((f) => f.deletionVector);
    if (withDv.length > 0) {
      const table = `_lk_dv_${this.dvTables++}`;
      await this.run(`CREATE OR REPLACE TEMP TABLE ${table} (f VARCHAR, r BIGINT)`, 'deletion vectors');
      for (const f of withDv) {
        const rows = await readDeletionVector(f.deletionVector!, this.root);
        for (let i = 0; i < rows.length; i += 10_000) {
          await this.run(`INSERT INTO ${table} SELECT ${sqlString(this.absolutePath(f.path))}, unnest([${rows.slice(i, i + 10_000).join(',')}]::BIGINT[])`, 'deletion vectors');
        }
      }
      from = `(SELECT * FROM ${from} ANTI JOIN ${table} AS _d ON _d.f = filename AND _d.r = file_row_number)`;
    }
    return `SELECT ${cols.join(', ')}, filename AS _lk_file, file_row_number AS _lk_row FROM ${from}`;
  }

  /** Per active file: rows, and rows matching a predicate. */
  private async filesMatching(predicate: string): Promise<{ add: AddFile; rows: number; hit: number }[]> {
    const all = [...this.st.files.values()];
    if (all.length === 0) return [];
    const fromLog = await this.filesMatchingByPartition(all, predicate);
    if (fromLog) return fromLog;
    const scan = await this.scanSql(all);
    const r = await this.rows(`SELECT _lk_file AS f, count(*) AS n, count(*) FILTER (WHERE coalesce((${predicate}), false)) AS hit FROM (${scan}) GROUP BY ALL`)
      .catch((e: unknown) => { throw this.sqlError(e, `predicate (${predicate})`); });
    const byAbs = this.byAbsolutePath(all);
    const out: { add: AddFile; rows: number; hit: number }[] = [];
    for (const x of r) {
      const add = byAbs.get(String(x.f));
      if (add) out.push({ add, rows: Number(x.n), hit: Number(x.hit) });
    }
    return out;
  }

  /**
   * A predicate over partition columns only is decided per file from the log, as Delta does: it is
   * evaluated on one row per file holding just its partition values, so no data file is read. When
   * it names any other column DuckDB cannot bind it there, and the caller scans the data instead.
   */
  private async filesMatchingByPartition(all: AddFile[], predicate: string): Promise<{ add: AddFile; rows: number; hit: number }[] | null> {
    const parts = this.partitionColumns;
    if (parts.length === 0 || all.some((f) => !f.stats)) return null;
    const schema = this.schema;
    const types = parts.map((p) => schema.fields.find((f) => f.name === p)!.type);
    const values = all.map((f, i) => `(${i}, ${parts.map((p, j) => partitionLiteralSql(f.partitionValues[p] ?? null, types[j])).join(', ')})`);
    const rel = `SELECT * FROM (VALUES ${values.join(', ')}) _lk_pv(_lk_idx, ${parts.map(sqlIdent).join(', ')})`;
    let hits: Record<string, unknown>[];
    try {
      const r = await this.duck.conn.runAndReadAll(`SELECT _lk_idx, coalesce((${predicate}), false) AS hit FROM (${rel})`);
      hits = r.getRowObjectsJS() as Record<string, unknown>[];
    } catch {
      return null;
    }
    return hits.map((h) => {
      const add = all[Number(h._lk_idx)];
      const rows = statsRows(add);
      return { add, rows, hit: h.hit === true ? rows : 0 };
    });
  }

  private removeOf(f: AddFile, dataChange: boolean): RemoveFile {
    return {
      path: f.path,
      deletionTimestamp: this.clock(),
      dataChange,
      extendedFileMetadata: true,
      partitionValues: f.partitionValues,
      size: f.size,
      ...(f.stats ? { stats: f.stats } : {}),
      ...(f.deletionVector ? { deletionVector: f.deletionVector } : {}),
    };
  }

  private removeAll(): { removes: RemoveFile[]; rewritten: AddFile[]; copiedRows: number; removedRows: number } {
    const files = [...this.st.files.values()];
    const removedRows = files.reduce((s, f) => s + statsRows(f), 0);
    return { removes: files.map((f) => this.removeOf(f, true)), rewritten: [], copiedRows: 0, removedRows };
  }

  /** Removes files holding rows that match; rows of those files that do not match are rewritten. */
  private async removeMatching(predicate: string, written: string[]): Promise<{ removes: RemoveFile[]; rewritten: AddFile[]; copiedRows: number; removedRows: number }> {
    const touched = (await this.filesMatching(predicate)).filter((t) => t.hit > 0);
    const removes = touched.map((t) => this.removeOf(t.add, true));
    const partial = touched.filter((t) => t.hit < t.rows);
    let rewritten: AddFile[] = [];
    const copiedRows = partial.reduce((s, t) => s + t.rows - t.hit, 0);
    if (partial.length > 0) {
      const scan = await this.scanSql(partial.map((t) => t.add));
      const cols = this.schema.fields.map((f) => sqlIdent(f.name)).join(', ');
      await this.run(`CREATE OR REPLACE TEMP TABLE ${REWRITE} AS SELECT ${cols} FROM (${scan}) WHERE NOT coalesce((${predicate}), false)`, 'rewrite');
      rewritten = await this.writeFiles(REWRITE, true, written);
    }
    return { removes, rewritten, copiedRows, removedRows: touched.reduce((s, t) => s + t.hit, 0) };
  }

  private writeMetrics(adds: AddFile[], rows: number): Record<string, string> {
    return {
      numFiles: String(adds.length),
      numOutputRows: String(rows),
      numOutputBytes: String(adds.reduce((s, a) => s + a.size, 0)),
    };
  }

  private discard(written: string[]): void {
    for (const f of written) rmSync(f, { force: true });
    written.length = 0;
  }

  /** Writes version state.version + 1 atomically, or loses cleanly to a concurrent writer. */
  private async commit(c: {
    operation: string;
    parameters: Record<string, string>;
    metrics: Record<string, string>;
    protocol?: Protocol;
    metadata?: Metadata;
    adds: AddFile[];
    removes: RemoveFile[];
    written: string[];
    blindAppend: boolean;
  }): Promise<CommitResult> {
    throwIfCancelled(this.ctx);
    const version = this.st.version + 1;
    const commitInfo: CommitInfo = {
      timestamp: this.clock(),
      operation: c.operation,
      operationParameters: c.parameters,
      readVersion: version > 0 ? this.st.version : undefined,
      isolationLevel: 'Serializable',
      isBlindAppend: c.blindAppend,
      operationMetrics: c.metrics,
      engineInfo: this.engineInfo,
      txnId: randomUUID(),
    };
    if (version === 0) delete commitInfo.readVersion;
    if (c.metadata && !c.protocol) {
      // A new column may need a table feature (timestamp_ntz): upgrade in the same commit.
      const need = protocolFor(parseSchema(c.metadata.schemaString), this.st.protocol, c.metadata.configuration);
      if (!sameProtocol(need, this.st.protocol)) c.protocol = need;
    }
    const actions: Action[] = [{ commitInfo }];
    if (c.protocol) actions.push({ protocol: c.protocol });
    if (c.metadata) actions.push({ metaData: c.metadata });
    for (const r of c.removes) actions.push({ remove: r });
    for (const a of c.adds) actions.push({ add: a });
    const text = actions.map((a) => JSON.stringify(a)).join('\n') + '\n';
    const final = join(this.logDir, versionFileName(version));
    const tmp = join(this.logDir, `.${versionFileName(version)}.${randomUUID()}.tmp`);
    writeFileSync(tmp, text);
    try {
      createExclusive(tmp, final, text);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        // Lost the race: our data files were never referenced by any commit; remove them.
        for (const f of c.written) rmSync(f, { force: true });
        throw new LakerecError('commit_conflict',
          `version ${version} was committed by another writer first; this ${c.operation} was not committed (re-read the table and retry)`,
          { version, operation: c.operation });
      }
      for (const f of c.written) rmSync(f, { force: true });
      throw new LakerecError('io_error', `could not write ${final}: ${(e as Error).message}`, { path: final });
    } finally {
      rmSync(tmp, { force: true });
    }
    // Apply to the in-memory state only once the version file exists.
    if (c.protocol) this.st.protocol = c.protocol;
    if (c.metadata) this.st.metadata = c.metadata;
    for (const r of c.removes) {
      this.st.files.delete(r.path);
      this.st.tombstones.set(r.path, r);
    }
    for (const a of c.adds) {
      this.st.files.set(a.path, a);
      this.st.tombstones.delete(a.path);
    }
    this.st.version = version;
    await this.autoCheckpoint();
    return { version, commitInfo, adds: c.adds, removes: c.removes };
  }

  /**
   * `delta.checkpointInterval` (a table property, as Delta writers honour it): after every Nth
   * version a checkpoint is written. A failed checkpoint does not undo the commit (the log is
   * complete without it); it is kept in `warnings`.
   */
  private async autoCheckpoint(): Promise<void> {
    const interval = Number(this.st.metadata.configuration?.['delta.checkpointInterval'] ?? 0);
    if (!Number.isInteger(interval) || interval <= 0 || this.st.version === 0 || this.st.version % interval !== 0) return;
    try {
      await this.checkpoint();
    } catch (e) {
      this.warnings.push(`checkpoint at version ${this.st.version} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** Rows a file contributes: its stats' numRecords minus what its deletion vector deletes. */
function statsRows(f: AddFile): number {
  if (!f.stats) return 0;
  try {
    return Number((JSON.parse(f.stats) as { numRecords?: number }).numRecords ?? 0) - (f.deletionVector?.cardinality ?? 0);
  } catch {
    return 0;
  }
}

/** Creates `final` with the content of `tmp` only if it does not exist (hard link: atomic and exclusive). */
function createExclusive(tmp: string, final: string, text: string): void {
  try {
    linkSync(tmp, final);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // File systems without hard links: exclusive create (atomic existence check, not atomic content).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EXDEV') {
      writeFileSync(final, text, { flag: 'wx' });
      return;
    }
    throw e;
  }
}

/** POSIX rename: atomic, so a reader sees the old file or the new one, never half of one. */
function renameNoClobber(tmp: string, final: string): void {
  renameSync(tmp, final);
}

function renameReplace(tmp: string, final: string): void {
  renameSync(tmp, final);
}

/** The Delta type for a DuckDB column type (schema evolution from data). */
export function deltaTypeOfDuck(t: string): string {
  const u = t.toUpperCase();
  const m = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(u);
  if (m) return `decimal(${m[1]},${m[2]})`;
  const map: Record<string, string> = {
    VARCHAR: 'string', BIGINT: 'long', INTEGER: 'integer', SMALLINT: 'short', TINYINT: 'byte', FLOAT: 'float',
    DOUBLE: 'double', BOOLEAN: 'boolean', BLOB: 'binary', DATE: 'date', 'TIMESTAMP WITH TIME ZONE': 'timestamp',
    TIMESTAMPTZ: 'timestamp', TIMESTAMP: 'timestamp_ntz',
  };
  const d = map[u];
  if (!d) throw misuse(`schema evolution: no Delta type for DuckDB type ${t}`);
  return d;
}
