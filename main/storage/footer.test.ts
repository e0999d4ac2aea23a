// Parquet footers by range request: over a real s3rver and Azurite (each started here on loopback),
// a footer-only read fetches the footer, not the file, and DuckDB's metadata functions read the
// footer-only copy exactly as the whole local file. A hostile file (bad magic, a footer length
// larger than the file, too short) gives one clear line.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { LakerecError } from '../../shared/errors';
import { parseLocation } from '../../shared/location';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { azuriteConnectionString, s3Env, s3Putter, startAzurite, startS3rver, type RunningServer } from '../testing/object-servers';
import { sharedCache } from './cache';
import { FOOTER_SUFFIX_BYTES, footerOnlyFile, readParquetFooter } from './footer';
import { MemoryStorage } from './memory';
import { ObjectStorage } from './object';
import { storageFor } from './open';

let s3: RunningServer;
let az: RunningServer & { connectionString: string };
let duck: Duck;
let dir: string;
/** A file of 200k rows with a small footer, and one of 700 columns whose footer is over 64 KiB. */
const files = { small: 'data/small.parquet', wide: 'data/wide.parquet' } as const;
const local: Record<keyof typeof files, string> = { small: '', wide: '' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-footer-'));
  local.small = join(dir, 'small.parquet');
  local.wide = join(dir, 'wide.parquet');
  duck = await openDuck({ threads: 1 });
  await duck.conn.run(`COPY (SELECT range AS id, md5(range::VARCHAR) AS h, range % 7 AS p FROM range(200000)) TO ${sqlString(local.small)} (FORMAT parquet)`);
  const cols = Array.from({ length: 700 }, (_, i) => `range + ${i} AS column_with_a_long_name_${i}`).join(', ');
  await duck.conn.run(`COPY (SELECT ${cols} FROM range(2000)) TO ${sqlString(local.wide)} (FORMAT parquet)`);
  [s3, az] = await Promise.all([startS3rver(['lake']), startAzurite()]);
  const put = await s3Putter(s3.endpoint, 'lake');
  const container = BlobServiceClient.fromConnectionString(az.connectionString).getContainerClient('lake');
  await container.create();
  for (const k of ['small', 'wide'] as const) {
    const bytes = readFileSync(local[k]);
    await put(`t/${files[k]}`, bytes);
    await container.getBlockBlobClient(`t/${files[k]}`).uploadData(bytes);
  }
}, 240_000);

afterAll(async () => {
  duck?.close();
  await Promise.all([s3?.close(), az?.close()]);
  sharedCache().dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function store(kind: 's3' | 'azure'): Promise<ObjectStorage> {
  const loc = kind === 's3' ? 's3://lake/t' : 'abfss://lake@devstoreaccount1.dfs.core.windows.net/t';
  const env = kind === 's3' ? s3Env(s3.endpoint) : { AZURE_STORAGE_CONNECTION_STRING: azuriteConnectionString(az.endpoint) };
  const s = await storageFor(parseLocation(loc), { env });
  if (!(s instanceof ObjectStorage)) throw new Error('not an object store');
  return s;
}

/** What DuckDB's metadata functions say of a file, its name left out. */
async function metadataOf(file: string): Promise<unknown> {
  const q = async (sql: string): Promise<unknown[]> => (await duck.conn.runAndReadAll(sql)).getRowObjectsJson();
  const f = sqlString(file);
  return {
    schema: await q(`SELECT * EXCLUDE (file_name) FROM parquet_schema(${f})`),
    // file_size_bytes is the copy's own size (the footer-only file); the real size comes from stat.
    file: await q(`SELECT * EXCLUDE (file_name, file_size_bytes) FROM parquet_file_metadata(${f})`),
    groups: await q(`SELECT * EXCLUDE (file_name) FROM parquet_metadata(${f}) ORDER BY row_group_id, column_id`),
  };
}

describe.each(['s3', 'azure'] as const)('footers by range on %s', (kind) => {
  test.each(['small', 'wide'] as const)('the %s file: a fraction of its bytes fetched, the same metadata as the local file', async (k) => {
    const s = await store(kind);
    const size = readFileSync(local[k]).length;
    const before = s.stats.bytes;
    const ef = await s.footerFile(files[k]);
    try {
      const fetched = s.stats.bytes - before;
      const f = await readParquetFooter(new MemoryStorageOf(local[k]), 'f.parquet');
      // The footer and at most one suffix range beside it: never the file.
      expect(fetched).toBe(Math.max(FOOTER_SUFFIX_BYTES, f.footer.length + 8));
      expect(f.bytesFetched).toBe(fetched);
      expect(fetched).toBeLessThan(size / 4);
      expect(f.ranges).toBe(k === 'wide' ? 2 : 1);
      expect(await metadataOf(ef.path)).toEqual(await metadataOf(local[k]));
      console.log(`${kind} ${k}: ${fetched} bytes fetched for the footer of a ${size}-byte file (footer ${f.footer.length} bytes, ${f.ranges} range${f.ranges === 1 ? '' : 's'})`);
    } finally {
      await ef.release();
    }
  });

  test('a missing file is not_found', async () => {
    const s = await store(kind);
    await expect(s.footerFile('data/absent.parquet')).rejects.toMatchObject({ code: 'not_found' });
  });
});

/** The local file in a memory store (the range reader's own behaviour, no server). */
class MemoryStorageOf extends MemoryStorage {
  constructor(file: string) {
    super();
    this.put('f.parquet', readFileSync(file));
  }
}

describe('hostile footers', () => {
  const errorOf = async (bytes: Buffer): Promise<LakerecError> => {
    const m = new MemoryStorage();
    m.put('x.parquet', bytes);
    try {
      await readParquetFooter(m, 'x.parquet');
    } catch (e) {
      if (e instanceof LakerecError) return e;
      throw e;
    }
    throw new Error('no error');
  };
  const withLen = (n: number, body = 100): Buffer => {
    const b = Buffer.alloc(body + 12);
    b.write('PAR1', 0, 'ascii');
    b.writeUInt32LE(n, b.length - 8);
    b.write('PAR1', b.length - 4, 'ascii');
    return b;
  };

  test('a footer length larger than the file', async () => {
    const e = await errorOf(withLen(0xfffffff0));
    expect(e.code).toBe('io_error');
    expect(e.message).toBe(`data file x.parquet is not a readable Parquet file: its footer length (${0xfffffff0} bytes) is larger than the file (112 bytes)`);
    expect(e.message).not.toContain('\n');
  });

  test('a bad magic', async () => {
    const b = withLen(10);
    b.write('PAR2', b.length - 4, 'ascii');
    const e = await errorOf(b);
    expect(e.message).toBe('data file x.parquet is not a readable Parquet file: it does not end with the Parquet magic "PAR1"');
  });

  test('a file shorter than magic, length and magic', async () => {
    const e = await errorOf(Buffer.from('PAR1PAR1'));
    expect(e.message).toBe("data file x.parquet is not a readable Parquet file: it is 8 bytes, shorter than a Parquet file's magic, footer length and magic (12)");
  });

  test('a footer that fits exactly (length + 12 = size) is read', async () => {
    const f = await readParquetFooter((() => { const m = new MemoryStorage(); m.put('x.parquet', footerOnlyFile(Buffer.from('abc'))); return m; })(), 'x.parquet');
    expect(f.footer.toString()).toBe('abc');
    expect(f.ranges).toBe(1);
  });
});
