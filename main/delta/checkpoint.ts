// Checkpoints: classic single-file and multi-part Parquet, v2 (JSON or Parquet top-level file with
// sidecars in _delta_log/_sidecars/). Parquet is read through DuckDB (read_parquet), each row as
// JSON so that checkpoints written by any engine (with or without stats_parsed, DVs, ...) map onto
// the same actions as JSON commits.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LakerecError } from '../../shared/errors';
import type { Action } from '../../shared/delta';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import type { CheckpointRef } from './logfiles';
import { addAction, emptyCommit, parseCommitText, type ParsedCommit } from './replay';
import { canonicalisePath } from './paths';

let logDuck: Promise<Duck> | null = null;

/** One small DuckDB for reading log Parquet (checkpoints, sidecars), opened on first use. */
export function getLogDuck(): Promise<Duck> {
  if (!logDuck) {
    logDuck = openDuck({ memoryLimit: '1GB' }).then((d) => {
      process.once('exit', () => d.close());
      return d;
    });
  }
  return logDuck;
}

const actionKeys = ['add', 'remove', 'metaData', 'protocol', 'txn', 'commitInfo', 'domainMetadata', 'checkpointMetadata', 'sidecar'] as const;

/** Reads log Parquet files (checkpoint parts or sidecars) as actions. */
export async function readParquetActions(files: string[], into: ParsedCommit): Promise<void> {
  const duck = await getLogDuck();
  const list = `[${files.map(sqlString).join(', ')}]`;
  const reader = await duck.conn.runAndReadAll(`SELECT to_json(t)::VARCHAR AS j FROM read_parquet(${list}, union_by_name = true) AS t`);
  const rows = reader.getRows();
  for (const r of rows) {
    const row = JSON.parse(String(r[0])) as Record<string, unknown>;
    for (const k of actionKeys) {
      const v = row[k];
      if (v !== null && v !== undefined) addAction(into, { [k]: v } as Action);
    }
  }
}

/** Reads a checkpoint (following v2 sidecars) into one ParsedCommit at the checkpoint's version. */
export async function readCheckpoint(logDir: string, cp: CheckpointRef): Promise<ParsedCommit> {
  const c = emptyCommit(cp.version);
  try {
    if (cp.format === 'json') {
      const name = cp.files[0];
      const parsed = parseCommitText(readFileSync(join(logDir, name), 'utf8'), cp.version, name);
      Object.assign(c, parsed);
    } else {
      await readParquetActions(cp.files.map((f) => join(logDir, f)), c);
    }
    if (c.sidecars.length > 0) {
      const sidecarDir = join(logDir, '_sidecars');
      const paths = c.sidecars.map((s) => {
        const canon = canonicalisePath(s.path, sidecarDir);
        if (canon.absolute === null) throw new LakerecError('checkpoint_corrupt', `sidecar "${s.path}" is not a local path`, { path: s.path });
        return canon.absolute;
      });
      c.sidecars = [];
      await readParquetActions(paths, c);
    }
  } catch (e) {
    if (e instanceof LakerecError && e.code !== 'log_corrupt') throw e;
    const msg = e instanceof Error ? e.message : String(e);
    throw new LakerecError('checkpoint_corrupt', `checkpoint at version ${cp.version} (${cp.files.join(', ')}) cannot be read: ${msg.split('\n')[0]}`, { version: cp.version });
  }
  // A checkpoint holds the whole state: without protocol or metaData it is damaged, and the caller
  // falls back to an older checkpoint or to the commits.
  if (!c.protocol || !c.metaData) {
    throw new LakerecError('checkpoint_corrupt', `checkpoint at version ${cp.version} (${cp.files.join(', ')}) has no ${!c.protocol ? 'protocol' : 'metaData'} action`, { version: cp.version });
  }
  // A checkpoint's removes are tombstones for VACUUM; they do not change the state it describes.
  c.removes = [];
  return c;
}
