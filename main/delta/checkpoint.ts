// Checkpoints: classic single-file and multi-part Parquet, v2 (JSON or Parquet top-level file with
// sidecars in _delta_log/_sidecars/). Parquet is read through DuckDB (read_parquet), each row as
// JSON so that checkpoints written by any engine (with or without stats_parsed, DVs, ...) map onto
// the same actions as JSON commits. Every file comes through the Storage seam (engineFile: the
// checked real path on disk, a temporary copy from another store).
import { LakerecError } from '../../shared/errors';
import type { Action } from '../../shared/delta';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import type { CheckpointRef } from './logfiles';
import { addAction, emptyCommit, parseCommitText, type ParsedCommit } from './replay';
import { decodeLogPath, fileUriToPath } from './paths';
import { LIMIT_KNOBS, type EngineFile, type Storage } from '../storage';

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

/** Reads log Parquet files (checkpoint parts or sidecars, storage paths) as actions. */
export async function readParquetActions(storage: Storage, files: string[], into: ParsedCommit): Promise<void> {
  const duck = await getLogDuck();
  const held: EngineFile[] = [];
  try {
    for (const f of files) {
      held.push(await storage.engineFile(f, { maxBytes: storage.limits.checkpointBytes, what: `checkpoint file ${f}`, knob: LIMIT_KNOBS.checkpointBytes }));
    }
    const list = `[${held.map((h) => sqlString(h.path)).join(', ')}]`;
    const reader = await duck.conn.runAndReadAll(`SELECT to_json(t)::VARCHAR AS j FROM read_parquet(${list}, union_by_name = true) AS t`);
    const rows = reader.getRows();
    for (const r of rows) {
      const row = JSON.parse(String(r[0])) as Record<string, unknown>;
      for (const k of actionKeys) {
        const v = row[k];
        if (v !== null && v !== undefined) addAction(into, { [k]: v } as Action);
      }
    }
  } finally {
    for (const h of held) await h.release();
  }
}

/**
 * A sidecar's storage path. PROTOCOL.md: sidecars "must always reside in the table's own
 * _delta_log/_sidecars directory", so the path is a bare file name there (or a URI that names
 * exactly that folder under this root); `..`, subfolders, other absolute paths and other hosts are
 * refused.
 */
export function sidecarPath(raw: string, storage: Storage): string {
  const refuse = (why: string): LakerecError =>
    new LakerecError('checkpoint_corrupt', `sidecar "${raw}" ${why}; sidecars must be files in the table's own _delta_log/_sidecars folder`, { path: raw });
  let p = raw;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(p)) {
    // An absolute URI: only file:///ROOT/_delta_log/_sidecars/NAME (or file://localhost/...) of this very table.
    const local = /^file:/i.test(p) ? fileUriToPath(p) : null;
    if (local === null) throw refuse('is not a file on this machine');
    const abs = decodeLogPath(local);
    const own = storage.describe('_delta_log/_sidecars') + '/';
    if (!abs.startsWith(own)) throw refuse('is outside this table\'s _delta_log/_sidecars');
    p = abs.slice(own.length);
  } else {
    p = decodeLogPath(p);
  }
  if (p === '' || p.includes('/') || p.includes('\\') || p === '.' || p === '..' || p.includes('\u0000')) throw refuse('is not a file name in _delta_log/_sidecars');
  return `_delta_log/_sidecars/${p}`;
}

/** Reads a checkpoint (following v2 sidecars) into one ParsedCommit at the checkpoint's version. */
export async function readCheckpoint(storage: Storage, cp: CheckpointRef): Promise<ParsedCommit> {
  const c = emptyCommit(cp.version);
  try {
    if (cp.format === 'json') {
      const name = cp.files[0];
      const bytes = await storage.read(`_delta_log/${name}`, { maxBytes: storage.limits.checkpointBytes, what: `checkpoint ${name}`, knob: LIMIT_KNOBS.checkpointBytes });
      const parsed = parseCommitText(bytes.toString('utf8'), cp.version, name);
      Object.assign(c, parsed);
    } else {
      await readParquetActions(storage, cp.files.map((f) => `_delta_log/${f}`), c);
    }
    if (c.sidecars.length > 0) {
      const paths = c.sidecars.map((s) => sidecarPath(String(s.path), storage));
      c.sidecars = [];
      await readParquetActions(storage, paths, c);
    }
  } catch (e) {
    if (e instanceof LakerecError && e.code !== 'log_corrupt' && e.code !== 'not_found') throw e;
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
