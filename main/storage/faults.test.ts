// Faults from a real S3 server (s3rver on a loopback free port) through a fault-injecting loopback
// proxy: throttling and 5xx retried with backoff then a clear error; 401/403 naming the credential
// source (exit 3); a reset or a truncated body; a listing that gains a commit during the read; a
// missing bucket; a slow server that Cancel stops. Also: the window of the read pins its version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { openDuck, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { openTable, type OpenTableOptions } from '../delta/open';
import { registerSnapshotView, dropSnapshotView } from '../delta/scan';
import { runCli } from '../cli/main';
import { s3Env, s3Putter, startProxy, startS3rver, uploadFolder, withProcessEnv, type Proxy, type RunningServer } from '../testing/object-servers';
import { BlobCache } from './cache';

const schema: StructType = { type: 'struct', fields: [{ name: 'id', type: 'long', nullable: false, metadata: {} }, { name: 'dt', type: 'date', nullable: false, metadata: {} }] };
const gen = (lo: number, hi: number, dt: string): string => `SELECT i::BIGINT AS id, DATE '${dt}' AS dt FROM range(${lo}, ${hi}) t(i)`;

let dir: string;
let duck: Duck;
let s3: RunningServer;
let proxy: Proxy;
let put: (key: string, bytes: Buffer) => Promise<void>;
let writer: DeltaWriter;
const loc = 's3://lake/t';
const env = (): NodeJS.ProcessEnv => ({ ...s3Env(proxy.endpoint), LAKEREC_S3_MAX_ATTEMPTS: '3' });

async function upload(): Promise<void> {
  await uploadFolder(join(dir, 't'), 't', put);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-faults-'));
  duck = await openDuck({ threads: 1 });
  writer = await DeltaWriter.create(join(dir, 't'), { schema, partitionColumns: ['dt'], duck });
  await writer.append({ sql: gen(0, 40, '2026-01-01') });
  await writer.append({ sql: gen(40, 60, '2026-01-02') });
  s3 = await startS3rver(['lake']);
  proxy = await startProxy(s3.endpoint);
  put = await s3Putter(s3.endpoint, 'lake');
  await upload();
}, 120_000);

afterAll(async () => {
  duck?.close();
  await proxy?.close();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function codeOf(p: Promise<unknown>): Promise<LakerecError> {
  try { await p; } catch (e) { if (e instanceof LakerecError) return e; throw e; }
  throw new Error('expected a refusal');
}

async function rows(opts: OpenTableOptions = {}): Promise<number> {
  const t = await openTable(loc, { env: env(), cache: new BlobCache(64 << 20), ...opts });
  await registerSnapshotView(duck.conn, await t.snapshot(), 'f');
  const n = Number((await duck.conn.runAndReadAll('SELECT count(*) FROM f')).getRows()[0][0]);
  await dropSnapshotView(duck.conn, 'f');
  return n;
}

async function cli(args: string[]): Promise<{ code: number; err: string }> {
  const e = env();
  const err: string[] = [];
  const code = await withProcessEnv(e, () => runCli(args, { out: () => {}, err: (x) => err.push(x), cwd: dir, env: e }));
  return { code, err: err.join('') };
}

describe('faults from a real S3 server through a loopback proxy', () => {
  it('reads the table as it is when nothing is injected', async () => {
    proxy.fault = () => ({ kind: 'pass' });
    expect(await rows()).toBe(60);
  });

  it('retries 503 SlowDown, 500 and 429 with backoff, and reads the table when the server recovers', async () => {
    for (const status of [503, 500, 429]) {
      let failures = 0;
      proxy.fault = () => (failures++ < 2 ? { kind: 'status', status } : { kind: 'pass' });
      expect(await rows()).toBe(60);
      expect(failures).toBeGreaterThan(2);
    }
  }, 60_000);

  it('gives up after the attempts with one clear line and exit 3', async () => {
    proxy.fault = () => ({ kind: 'status', status: 503 });
    proxy.requests.length = 0;
    const e = await codeOf(openTable(loc, { env: env() }));
    expect(e.code).toBe('io_error');
    expect(e.message).toMatch(/503/);
    expect(proxy.requests.length).toBe(3);
    const r = await cli(['history', loc]);
    expect(r.code).toBe(3);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    proxy.fault = () => ({ kind: 'pass' });
  }, 60_000);

  it('names the credential source on 403 (exit 3), and never a secret', async () => {
    proxy.fault = () => ({ kind: 'status', status: 403, code: 'AccessDenied' });
    const e = await codeOf(openTable(loc, { env: env() }));
    expect(e.code).toBe('source_unreadable');
    expect(e.message).toMatch(/AWS_ACCESS_KEY_ID/);
    const r = await cli(['forensics', loc]);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/refused/);
    expect(r.err).not.toMatch(/S3RVER/);
    proxy.fault = () => ({ kind: 'pass' });
  });

  it('a reset connection is retried; a body cut short is never trusted', async () => {
    let resets = 0;
    proxy.fault = ({ method }) => (method === 'GET' && resets++ < 1 ? { kind: 'reset' } : { kind: 'pass' });
    expect(await rows()).toBe(60);
    proxy.fault = ({ url }) => (url.includes('.json') && !url.includes('list-type') ? { kind: 'truncate' } : { kind: 'pass' });
    const e = await codeOf(rows());
    expect(['io_error', 'log_corrupt']).toContain(e.code);
    proxy.fault = () => ({ kind: 'pass' });
  }, 60_000);

  it('snapshot writes a remote table\'s rows to a local Parquet file (the data files come through the cache)', async () => {
    proxy.fault = () => ({ kind: 'pass' });
    const out: string[] = [];
    const e = env();
    const code = await withProcessEnv(e, () => runCli(['snapshot', loc, '--version', '2', '--out', join(dir, 'snap.parquet')], { out: (x) => out.push(x), err: () => {}, cwd: dir, env: e }));
    expect(code).toBe(0);
    expect(out.join('')).toMatch(/^version 2: 60 rows written to /);
  }, 60_000);

  it('a missing bucket is one line, exit 3', async () => {
    const r = await cli(['history', 's3://no-such-bucket/t']);
    expect(r.code).toBe(3);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/does not exist|no _delta_log/);
  });

  it('a commit landing during the read: the snapshot keeps the version it listed; refresh sees the new one', async () => {
    const t = await openTable(loc, { env: env() });
    const before = t.latestVersion;
    await writer.append({ sql: gen(60, 70, '2026-01-03') });
    await upload();
    const s = await t.snapshot();
    expect(s.version).toBe(before);
    expect(s.numRecords).toBe(60);
    await t.refresh();
    expect(t.latestVersion).toBe(before + 1);
  }, 60_000);

  it('anonymous access is an explicit choice: unsigned requests, and signed ones otherwise', async () => {
    proxy.fault = () => ({ kind: 'pass' });
    proxy.requests.length = 0;
    const anon = { AWS_ENDPOINT_URL_S3: proxy.endpoint, AWS_REGION: 'us-east-1' };
    const t = await openTable(loc, { env: anon, anonymous: true });
    expect(t.latestVersion).toBeGreaterThanOrEqual(1);
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(proxy.requests.every((r) => !r.signed)).toBe(true);
    proxy.requests.length = 0;
    await openTable(loc, { env: env() });
    expect(proxy.requests.every((r) => r.signed)).toBe(true);
  });

  it('AWS_PROFILE is honoured: the profile\'s keys from the shared credentials file sign the requests', async () => {
    const { writeFileSync } = await import('node:fs');
    const creds = join(dir, 'credentials');
    writeFileSync(creds, '[lake-reader]\naws_access_key_id = S3RVER\naws_secret_access_key = S3RVER\n');
    writeFileSync(join(dir, 'config'), '[profile lake-reader]\nregion = us-east-1\n');
    const keep = { ...process.env };
    for (const k of Object.keys(process.env)) if (k.startsWith('AWS_')) delete process.env[k];
    Object.assign(process.env, { AWS_SHARED_CREDENTIALS_FILE: creds, AWS_CONFIG_FILE: join(dir, 'config'), AWS_EC2_METADATA_DISABLED: 'true' });
    proxy.fault = () => ({ kind: 'pass' });
    proxy.requests.length = 0;
    try {
      const t = await openTable(loc, { env: { AWS_PROFILE: 'lake-reader', AWS_ENDPOINT_URL_S3: proxy.endpoint, AWS_REGION: 'us-east-1' } });
      expect(t.latestVersion).toBeGreaterThanOrEqual(1);
      expect(proxy.requests.every((r) => r.signed)).toBe(true);
      const e = await codeOf(openTable(loc, { env: { AWS_PROFILE: 'no-such-profile', AWS_ENDPOINT_URL_S3: proxy.endpoint, AWS_REGION: 'us-east-1' } }));
      expect(e.code).toBe('source_unreadable');
      expect(e.message).toMatch(/profile "no-such-profile"/);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in keep)) delete process.env[k];
      Object.assign(process.env, keep);
    }
  });

  it('off the cloud, the instance-metadata probe does not stall an open (a short timeout, then a clear line)', async () => {
    // A metadata endpoint on loopback that never answers (no traffic leaves the machine).
    const { createServer } = await import('node:http');
    const silent = createServer(() => { /* never answers */ });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const keep = { ...process.env };
    for (const k of Object.keys(process.env)) if (k.startsWith('AWS_')) delete process.env[k];
    Object.assign(process.env, {
      AWS_EC2_METADATA_SERVICE_ENDPOINT: `http://127.0.0.1:${(silent.address() as { port: number }).port}`,
      AWS_CONFIG_FILE: join(dir, 'none-config'), AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none-credentials'),
    });
    const started = Date.now();
    try {
      const e = await codeOf(openTable(loc, { env: { AWS_ENDPOINT_URL_S3: proxy.endpoint, AWS_REGION: 'us-east-1' } }));
      expect(e.code).toBe('source_unreadable');
      expect(e.message).toMatch(/default AWS credential chain/);
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in keep)) delete process.env[k];
      Object.assign(process.env, keep);
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  }, 30_000);

  it('a data file download in flight: the job\'s Cancel aborts it; progress is in bytes, from the add actions\' sizes', async () => {
    const t = await openTable(loc, { env: env(), cache: new BlobCache(64 << 20) });
    const snap = await t.snapshot();
    const total = snap.files.reduce((n, f) => n + f.add.size, 0);
    // Whole: the last report says every byte of every file, and names the files.
    const seen: { done: number; total: number | null; message?: string }[] = [];
    await registerSnapshotView(duck.conn, snap, 'p', {}, { progress: (pr) => { if (pr.phase.startsWith('fetching')) seen.push(pr); } });
    await dropSnapshotView(duck.conn, 'p');
    expect(seen.length).toBe(snap.files.length);
    expect(seen.every((x) => x.total === total)).toBe(true);
    expect(seen[seen.length - 1].done).toBe(total);
    expect(seen[seen.length - 1].message).toBe(`${snap.files.length} of ${snap.files.length} files, ${(total / 1048576).toFixed(1)} MB of ${(total / 1048576).toFixed(1)} MB`);
    // A slow data file (not yet cached: a fresh cache), cancelled 300 ms into its download.
    const fresh = await openTable(loc, { env: env(), cache: new BlobCache(64 << 20) });
    const snap2 = await fresh.snapshot();
    proxy.fault = (r) => (r.method === 'GET' && /\.parquet/.test(r.url) && !/_delta_log/.test(r.url) ? { kind: 'delay', ms: 8000 } : { kind: 'pass' });
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 300);
    const e = await codeOf(registerSnapshotView(duck.conn, snap2, 'q', {}, { signal: ac.signal }));
    proxy.fault = () => ({ kind: 'pass' });
    expect(e.code).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(4000);
    await dropSnapshotView(duck.conn, 'q');
  }, 60_000);

  it('a slow server: Cancel stops the transfers, no hang', async () => {
    proxy.fault = () => ({ kind: 'delay', ms: 5000 });
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 300);
    const e = await codeOf(openTable(loc, { env: env(), signal: ac.signal }));
    expect(e.code).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(4000);
    proxy.fault = () => ({ kind: 'pass' });
  }, 30_000);
});
