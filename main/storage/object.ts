// The Storage seam over an object store (S3, Azure Blob / ADLS, GCS): one class carries the rules
// every object store shares, and each cloud is a thin `ObjectClient` of four read calls (list,
// head, get, get a range). The rules:
// - read-only: the client has no write call, and writeIfAbsent refuses (lakerec never writes to a
//   remote location);
// - keys are the table's location-relative keys under the location's prefix ('..' refused, the
//   prefix is the root); a path outside the table (an absolute path in the log) is refused unless
//   allowed, and even then never read from the local disk;
// - whole-file reads capped on the object's size before a byte is fetched;
// - Parquet for DuckDB comes from the bounded local cache (cache.ts), pinned until released.
import { LakerecError } from '../../shared/errors';
import { displayLocation, objectKey, type Location } from '../../shared/location';
import { readLimits, type ReadLimits } from './limits';
import { checkCap, noteAccess, outsideError, relativeSegments, type EngineFile, type FileMeta, type ReadCap, type Storage } from './storage';
import { sharedCache, type BlobCache } from './cache';
import { footerOnlyFile, readParquetFooter } from './footer';

export type RemoteLocation = Exclude<Location, { kind: 'local' }>;

/** One object of a listing or a head. */
export interface ObjectMeta {
  /** The full object key. */
  key: string;
  size: number;
  mtimeMs: number;
  /** The entity tag, when the store gives one (the cache checks it). */
  etag: string | null;
}

/** What an object store must provide to be read: four read-only calls, nothing that writes. */
export interface ObjectClient {
  /** Objects directly under `prefix` (which ends with '/'), ascending by key; keys after `startAfter` only, when given. */
  list(prefix: string, startAfter: string | undefined, signal?: AbortSignal): Promise<ObjectMeta[]>;
  /** The object's metadata; null when absent. */
  head(key: string, signal?: AbortSignal): Promise<ObjectMeta | null>;
  /** The object's bytes, or `length` bytes from `offset`; `not_found` when absent. */
  get(key: string, range?: { offset: number; length: number }, signal?: AbortSignal): Promise<Buffer>;
  /** The credential source the client uses, named in a 401/403 refusal (never the secret itself). */
  readonly credentialSource: string;
}

export interface ObjectStorageOptions {
  allowOutsidePaths?: boolean;
  limits?: Partial<ReadLimits>;
  cache?: BlobCache;
  /** Cancels every request in flight and refuses new ones (the job's Cancel). */
  signal?: AbortSignal;
}

/** Counts what a store fetched (progress, benchmarks, the counts-level "0 data bytes" figure). */
export interface TransferStats {
  requests: number;
  bytes: number;
  /** Bytes fetched for data files (Parquet outside _delta_log, DV files). */
  dataBytes: number;
  /** Listing calls, and the keys they returned (the log listed from a checkpoint lists fewer). */
  lists: number;
  listedKeys: number;
}

const isLog = (path: string): boolean => path.startsWith('_delta_log/');

export class ObjectStorage implements Storage {
  readonly root: string;
  readonly allowOutsidePaths: boolean;
  readonly limits: ReadLimits;
  readonly stats: TransferStats = { requests: 0, bytes: 0, dataBytes: 0, lists: 0, listedKeys: 0 };
  private readonly cache: BlobCache;
  private readonly metas = new Map<string, ObjectMeta>();
  private readonly signal: AbortSignal | undefined;

  constructor(readonly location: RemoteLocation, private readonly client: ObjectClient, opts: ObjectStorageOptions = {}) {
    this.root = displayLocation(location);
    this.allowOutsidePaths = opts.allowOutsidePaths ?? false;
    this.limits = readLimits(opts.limits);
    this.cache = opts.cache ?? sharedCache();
    this.signal = opts.signal;
  }

  private live(): AbortSignal | undefined {
    if (this.signal?.aborted) throw new LakerecError('cancelled', 'The job was cancelled.');
    return this.signal;
  }

  engineDirs(): string[] {
    return [this.cache.folderPath()];
  }

  describe(path: string): string {
    return path.startsWith('/') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(path) ? path : displayLocation(this.location, path);
  }

  /** The object key of a table path; an absolute or other-scheme path is never read from a remote table. */
  private key(path: string): string {
    if (path.startsWith('/') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) {
      if (!this.allowOutsidePaths) throw outsideError(path, this.root, 'is');
      throw new LakerecError('path_outside_table', `"${path}" is outside the remote table ${this.root}; a remote table's files are read only from under its location`, { path });
    }
    return objectKey(this.location, relativeSegments(path, this.root).join('/'));
  }

  private relative(key: string): string {
    const p = this.location.prefix;
    return p === '' ? key : key.slice(p.length + 1);
  }

  private count(path: string, bytes: number): void {
    this.stats.requests++;
    this.stats.bytes += bytes;
    if (!isLog(path)) this.stats.dataBytes += bytes;
  }

  async list(dir: string, opts: { startAfter?: string } = {}): Promise<FileMeta[] | null> {
    noteAccess('list', this.root, dir);
    const base = this.key(dir === '' ? '' : dir);
    const prefix = base === '' ? '' : `${base}/`;
    const after = opts.startAfter === undefined ? undefined : `${prefix}${opts.startAfter}`;
    const objects = await this.client.list(prefix, after, this.live());
    this.stats.requests++;
    this.stats.lists++;
    this.stats.listedKeys += objects.length;
    if (objects.length === 0 && after === undefined) return null;
    const out: FileMeta[] = [];
    for (const o of objects) {
      this.metas.set(o.key, o);
      out.push({ path: this.relative(o.key), size: o.size, mtimeMs: o.mtimeMs });
    }
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out;
  }

  private async meta(path: string): Promise<ObjectMeta | null> {
    const key = this.key(path);
    const known = this.metas.get(key);
    if (known) return known;
    const m = await this.client.head(key, this.live());
    this.stats.requests++;
    if (m) this.metas.set(key, m);
    return m;
  }

  async stat(path: string): Promise<FileMeta | null> {
    noteAccess('stat', this.root, path);
    const m = await this.meta(path);
    return m ? { path, size: m.size, mtimeMs: m.mtimeMs } : null;
  }

  private async mustMeta(path: string, what: string): Promise<ObjectMeta> {
    const m = await this.meta(path);
    if (!m) throw new LakerecError('not_found', `${what} ${this.describe(path)} does not exist`, { path });
    return m;
  }

  async read(path: string, cap: ReadCap): Promise<Buffer> {
    noteAccess('read', this.root, path);
    const m = await this.mustMeta(path, cap.what);
    checkCap(m.size, cap, this.describe(path));
    const bytes = await this.client.get(m.key, undefined, this.live());
    this.count(path, bytes.length);
    if (bytes.length !== m.size) {
      // A body cut short (or an object replaced between the listing and the read).
      throw new LakerecError('io_error', `${this.describe(path)} came back with ${bytes.length} of its ${m.size} bytes; the read is not trusted`, { path });
    }
    return bytes;
  }

  async readRange(path: string, offset: number, length: number): Promise<Buffer> {
    noteAccess('readRange', this.root, path);
    const m = await this.mustMeta(path, 'file');
    if (offset >= m.size || length <= 0) return Buffer.alloc(0);
    const len = Math.min(length, m.size - offset);
    const bytes = await this.client.get(m.key, { offset, length: len }, this.live());
    this.count(path, bytes.length);
    if (bytes.length !== len) throw new LakerecError('io_error', `a range of ${this.describe(path)} came back with ${bytes.length} of ${len} bytes`, { path });
    return bytes;
  }

  async writeIfAbsent(path: string): Promise<boolean> {
    throw new LakerecError('usage', `lakerec never writes to a remote location (${this.describe(path)})`);
  }

  async engineFile(path: string, cap?: ReadCap, signal?: AbortSignal): Promise<EngineFile> {
    if (signal?.aborted) throw new LakerecError('cancelled', 'The job was cancelled.');
    const m = await this.mustMeta(path, cap?.what ?? 'file');
    if (cap) checkCap(m.size, cap, this.describe(path));
    return this.cache.pin(
      { id: `${this.root}\u0000${path}`, size: m.size, mtimeMs: m.mtimeMs, etag: m.etag, name: path.split('/').pop() ?? 'file' },
      async () => {
        // The store's signal (the open's) and the job's: either one aborts the download in flight.
        const own = this.live();
        const both = own && signal ? AbortSignal.any([own, signal]) : own ?? signal;
        let bytes: Buffer;
        try {
          bytes = await this.client.get(m.key, undefined, both);
        } catch (e) {
          if (signal?.aborted) throw new LakerecError('cancelled', 'The job was cancelled.');
          throw e;
        }
        this.count(path, bytes.length);
        if (bytes.length !== m.size) throw new LakerecError('io_error', `${this.describe(path)} came back with ${bytes.length} of its ${m.size} bytes; the read is not trusted`, { path });
        return bytes;
      },
    );
  }

  /**
   * A name DuckDB's Parquet metadata functions (parquet_schema, parquet_metadata,
   * parquet_file_metadata) read the file's footer by, fetched by range requests (footer.ts), not
   * the whole object; cached like engineFile, under its own key.
   */
  async footerFile(path: string, signal?: AbortSignal): Promise<EngineFile> {
    if (signal?.aborted) throw new LakerecError('cancelled', 'The job was cancelled.');
    const m = await this.mustMeta(path, 'file');
    const { footer } = await readParquetFooter(this, path);
    const bytes = footerOnlyFile(footer);
    return this.cache.pin(
      { id: `${this.root}\u0000${path}\u0000footer`, size: bytes.length, mtimeMs: m.mtimeMs, etag: m.etag, name: `footer-${path.split('/').pop() ?? 'file'}` },
      async () => bytes,
    );
  }
}

/**
 * A name DuckDB's Parquet metadata functions can read a data file's footer by: a remote store's
 * footer-only copy (range requests, never the whole object); any other store's own engine file (a
 * local file, whose footer DuckDB reads without its data pages). Release it when done.
 */
export async function footerEngineFile(storage: Storage, path: string, signal?: AbortSignal): Promise<EngineFile> {
  return storage instanceof ObjectStorage ? storage.footerFile(path, signal) : storage.engineFile(path, undefined, signal);
}

/** Runs `fn` over items with at most `limit` in flight, results in order. */
export async function bounded<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
