// The writer's maintenance: OPTIMIZE (compaction), checkpoints (classic single-part Parquet and
// _last_checkpoint, also automatic every delta.checkpointInterval versions), log cleanup and
// VACUUM. A checkpoint is published with the store's writeIfAbsent, like a commit: one of two writers
// checkpointing a version wins, the other gets commit_conflict and the first file stays whole.
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeTempDir } from '../engine/tempdirs';
import type { AddFile } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { sqlIdent, sqlString } from '../engine/duck';
import { deletionVectorLocation } from '../delta/dv';
import { replaceFile } from './commit';
import type { WriterCore } from './core';
import { REWRITE, filesMatching, removeOf, scanSql, writeFiles } from './datafiles';
import { misuse, type CommitResult, type VacuumOptions, type VacuumResult } from './options';
import { logPath } from './schema';
import { pushTo } from '../../shared/group';

const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * OPTIMIZE (compaction): each partition with more than one file, or with a deletion vector, is
 * rewritten as one file (deleted rows purged); dataChange false.
 */
export async function optimize(w: WriterCore, where?: string): Promise<CommitResult> {
  const groups = new Map<string, AddFile[]>();
  for (const f of w.st.files.values()) {
    const k = JSON.stringify(w.partitionColumns.map((c) => f.partitionValues[c] ?? null));
    pushTo(groups, k, f);
  }
  // Several small files become one; a file with a deletion vector is rewritten without its deleted rows.
  let candidates = [...groups.values()].filter((g) => g.length > 1 || g.some((f) => f.deletionVector));
  if (where !== undefined) {
    const hits = new Set((await filesMatching(w, where)).filter((t) => t.hit > 0).map((t) => t.add.path));
    candidates = candidates.filter((g) => g.some((f) => hits.has(f.path)));
  }
  const written: string[] = [];
  try {
    const files = candidates.flat();
    let adds: AddFile[] = [];
    if (files.length > 0) {
      const scan = await scanSql(w, files);
      const cols = w.schema.fields.map((f) => sqlIdent(f.name)).join(', ');
      await w.run(`CREATE OR REPLACE TEMP TABLE ${REWRITE} AS SELECT ${cols} FROM (${scan})`, 'OPTIMIZE');
      adds = await writeFiles(w, REWRITE, false, written);
    }
    const removes = files.map((f) => removeOf(w, f, false));
    return await w.commit({
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
    w.discard(written);
    throw e;
  }
}

/**
 * A classic single-part Parquet checkpoint of the current version, and `_last_checkpoint`.
 * Rows: protocol, metaData, every active add, and the tombstones still within retention.
 */
export async function checkpoint(w: WriterCore): Promise<{ version: number; path: string; size: number }> {
  const v = w.st.version;
  const lines: string[] = [];
  lines.push(JSON.stringify({ protocol: w.st.protocol }));
  lines.push(JSON.stringify({ metaData: w.st.metadata }));
  for (const r of w.st.tombstones.values()) lines.push(JSON.stringify({ remove: r }));
  for (const a of w.st.files.values()) lines.push(JSON.stringify({ add: { ...a, dataChange: false } }));
  const scratch = makeTempDir('cp');
  const name = `${String(v).padStart(20, '0')}.checkpoint.parquet`;
  const final = join(w.logDir, name);
  const tmpParquet = join(scratch, name);
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
    await w.run(
      `COPY (SELECT ${Object.keys(columns).map(sqlIdent).join(', ')} FROM read_json(${sqlString(nd)}, format='newline_delimited', columns=${spec}))
       TO ${sqlString(tmpParquet)} (FORMAT parquet)`, 'CHECKPOINT');
    // Published whole under its name, never over another writer's checkpoint of this version.
    const bytes = readFileSync(tmpParquet);
    if (!await w.storage.writeIfAbsent(`_delta_log/${name}`, bytes)) {
      throw new LakerecError('commit_conflict', `a checkpoint of version ${v} was written by another writer first; it is kept as it is`, { version: v });
    }
    const size = lines.length;
    replaceFile(join(w.logDir, '_last_checkpoint'), JSON.stringify({ version: v, size, sizeInBytes: bytes.length, numOfAddFiles: w.st.files.size }));
    return { version: v, path: final, size };
  } finally {
    removeTempDir(scratch);
  }
}

/**
 * Log cleanup as Delta does it after a checkpoint: commit files (and older checkpoints) below
 * the newest checkpoint at or before `beforeVersion` are deleted. Versions before that
 * checkpoint can no longer be reconstructed. Returns the deleted log file names.
 */
export function cleanupLog(w: WriterCore, beforeVersion: number = w.st.version): string[] {
  const names = readdirSync(w.logDir);
  const cps = names.map((n) => /^(\d{20})\.checkpoint\.parquet$/.exec(n)).filter((m): m is RegExpExecArray => !!m)
    .map((m) => Number(m[1])).filter((v) => v <= beforeVersion);
  if (cps.length === 0) throw misuse(`log cleanup needs a checkpoint at or before version ${beforeVersion}`);
  const keep = Math.max(...cps);
  const deleted: string[] = [];
  for (const n of names) {
    const m = /^(\d{20})\.(json|checkpoint\.parquet|crc)$/.exec(n);
    if (m && Number(m[1]) < keep) {
      unlinkSync(join(w.logDir, n));
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
export function vacuum(w: WriterCore, opts: VacuumOptions = {}): VacuumResult {
  const retention = opts.retentionMs ?? DEFAULT_RETENTION_MS;
  if (retention < 0) throw misuse('vacuum retention cannot be negative');
  const now = opts.now ?? Date.now();
  const active = new Set([...w.st.files.keys()].map((p) => w.absolutePath(p)));
  for (const f of w.st.files.values()) {
    const loc = f.deletionVector ? deletionVectorLocation(f.deletionVector, w.root) : null;
    if (loc?.absolute) active.add(loc.absolute);
  }
  const tombstoneTime = new Map<string, number>();
  for (const r of w.st.tombstones.values()) tombstoneTime.set(w.absolutePath(r.path), r.deletionTimestamp ?? 0);
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
  walk(w.root, '');
  if (!opts.dryRun) {
    for (const r of deleted) {
      const abs = join(w.root, r);
      if (!existsSync(abs)) w.st.tombstones.delete(logPath(r));
    }
  }
  return { deleted: deleted.sort(), kept: kept.sort() };
}

/**
 * `delta.checkpointInterval` (a table property, as Delta writers honour it): after every Nth
 * version a checkpoint is written. A failed checkpoint does not undo the commit (the log is
 * complete without it); it is kept in `warnings`.
 */
export async function autoCheckpoint(w: WriterCore): Promise<void> {
  const interval = Number(w.st.metadata.configuration?.['delta.checkpointInterval'] ?? 0);
  if (!Number.isInteger(interval) || interval <= 0 || w.st.version === 0 || w.st.version % interval !== 0) return;
  try {
    await checkpoint(w);
  } catch (e) {
    w.warnings.push(`checkpoint at version ${w.st.version} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
