// The clients' settings from the environment (the standard S3 endpoint and region settings,
// path-style for IP and localhost endpoints, anonymous as an explicit choice, Azure's credential
// order) and the GCS client's contract against a loopback HTTP server (no GCS emulator runs here:
// the server records what the client asks for and answers 404, as an empty bucket would).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { LakerecError } from '../../shared/errors';
import { parseLocation } from '../../shared/location';
import { s3Config } from './s3';
import { azureService } from './azure';
import { openTable } from '../delta/open';

describe('S3 settings', () => {
  it('uses AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL, path-style for loopback and IP endpoints', () => {
    const a = s3Config({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000', AWS_ENDPOINT_URL: 'http://other:1' }, false);
    expect(a.config.endpoint).toBe('http://127.0.0.1:9000');
    expect(a.config.forcePathStyle).toBe(true);
    expect(s3Config({ AWS_ENDPOINT_URL: 'http://localhost:9000' }, false).config.forcePathStyle).toBe(true);
    expect(s3Config({ AWS_ENDPOINT_URL: 'https://s3.r2.example.com' }, false).config.forcePathStyle).toBe(false);
    expect(s3Config({ AWS_ENDPOINT_URL: 'https://minio.example.com', AWS_S3_FORCE_PATH_STYLE: 'true' }, false).config.forcePathStyle).toBe(true);
  });

  it('respects AWS_REGION with a custom endpoint, and falls back to us-east-1 only when none is set', () => {
    expect(s3Config({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000', AWS_REGION: 'eu-central-1' }, false).config.region).toBe('eu-central-1');
    expect(s3Config({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000' }, false).config.region).toBe('us-east-1');
    expect(s3Config({ AWS_DEFAULT_REGION: 'ap-south-1' }, false).config.region).toBe('ap-south-1');
  });

  it('names where credentials come from, never the secret', () => {
    expect(s3Config({ AWS_ACCESS_KEY_ID: 'AKIAX', AWS_SECRET_ACCESS_KEY: 'shh' }, false).credentialSource).toMatch(/AWS_ACCESS_KEY_ID/);
    expect(s3Config({ AWS_PROFILE: 'analytics' }, false).credentialSource).toMatch(/profile "analytics"/);
    expect(s3Config({}, true).credentialSource).toMatch(/anonymous/);
    for (const env of [{ AWS_ACCESS_KEY_ID: 'AKIAX', AWS_SECRET_ACCESS_KEY: 'shh' }, { AWS_PROFILE: 'p' }]) {
      expect(s3Config(env, false).credentialSource).not.toMatch(/shh|AKIAX/);
    }
  });

  it('refuses an endpoint that is not a URL with a usage error', () => {
    expect(() => s3Config({ AWS_ENDPOINT_URL_S3: 'not a url' }, false)).toThrow(LakerecError);
  });
});

describe('Azure settings', () => {
  const loc = parseLocation('abfss://lake@acct01.dfs.core.windows.net/t');
  if (loc.kind !== 'azure') throw new Error('parse');
  it('takes the connection string first, then a SAS token, then an account key, then DefaultAzureCredential', () => {
    expect(azureService(loc, { AZURE_STORAGE_CONNECTION_STRING: 'DefaultEndpointsProtocol=https;AccountName=acct01;AccountKey=a2V5;EndpointSuffix=core.windows.net' }, false).credentialSource).toBe('AZURE_STORAGE_CONNECTION_STRING');
    expect(azureService(loc, { AZURE_STORAGE_SAS_TOKEN: '?sv=1&sig=x' }, false).credentialSource).toMatch(/SAS/);
    expect(azureService(loc, { AZURE_STORAGE_KEY: 'a2V5' }, false).credentialSource).toMatch(/account key/);
    expect(azureService(loc, {}, false).credentialSource).toMatch(/DefaultAzureCredential/);
    expect(azureService(loc, {}, true).credentialSource).toMatch(/anonymous/);
  });

  it('refuses a connection string for another account, and az:// with no account named anywhere', () => {
    expect(() => azureService(loc, { AZURE_STORAGE_CONNECTION_STRING: 'AccountName=other;AccountKey=a2V5;' }, false)).toThrow(/other/);
    const az = parseLocation('az://lake/t');
    if (az.kind !== 'azure') throw new Error('parse');
    expect(() => azureService(az, {}, false)).toThrow(/names no storage account/);
  });
});

describe('GCS client contract (a loopback server standing in for the JSON API; no emulator runs here)', () => {
  let server: Server;
  const seen: { method: string; url: string }[] = [];
  let port = 0;
  const saved = process.env.STORAGE_EMULATOR_HOST;
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '' });
      res.writeHead(200, { 'content-type': 'application/json' });
      // An empty listing: the bucket has no _delta_log under the prefix.
      res.end(JSON.stringify({ kind: 'storage#objects' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as { port: number }).port;
    // The Node library takes the variable as its base URL: an emulator is named with its /storage/v1 path.
    process.env.STORAGE_EMULATOR_HOST = `http://127.0.0.1:${port}/storage/v1`;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.STORAGE_EMULATOR_HOST; else process.env.STORAGE_EMULATOR_HOST = saved;
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('lists _delta_log under the prefix with a delimiter, only reads, and reports an empty bucket as no table', async () => {
    let err: unknown;
    try { await openTable('gs://my-bucket/lake/t'); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(LakerecError);
    expect((err as LakerecError).code).toBe('not_a_delta_table');
    expect((err as LakerecError).message).toMatch(/^gs:\/\/my-bucket\/lake\/t has no _delta_log/);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((r) => r.method === 'GET')).toBe(true);
    const u = new URL(seen[0].url, 'http://x');
    expect(u.pathname).toBe('/storage/v1/b/my-bucket/o');
    expect(u.searchParams.get('prefix')).toBe('lake/t/_delta_log/');
    expect(u.searchParams.get('delimiter')).toBe('/');
  });
});
