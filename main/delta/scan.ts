// Scanning a snapshot's rows through DuckDB: read_parquet over the snapshot's files, physical
// columns mapped to logical names (column mapping name/id), typed partition columns filled in,
// deletion vectors applied (anti-join on file_row_number), columns missing from older files as NULL,
// every column cast to the Delta schema's type.
import type { DuckDBConnection, JS } from '@duckdb/node-api';
import { tableFromJSON, type Table as ArrowTable } from 'apache-arrow';
import { LakerecError } from '../../shared/errors';
import type { DataType, StructField } from '../../shared/delta';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import { pushTo } from '../../shared/group';
import { sqlIdent, sqlString } from '../engine/duck';
import type { ActiveFile, Snapshot } from './types';
import { readDeletionVector } from './dv';
import { numRecordsOfAdd } from './replay';
import { bindStorage, LocalStorage, storageOf, storeEnv, type EngineFile, type Storage } from '../storage';
import { deltaTypeToDuckDb, fieldId, logicalValueExpr, partitionValueExpr, physicalName } from './schema';

export { deltaTypeToDuckDb } from './schema';

export interface ViewOptions {
  /** Add `_lakerec_file` (ActiveFile.path) and `_lakerec_row` (0-based row index in the file). */
  provenance?: boolean;
  /** Restrict to these files of the snapshot (bisect, baseline). */
  files?: ActiveFile[];
  /** Read DV files outside the table root (the table was opened with allowOutsidePaths). */
  allowOutsidePaths?: boolean;
}

interface FileColumns {
  /** top-level column name -> Parquet field id (or null) */
  columns: { name: string; fieldId: number | null }[];
}

// Parquet footers do not change for a given path, size and mtime: cache across views (bisect
// registers many snapshots over mostly the same files).
// Keyed by the file as its store names it (the local path, the URL), never by a cached copy's name.
const schemaCache = new Map<string, FileColumns>();
type CacheKey = (f: ActiveFile) => string;
const cacheKeyIn = (storage: Storage): CacheKey => (f) => `${storage.describe(f.path)}\u0000${f.size}\u0000${f.modificationTime}`;

async function loadFileColumns(conn: DuckDBConnection, files: ActiveFile[], engineOf: Map<ActiveFile, string>, cacheKey: CacheKey, ctx?: JobContext): Promise<void> {
  const todo = files.filter((f) => !schemaCache.has(cacheKey(f)));
  const batch = 256;
  for (let i = 0; i < todo.length; i += batch) {
    throwIfCancelled(ctx);
    const part = todo.slice(i, i + batch);
    const nameOf = (f: ActiveFile): string => engineOf.get(f)!;
    const byPath = new Map(part.map((f) => [nameOf(f), f]));
    let rows: unknown[][];
    try {
      const r = await conn.runAndReadAll(
        `SELECT file_name, name, num_children, field_id FROM parquet_schema([${part.map((f) => sqlString(nameOf(f))).join(', ')}])`);
      rows = r.getRows();
    } catch (e) {
      throw new LakerecError('io_error', `cannot read the Parquet footer of a data file: ${(e as Error).message.split('\n')[0]}`);
    }
    // Rows come per file in schema order (pre-order): the root, then its subtrees.
    const perFile = new Map<string, { name: string; n: number; id: number | null }[]>();
    for (const r of rows) {
      pushTo(perFile, String(r[0]), { name: String(r[1]), n: r[2] === null ? 0 : Number(r[2]), id: r[3] === null ? null : Number(r[3]) });
    }
    for (const [file, list] of perFile) {
      const f = byPath.get(file);
      if (!f || list.length === 0) continue;
      const cols: FileColumns['columns'] = [];
      const skip = (i: number): number => {
        const n = list[i]?.n ?? 0;
        let j = i + 1;
        for (let k = 0; k < n; k++) j = skip(j);
        return j;
      };
      let j = 1;
      for (let k = 0; k < list[0].n && j < list.length; k++) {
        cols.push({ name: list[j].name, fieldId: list[j].id });
        j = skip(j);
      }
      schemaCache.set(cacheKey(f), { columns: cols });
    }
    report(ctx, { phase: 'reading file footers', done: Math.min(i + batch, todo.length), total: todo.length });
  }
}

/** Which column of this file holds a field: by field id (id mode), physical name, then logical name. */
function resolveColumn(field: StructField, snapshot: Snapshot, cols: FileColumns): string | null {
  const mode = snapshot.columnMapping;
  if (mode === 'id') {
    const id = fieldId(field);
    if (id !== null) {
      const hit = cols.columns.find((c) => c.fieldId === id);
      if (hit) return hit.name;
    }
  }
  const phys = physicalName(field, mode);
  const exact = cols.columns.find((c) => c.name === phys);
  if (exact) return exact.name;
  const lower = phys.toLowerCase();
  const ci = cols.columns.find((c) => c.name.toLowerCase() === lower);
  return ci ? ci.name : null;
}

function tempName(viewName: string, suffix: string): string {
  return sqlIdent(`${viewName}__lakerec_${suffix}`);
}

const globChars = /[*?[\]{}]/;
/** A path naming another store (s3://, https://, ...): two or more letters before the colon, never a drive letter. */
const isUrl = (p: string): boolean => /^[A-Za-z][A-Za-z0-9+.-]+:/.test(p);

/** Requests in flight when a scan fetches a remote table's files (LAKEREC_REMOTE_PARALLEL). */
const remoteParallel = (): number => Math.max(1, Math.min(64, Number(storeEnv().LAKEREC_REMOTE_PARALLEL) || 8));

/**
 * Creates (or replaces) a TEMP view `viewName` with the snapshot's logical rows, columns in schema
 * order. An empty snapshot (or file subset) gives an empty view with the right columns.
 * Helper temp tables `<view>__lakerec_files` / `<view>__lakerec_dv` live beside it (dropSnapshotView
 * removes all three). Delta `timestamp` columns are TIMESTAMPTZ; int96 and other naive Parquet
 * timestamps are UTC instants, cast in the connection's time zone, which openDuck() sets to UTC.
 */
export async function registerSnapshotView(
  conn: DuckDBConnection, snapshot: Snapshot, viewName: string, opts: ViewOptions = {}, ctx?: JobContext,
): Promise<void> {
  const files = opts.files ?? snapshot.files;
  const fields = snapshot.schema.fields;
  const partCols = new Set(snapshot.partitionColumns);
  const provenance = opts.provenance === true;

  const emptySelect = (): string => {
    const cols = fields.map((f) => `CAST(NULL AS ${deltaTypeToDuckDb(f.type)}) AS ${sqlIdent(f.name)}`);
    if (provenance) cols.push('CAST(NULL AS VARCHAR) AS _lakerec_file', 'CAST(NULL AS BIGINT) AS _lakerec_row');
    return `SELECT ${cols.join(', ')} WHERE false`;
  };

  // The files handed to read_parquet are checked as every other read is: the real path inside the
  // table's real root (a symlinked file or folder pointing outside is refused), a regular file.
  const storage = scanStorage(snapshot, opts.allowOutsidePaths === true);
  const engineOf = new Map<ActiveFile, string>();
  // Every engine file (a remote file's cached copy) is held while the view exists and released
  // when it is dropped (dropSnapshotView) or when registering fails.
  const held: EngineFile[] = [];
  const previous = heldByView.get(viewName);
  heldByView.set(viewName, held);
  if (previous) for (const h of previous) await h.release();
  try {
  // A remote store's files are fetched a few at a time (bounded parallel requests), into the cache.
  const fetched = new Map<ActiveFile, Promise<string>>();
  if (!(storage instanceof LocalStorage)) {
    const todo = files.filter((f) => !f.outside);
    // Determinate in bytes: every size is known from the add actions before a byte is fetched.
    const totalBytes = todo.reduce((n, f) => n + Math.max(0, Number(f.add.size) || 0), 0);
    let doneBytes = 0;
    let doneFiles = 0;
    const mb = (n: number): string => `${(n / 1048576).toFixed(1)} MB`;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length) {
        throwIfCancelled(ctx);
        const f = todo[next++];
        const p = dataFilePath(storage, f, held, ctx?.signal);
        fetched.set(f, p);
        const ok = await p.then(() => true, () => false);
        if (ok) {
          doneBytes += Math.max(0, Number(f.add.size) || 0);
          doneFiles++;
          report(ctx, { phase: 'fetching data files (bytes)', done: doneBytes, total: totalBytes, message: `${doneFiles} of ${todo.length} files, ${mb(doneBytes)} of ${mb(totalBytes)}` });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(remoteParallel(), todo.length) }, worker));
  }
  for (const f of files) {
    throwIfCancelled(ctx);
    if (f.outside && !opts.allowOutsidePaths) {
      throw new LakerecError('path_outside_table', `"${f.add.path}" resolves outside the table root; it is not read unless outside paths are allowed`, { path: f.add.path });
    }
    if (f.outside && isUrl(f.path)) {
      throw new LakerecError('io_error', `data file "${f.add.path}" names another store by URL; only files under the table's own location are read`, { path: f.add.path });
    }
    let checked: string;
    try {
      checked = await (fetched.get(f) ?? dataFilePath(storage, f, held, ctx?.signal));
    } catch (e) {
      if (e instanceof LakerecError && e.code === 'not_found') {
        throw new LakerecError('data_file_missing',
          `data file ${f.path} of version ${snapshot.version} no longer exists (removed by VACUUM?): the log still shows this version but its data cannot be read`,
          { path: f.path, version: snapshot.version });
      }
      throw e;
    }
    engineOf.set(f, checked);
    if (globChars.test(checked)) {
      throw new LakerecError('io_error', `data file ${f.path} has a glob character in its name, which DuckDB's read_parquet cannot read literally`, { path: f.path });
    }
  }

  if (files.length === 0) {
    await conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(viewName)} AS ${emptySelect()}`);
    return;
  }

  const cacheKey = cacheKeyIn(storage);
  await loadFileColumns(conn, files, engineOf, cacheKey, ctx);

  // Files table: absolute path -> log path and raw partition values (cast in the view).
  const partList = snapshot.partitionColumns;
  const filesTable = tempName(viewName, 'files');
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${filesTable} (abs VARCHAR, path VARCHAR${partList.map((_, i) => `, p${i} VARCHAR`).join('')})`);
  {
    const app = await conn.createAppender(`${viewName}__lakerec_files`, 'main', 'temp');
    for (const f of files) {
      app.appendVarchar(engineOf.get(f)!);
      app.appendVarchar(f.path);
      for (const p of partList) {
        const v = f.partitionValues[p];
        if (v === null || v === undefined) app.appendNull(); else app.appendVarchar(v);
      }
      app.endRow();
    }
    app.flushSync();
    app.closeSync();
  }

  // Deleted rows of files with a DV.
  const dvFiles = files.filter((f) => f.deletionVector);
  const dvTable = tempName(viewName, 'dv');
  if (dvFiles.length > 0) {
    await conn.run(`CREATE OR REPLACE TEMP TABLE ${dvTable} (abs VARCHAR, row BIGINT)`);
    const app = await conn.createAppender(`${viewName}__lakerec_dv`, 'main', 'temp');
    let done = 0;
    for (const f of dvFiles) {
      throwIfCancelled(ctx);
      const rows = await readDeletionVector(f.deletionVector!, storage, { allowOutsidePaths: opts.allowOutsidePaths, numRecords: numRecordsOfAdd(f.add) });
      const abs = engineOf.get(f)!;
      for (const r of rows) {
        app.appendVarchar(abs);
        app.appendBigInt(BigInt(r));
        app.endRow();
      }
      report(ctx, { phase: 'reading deletion vectors', done: ++done, total: dvFiles.length });
    }
    app.flushSync();
    app.closeSync();
  }

  // Group files that hold the same physical columns, so each read_parquet binds one layout.
  const groups = new Map<string, { resolved: (string | null)[]; files: ActiveFile[] }>();
  for (const f of files) {
    const cols = schemaCache.get(cacheKey(f)) ?? { columns: [] };
    const resolved = fields.map((fd) => (partCols.has(fd.name) ? null : resolveColumn(fd, snapshot, cols)));
    const key = JSON.stringify(resolved);
    const g = groups.get(key) ?? { resolved, files: [] };
    g.files.push(f);
    groups.set(key, g);
  }

  const needJoin = partList.length > 0 || provenance;
  const selects: string[] = [];
  for (const g of groups.values()) {
    const exprs = fields.map((fd, i) => {
      const type: DataType = fd.type;
      if (partCols.has(fd.name)) return `${partitionValueExpr(`f.p${partList.indexOf(fd.name)}`, type)} AS ${sqlIdent(fd.name)}`;
      const col = g.resolved[i];
      if (col === null) return `CAST(NULL AS ${deltaTypeToDuckDb(type)}) AS ${sqlIdent(fd.name)}`;
      return `${logicalValueExpr(`t.${sqlIdent(col)}`, type, snapshot.columnMapping)} AS ${sqlIdent(fd.name)}`;
    });
    if (provenance) exprs.push('f.path AS _lakerec_file', 't.file_row_number AS _lakerec_row');
    const list = `[${g.files.map((f) => sqlString(engineOf.get(f)!)).join(', ')}]`;
    let from = `read_parquet(${list}, filename = true, file_row_number = true, union_by_name = true) AS t`;
    if (needJoin) from += ` JOIN ${filesTable} AS f ON f.abs = t.filename`;
    if (g.files.some((f) => f.deletionVector)) from += ` ANTI JOIN ${dvTable} AS d ON d.abs = t.filename AND d.row = t.file_row_number`;
    selects.push(`SELECT ${exprs.join(', ')} FROM ${from}`);
  }
  await conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(viewName)} AS ${selects.join('\nUNION ALL\n')}`);
  } catch (e) {
    await releaseView(viewName);
    throw e;
  }
}

/**
 * A snapshot (or a snapshot-shaped view) derived from `from` reads from the same store: a spread
 * copy or a hand-built file subset keeps the store it came from, or the scan refuses it.
 */
export function sameStore<T extends object>(from: object, to: T): T {
  const s = storageOf(from);
  if (s) bindStorage(to, s);
  return to;
}

/** The engine files each registered view reads (released when the view is dropped). */
const heldByView = new Map<string, EngineFile[]>();

async function releaseView(viewName: string): Promise<void> {
  const held = heldByView.get(viewName);
  heldByView.delete(viewName);
  if (held) for (const h of held) await h.release();
}

/**
 * The store the snapshot came from, with the outside-paths choice of this call. A snapshot with no
 * store (one rebuilt from JSON, not read by a table) is refused: its files would otherwise be looked
 * for on the local disk whatever store it came from.
 */
function scanStorage(snapshot: Snapshot, allowOutsidePaths: boolean): Storage {
  const s = storageOf(snapshot);
  if (!s) throw new LakerecError('internal', `the snapshot of ${snapshot.root} at version ${snapshot.version} was not read through a store, so its files cannot be read`);
  if (s.allowOutsidePaths === allowOutsidePaths || !(s instanceof LocalStorage)) return s;
  return new LocalStorage(s.root, { allowOutsidePaths });
}

/**
 * The local path to read one of a snapshot's data files by, after the same checks the scan makes
 * (inside the real root unless allowed, a regular file): for any engine that opens data files
 * itself (the proof's arrow engine).
 */
export async function checkedDataFile(snapshot: Snapshot, f: ActiveFile, opts: { allowOutsidePaths?: boolean } = {}): Promise<string> {
  if (f.outside && !opts.allowOutsidePaths) {
    throw new LakerecError('path_outside_table', `"${f.add.path}" resolves outside the table root; it is not read unless outside paths are allowed`, { path: f.add.path });
  }
  const storage = scanStorage(snapshot, opts.allowOutsidePaths === true);
  if (!(storage instanceof LocalStorage)) throw new LakerecError('io_error', `${storage.root} is not on this machine: this engine reads local data files only`);
  return dataFilePath(storage, f, []);
}

/**
 * What a query engine locked to a run's files (`duck.restrict`) must be let read for these files
 * of a snapshot, as the snapshot's store says: its engine folders, and each file outside the table
 * root (allowed only with allowOutsidePaths) by the local path the log names. Never a prefix test
 * on path strings: a sibling folder whose name starts with the root's is outside too.
 */
export function engineAccess(snapshot: Snapshot, files: ActiveFile[] = snapshot.files): { dirs: string[]; files: string[] } {
  const storage = storageOf(snapshot);
  if (!storage) throw new LakerecError('internal', `the snapshot of ${snapshot.root} at version ${snapshot.version} was not read through a store, so its files cannot be read`);
  return { dirs: storage.engineDirs(), files: outsideLocalFiles(files) };
}

/** The local paths of the files outside the table root (a file another store names by URL is never read). */
export function outsideLocalFiles(files: Iterable<{ path: string; outside?: boolean }>): string[] {
  const out: string[] = [];
  for (const f of files) if (f.outside && !isUrl(f.path)) out.push(f.path);
  return out;
}

/**
 * A snapshot file's local path as its store names it, for what must reference the user's files by
 * path without reading them (the mutation sandbox's log); refused for a store not on this machine.
 */
export function localPathOf(snapshot: Snapshot, f: ActiveFile): string {
  const storage = storageOf(snapshot);
  if (!(storage instanceof LocalStorage)) throw new LakerecError('unsupported_feature', `${snapshot.root} is not on this machine: its files cannot be referenced by a local path`);
  if (f.outside && isUrl(f.path)) throw new LakerecError('unsupported_feature', `data file "${f.path}" names another store by URL; it cannot be referenced by a local path`, { path: f.path });
  return storage.describe(f.path);
}

/** The name DuckDB reads a data file by, after the store's checks (real root, regular file). */
async function dataFilePath(storage: Storage, f: ActiveFile, held: EngineFile[], signal?: AbortSignal): Promise<string> {
  // Inside the root the path is table-relative; outside it is the absolute path the log names.
  const path = f.path;
  // On disk the check is synchronous (one lstat per file, folders resolved once): a 300k-file
  // snapshot must not pay an await per file.
  if (storage instanceof LocalStorage) return storage.checkedLocalPath(path, undefined);
  const ef = await storage.engineFile(path, undefined, signal);
  held.push(ef);
  return ef.path;
}

/** Drops a view made by registerSnapshotView and its helper tables. */
export async function dropSnapshotView(conn: DuckDBConnection, viewName: string): Promise<void> {
  await conn.run(`DROP VIEW IF EXISTS ${sqlIdent(viewName)}`);
  await conn.run(`DROP TABLE IF EXISTS ${tempName(viewName, 'files')}`);
  await conn.run(`DROP TABLE IF EXISTS ${tempName(viewName, 'dv')}`);
  await releaseView(viewName);
}

export interface ScanOptions extends ViewOptions {
  /** Logical columns to read (default: all, in schema order). */
  columns?: string[];
  /** A SQL filter over logical columns (trusted caller text, e.g. built with sqlIdent/sqlString). */
  where?: string;
  /** Rows per yielded batch (default 10,000). */
  batchRows?: number;
  /** Stop after this many rows. */
  limit?: number;
}

export interface ScanBatch {
  rows: Record<string, JS>[];
  /** Rows yielded so far, this batch included. */
  done: number;
  /** Rows the scan will yield when known from the log's stats (DVs subtracted), else null. */
  total: number | null;
}

/**
 * Streams a snapshot's logical rows in batches (for the window's data grid and exports), reporting
 * progress and honouring cancellation between batches. Uses its own temp view, dropped at the end.
 */
export async function* scanBatches(
  conn: DuckDBConnection, snapshot: Snapshot, opts: ScanOptions = {}, ctx?: JobContext,
): AsyncGenerator<ScanBatch> {
  const view = `lakerec_scan_${Math.random().toString(36).slice(2, 10)}`;
  await registerSnapshotView(conn, snapshot, view, opts, ctx);
  try {
    const files = opts.files ?? snapshot.files;
    let total: number | null = files.every((f) => f.numRecords !== null) ? files.reduce((n, f) => n + (f.numRecords ?? 0), 0) : null;
    if (opts.where) total = null;
    if (total !== null && opts.limit !== undefined) total = Math.min(total, opts.limit);
    const cols = opts.columns?.length ? opts.columns.map(sqlIdent).join(', ') : '*';
    const sql = `SELECT ${cols} FROM ${sqlIdent(view)}${opts.where ? ` WHERE ${opts.where}` : ''}${opts.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(opts.limit))}` : ''}`;
    const batchRows = Math.max(1, opts.batchRows ?? 10_000);
    const result = await conn.stream(sql);
    let pending: Record<string, JS>[] = [];
    let done = 0;
    for await (const rows of result.yieldRowObjectJs()) {
      throwIfCancelled(ctx);
      for (const r of rows) pending.push(r);
      while (pending.length >= batchRows) {
        const out = pending.slice(0, batchRows);
        pending = pending.slice(batchRows);
        done += out.length;
        report(ctx, { phase: 'scanning rows', done, total });
        yield { rows: out, done, total };
      }
    }
    if (pending.length > 0 || done === 0) {
      done += pending.length;
      report(ctx, { phase: 'scanning rows', done, total });
      yield { rows: pending, done, total };
    }
  } finally {
    await dropSnapshotView(conn, view);
  }
}

/** The same stream as Arrow tables (types inferred from the values by apache-arrow). */
export async function* scanArrow(
  conn: DuckDBConnection, snapshot: Snapshot, opts: ScanOptions = {}, ctx?: JobContext,
): AsyncGenerator<{ table: ArrowTable; done: number; total: number | null }> {
  for await (const b of scanBatches(conn, snapshot, opts, ctx)) {
    yield { table: tableFromJSON(b.rows as Record<string, unknown>[]), done: b.done, total: b.total };
  }
}
