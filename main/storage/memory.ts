// The Storage seam in memory: the reader's orchestration (checkpoint fallback, missing commits,
// compaction files, DV ranges) is tested over it without a disk, and it is the model of what an
// object store must provide. The same rules as on disk: no `..`, outside paths only when allowed,
// caps on whole-file reads. Parquet (checkpoints) is handed to DuckDB as a temporary copy: DuckDB
// is the one Parquet decoder of the reader, so a checkpoint means the same thing from any store.
import { writeFileSync } from 'node:fs';
import { makeTempDir, removeTempDir } from '../engine/tempdirs';
import { join } from 'node:path';
import { readLimits, type ReadLimits } from './limits';
import { checkCap, noteAccess, outsideError, relativeSegments, type EngineFile, type FileMeta, type ReadCap, type Storage } from './storage';
import { missing } from './local';

interface Entry { bytes: Buffer; mtimeMs: number }

// Temp copies a caller did not release (a scan's data files live as long as its view) are removed
// at exit: they come from makeTempDir, like every temp folder. The folders still held are the
// ones DuckDB may read (engineDirs).
const held = new Set<string>();

export class MemoryStorage implements Storage {
  readonly allowOutsidePaths: boolean;
  readonly limits: ReadLimits;
  private readonly files = new Map<string, Entry>();
  /** Every read, in order (tests assert what was read, e.g. a DV by range). */
  readonly reads: { path: string; offset?: number; length?: number }[] = [];

  constructor(readonly root = 'memory://table', opts: { allowOutsidePaths?: boolean; limits?: Partial<ReadLimits> } = {}) {
    this.allowOutsidePaths = opts.allowOutsidePaths ?? false;
    this.limits = readLimits(opts.limits);
  }

  /** Puts a file (test setup; writeIfAbsent is the store's own no-clobber write). */
  put(path: string, bytes: Uint8Array | string, mtimeMs = Date.now()): void {
    this.files.set(this.key(path), { bytes: Buffer.from(bytes), mtimeMs });
  }

  delete(path: string): void {
    this.files.delete(this.key(path));
  }

  engineDirs(): string[] {
    return [...held];
  }

  describe(path: string): string {
    return path.startsWith('/') ? path : `${this.root}/${path}`;
  }

  private key(path: string): string {
    if (path.startsWith('/')) {
      if (!this.allowOutsidePaths) throw outsideError(path, this.root, 'is');
      return path;
    }
    return relativeSegments(path, this.root).join('/');
  }

  private get(path: string, what: string): Entry {
    const e = this.files.get(this.key(path));
    if (!e) throw missing(path, what);
    return e;
  }

  async list(dir: string, opts: { startAfter?: string } = {}): Promise<FileMeta[] | null> {
    noteAccess('list', this.root, dir);
    const prefix = dir === '' ? '' : `${this.key(dir)}/`;
    const out: FileMeta[] = [];
    let folder = dir === '';
    for (const [k, e] of this.files) {
      if (!k.startsWith(prefix)) continue;
      folder = true;
      if (k.slice(prefix.length).includes('/')) continue;
      if (opts.startAfter !== undefined && k.slice(prefix.length) <= opts.startAfter) continue;
      out.push({ path: k, size: e.bytes.length, mtimeMs: e.mtimeMs });
    }
    return folder ? out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) : null;
  }

  async stat(path: string): Promise<FileMeta | null> {
    noteAccess('stat', this.root, path);
    const e = this.files.get(this.key(path));
    return e ? { path, size: e.bytes.length, mtimeMs: e.mtimeMs } : null;
  }

  async read(path: string, cap: ReadCap): Promise<Buffer> {
    noteAccess('read', this.root, path);
    const e = this.get(path, cap.what);
    checkCap(e.bytes.length, cap, path);
    this.reads.push({ path });
    return e.bytes;
  }

  async readRange(path: string, offset: number, length: number): Promise<Buffer> {
    noteAccess('readRange', this.root, path);
    const e = this.get(path, 'file');
    this.reads.push({ path, offset, length });
    return e.bytes.subarray(Math.min(offset, e.bytes.length), Math.min(offset + length, e.bytes.length));
  }

  async writeIfAbsent(path: string, bytes: Uint8Array): Promise<boolean> {
    const k = this.key(path);
    if (this.files.has(k)) return false;
    this.files.set(k, { bytes: Buffer.from(bytes), mtimeMs: Date.now() });
    return true;
  }

  async engineFile(path: string, cap?: ReadCap): Promise<EngineFile> {
    const e = this.get(path, cap?.what ?? 'file');
    if (cap) checkCap(e.bytes.length, cap, path);
    this.reads.push({ path });
    const dir = makeTempDir('mem');
    held.add(dir);
    const file = join(dir, path.split('/').pop() ?? 'file');
    writeFileSync(file, e.bytes);
    return { path: file, release: async () => { held.delete(dir); removeTempDir(dir); } };
  }
}
