// The conformance corpus read from real object-store servers reads identically to the local read:
// s3rver (S3) and Azurite (Azure Blob, the ADLS Blob endpoint), each started here on a loopback free
// port and stopped after, with ../shared/conformance uploaded to it. For every table: the open's
// outcome, the versions, every version's change set, and the latest snapshot's rows equal the local
// read's apart from location strings; the CLI's snapshot, history and forensics --json too.
// A recording proxy in front of each server shows every command only reads (GET and HEAD).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { LakerecError } from '../../shared/errors';
import { openTable } from '../delta/open';
import type { DeltaTable } from '../delta/table';
import { registerSnapshotView, dropSnapshotView } from '../delta/scan';
import { openDuck, sqlIdent, type Duck } from '../engine/duck';
import { runCli } from '../cli/main';
import { filesUnder, s3Env, s3Putter, startAzurite, startProxy, startS3rver, uploadFolder, withProcessEnv, type Proxy, type RunningServer } from '../testing/object-servers';
import { sharedCache } from './cache';

const shared = resolve(__dirname, '..', '..', '..', 'shared');
const conformance = join(shared, 'conformance');
const have = existsSync(conformance);
if (!have) console.log(`remote conformance tests skipped: ${conformance} is absent (the shared conformance tables are not on this machine)`);

/** Every table of the corpus: the folders holding a _delta_log, relative to the corpus. */
const tables = have ? [...new Set(filesUnder(conformance).filter((f) => f.includes('_delta_log/')).map((f) => f.slice(0, f.indexOf('/_delta_log/'))))].sort() : [];

let s3: RunningServer;
let az: RunningServer & { connectionString: string };
let s3Proxy: Proxy;
let azProxy: Proxy;
let duck: Duck;
const env: { s3: NodeJS.ProcessEnv; azure: NodeJS.ProcessEnv } = { s3: {}, azure: {} };

beforeAll(async () => {
  if (!have) return;
  [s3, az] = await Promise.all([startS3rver(['lake']), startAzurite()]);
  s3Proxy = await startProxy(s3.endpoint);
  azProxy = await startProxy(az.endpoint);
  env.s3 = s3Env(s3Proxy.endpoint);
  env.azure = { AZURE_STORAGE_CONNECTION_STRING: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${az.connectionString.match(/AccountKey=([^;]+)/)![1]};BlobEndpoint=${azProxy.endpoint}/devstoreaccount1;` };
  // Setup writes straight to the servers (not through the proxies): the test uploads, lakerec reads.
  const put = await s3Putter(s3.endpoint, 'lake');
  const container = BlobServiceClient.fromConnectionString(az.connectionString).getContainerClient('lake');
  await container.create();
  await Promise.all([
    uploadFolder(conformance, 'conformance', put),
    uploadFolder(conformance, 'conformance', async (key, bytes) => { await container.getBlockBlobClient(key).uploadData(bytes); }),
  ]);
  duck = await openDuck({ threads: 1 });
}, 240_000);

afterAll(async () => {
  duck?.close();
  await Promise.all([s3Proxy?.close(), azProxy?.close()]);
  await Promise.all([s3?.close(), az?.close()]);
  sharedCache().dispose();
});

const remote = (kind: 's3' | 'azure', t: string): string =>
  kind === 's3' ? `s3://lake/conformance/${t}` : `abfss://lake@devstoreaccount1.dfs.core.windows.net/conformance/${t}`;

async function opened(loc: string, e?: NodeJS.ProcessEnv): Promise<DeltaTable | LakerecError> {
  try {
    return await openTable(loc, { env: e });
  } catch (err) {
    if (err instanceof LakerecError) return err;
    throw err;
  }
}

/** What a table reads as, location strings left out: versions, change sets, the latest rows. */
async function readAll(t: DeltaTable | LakerecError, view: string): Promise<unknown> {
  if (t instanceof LakerecError) return { open: t.code };
  const versions = t.versions();
  const changes = (await t.changes()).map((c) => ({
    ...c,
    // A commit without a timestamp of its own is dated by its file: the upload's time, not the disk's.
    timestamp: c.timestampSource === 'file_mtime' || c.timestampSource === 'checkpoint_mtime' ? null : c.timestamp,
  }));
  let rows: unknown;
  try {
    const snap = await t.snapshot();
    await registerSnapshotView(duck.conn, snap, view);
    const cols = (await duck.conn.runAndReadAll(`DESCRIBE ${sqlIdent(view)}`)).getRows().map((r) => String(r[0]));
    const r = await duck.conn.runAndReadAll(`SELECT ${cols.map((c) => `CAST(${sqlIdent(c)} AS VARCHAR)`).join(', ')} FROM ${sqlIdent(view)}`);
    rows = { numRecords: snap.numRecords, files: snap.files.map((f) => f.path).sort(), rows: r.getRows().map((x) => JSON.stringify(x)).sort() };
    await dropSnapshotView(duck.conn, view);
  } catch (err) {
    rows = { snapshot: err instanceof LakerecError ? err.code : String(err) };
  }
  return { versions, changes, rows };
}

describe.skipIf(!have)('the conformance corpus from s3rver and Azurite reads as it does from disk', () => {
  test('the corpus has tables', () => {
    expect(tables.length).toBeGreaterThan(50);
  });

  test.each(tables)('%s', async (t) => {
    const local = await readAll(await opened(join(conformance, t)), 'local_v');
    for (const kind of ['s3', 'azure'] as const) {
      const got = await readAll(await opened(remote(kind, t), env[kind]), `${kind}_v`);
      expect(got, `${kind}: ${t}`).toEqual(local);
    }
  }, 180_000);
});

/** Runs the CLI; stdout, stderr, exit code. */
async function cli(args: string[], e: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  // The stores read credentials and endpoints from the process's environment (as a user's shell gives them).
  const code = await withProcessEnv(e, () => runCli(args, { out: (x) => out.push(x), err: (x) => err.push(x), cwd: dirname(conformance), env: e }));
  return { code, out: out.join(''), err: err.join('') };
}

describe.skipIf(!have)('the CLI over a remote location', () => {
  const t = 'delta-rs/simple_table_with_checkpoint';
  const cases: string[][] = [['history'], ['history', '--json'], ['forensics', '--json'], ['forensics']];

  test.each(cases)('%s gives the local output apart from location strings, and only reads', async (...cmd: string[]) => {
    const localRoot = join(conformance, t);
    const base = await cli([cmd[0], localRoot, ...cmd.slice(1)], {});
    for (const kind of ['s3', 'azure'] as const) {
      const proxy = kind === 's3' ? s3Proxy : azProxy;
      proxy.requests.length = 0;
      const loc = remote(kind, t);
      const got = await cli([cmd[0], loc, ...cmd.slice(1)], env[kind]);
      expect(got.err).toBe(base.err.split(localRoot).join(loc));
      expect(got.code).toBe(base.code);
      const norm = (s: string): string => s.split(loc).join('<table>').split(localRoot).join('<table>')
        // file-time dates differ between the disk and the upload
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>').replace(/"(timestamp|mtime\w*)": ?\d+/g, '"$1":0');
      expect(norm(got.out)).toBe(norm(base.out));
      expect(proxy.requests.length).toBeGreaterThan(0);
      expect(proxy.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD')).toEqual([]);
    }
  }, 60_000);

  test('a remote output path is refused with exit 2, and nothing is written', async () => {
    s3Proxy.requests.length = 0;
    const r = await cli(['snapshot', remote('s3', t), '--out', 's3://lake/out.json'], env.s3);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/remote|local/);
    expect(s3Proxy.requests.filter((q) => q.method !== 'GET' && q.method !== 'HEAD')).toEqual([]);
  });
});
