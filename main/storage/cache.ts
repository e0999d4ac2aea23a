// The local cache of remote files DuckDB reads (Parquet data files, checkpoints): inside one temp
// sandbox folder (engine/tempdirs: removed at exit, and by the next start after a crash), bounded
// by a cap (LAKEREC_CACHE_MB, default 2048 MB), least recently used out. An entry is keyed by the
// file's location + size + modification time and checked against its ETag: a file replaced under
// the same name is fetched again. An entry in use (pinned by an open view) is never evicted; a file
// larger than the whole cap is refused by name.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { LakerecError } from '../../shared/errors';
import { makeTempDir, removeTempDir } from '../engine/tempdirs';
import type { EngineFile } from './storage';

export const CACHE_KNOB = 'LAKEREC_CACHE_MB';
export const DEFAULT_CACHE_MB = 2048;

export interface CacheItem {
  /** The file's identity: location + path. */
  id: string;
  size: number;
  mtimeMs: number;
  etag: string | null;
  /** A readable file name for the copy (DuckDB names files in its errors). */
  name: string;
}

interface Entry { file: string; size: number; etag: string | null; pins: number }

export function cacheCapBytes(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[CACHE_KNOB]);
  return Math.floor((Number.isFinite(n) && n > 0 ? n : DEFAULT_CACHE_MB) * 1048576);
}

export class BlobCache {
  private dir: string | null = null;
  /** Insertion order is recency: a hit moves its entry to the end. */
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<Entry>>();
  private used = 0;
  /** The most the cache ever held (the benchmark's "never above its cap"). */
  peak = 0;
  hits = 0;
  misses = 0;

  constructor(readonly capBytes = cacheCapBytes()) {}

  get bytes(): number {
    return this.used;
  }

  /** The cache's folder (made now if it does not exist yet). */
  folderPath(): string {
    return this.folder();
  }

  private folder(): string {
    if (!this.dir) this.dir = makeTempDir('cache');
    return this.dir;
  }

  private keyOf(item: CacheItem): string {
    return createHash('sha256').update(`${item.id}\u0000${item.size}\u0000${item.mtimeMs}`).digest('hex').slice(0, 32);
  }

  /** A local copy of the item, fetched if absent or stale, pinned until release(). */
  async pin(item: CacheItem, fetch: () => Promise<Buffer>): Promise<EngineFile> {
    if (item.size > this.capBytes) {
      throw new LakerecError('limit_exceeded',
        `${item.name} is ${(item.size / 1048576).toFixed(1)} MB, larger than the whole local cache (${(this.capBytes / 1048576).toFixed(0)} MB); raise it with ${CACHE_KNOB}=<MB>`,
        { size: item.size, limit: this.capBytes });
    }
    const key = this.keyOf(item);
    let e = this.entries.get(key);
    if (e && e.etag !== item.etag) {
      if (e.pins === 0) this.drop(key, e);
      e = undefined;
    }
    if (e) {
      this.hits++;
      this.entries.delete(key);
      this.entries.set(key, e);
    } else {
      let p = this.inflight.get(key);
      if (!p) {
        this.misses++;
        p = this.fetchInto(key, item, fetch);
        this.inflight.set(key, p);
        p.then(() => this.inflight.delete(key), () => this.inflight.delete(key));
      }
      e = await p;
    }
    e.pins++;
    const entry = e;
    let released = false;
    return {
      path: entry.file,
      release: async () => {
        if (released) return;
        released = true;
        entry.pins--;
        this.evict();
      },
    };
  }

  private async fetchInto(key: string, item: CacheItem, fetch: () => Promise<Buffer>): Promise<Entry> {
    const bytes = await fetch();
    this.evict(bytes.length);
    this.used += bytes.length;
    const safe = item.name.replace(/[^A-Za-z0-9._-]/g, '_').slice(-80);
    const file = join(this.folder(), `${key}-${safe}`);
    const tmp = `${file}.part`;
    writeFileSync(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, file);
    const e: Entry = { file, size: bytes.length, etag: item.etag, pins: 0 };
    this.entries.set(key, e);
    if (this.used > this.peak) this.peak = this.used;
    return e;
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.used -= e.size;
    rmSync(e.file, { force: true });
  }

  /** Least recently used unpinned entries out until `incoming` more bytes fit within the cap. */
  private evict(incoming = 0): void {
    if (this.used + incoming <= this.capBytes) return;
    for (const [k, e] of this.entries) {
      if (this.used + incoming <= this.capBytes) break;
      if (e.pins === 0) this.drop(k, e);
    }
    if (this.used + incoming > this.capBytes) {
      throw new LakerecError('limit_exceeded',
        `the files this job has open need more than the local cache's ${(this.capBytes / 1048576).toFixed(0)} MB; raise it with ${CACHE_KNOB}=<MB>`,
        { limit: this.capBytes });
    }
  }

  /** Removes every copy and the folder (end of a job, cancel; exit removes it too). */
  dispose(): void {
    this.entries.clear();
    this.used = 0;
    if (this.dir) removeTempDir(this.dir);
    this.dir = null;
  }
}

let shared: BlobCache | null = null;
/** The process's one cache (its folder is made on first use). */
export function sharedCache(): BlobCache {
  if (!shared) shared = new BlobCache();
  return shared;
}
