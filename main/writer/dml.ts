// The writer's DML, as Delta engines do it: WRITE (append, overwrite with replaceWhere), DELETE
// (rewriting files, or with deletion vectors), UPDATE, MERGE by key, ADD COLUMNS. Each builds its
// actions and commits them as one version (WriterCore.commit); bad input writes nothing.
import type { AddFile, Metadata, RemoveFile, StructField, StructType } from '../../shared/delta';
import { sqlIdent } from '../engine/duck';
import { readDeletionVector } from '../delta/dv';
import type { WriterCore } from './core';
import {
  BATCH, REWRITE, checkNotNull, filesMatching, prepareBatch, removeOf, scanSql, sqlList, statsRows, writeFiles, writeMetrics,
} from './datafiles';
import { writeDeletionVectorFile } from './dv';
import { misuse, type CommitResult, type MergeOptions, type OverwriteOptions, type RowSource, type WriteOptions } from './options';
import { duckType } from './schema';

/** `delta.appendOnly`: a table that promises its readers rows are never removed or changed. */
export function refuseIfAppendOnly(w: WriterCore, operation: string): void {
  if (w.st.metadata.configuration?.['delta.appendOnly'] === 'true') {
    throw misuse(`the table is append-only (delta.appendOnly = true): ${operation} is not allowed`, { operation });
  }
}

/** Whether DELETE marks rows in deletion vectors instead of rewriting files. */
export function deletionVectorsEnabled(w: WriterCore): boolean {
  return w.st.metadata.configuration?.['delta.enableDeletionVectors'] === 'true'
    && (w.st.protocol.writerFeatures ?? []).includes('deletionVectors');
}

/** WRITE mode Append. */
export async function append(w: WriterCore, source: RowSource, opts: WriteOptions = {}): Promise<CommitResult> {
  const prevMeta = w.st.metadata;
  const written: string[] = [];
  try {
    const rows = await prepareBatch(w, source, opts);
    const adds = await writeFiles(w, BATCH, true, written);
    return await w.commit({
      operation: 'WRITE',
      parameters: { mode: 'Append', partitionBy: JSON.stringify(w.partitionColumns), ...opts.extraParameters },
      metrics: writeMetrics(adds, rows),
      metadata: w.st.metadata !== prevMeta ? w.st.metadata : undefined,
      adds, removes: [], written, blindAppend: true,
    });
  } catch (e) {
    w.st.metadata = prevMeta;
    w.discard(written);
    throw e;
  }
}

/** WRITE mode Overwrite: the whole table, or with `replaceWhere` only the rows matching it. */
export async function overwrite(w: WriterCore, source: RowSource, opts: OverwriteOptions = {}): Promise<CommitResult> {
  refuseIfAppendOnly(w, 'WRITE mode Overwrite');
  const prevMeta = w.st.metadata;
  const written: string[] = [];
  try {
    const rows = await prepareBatch(w, source, opts);
    const pred = opts.replaceWhere;
    if (pred !== undefined) {
      const outside = await w.scalar(`SELECT count(*) FROM ${BATCH} WHERE NOT coalesce((${pred}), false)`, 'replaceWhere');
      if (outside > 0) {
        throw misuse(`${outside} row(s) of the data do not match replaceWhere (${pred}); nothing was written`, { replaceWhere: pred, rowsOutside: outside });
      }
    }
    const adds = await writeFiles(w, BATCH, true, written);
    const { removes, rewritten, copiedRows, removedRows } = pred === undefined
      ? removeAll(w)
      : await removeMatching(w, pred, written);
    const params: Record<string, string> = { mode: 'Overwrite', partitionBy: JSON.stringify(w.partitionColumns) };
    if (pred !== undefined) params.predicate = JSON.stringify([pred]);
    Object.assign(params, opts.extraParameters);
    return await w.commit({
      operation: 'WRITE',
      parameters: params,
      metrics: {
        ...writeMetrics(adds, rows),
        numRemovedFiles: String(removes.length),
        numCopiedRows: String(copiedRows),
        numDeletedRows: String(removedRows),
      },
      metadata: w.st.metadata !== prevMeta ? w.st.metadata : undefined,
      adds: [...adds, ...rewritten], removes, written, blindAppend: false,
    });
  } catch (e) {
    w.st.metadata = prevMeta;
    w.discard(written);
    throw e;
  }
}

/** DELETE with a predicate over logical columns; files holding matches are rewritten without them. */
export async function deleteWhere(w: WriterCore, predicate: string): Promise<CommitResult> {
  refuseIfAppendOnly(w, 'DELETE');
  if (deletionVectorsEnabled(w)) return deleteWithDeletionVectors(w, predicate);
  const written: string[] = [];
  try {
    const { removes, rewritten, copiedRows, removedRows } = await removeMatching(w, predicate, written);
    return await w.commit({
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
    w.discard(written);
    throw e;
  }
}

/**
 * DELETE as Delta does with deletion vectors enabled: a file whose rows all go is removed; a file
 * losing some rows is re-added under the same path with a deletion vector naming them (its
 * earlier DV's rows included). No data file is rewritten.
 */
export async function deleteWithDeletionVectors(w: WriterCore, predicate: string): Promise<CommitResult> {
  const touched = (await filesMatching(w, predicate)).filter((t) => t.hit > 0);
  const whole = touched.filter((t) => t.hit === t.rows);
  const partial = touched.filter((t) => t.hit < t.rows);
  const removes = touched.map((t) => removeOf(w, t.add, true));
  const adds: AddFile[] = [];
  const written: string[] = [];
  try {
    if (partial.length > 0) {
      const scan = await scanSql(w, partial.map((t) => t.add));
      const r = await w.rows(`SELECT _lk_file AS f, list(_lk_row ORDER BY _lk_row) AS rows FROM (${scan}) WHERE coalesce((${predicate}), false) GROUP BY ALL`);
      const newRows = new Map(r.map((x) => [String(x.f), (x.rows as (number | bigint)[]).map(Number)]));
      const dvs = await Promise.all(partial.map(async (t) => {
        const old = t.add.deletionVector ? await readDeletionVector(t.add.deletionVector, w.root, { allowOutsidePaths: w.allowOutside }) : [];
        return [...old, ...(newRows.get(w.absolutePath(t.add.path)) ?? [])];
      }));
      const { descriptors, file } = writeDeletionVectorFile(w.root, dvs);
      written.push(file);
      // The file's min/max still bound its remaining rows, but may no longer be tight.
      const loose = (stats: string | null | undefined): string | null | undefined =>
        stats && !stats.includes('"tightBounds"') ? stats.replace(/\}\s*$/, ',"tightBounds":false}') : stats;
      partial.forEach((t, i) => adds.push({ ...t.add, stats: loose(t.add.stats), modificationTime: w.clock(), dataChange: true, deletionVector: descriptors[i] }));
    }
    return await w.commit({
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
    w.discard(written);
    throw e;
  }
}

/** UPDATE: `set` maps a column to a SQL expression over the row; only rows matching `where` change. */
export async function update(w: WriterCore, set: Record<string, string>, where = 'true'): Promise<CommitResult> {
  refuseIfAppendOnly(w, 'UPDATE');
  const schema = w.schema;
  for (const col of Object.keys(set)) {
    if (!schema.fields.some((f) => f.name === col)) throw misuse(`UPDATE sets "${col}", which is not a column of the table`);
    if (w.partitionColumns.includes(col)) throw misuse(`UPDATE of partition column "${col}" is not supported; overwrite the partitions instead`);
  }
  const written: string[] = [];
  try {
    const touched = await filesMatching(w, where);
    const files = touched.filter((t) => t.hit > 0).map((t) => t.add);
    let updated = 0;
    let copied = 0;
    let rewritten: AddFile[] = [];
    if (files.length > 0) {
      const scan = await scanSql(w, files);
      const cols = schema.fields.map((f) => {
        const id = sqlIdent(f.name);
        const expr = set[f.name];
        return expr === undefined ? id : `CASE WHEN coalesce((${where}), false) THEN CAST((${expr}) AS ${duckType(f.type)}) ELSE ${id} END AS ${id}`;
      });
      await w.run(`CREATE OR REPLACE TEMP TABLE ${REWRITE} AS SELECT ${cols.join(', ')} FROM (${scan})`, 'UPDATE');
      await checkNotNull(w, REWRITE, schema);
      updated = touched.reduce((s, t) => s + t.hit, 0);
      copied = touched.filter((t) => t.hit > 0).reduce((s, t) => s + t.rows - t.hit, 0);
      rewritten = await writeFiles(w, REWRITE, true, written);
    }
    const removes = files.map((f) => removeOf(w, f, true));
    return await w.commit({
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
    w.discard(written);
    throw e;
  }
}

/** MERGE by key: matched target rows are updated (or deleted), unmatched source rows inserted. */
export async function merge(w: WriterCore, source: RowSource, opts: MergeOptions): Promise<CommitResult> {
  const whenMatched = opts.whenMatched ?? 'update';
  const whenNotMatched = opts.whenNotMatched ?? 'insert';
  if (whenMatched !== 'ignore') refuseIfAppendOnly(w, 'MERGE with WHEN MATCHED');
  const schema = w.schema;
  if (opts.on.length === 0) throw misuse('MERGE needs at least one key column');
  for (const k of opts.on) if (!schema.fields.some((f) => f.name === k)) throw misuse(`MERGE key "${k}" is not a column of the table`);
  const written: string[] = [];
  try {
    const sourceRows = await prepareBatch(w, source, {});
    const keys = opts.on.map(sqlIdent);
    const dupes = await w.scalar(`SELECT count(*) FROM (SELECT ${keys.join(', ')} FROM ${BATCH} GROUP BY ALL HAVING count(*) > 1)`, 'MERGE');
    if (dupes > 0) throw misuse(`${dupes} key(s) appear more than once in the MERGE source; a target row may match only one source row`, { duplicateKeys: dupes });
    const on = opts.on.map((k) => `t.${sqlIdent(k)} = s.${sqlIdent(k)}`).join(' AND ');
    const all = [...w.st.files.values()];
    let touchedFiles: AddFile[] = [];
    let matched = 0;
    let copied = 0;
    const cols = schema.fields.map((f) => sqlIdent(f.name)).join(', ');
    if (all.length > 0) {
      const scan = await scanSql(w, all);
      await w.run(`CREATE OR REPLACE TEMP TABLE _lk_target AS ${scan}`, 'MERGE');
      const r = await w.rows(`SELECT t._lk_file AS f, count(*) AS n FROM _lk_target t JOIN ${BATCH} s ON ${on} GROUP BY ALL`);
      const byAbs = w.byAbsolutePath(all);
      touchedFiles = whenMatched === 'ignore' ? [] : r.map((x) => byAbs.get(String(x.f))).filter((x): x is AddFile => !!x);
      matched = r.reduce((s, x) => s + Number(x.n), 0);
    }
    const touchedAbs = touchedFiles.map((f) => w.absolutePath(f.path));
    const parts: string[] = [];
    if (touchedFiles.length > 0) {
      // Unmatched rows of the touched files are copied into the new files.
      parts.push(`SELECT ${cols} FROM _lk_target t WHERE t._lk_file IN (SELECT unnest(${sqlList(touchedAbs)})) AND NOT EXISTS (SELECT 1 FROM ${BATCH} s WHERE ${on})`);
      copied = await w.scalar(`SELECT count(*) FROM (${parts[0]})`, 'MERGE');
    }
    if (whenMatched === 'update' && matched > 0) {
      parts.push(`SELECT ${cols} FROM ${BATCH} s WHERE EXISTS (SELECT 1 FROM _lk_target t WHERE ${on})`);
    }
    let inserted = 0;
    if (whenNotMatched === 'insert') {
      const ins = all.length > 0
        ? `SELECT ${cols} FROM ${BATCH} s WHERE NOT EXISTS (SELECT 1 FROM _lk_target t WHERE ${on})`
        : `SELECT ${cols} FROM ${BATCH} s`;
      inserted = await w.scalar(`SELECT count(*) FROM (${ins})`, 'MERGE');
      parts.push(ins);
    }
    let adds: AddFile[] = [];
    if (parts.length > 0) {
      await w.run(`CREATE OR REPLACE TEMP TABLE ${REWRITE} AS ${parts.join(' UNION ALL ')}`, 'MERGE');
      adds = await writeFiles(w, REWRITE, true, written);
    }
    const removes = touchedFiles.map((f) => removeOf(w, f, true));
    const actionType = whenMatched === 'delete' ? 'delete' : 'update';
    return await w.commit({
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
    w.discard(written);
    throw e;
  } finally {
    await w.duck.conn.run('DROP TABLE IF EXISTS _lk_target');
  }
}

/** ADD COLUMNS: a metadata-only commit adding nullable columns at the end of the schema. */
export async function evolveSchema(w: WriterCore, newFields: StructField[]): Promise<CommitResult> {
  const schema = w.schema;
  for (const f of newFields) {
    if (schema.fields.some((x) => x.name.toLowerCase() === f.name.toLowerCase())) throw misuse(`column "${f.name}" already exists`);
    if (!f.nullable) throw misuse(`a column added to a table with data must be nullable ("${f.name}")`);
    duckType(f.type);
  }
  const next: StructType = { type: 'struct', fields: [...schema.fields, ...newFields] };
  const metadata: Metadata = { ...w.st.metadata, schemaString: JSON.stringify(next) };
  return w.commit({
    operation: 'ADD COLUMNS',
    parameters: { columns: JSON.stringify(newFields.map((column) => ({ column }))) },
    metrics: {},
    metadata, adds: [], removes: [], written: [], blindAppend: false,
  });
}

export function removeAll(w: WriterCore): { removes: RemoveFile[]; rewritten: AddFile[]; copiedRows: number; removedRows: number } {
  const files = [...w.st.files.values()];
  const removedRows = files.reduce((s, f) => s + statsRows(f), 0);
  return { removes: files.map((f) => removeOf(w, f, true)), rewritten: [], copiedRows: 0, removedRows };
}

/** Removes files holding rows that match; rows of those files that do not match are rewritten. */
export async function removeMatching(w: WriterCore, predicate: string, written: string[]): Promise<{ removes: RemoveFile[]; rewritten: AddFile[]; copiedRows: number; removedRows: number }> {
  const touched = (await filesMatching(w, predicate)).filter((t) => t.hit > 0);
  const removes = touched.map((t) => removeOf(w, t.add, true));
  const partial = touched.filter((t) => t.hit < t.rows);
  let rewritten: AddFile[] = [];
  const copiedRows = partial.reduce((s, t) => s + t.rows - t.hit, 0);
  if (partial.length > 0) {
    const scan = await scanSql(w, partial.map((t) => t.add));
    const cols = w.schema.fields.map((f) => sqlIdent(f.name)).join(', ');
    await w.run(`CREATE OR REPLACE TEMP TABLE ${REWRITE} AS SELECT ${cols} FROM (${scan}) WHERE NOT coalesce((${predicate}), false)`, 'rewrite');
    rewritten = await writeFiles(w, REWRITE, true, written);
  }
  return { removes, rewritten, copiedRows, removedRows: touched.reduce((s, t) => s + t.hit, 0) };
}
