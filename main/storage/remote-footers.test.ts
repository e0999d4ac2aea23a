// The counts level over a remote table whose log carries no numRecords for some files: those files'
// rows come from their Parquet footers by range request (footer.ts), on s3rver and on Azurite (each
// started here on loopback): the answer equals the local run's, and the bytes the store fetched are
// a small fraction of the data files' sizes (the store's byte counters), with no whole data file
// fetched.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { openTable } from '../delta/open';
import { reconcile } from '../reconcile/reconcile';
import { writeRemoteFixture, type RemoteTableFixture } from '../bench/remote-reconcile';
import { filesUnder } from '../bench/remote-log';
import { azuriteConnectionString, s3Env, s3Putter, startAzurite, startS3rver, AZURITE_ACCOUNT, type RunningServer } from '../testing/object-servers';
import { BlobCache } from './cache';
import { ObjectStorage } from './object';

let s3: RunningServer;
let az: RunningServer & { connectionString: string };
let dir: string;
let fx: RemoteTableFixture;
const kinds = ['s3', 'azure'] as const;
type Kind = typeof kinds[number];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-remote-footers-'));
  fx = await writeRemoteFixture(dir, { filesPerDay: 2, rowsPerFile: 20_000 });
  [s3, az] = await Promise.all([startS3rver(['lake']), startAzurite()]);
  const put = await s3Putter(s3.endpoint, 'lake');
  const container = BlobServiceClient.fromConnectionString(az.connectionString).getContainerClient('lake');
  await container.create();
  for (const f of filesUnder(fx.table)) {
    const key = `t/${relative(fx.table, f).split(sep).join('/')}`;
    const bytes = readFileSync(f);
    await put(key, bytes);
    await container.getBlockBlobClient(key).uploadData(bytes);
  }
}, 240_000);

afterAll(async () => {
  await Promise.all([s3?.close(), az?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const location = (kind: Kind): string => (kind === 's3' ? 's3://lake/t' : `abfss://lake@${AZURITE_ACCOUNT}.dfs.core.windows.net/t`);
const envOf = (kind: Kind): NodeJS.ProcessEnv => (kind === 's3' ? s3Env(s3.endpoint) : { AZURE_STORAGE_CONNECTION_STRING: azuriteConnectionString(az.endpoint) });

describe.each(kinds)('the counts level on %s, half the files without numRecords', (kind) => {
  test('the same answer as the local run, from the footers: a fraction of the data files\' bytes fetched', async () => {
    const local = await reconcile({ source: fx.source, target: { root: fx.table }, contract: fx.contract, level: 'counts' });
    const cache = new BlobCache();
    try {
      const table = await openTable(location(kind), { env: envOf(kind), cache });
      const remote = await reconcile({ source: fx.source, target: { root: table.root, table }, contract: fx.contract, level: 'counts' });
      const shape = (r: typeof local) => ({ verdict: r.verdict, partitions: r.partitions, findings: r.findings, notes: r.notes, reads: r.reads });
      expect(shape(remote)).toEqual(shape(local));
      expect(remote.notes.some((n) => /6 of 12 files carry no numRecords in the log, so their rows were counted from their Parquet footers/.test(n))).toBe(true);
      // The divergent day is found (one row fewer in the table).
      expect(remote.partitions.find((p) => p.value === '2026-03-04')).toMatchObject({ sourceRows: 40_000, targetRows: 39_999 });
      expect(table.storage).toBeInstanceOf(ObjectStorage);
      const stats = (table.storage as ObjectStorage).stats;
      const dataFiles = filesUnder(fx.table).filter((f) => !f.includes(`${sep}_delta_log${sep}`)).reduce((a, f) => a + readFileSync(f).length, 0);
      // Six footers by range, not six (or twelve) whole files: well under a third of the data's bytes.
      expect(stats.dataBytes).toBeGreaterThan(0);
      expect(stats.dataBytes).toBeLessThan(dataFiles / 3);
      expect(stats.dataBytes).toBeLessThan(6 * 64 * 1024 + 1);
      // Nothing but footer-only copies went into the cache.
      expect(cache.peak).toBeLessThan(6 * 64 * 1024);
    } finally {
      cache.dispose();
    }
  }, 120_000);
});
