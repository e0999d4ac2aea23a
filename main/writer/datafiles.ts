// The writer's data files: rows loaded and checked into a temp table, written as Parquet by
// DuckDB COPY (one file per partition, with full stats), the logical rows of active files read back
// (partition values filled in, deletion vectors applied), and the files a predicate touches.
import { randomUUID } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTempDir, removeTempDir } from '../engine/tempdirs';
import type { AddFile, RemoveFile, StructField, StructType } from '../../shared/delta';
import { sqlIdent, sqlString } from '../engine/duck';
import { readDeletionVector } from '../delta/dv';
import type { WriterCore } from './core';
import { misuse, type RowSource, type WriteOptions } from './options';
import {
  assignable, deltaTypeOfDuck, duckType, logPath, partitionDirName, partitionLiteralSql, partitionValueSql,
} from './schema';
import { dataColumnsOf, statsJson, statsSelectList } from './stats';

/** The temp table holding the rows to write. */
export const BATCH = '_lk_batch';
/** The temp table holding rows rewritten from existing files. */
export const REWRITE = '_lk_rewrite';

/** A file and how many of its rows a predicate matched. */
export interface FileHits {
  add: AddFile;
  rows: number;
  hit: number;
}

export function sqlList(items: string[]): string {
  return `[${items.map(sqlString).join(', ')}]`;
}

function jsonReplacer(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

/**
 * Loads the rows to write into the temp table `_lk_batch` with the table's column order and
 * types, after checking them: same columns (or new ones under mergeSchema), assignable types,
 * and no null in a NOT NULL column. Returns the row count.
 */
export async function prepareBatch(w: WriterCore, source: RowSource, opts: WriteOptions): Promise<number> {
  let schema = w.schema;
  let scratch: string | null = null;
  try {
    let select: string;
    if ('rows' in source) {
      scratch = makeTempDir('rows');
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
    const desc = await w.rows(`DESCRIBE SELECT * FROM (${select})`).catch((e: unknown) => {
      throw w.sqlError(e, 'the data query');
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
      w.st.metadata = { ...w.st.metadata, schemaString: JSON.stringify(schema) };
    }
    for (const f of schema.fields) {
      const src = srcCols.find((c) => c.name === f.name);
      if (src && !assignable(src.type, f.type)) {
        throw misuse(`schema mismatch: column "${f.name}" is ${src.type} in the data and ${typeof f.type === 'string' ? f.type : f.type.type} in the table; nothing was written`, { column: f.name });
      }
    }
    const cols = schema.fields.map((f) => `CAST(${sqlIdent(f.name)} AS ${duckType(f.type)}) AS ${sqlIdent(f.name)}`);
    await w.run(`CREATE OR REPLACE TEMP TABLE ${BATCH} AS SELECT ${cols.join(', ')} FROM (${select})`, 'the data query');
    await checkNotNull(w, BATCH, schema);
    return await w.scalar(`SELECT count(*) FROM ${BATCH}`, 'count');
  } finally {
    if (scratch) removeTempDir(scratch);
  }
}

/** NOT NULL is enforced at commit time, as Delta does: one null and nothing is written. */
export async function checkNotNull(w: WriterCore, table: string, schema: StructType): Promise<void> {
  const required = schema.fields.filter((f) => !f.nullable);
  if (required.length === 0) return;
  const r = await w.rows(`SELECT ${required.map((f, i) => `count(*) FILTER (WHERE ${sqlIdent(f.name)} IS NULL) AS n${i}`).join(', ')} FROM ${table}`);
  required.forEach((f, i) => {
    const n = Number(r[0]?.[`n${i}`] ?? 0);
    if (n > 0) {
      throw misuse(`NOT NULL constraint violated: ${n} row(s) have a null "${f.name}"; nothing was written`, { column: f.name, rows: n });
    }
  });
}

/** Writes the rows of a temp table as one Parquet file per partition; returns their add actions. */
export async function writeFiles(w: WriterCore, table: string, dataChange: boolean, written: string[]): Promise<AddFile[]> {
  const schema = w.schema;
  const parts = w.partitionColumns;
  const statCols = dataColumnsOf(schema, parts);
  const pvSql = parts.map((p, i) => `${partitionValueSql(p, schema.fields.find((f) => f.name === p)!.type)} AS _p${i}`);
  const groups = await w.rows(
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
    const abs = join(w.root, ...rel.split('/'));
    mkdirSync(dirname(abs), { recursive: true });
    const where = parts.length
      ? ' WHERE ' + parts.map((p) => {
        const t = schema.fields.find((f) => f.name === p)!.type;
        const v = values[p];
        return v === null ? `${sqlIdent(p)} IS NULL` : `${partitionValueSql(p, t)} = ${sqlString(v)}`;
      }).join(' AND ')
      : '';
    written.push(abs);
    await w.run(`COPY (SELECT ${dataCols} FROM ${table}${where}) TO ${sqlString(abs)} (FORMAT parquet, COMPRESSION snappy)`, 'writing Parquet');
    adds.push({
      path: logPath(rel),
      partitionValues: values,
      size: statSync(abs).size,
      modificationTime: w.clock(),
      dataChange,
      stats: statsJson(statCols, g),
    });
  }
  return adds;
}

/** SQL for the logical rows of some active files, with `_lk_file` (absolute path) per row. */
export async function scanSql(w: WriterCore, files: AddFile[]): Promise<string> {
  const schema = w.schema;
  const abs = files.map((f) => w.absolutePath(f.path));
  const list = sqlList(abs);
  const desc = await w.rows(`DESCRIBE SELECT * FROM read_parquet(${list}, union_by_name=true)`);
  const present = new Set(desc.map((d) => String(d.column_name)));
  const cols = schema.fields.map((f) => {
    const id = sqlIdent(f.name);
    const ty = duckType(f.type);
    if (w.partitionColumns.includes(f.name)) {
      const cases = files.map((af, i) => `WHEN ${sqlString(abs[i])} THEN ${partitionLiteralSql(af.partitionValues[f.name] ?? null, f.type)}`);
      return `CASE filename ${cases.join(' ')} END AS ${id}`;
    }
    return present.has(f.name) ? `CAST(${id} AS ${ty}) AS ${id}` : `CAST(NULL AS ${ty}) AS ${id}`;
  });
  let from = `read_parquet(${list}, union_by_name=true, filename=true, file_row_number=true)`;
  // Rows a deletion vector deletes are not rows of the table.
  const withDv = files.filter((f) => f.deletionVector);
  if (withDv.length > 0) {
    const table = `_lk_dv_${w.dvTables++}`;
    await w.run(`CREATE OR REPLACE TEMP TABLE ${table} (f VARCHAR, r BIGINT)`, 'deletion vectors');
    for (const f of withDv) {
      const rows = await readDeletionVector(f.deletionVector!, w.root, { allowOutsidePaths: w.allowOutside });
      for (let i = 0; i < rows.length; i += 10_000) {
        await w.run(`INSERT INTO ${table} SELECT ${sqlString(w.absolutePath(f.path))}, unnest([${rows.slice(i, i + 10_000).join(',')}]::BIGINT[])`, 'deletion vectors');
      }
    }
    from = `(SELECT * FROM ${from} ANTI JOIN ${table} AS _d ON _d.f = filename AND _d.r = file_row_number)`;
  }
  return `SELECT ${cols.join(', ')}, filename AS _lk_file, file_row_number AS _lk_row FROM ${from}`;
}

/**
 * SQL for the logical rows of the writer's current version (partition columns filled in,
 * columns added by schema evolution null in older files), for checks and read-back.
 */
export async function currentRowsSql(w: WriterCore): Promise<string> {
  const files = [...w.st.files.values()];
  const cols = w.schema.fields.map((f) => sqlIdent(f.name)).join(', ');
  if (files.length === 0) {
    return `SELECT ${w.schema.fields.map((f) => `CAST(NULL AS ${duckType(f.type)}) AS ${sqlIdent(f.name)}`).join(', ')} WHERE false`;
  }
  return `SELECT ${cols} FROM (${await scanSql(w, files)})`;
}

/** Per active file: rows, and rows matching a predicate. */
export async function filesMatching(w: WriterCore, predicate: string): Promise<FileHits[]> {
  const all = [...w.st.files.values()];
  if (all.length === 0) return [];
  const fromLog = await filesMatchingByPartition(w, all, predicate);
  if (fromLog) return fromLog;
  const scan = await scanSql(w, all);
  const r = await w.rows(`SELECT _lk_file AS f, count(*) AS n, count(*) FILTER (WHERE coalesce((${predicate}), false)) AS hit FROM (${scan}) GROUP BY ALL`)
    .catch((e: unknown) => { throw w.sqlError(e, `predicate (${predicate})`); });
  const byAbs = w.byAbsolutePath(all);
  const out: FileHits[] = [];
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
export async function filesMatchingByPartition(w: WriterCore, all: AddFile[], predicate: string): Promise<FileHits[] | null> {
  const parts = w.partitionColumns;
  if (parts.length === 0 || all.some((f) => !f.stats)) return null;
  const schema = w.schema;
  const types = parts.map((p) => schema.fields.find((f) => f.name === p)!.type);
  const values = all.map((f, i) => `(${i}, ${parts.map((p, j) => partitionLiteralSql(f.partitionValues[p] ?? null, types[j])).join(', ')})`);
  const rel = `SELECT * FROM (VALUES ${values.join(', ')}) _lk_pv(_lk_idx, ${parts.map(sqlIdent).join(', ')})`;
  let hits: Record<string, unknown>[];
  try {
    const r = await w.duck.conn.runAndReadAll(`SELECT _lk_idx, coalesce((${predicate}), false) AS hit FROM (${rel})`);
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

export function removeOf(w: WriterCore, f: AddFile, dataChange: boolean): RemoveFile {
  return {
    path: f.path,
    deletionTimestamp: w.clock(),
    dataChange,
    extendedFileMetadata: true,
    partitionValues: f.partitionValues,
    size: f.size,
    ...(f.stats ? { stats: f.stats } : {}),
    ...(f.deletionVector ? { deletionVector: f.deletionVector } : {}),
  };
}

export function writeMetrics(adds: AddFile[], rows: number): Record<string, string> {
  return {
    numFiles: String(adds.length),
    numOutputRows: String(rows),
    numOutputBytes: String(adds.reduce((s, a) => s + a.size, 0)),
  };
}

/** Rows a file contributes: its stats' numRecords minus what its deletion vector deletes. */
export function statsRows(f: AddFile): number {
  if (!f.stats) return 0;
  try {
    return Number((JSON.parse(f.stats) as { numRecords?: number }).numRecords ?? 0) - (f.deletionVector?.cardinality ?? 0);
  } catch {
    return 0;
  }
}
