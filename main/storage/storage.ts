// The reader's I/O seam (ADR 0008), modelled on delta-kernel-rs's StorageHandler: everything the
// reader needs from a store, asynchronous, with paths relative to the table root. A local folder
// (local.ts) and an in-memory store (memory.ts) implement it; an object store can be added beside
// them without a change above this file. Every implementation enforces the same rules: no read
// outside the table root (unless the table was opened with allowOutsidePaths), regular files only,
// and every whole-file read capped.
import { LakerecError } from '../../shared/errors';
import type { ReadLimits } from './limits';

export interface ListOptions {
  /** Only names (within the folder) that sort after this one. */
  startAfter?: string;
}

/** One file of a listing or a stat. */
export interface FileMeta {
  /** The path as given (table-relative, '/'-separated; or absolute when outside the root). */
  path: string;
  size: number;
  mtimeMs: number;
  /** A folder, not a file (listed so a folder named like a log file is refused, not skipped). */
  folder?: true;
}

/** A cap on a whole-file read: the limit, what the file is (for the message) and the knob that raises it. */
export interface ReadCap {
  maxBytes: number;
  /** e.g. "commit 00000000000000000003.json". */
  what: string;
  /** The environment variable that raises the cap, named in the message. */
  knob?: string;
}

/** A file a query engine (DuckDB) can open by name: a checked local path, a temp copy, or a URL. */
export interface EngineFile {
  path: string;
  /** Drops the temp copy, if one was made. */
  release(): Promise<void>;
}

/**
 * Paths are relative to the table root with '/' separators (`_delta_log/00000000000000000000.json`,
 * `part-0.parquet`); an absolute path names a file outside the root and is refused unless the
 * store was opened with allowOutsidePaths. Any `..` segment is refused.
 */
export interface Storage {
  /** The table root as the user named it (for messages). */
  readonly root: string;
  readonly allowOutsidePaths: boolean;
  readonly limits: ReadLimits;
  /**
   * The entries of folder `dir` ('' = the root), sorted by path, folders marked `folder`; null when
   * the folder does not exist. With `startAfter` (a name in the folder), only the entries whose
   * name sorts after it: an object store asks the server for them (S3 StartAfter, GCS startOffset),
   * so a long log is not listed from its first commit.
   */
  list(dir: string, opts?: ListOptions): Promise<FileMeta[] | null>;
  /** A regular file's size and mtime; null when absent; refuses FIFOs, devices, sockets, folders. */
  stat(path: string): Promise<FileMeta | null>;
  /** The whole file, refused over the cap (checked on the opened file before reading). */
  read(path: string, cap: ReadCap): Promise<Buffer>;
  /** `length` bytes from `offset` (fewer at the end of the file). */
  readRange(path: string, offset: number, length: number): Promise<Buffer>;
  /** Creates the file only if nothing is at `path` (atomic, never clobbers): false when it exists. */
  writeIfAbsent(path: string, bytes: Uint8Array): Promise<boolean>;
  /**
   * A name DuckDB can read the file by (read_parquet), after the same checks as read(). `signal`
   * (the job's Cancel) aborts a remote file's download in flight.
   */
  engineFile(path: string, cap?: ReadCap, signal?: AbortSignal): Promise<EngineFile>;
  /** How a path is named in messages (the local absolute path, a URL). */
  describe(path: string): string;
  /** The local folders engineFile's names lie in (a query engine locked to them can read the table). */
  engineDirs(): string[];
}

/** Splits a table-relative path into segments, refusing `..`, `.` and empty segments. */
export function relativeSegments(path: string, root: string): string[] {
  if (path === '') return [];
  const segs = path.split('/');
  for (const s of segs) {
    // A backslash is a separator only on Windows (elsewhere a legal character of a file name).
    if (s === '..' || s === '.' || s === '' || s.includes('\u0000') || (process.platform === 'win32' && /[\\:]/.test(s))) {
      throw new LakerecError('path_outside_table', `the path "${path}" is not a plain path under the table root ${root}`, { path });
    }
  }
  return segs;
}

export function checkCap(size: number, cap: ReadCap, shown: string): void {
  if (size > cap.maxBytes) {
    const mb = (n: number): string => `${(n / 1048576).toFixed(n < 1048576 ? 3 : 1)} MB`;
    throw new LakerecError('limit_exceeded',
      `${cap.what} (${shown}) is ${mb(size)}, over the ${mb(cap.maxBytes)} limit for it${cap.knob ? `; if the file is genuine, raise the limit with ${cap.knob}=<MB>` : ''}`,
      { path: shown, size, limit: cap.maxBytes });
  }
}

export function outsideError(path: string, root: string, how: string): LakerecError {
  return new LakerecError('path_outside_table',
    `"${path}" ${how} outside the table root ${root}; it is not read unless outside paths are allowed for this table (--allow-outside-paths)`,
    { path });
}

// The store a snapshot was read from, so the scan hands DuckDB files checked by that same store
// (a Snapshot stays plain data: it crosses IPC and JSON).
const storeOf = new WeakMap<object, Storage>();
export function bindStorage(snapshot: object, storage: Storage): void {
  storeOf.set(snapshot, storage);
}
export function storageOf(snapshot: object): Storage | undefined {
  return storeOf.get(snapshot);
}

/** One request a store served: a listing, a stat or a read (whole or a range) of a table-relative path. */
export interface StorageAccess {
  op: 'list' | 'stat' | 'read' | 'readRange';
  /** The store's root as the user named it. */
  root: string;
  path: string;
}

// Who watches the stores' requests (tests that count how often a screen reads `_delta_log`). No
// watcher, no cost beyond one size check per request.
const watchers = new Set<(a: StorageAccess) => void>();

/** Calls `fn` for every request any store serves from now on; returns the function that stops it. */
export function watchStorage(fn: (a: StorageAccess) => void): () => void {
  watchers.add(fn);
  return () => { watchers.delete(fn); };
}

/** Each store calls this once per request it serves (list, stat, read, readRange). */
export function noteAccess(op: StorageAccess['op'], root: string, path: string): void {
  if (watchers.size === 0) return;
  for (const w of watchers) w({ op, root, path });
}
