// The engine-file cache: never above its cap, least recently used unpinned entries out, a pinned
// entry kept, a changed ETag fetched again, a file larger than the cap refused, the folder removed.
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LakerecError } from '../../shared/errors';
import { BlobCache, cacheCapBytes, DEFAULT_CACHE_MB } from './cache';

const item = (id: string, size: number, etag = 'e1') => ({ id, size, mtimeMs: 1, etag, name: `${id}.parquet` });
const bytes = (n: number, fill = 1) => Buffer.alloc(n, fill);

describe('BlobCache', () => {
  it('keeps within its cap, evicting the least recently used unpinned copy', async () => {
    const c = new BlobCache(300);
    let fetches = 0;
    const fetch = (n: number) => async () => { fetches++; return bytes(n); };
    const a = await c.pin(item('a', 100), fetch(100));
    await a.release();
    const b = await c.pin(item('b', 100), fetch(100));
    await b.release();
    // a used again: b is now the least recently used.
    await (await c.pin(item('a', 100), fetch(100))).release();
    expect(fetches).toBe(2);
    const d = await c.pin(item('d', 150), fetch(150));
    expect(c.bytes).toBeLessThanOrEqual(300);
    expect(c.peak).toBeLessThanOrEqual(300);
    await (await c.pin(item('a', 100), fetch(100))).release();
    expect(fetches).toBe(3); // a stayed; b was evicted for d
    await (await c.pin(item('b', 100), fetch(100))).release();
    expect(fetches).toBe(4);
    await d.release();
    c.dispose();
  });

  it('never evicts a pinned copy, and says so when the open files need more than the cap', async () => {
    const c = new BlobCache(200);
    const a = await c.pin(item('a', 150), async () => bytes(150));
    expect(readFileSync(a.path).length).toBe(150);
    await expect(c.pin(item('b', 100), async () => bytes(100))).rejects.toThrow(/LAKEREC_CACHE_MB/);
    expect(existsSync(a.path)).toBe(true);
    await a.release();
    const b = await c.pin(item('b', 100), async () => bytes(100));
    expect(existsSync(a.path)).toBe(false);
    await b.release();
    c.dispose();
  });

  it('fetches again when the ETag changed, and refuses a file larger than the whole cap', async () => {
    const c = new BlobCache(1000);
    const one = await c.pin(item('a', 10, 'v1'), async () => bytes(10, 1));
    await one.release();
    const two = await c.pin(item('a', 10, 'v2'), async () => bytes(10, 2));
    expect(readFileSync(two.path)[0]).toBe(2);
    await two.release();
    const e = await c.pin(item('huge', 2000), async () => bytes(1)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LakerecError);
    expect((e as LakerecError).code).toBe('limit_exceeded');
    const folder = dirname(two.path);
    c.dispose();
    expect(existsSync(folder)).toBe(false);
  });

  it('has a documented default cap and a knob', () => {
    expect(cacheCapBytes({})).toBe(DEFAULT_CACHE_MB * 1048576);
    expect(cacheCapBytes({ LAKEREC_CACHE_MB: '16' })).toBe(16 * 1048576);
    expect(cacheCapBytes({ LAKEREC_CACHE_MB: 'nope' })).toBe(DEFAULT_CACHE_MB * 1048576);
  });
});
