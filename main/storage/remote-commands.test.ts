// More commands over a remote table than snapshot/history/forensics (remote.test.ts): reconcile at
// counts and rows level, the data laws, the incident report, bisect, diff, the rows grid and the
// partitions screen, each over a small sample lake uploaded to s3rver and to Azurite (one of each,
// started here on loopback free ports), each equal to the same command over the local copy apart
// from location strings. The CLI is given its environment only through io.env (never
// process.env), so these runs also show the engine reads the CLI's injected environment; and
// `--anonymous` sends unsigned requests.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { runCli } from '../cli/main';
import { partitionHealth } from '../views/partitions';
import { RowsService } from '../views/rows';
import { azuriteConnectionString, s3Env, s3Putter, startAzurite, startProxy, startS3rver, uploadFolder, AZURITE_ACCOUNT, type Proxy, type RunningServer } from '../testing/object-servers';
import { sharedCache } from './cache';
import { withStoreSettings } from './settings';
import type { ObjectStorage } from './object';

const lakes = resolve(__dirname, '..', '..', 'sample-lakes', 'built');
const have = existsSync(join(lakes, 'double_load', 'table', '_delta_log')) && existsSync(join(lakes, 'bisect_many_versions', 'table', '_delta_log'));

let s3: RunningServer;
let az: RunningServer & { connectionString: string };
let s3Proxy: Proxy;
let azProxy: Proxy;
let out: string;
const env: { s3: NodeJS.ProcessEnv; azure: NodeJS.ProcessEnv } = { s3: {}, azure: {} };
const kinds = ['s3', 'azure'] as const;
type Kind = typeof kinds[number];

beforeAll(async () => {
  if (!have) return;
  const t0 = Date.now();
  out = mkdtempSync(join(tmpdir(), 'lakerec-remote-cmds-'));
  [s3, az] = await Promise.all([startS3rver(['lake']), startAzurite()]);
  [s3Proxy, azProxy] = await Promise.all([startProxy(s3.endpoint), startProxy(az.endpoint)]);
  env.s3 = s3Env(s3Proxy.endpoint);
  env.azure = { AZURE_STORAGE_CONNECTION_STRING: azuriteConnectionString(azProxy.endpoint) };
  const put = await s3Putter(s3.endpoint, 'lake');
  const container = BlobServiceClient.fromConnectionString(az.connectionString).getContainerClient('lake');
  // A public container: the anonymous test reads it unsigned.
  await container.create({ access: 'container' });
  const azPut = async (key: string, bytes: Buffer): Promise<void> => { await container.getBlockBlobClient(key).uploadData(bytes); };
  for (const lake of ['double_load', 'bisect_many_versions']) {
    // Under <lake>/table, as on disk: reports name a table by its last two path segments.
    await Promise.all([uploadFolder(join(lakes, lake, 'table'), `${lake}/table`, put), uploadFolder(join(lakes, lake, 'table'), `${lake}/table`, azPut)]);
  }
  console.log(`remote-commands setup: servers started and ${kinds.length} x 2 lakes uploaded in ${Date.now() - t0} ms`);
}, 180_000);

afterAll(async () => {
  await Promise.all([s3Proxy?.close(), azProxy?.close()]);
  await Promise.all([s3?.close(), az?.close()]);
  sharedCache().dispose();
  if (out) rmSync(out, { recursive: true, force: true });
}, 60_000);

const remote = (kind: Kind, lake: string): string =>
  kind === 's3' ? `s3://lake/${lake}/table` : `abfss://lake@${AZURITE_ACCOUNT}.dfs.core.windows.net/${lake}/table`;
const proxyOf = (kind: Kind): Proxy => (kind === 's3' ? s3Proxy : azProxy);

async function cli(args: string[], e: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string }> {
  const o: string[] = [];
  const er: string[] = [];
  // The environment is the CLI's io.env only: nothing is put into process.env.
  const code = await runCli(args, { out: (x) => o.push(x), err: (x) => er.push(x), cwd: lakes, env: e });
  return { code, out: o.join(''), err: er.join('') };
}

/** A text with the table's location strings, times and durations made comparable. */
function norm(s: string, locs: string[]): string {
  let t = s;
  for (const l of locs) t = t.split(l).join('<table>');
  return t
    .replace(/\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?Z?/g, '<time>')
    .replace(/"(timestamp|mtime\w*|generatedAt|elapsedMs|ms|durationMs)": ?("[^"]*"|\d+(\.\d+)?)/g, '"$1":0')
    .replace(/\d+(\.\d+)? ?(ms|s)\b/g, '<dur>');
}

/** Runs a command over the local table and over each remote copy: same exit, same output apart from locations; only reads. */
async function sameEverywhere(lake: string, build: (table: string) => string[], check?: (kind: Kind, got: { code: number; out: string }) => void, localCopy?: string): Promise<void> {
  const local = localCopy ?? join(lakes, lake, 'table');
  const base = await cli(build(local), {});
  expect(base.err, 'local run').toBe('');
  for (const kind of kinds) {
    const proxy = proxyOf(kind);
    proxy.requests.length = 0;
    const loc = remote(kind, lake);
    const got = await cli(build(loc), env[kind]);
    expect(got.err, `${kind} stderr`).toBe('');
    expect(got.code, `${kind} exit`).toBe(base.code);
    expect(norm(got.out, [loc, local]), kind).toBe(norm(base.out, [local, loc]));
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(proxy.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD'), `${kind}: only reads`).toEqual([]);
    check?.(kind, got);
  }
}

const source = join(lakes, 'double_load', 'source', 'orders.parquet');
const contract = join(lakes, 'double_load', 'contract.yaml');

describe.skipIf(!have)('commands over a table on s3rver and on Azurite read as over the local copy', () => {
  test('reconcile at counts level (no data-file bytes)', async () => {
    await sameEverywhere('double_load', (t) => ['reconcile', source, t, '--contract', contract, '--level', 'counts', '--json']);
  }, 60_000);

  test('reconcile at rows level, with the data laws', async () => {
    await sameEverywhere('double_load', (t) => ['reconcile', source, t, '--contract', contract, '--level', 'rows', '--json']);
  }, 90_000);

  test('the data laws on their own', async () => {
    await sameEverywhere('double_load', (t) => ['laws', source, t, '--contract', contract, '--json']);
  }, 60_000);

  test('the incident report (reconcile --html): the same report apart from locations', async () => {
    const local = join(lakes, 'double_load', 'table');
    const html = (name: string): string => join(out, `${name}.html`);
    const base = await cli(['reconcile', source, local, '--contract', contract, '--level', 'rows', '--html', html('local')], {});
    for (const kind of kinds) {
      const loc = remote(kind, 'double_load');
      const got = await cli(['reconcile', source, loc, '--contract', contract, '--level', 'rows', '--html', html(kind)], env[kind]);
      expect(got.err).toBe('');
      expect(got.code).toBe(base.code);
      const text = readFileSync(html(kind), 'utf8');
      expect(text).toContain(loc);
      expect(norm(text, [loc, local])).toBe(norm(readFileSync(html('local'), 'utf8'), [local, loc]));
    }
  }, 120_000);

  test('bisect finds the same first bad version', async () => {
    await sameEverywhere('bisect_many_versions', (t) => ['bisect', t, '--predicate', 'unique-keys', '--keys', 'order_id', '--json'], (_k, got) => {
      expect((JSON.parse(got.out) as { firstBad: number }).firstBad).toBe(42);
    });
  }, 120_000);

  test('diff of two versions', async () => {
    // The local run from a copy without the sample lake's contract beside it (a contract beside a
    // remote table is not looked for: the keys are given).
    const copy = join(out, 'bisect_many_versions', 'table');
    cpSync(join(lakes, 'bisect_many_versions', 'table'), copy, { recursive: true });
    await sameEverywhere('bisect_many_versions', (t) => ['diff', t, '--from', '41', '--to', '42', '--keys', 'order_id', '--json'], undefined, copy);
  }, 90_000);

  test('the partitions screen and the rows grid', async () => {
    const local = join(lakes, 'double_load', 'table');
    const rows = new RowsService();
    const base = { partitions: await partitionHealth(local), rows: await rows.page(local, { path: local, limit: 50, sort: { column: 'order_id', direction: 'asc' } }) };
    const shape = (x: typeof base, locs: string[]): string => norm(JSON.stringify({ ...x, rows: { ...x.rows, elapsedMs: 0 } }), locs);
    for (const kind of kinds) {
      const loc = remote(kind, 'double_load');
      const got = await withStoreSettings({ env: env[kind], anonymous: false }, async () => ({
        partitions: await partitionHealth(loc),
        rows: await rows.page(loc, { path: loc, limit: 50, sort: { column: 'order_id', direction: 'asc' } }),
      }));
      expect(shape(got, [loc, local]), kind).toBe(shape(base, [local, loc]));
    }
  }, 90_000);
});

describe.skipIf(!have)('--anonymous', () => {
  test('every request goes out unsigned, on every command that takes a table', async () => {
    for (const kind of kinds) {
      const proxy = proxyOf(kind);
      proxy.requests.length = 0;
      // No credentials at all: only the endpoint (Azure: the public container's account endpoint).
      const e: NodeJS.ProcessEnv = kind === 's3'
        ? { AWS_ENDPOINT_URL_S3: s3Proxy.endpoint, AWS_REGION: 'us-east-1' }
        : { AZURE_STORAGE_BLOB_ENDPOINT: `${azProxy.endpoint}/${AZURITE_ACCOUNT}` };
      const r = await cli(['history', remote(kind, 'double_load'), '--anonymous', '--json'], e);
      expect(r.err, kind).toBe('');
      expect(r.code).toBe(0);
      expect(proxy.requests.length).toBeGreaterThan(0);
      expect(proxy.requests.filter((q) => q.signed), `${kind}: unsigned`).toEqual([]);
    }
  }, 60_000);

  test('a command that takes no table refuses the flag as any unknown flag', async () => {
    const r = await cli(['proof', '--anonymous'], {});
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/anonymous/);
  });
});

describe.skipIf(!have)('the latest snapshot from the _last_checkpoint hint on (list-after)', () => {
  test('lists only the keys from the checkpoint on, through the store\'s start-after listing, and reads the same snapshot', async () => {
    const { openTable } = await import('../delta/open');
    const local = await openTable(join(lakes, 'bisect_many_versions', 'table'));
    const localLatest = await openTable(join(lakes, 'bisect_many_versions', 'table'), { latestOnly: true });
    const logKeys = local.listedVersions().length;
    expect(localLatest.log.listedFrom).toBe(60);
    expect([...localLatest.log.commits.keys()]).toEqual([60]);
    const files = async (t: Awaited<ReturnType<typeof openTable>>) => (await t.snapshot()).files.map((f) => f.path).sort();
    expect(await files(localLatest)).toEqual(await files(local));
    for (const kind of kinds) {
      const loc = remote(kind, 'bisect_many_versions');
      const whole = await openTable(loc, { env: env[kind] });
      const proxy = proxyOf(kind);
      proxy.requests.length = 0;
      const tail = await openTable(loc, { env: env[kind], latestOnly: true });
      const ws = (whole.storage as ObjectStorage).stats;
      const ts = (tail.storage as ObjectStorage).stats;
      expect(tail.latestVersion).toBe(whole.latestVersion);
      expect(await files(tail)).toEqual(await files(whole));
      // The whole log is 61 commits, 6 checkpoints and the hint; from the hint on: 3 keys.
      expect(ws.listedKeys, kind).toBeGreaterThan(logKeys);
      expect(ts.listedKeys, kind).toBe(3);
      expect(ts.lists, kind).toBe(1);
      // The server was asked to start after the checkpoint's version (not filtered after a full listing).
      const listing = proxy.requests.find((r) => /list-type=2|comp=list/.test(r.url));
      expect(listing?.url, kind).toMatch(kind === 's3' ? /start-after=bisect_many_versions%2Ftable%2F_delta_log%2F00000000000000000060/ : /startFrom=bisect_many_versions%2Ftable%2F_delta_log%2F00000000000000000060/);
      // What needs the earlier versions is refused by name, not answered from a partial log.
      expect(() => tail.versions()).toThrow(/latest snapshot only/);
      await expect(tail.snapshot({ version: 41 })).rejects.toThrow(/latest snapshot only/);
    }
  }, 60_000);

  test('lakerec snapshot of the latest version lists the log from the checkpoint', async () => {
    const outFile = join(out, 'latest.parquet');
    s3Proxy.requests.length = 0;
    const r = await cli(['snapshot', remote('s3', 'bisect_many_versions'), '--out', outFile], env.s3);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^version 60: \d+ rows written/);
    const lists = s3Proxy.requests.filter((q) => /list-type=2/.test(q.url) && /_delta_log/.test(decodeURIComponent(q.url)));
    expect(lists.length).toBe(1);
    expect(lists[0].url).toMatch(/start-after=/);
  }, 60_000);
});
