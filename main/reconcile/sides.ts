// The two sides of a reconciliation: a source of truth (Parquet file or folder, CSV, JSON lines,
// or a Delta table at a version) and the Delta target. Each becomes a DuckDB view of logical
// rows under target column names; nothing is read until a level needs it, and reads are counted.
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DataType, StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import type { SchemaColumn } from '../../shared/reconcile';
import { sqlIdent, sqlString, type DuckAccess } from '../engine/duck';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import { deltaTypeToDuckDb, registerSnapshotView, sameStore } from '../delta/scan';
import { partitionValueExpr } from '../delta/schema';
import type { Snapshot, VersionChange } from '../delta/types';
import { compareFamily } from './canonical';
import type { Contract } from './contract';
import { pushTo } from '../../shared/group';
import { looksRemote } from '../../shared/location';
import { profiled } from './sql';

export type SourceKind = 'parquet' | 'csv' | 'json' | 'delta';

/**
 * The DuckDB spelling of a Delta type (what the scan view will produce). The one mapping of
 * main/delta: a type the reader does not know is refused (unsupported_feature), never pasted
 * into SQL, since a schemaString comes from whoever wrote the table.
 */
export function duckTypeOfDelta(t: DataType): string {
  return deltaTypeToDuckDb(t);
}

export function normaliseType(t: string): string {
  return t.toUpperCase().replace(/\s+/g, ' ').replace(/"/g, '').replace(/^TIMESTAMPTZ$/, 'TIMESTAMP WITH TIME ZONE').trim();
}

function schemaColumns(schema: StructType): SchemaColumn[] {
  return schema.fields.map((f) => ({ name: f.name, type: normaliseType(duckTypeOfDelta(f.type)) }));
}

async function describe(conn: DuckDBConnection, view: string): Promise<SchemaColumn[]> {
  const r = await conn.runAndReadAll(`DESCRIBE ${sqlIdent(view)}`);
  return r.getRowObjectsJS().map((row) => ({ name: String(row.column_name), type: normaliseType(String(row.column_type)) }));
}

function unreadable(description: string, e: unknown): LakerecError {
  if (e instanceof LakerecError) return e;
  const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0];
  return new LakerecError('source_unreadable', `cannot read source ${description}: ${msg}`, { path: description });
}

export interface TargetSide {
  root: string;
  table: DeltaTable;
  snapshot: Snapshot;
  /** Logical schema from the log (no data file opened). */
  columns: SchemaColumn[];
  view: string | null;
}

/** Opens the target's log at a version; no data file is read. Reader errors keep their codes (exit 3). */
export async function openTarget(root: string, version?: number, open?: DeltaTable): Promise<TargetSide> {
  // The window hands its open table: the log read for the timeline and bisect serves here too.
  // A remote location is kept as named (resolving it would make it a local path).
  const at = looksRemote(root) ? root : resolve(root);
  const table = open ?? await openTable(at);
  const snapshot = await table.snapshot(version === undefined ? {} : { version });
  return { root: at, table, snapshot, columns: schemaColumns(snapshot.schema), view: null };
}

// Up to this many distinct partition values, the one pass reads each partition's files on their
// own with the partition value as a literal, instead of joining every row to the file list.
const MAX_LITERAL_PARTITIONS = 64;

/**
 * Registers the target's logical rows (optionally only some files) as a view, with provenance.
 * Without provenance and with few partitions, the view is a UNION ALL of one scan per partition
 * with the partition values as constants: the same rows, without a per-row join on the file name
 * (the one pass's largest cost on the target side after the hashing itself).
 */
export async function registerTargetView(conn: DuckDBConnection, t: TargetSide, view: string, files?: Snapshot['files'], provenance = true): Promise<void> {
  // LAKEREC_PROFILE: the registration's own time (file checks, footers, the files table), beside the queries'.
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await registerTargetViewOnce(conn, t, view, files, provenance);
  profiled(`(registering the view ${view} over ${(files ?? t.snapshot.files).length} files${provenance ? ', with provenance' : ''})`, t0, c0);
}

async function registerTargetViewOnce(conn: DuckDBConnection, t: TargetSide, view: string, files: Snapshot['files'] | undefined, provenance: boolean): Promise<void> {
  const snap = t.snapshot;
  const list = files ?? snap.files;
  const partCols = snap.partitionColumns;
  const groups = new Map<string, Snapshot['files']>();
  if (!provenance && partCols.length > 0) {
    for (const f of list) {
      const k = JSON.stringify(partCols.map((c) => f.partitionValues[c] ?? null));
      pushTo(groups, k, f);
    }
  }
  if (provenance || partCols.length === 0 || groups.size === 0 || groups.size > MAX_LITERAL_PARTITIONS) {
    await registerSnapshotView(conn, snap, view, { provenance, allowOutsidePaths: t.table.allowOutsidePaths, ...(files ? { files } : {}) });
    t.view = view;
    return;
  }
  const dataFields = snap.schema.fields.filter((f) => !partCols.includes(f.name));
  const dataOnly: Snapshot = sameStore(snap, { ...snap, partitionColumns: [], schema: { ...snap.schema, fields: dataFields } });
  const selects: string[] = [];
  let i = 0;
  for (const [k, g] of groups) {
    const values = JSON.parse(k) as (string | null)[];
    const part = `${view}__p${i++}`;
    await registerSnapshotView(conn, dataOnly, part, { files: g, allowOutsidePaths: t.table.allowOutsidePaths });
    const cols = snap.schema.fields.map((f) => {
      const pi = partCols.indexOf(f.name);
      if (pi < 0) return sqlIdent(f.name);
      const v = values[pi];
      return `${partitionValueExpr(v === null ? 'NULL::VARCHAR' : sqlString(v), f.type)} AS ${sqlIdent(f.name)}`;
    });
    selects.push(`SELECT ${cols.join(', ')} FROM ${sqlIdent(part)}`);
  }
  await conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(view)} AS ${selects.join('\nUNION ALL\n')}`);
  t.view = view;
}

export async function targetChanges(t: TargetSide): Promise<VersionChange[]> {
  return t.table.changes();
}

export interface SourceSide {
  kind: SourceKind;
  description: string;
  version: number | null;
  /** View of the source under target column names (renamed, CSV/JSON typed like the target). */
  view: string;
  /** Columns of `view` (target names). */
  columns: SchemaColumn[];
  /** Columns as the source names them, before renames (for the schema report). */
  rawColumns: SchemaColumn[];
  snapshot: Snapshot | null;
  /** The Parquet files read, when the source is Parquet (their footers hold row counts). */
  parquetFiles: string[] | null;
  /** What DuckDB reads for this source (the run restricts DuckDB's file access to it). */
  access: DuckAccess;
}

interface ParsedSourceSpec { path: string; version: number | undefined; remote?: boolean }

/** Only a regular file or a folder is a source: a FIFO or a device would block or never end. */
function realSource(p: string, spec: string): string {
  let real: string;
  try {
    real = realpathSync(p);
  } catch {
    throw new LakerecError('source_unreadable', `source ${spec} cannot be resolved`, { path: spec });
  }
  const st = statSync(real);
  if (!st.isFile() && !st.isDirectory()) {
    throw new LakerecError('source_unreadable', `source ${spec} is not a regular file or a folder (a FIFO, socket or device is never read)`, { path: spec });
  }
  return real;
}

/** "lake/orders@3" names a Delta table at version 3 (only when the literal path does not exist). */
function parseSourceSpec(spec: string, cwd: string): ParsedSourceSpec {
  // A remote source is a Delta table at a location (`s3://b/t`, `s3://b/t@3`), opened through its store.
  if (looksRemote(spec)) {
    const m = /^(.*)@(\d+)$/.exec(spec);
    return { path: m ? m[1] : spec, version: m ? Number(m[2]) : undefined, remote: true };
  }
  const direct = resolve(cwd, spec);
  if (existsSync(direct)) return { path: realSource(direct, spec), version: undefined };
  const m = /^(.*)@(\d+)$/.exec(spec);
  if (m && existsSync(resolve(cwd, m[1]))) return { path: realSource(resolve(cwd, m[1]), spec), version: Number(m[2]) };
  throw new LakerecError('source_unreadable', `source ${spec} does not exist`, { path: spec });
}

function detectKind(path: string, remote = false): SourceKind {
  if (remote) return 'delta';
  const st = statSync(path);
  if (st.isDirectory()) {
    if (existsSync(join(path, '_delta_log'))) return 'delta';
    return 'parquet';
  }
  const lower = path.toLowerCase();
  if (/\.(csv|tsv)(\.gz)?$/.test(lower)) return 'csv';
  if (/\.(json|jsonl|ndjson)(\.gz)?$/.test(lower)) return 'json';
  return 'parquet';
}

/** The .parquet files of a folder, recursively (hidden and `_` entries skipped, symlinks not followed). */
export function parquetFilesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name.startsWith('_')) continue;
      const p = join(d, e.name);
      // Symlinks are not followed: the folder's own files only, regular files only.
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.parquet')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * Opens the source and registers `view`: its rows under target column names. Text formats (CSV,
 * JSON) carry no types, so their columns are cast to the target's types; a naive timestamp text
 * is read as UTC only where the contract says so, otherwise it is refused.
 */
export async function openSource(
  conn: DuckDBConnection, spec: string, cwd: string, contract: Contract, target: TargetSide, view: string, openDelta?: DeltaTable,
): Promise<SourceSide> {
  const { path, version, remote } = parseSourceSpec(spec, cwd);
  const kind = detectKind(path, remote);
  const description = version === undefined ? spec : `${path}@${version}`;
  const raw = `${view}_raw`;
  let snapshot: Snapshot | null = null;
  let parquetFiles: string[] | null = null;
  const access: DuckAccess = { dirs: [], files: [] };
  try {
    if (kind === 'delta') {
      // The table already open at this path (Compare's own table) serves its version from its parsed log.
      const table = openDelta && openDelta.root === path ? openDelta : await openTable(path);
      snapshot = await table.snapshot(version === undefined ? {} : { version });
      access.dirs = table.storage.engineDirs();
      await registerSnapshotView(conn, snapshot, raw, {});
    } else if (kind === 'parquet') {
      const files = statSync(path).isDirectory() ? parquetFilesUnder(path) : [path];
      if (files.length === 0) throw new LakerecError('source_unreadable', `source folder ${spec} holds no .parquet file`, { path: spec });
      parquetFiles = files;
      access.files = files;
      // A folder written hive-style (dt=2026-08-10/...) carries a column in its paths.
      const hive = statSync(path).isDirectory() && files.some((f) => /[\\/][^\\/=]+=[^\\/]*[\\/]/.test(f.slice(path.length)));
      await conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(raw)} AS SELECT * FROM read_parquet([${files.map(sqlString).join(', ')}], union_by_name = true, hive_partitioning = ${hive})`);
    } else if (kind === 'csv') {
      access.files = [path];
      await conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(raw)} AS SELECT * FROM read_csv(${sqlString(path)}, header = true, all_varchar = true)`);
    } else {
      access.files = [path];
      await conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(raw)} AS SELECT * FROM read_json(${sqlString(path)}, format = 'auto')`);
    }
  } catch (e) {
    throw unreadable(spec, e);
  }
  let rawColumns: SchemaColumn[];
  try {
    rawColumns = await describe(conn, raw);
  } catch (e) {
    throw unreadable(spec, e);
  }

  // Renames (source name -> target name), then types for untyped formats.
  const targetTypes = new Map(target.columns.map((c) => [c.name, c.type]));
  const renameOf = (n: string) => contract.renames[n] ?? n;
  const select: string[] = [];
  for (const c of rawColumns) {
    const name = renameOf(c.name);
    const tt = targetTypes.get(name);
    let expr = sqlIdent(c.name);
    if ((kind === 'csv' || kind === 'json') && tt && normaliseType(c.type) !== tt) {
      expr = castText(expr, c.type, tt, name, contract.naiveIsUtc);
    }
    select.push(`${expr} AS ${sqlIdent(name)}`);
  }
  await conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(view)} AS SELECT ${select.join(', ')} FROM ${sqlIdent(raw)}`);
  let columns: SchemaColumn[];
  try {
    columns = await describe(conn, view);
  } catch (e) {
    throw unreadable(spec, e);
  }
  return { kind, description, version: snapshot ? snapshot.version : null, view, columns, rawColumns, snapshot, parquetFiles, access };
}

/** A cast of untyped text (or JSON-guessed type) to the target's type. */
function castText(expr: string, fromType: string, toType: string, column: string, naiveIsUtc: boolean): string {
  if (compareFamily(toType, false) === 'timestamp' && !naiveIsUtc) {
    // Text without an offset is a wall-clock time: only the contract may say it is UTC.
    const s = `CAST(${expr} AS VARCHAR)`;
    return `CASE WHEN ${expr} IS NULL THEN NULL WHEN regexp_matches(${s}, '(Z|[+-]\\d\\d(:?\\d\\d)?)$') THEN CAST(${s} AS ${toType}) `
      + `ELSE error(${sqlString(`column ${column}: a timestamp without a time zone; set timestamps.naive_is_utc: true in the contract if it is UTC`)}) END`;
  }
  if (fromType === 'VARCHAR' && compareFamily(toType, false) === 'boolean') {
    return `CAST(lower(${expr}) AS BOOLEAN)`;
  }
  return `CAST(${expr} AS ${toType})`;
}
