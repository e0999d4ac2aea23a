// The Storage seam on a local folder, carrying the reader's safety rules:
// - the root is the real root: every path is resolved with realpath (folders once, cached; the
//   file itself when it is a symbolic link) and refused when it lands outside the table's real
//   root, unless the table was opened with allowOutsidePaths;
// - only regular files: opened with O_NONBLOCK (a FIFO must not block the open) and O_NOFOLLOW,
//   then fstat on the open descriptor, and refused by kind before a byte is read;
// - whole-file reads capped, checked on the descriptor's size.
// The calls are synchronous under the async interface on purpose: a commit file is small, and a
// libuv thread-pool round trip per open/fstat/read/close costs more than the read itself (a
// 10,000-commit log would pay it 40,000 times). An object store implements the same interface
// with real awaits.
import {
  closeSync, constants, fstatSync, linkSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync,
  unlinkSync, writeSync, type Stats,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { LakerecError } from '../../shared/errors';
import { readLimits, type ReadLimits } from './limits';
import { checkCap, noteAccess, outsideError, relativeSegments, type EngineFile, type FileMeta, type ListOptions, type ReadCap, type Storage } from './storage';

export interface LocalStorageOptions {
  allowOutsidePaths?: boolean;
  limits?: Partial<ReadLimits>;
}

/** What a non-regular file is, for the refusal. */
export function fileKind(st: Stats): string {
  if (st.isFile()) return 'regular file';
  if (st.isDirectory()) return 'folder';
  if (st.isFIFO()) return 'FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isSocket()) return 'socket';
  if (st.isSymbolicLink()) return 'symbolic link';
  return 'special file';
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

export class LocalStorage implements Storage {
  readonly root: string;
  readonly allowOutsidePaths: boolean;
  readonly limits: ReadLimits;
  /** realpath of the root (symlinks above the table are the user's choice and allowed). */
  readonly realRoot: string;
  private readonly realDirs = new Map<string, string | null>();

  /** Throws `not_found` / `not_a_folder` when root is not a folder. */
  constructor(root: string, opts: LocalStorageOptions = {}) {
    this.root = resolve(root);
    this.allowOutsidePaths = opts.allowOutsidePaths ?? false;
    this.limits = readLimits(opts.limits);
    let real: string;
    try {
      real = realpathSync.native(this.root);
    } catch {
      throw new LakerecError('not_found', `${this.root} does not exist`, { path: this.root });
    }
    if (!statSync(real).isDirectory()) throw new LakerecError('not_a_folder', `${this.root} is not a folder`, { path: this.root });
    this.realRoot = real;
  }

  engineDirs(): string[] {
    return [this.root];
  }

  describe(path: string): string {
    return isAbsolute(path) ? path : join(this.root, ...path.split('/'));
  }

  /** The lexical absolute path of a storage path (absolute paths refused unless allowed). */
  private lexical(path: string): string {
    if (isAbsolute(path)) {
      const abs = resolve(path);
      if (!this.allowOutsidePaths && !this.insideLexical(abs)) throw outsideError(path, this.root, 'is');
      return abs;
    }
    const segs = relativeSegments(path, this.root);
    return segs.length === 0 ? this.root : join(this.root, ...segs);
  }

  private insideLexical(abs: string): boolean {
    const rel = relative(this.root, abs);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  }

  private insideReal(real: string): boolean {
    return real === this.realRoot || real.startsWith(this.realRoot.endsWith(sep) ? this.realRoot : this.realRoot + sep);
  }

  private realDir(dir: string): string | null {
    let r = this.realDirs.get(dir);
    if (r === undefined) {
      try {
        r = realpathSync.native(dir);
      } catch (e) {
        if (errno(e) !== 'ENOENT' && errno(e) !== 'ENOTDIR') throw this.ioError(dir, e);
        r = null;
      }
      this.realDirs.set(dir, r);
    }
    return r;
  }

  private ioError(shown: string, e: unknown): LakerecError {
    return new LakerecError('io_error', `${shown} cannot be read (${errno(e) ?? 'error'})`, { path: shown });
  }

  /**
   * The real path of a storage path, checked against the real root; null when nothing is there.
   * Folders are resolved once (cached), the file with one lstat (and realpath if it is a link),
   * so checking a 300k-file snapshot costs what existsSync did.
   */
  realPathOf(path: string): string | null {
    return this.resolveReal(path)?.real ?? null;
  }

  /** realPathOf, with the lstat of the file when it was not a link (it is then its stat too). */
  private resolveReal(path: string): { real: string; st: Stats | null } | null {
    const abs = this.lexical(path);
    let real: string;
    let st: Stats | null = null;
    if (abs === this.root) real = this.realRoot;
    else {
      const dir = this.realDir(dirname(abs));
      if (dir === null) return null;
      const candidate = join(dir, basename(abs));
      let lst: Stats | undefined;
      try {
        // No exception for a file that is not there (a log whose data files are gone asks for thousands).
        lst = lstatSync(candidate, { throwIfNoEntry: false });
      } catch (e) {
        if (errno(e) === 'ENOENT' || errno(e) === 'ENOTDIR') return null;
        throw this.ioError(path, e);
      }
      if (lst === undefined) return null;
      if (lst.isSymbolicLink()) {
        try {
          real = realpathSync.native(candidate);
        } catch (e) {
          if (errno(e) === 'ENOENT') return null; // a dangling link: nothing to read
          throw this.ioError(path, e);
        }
      } else {
        real = candidate;
        st = lst;
      }
    }
    if (!this.allowOutsidePaths && !this.insideReal(real)) throw outsideError(path, this.root, 'resolves (through a symbolic link)');
    return { real, st };
  }

  /** The stat of a resolved path (the lstat already taken when it was not a link); null when gone. */
  private statOf(path: string): { real: string; st: Stats } | null {
    const r = this.resolveReal(path);
    if (r === null) return null;
    if (r.st) return { real: r.real, st: r.st };
    try {
      return { real: r.real, st: statSync(r.real) };
    } catch (e) {
      if (errno(e) === 'ENOENT') return null;
      throw this.ioError(path, e);
    }
  }

  /** Opens a regular file for reading (after the real-root check), or null when absent. */
  private openRegular(path: string): { fd: number; st: Stats; real: string } | null {
    const real = this.realPathOf(path);
    if (real === null) return null;
    let fd: number;
    try {
      fd = openSync(real, OPEN_FLAGS);
    } catch (e) {
      if (errno(e) === 'ENOENT') return null;
      if (errno(e) === 'ELOOP') throw new LakerecError('path_outside_table', `"${path}" changed into a symbolic link while it was read; it is not read`, { path });
      if (errno(e) === 'ENXIO') throw notRegular(path, 'socket');
      throw this.ioError(path, e);
    }
    let st: Stats;
    try {
      st = fstatSync(fd);
    } catch (e) {
      closeSync(fd);
      throw this.ioError(path, e);
    }
    if (!st.isFile()) {
      closeSync(fd);
      throw notRegular(path, fileKind(st));
    }
    return { fd, st, real };
  }

  async list(dir: string, opts: ListOptions = {}): Promise<FileMeta[] | null> {
    noteAccess('list', this.root, dir);
    const real = this.realPathOf(dir);
    if (real === null) return null;
    let st: Stats;
    try { st = statSync(real); } catch { return null; }
    if (!st.isDirectory()) throw new LakerecError('not_a_folder', `${this.describe(dir)} is not a folder`, { path: this.describe(dir) });
    let names: string[];
    try {
      names = readdirSync(real);
    } catch (e) {
      throw new LakerecError('io_error', `cannot list ${this.describe(dir)}: ${errno(e) ?? 'error'}`, { path: this.describe(dir) });
    }
    const out: FileMeta[] = [];
    // A folder is read whole by readdir; with startAfter only the later names are stat'ed and kept.
    const after = opts.startAfter;
    for (const n of names.sort()) {
      if (after !== undefined && n <= after) continue;
      let s: Stats;
      try { s = statSync(join(real, n)); } catch { continue; } // dangling link or raced with a cleanup
      if (s.isDirectory()) { out.push({ path: dir === '' ? n : `${dir}/${n}`, size: 0, mtimeMs: s.mtimeMs, folder: true }); continue; }
      out.push({ path: dir === '' ? n : `${dir}/${n}`, size: s.isFile() ? s.size : 0, mtimeMs: s.mtimeMs });
    }
    return out;
  }

  async stat(path: string): Promise<FileMeta | null> {
    noteAccess('stat', this.root, path);
    const r = this.statOf(path);
    if (r === null) return null;
    const st = r.st;
    if (!st.isFile()) throw notRegular(path, fileKind(st));
    return { path, size: st.size, mtimeMs: st.mtimeMs };
  }

  async read(path: string, cap: ReadCap): Promise<Buffer> {
    noteAccess('read', this.root, path);
    const o = this.openRegular(path);
    if (!o) throw missing(path, cap.what);
    try {
      checkCap(o.st.size, cap, path);
      // Exactly the size fstat gave: a file that grows while read is not read further.
      const buf = Buffer.allocUnsafe(o.st.size);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(o.fd, buf, got, buf.length - got, got);
        if (n === 0) break;
        got += n;
      }
      return got === buf.length ? buf : buf.subarray(0, got);
    } catch (e) {
      if (e instanceof LakerecError) throw e;
      throw this.ioError(path, e);
    } finally {
      closeSync(o.fd);
    }
  }

  async readRange(path: string, offset: number, length: number): Promise<Buffer> {
    noteAccess('readRange', this.root, path);
    const o = this.openRegular(path);
    if (!o) throw missing(path, 'file');
    try {
      const n = Math.max(0, Math.min(length, o.st.size - offset));
      const buf = Buffer.alloc(n);
      let got = 0;
      while (got < n) {
        const r = readSync(o.fd, buf, got, n - got, offset + got);
        if (r === 0) break;
        got += r;
      }
      return buf.subarray(0, got);
    } catch (e) {
      throw this.ioError(path, e);
    } finally {
      closeSync(o.fd);
    }
  }

  async writeIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    const target = this.lexical(path);
    const dir = this.realDir(dirname(target));
    if (dir === null) throw new LakerecError('io_error', `the folder of ${path} does not exist`, { path });
    if (!this.allowOutsidePaths && !this.insideReal(dir)) throw outsideError(path, this.root, 'resolves (through a symbolic link)');
    // Written whole under a temporary name, then linked into place: link() fails when the name
    // exists, so a concurrent writer's file is never replaced and no reader sees a partial file.
    const tmp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
    const fd = openSync(tmp, 'wx');
    try {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(tmp, join(dir, basename(target)));
      return true;
    } catch (e) {
      if (errno(e) === 'EEXIST') return false;
      // A file system without hard links: exclusive create (the existence check stays atomic).
      if (['EPERM', 'ENOTSUP', 'ENOSYS', 'EXDEV'].includes(errno(e) ?? '')) return createExclusive(join(dir, basename(target)), bytes, path);
      throw new LakerecError('io_error', `cannot write ${path} (${errno(e) ?? 'error'})`, { path });
    } finally {
      try { unlinkSync(tmp); } catch { /* already gone */ }
    }
  }

  async engineFile(path: string, cap?: ReadCap): Promise<EngineFile> {
    return { path: this.checkedLocalPath(path, cap), release: async () => {} };
  }

  /**
   * The real path of a regular file inside the root, for DuckDB (the scan's data files, Parquet
   * checkpoints): the same checks as read() without reading. Synchronous for the scan's loop
   * over every data file.
   */
  checkedLocalPath(path: string, cap?: ReadCap): string {
    const r = this.statOf(path);
    if (r === null) throw missing(path, cap?.what ?? 'file');
    if (!r.st.isFile()) throw notRegular(path, fileKind(r.st));
    if (cap) checkCap(r.st.size, cap, path);
    return r.real;
  }
}

function createExclusive(abs: string, bytes: Uint8Array, path: string): boolean {
  let fd: number;
  try {
    fd = openSync(abs, 'wx');
  } catch (e) {
    if (errno(e) === 'EEXIST') return false;
    throw new LakerecError('io_error', `cannot write ${path} (${errno(e) ?? 'error'})`, { path });
  }
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
  } finally {
    closeSync(fd);
  }
  return true;
}

export function notRegular(path: string, kind: string): LakerecError {
  return new LakerecError('not_a_regular_file', `"${path}" is a ${kind}, not a regular file; it is not read`, { path, kind });
}

export function missing(path: string, what: string): LakerecError {
  return new LakerecError('not_found', `${what} "${path}" does not exist`, { path });
}
