// HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the run's environment: a real forward proxy written
// here on node:http (CONNECT tunnels and plain absolute-URL requests, each counted) in front of a
// real s3rver and Azurite, each started on loopback. S3 and Azure traffic goes through it; a host
// in NO_PROXY does not.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LakerecError } from '../../shared/errors';
import type { AddressInfo } from 'node:net';
import { BlobServiceClient } from '@azure/storage-blob';
import { parseLocation } from '../../shared/location';
import { azuriteConnectionString, s3Env, s3Putter, startAzurite, startS3rver, type RunningServer } from '../testing/object-servers';
import { storageFor } from './open';
import { bypassed, proxyFor } from './proxy';

interface ForwardProxy { url: string; connects: string[]; plain: string[]; close(): Promise<void> }

async function startForwardProxy(): Promise<ForwardProxy> {
  const connects: string[] = [];
  const plain: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    plain.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '/');
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: target.pathname + target.search, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => { res.writeHead(502); res.end(); });
    req.pipe(up);
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const up = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    sockets.add(up);
    up.on('error', () => client.destroy());
    client.on('error', () => up.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, connects, plain,
    close: async () => { for (const s of sockets) s.destroy(); await new Promise<void>((ok) => server.close(() => ok())); },
  };
}

let s3: RunningServer;
let az: RunningServer & { connectionString: string };
let proxy: ForwardProxy;
/** TLS in front of s3rver, with a self-signed certificate for 127.0.0.1 (openssl, made here). */
let tls: { server: TlsServer; port: number; dir: string; cert: string };
const body = Buffer.from('a file read through the proxy\n');

beforeAll(async () => {
  [s3, az, proxy] = await Promise.all([startS3rver(['lake']), startAzurite(), startForwardProxy()]);
  const put = await s3Putter(s3.endpoint, 'lake');
  await put('t/x.txt', body);
  const container = BlobServiceClient.fromConnectionString(az.connectionString).getContainerClient('lake');
  await container.create();
  await container.getBlockBlobClient('t/x.txt').uploadData(body);
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-tls-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const server = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (sock) => {
    const up = connect(s3.port, '127.0.0.1');
    sock.pipe(up).pipe(sock);
    up.on('error', () => sock.destroy());
    sock.on('error', () => up.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  tls = { server, port: (server.address() as AddressInfo).port, dir, cert };
}, 240_000);

afterAll(async () => {
  if (tls) {
    await new Promise<void>((ok) => tls.server.close(() => ok()));
    rmSync(tls.dir, { recursive: true, force: true });
  }
  await proxy?.close();
  await Promise.all([s3?.close(), az?.close()]);
});

const seen = (): number => proxy.connects.length + proxy.plain.length;

async function readThrough(kind: 's3' | 'azure', extra: NodeJS.ProcessEnv): Promise<Buffer> {
  const loc = kind === 's3' ? 's3://lake/t' : 'abfss://lake@devstoreaccount1.dfs.core.windows.net/t';
  const env = { ...(kind === 's3' ? s3Env(s3.endpoint) : { AZURE_STORAGE_CONNECTION_STRING: azuriteConnectionString(az.endpoint) }), ...extra };
  const s = await storageFor(parseLocation(loc), { env });
  return s.read('x.txt', { maxBytes: 1024, what: 'file', knob: 'none' });
}

describe.each(['s3', 'azure'] as const)('%s through a proxy', (kind) => {
  for (const name of ['HTTP_PROXY', 'http_proxy'] as const) {
    test(`${name} set: the requests go through the proxy, the bytes are the file's`, async () => {
      const before = seen();
      expect(await readThrough(kind, { [name]: proxy.url })).toEqual(body);
      expect(seen()).toBeGreaterThan(before);
      const port = kind === 's3' ? s3.port : az.port;
      expect([...proxy.connects, ...proxy.plain].some((r) => r.includes(`127.0.0.1:${port}`))).toBe(true);
    });
  }

  test('the host in NO_PROXY: the proxy sees nothing', async () => {
    const before = seen();
    expect(await readThrough(kind, { HTTP_PROXY: proxy.url, NO_PROXY: 'example.org,127.0.0.1' })).toEqual(body);
    expect(seen()).toBe(before);
  });

  test('no proxy set: the proxy sees nothing', async () => {
    const before = seen();
    expect(await readThrough(kind, {})).toEqual(body);
    expect(seen()).toBe(before);
  });
});

describe('s3 over https: AWS_CA_BUNDLE, and TLS inside the proxy tunnel', () => {
  const tlsEnv = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...s3Env(`https://127.0.0.1:${tls.port}`), LAKEREC_S3_MAX_ATTEMPTS: '1', ...extra });
  const read = async (env: NodeJS.ProcessEnv): Promise<Buffer> =>
    (await storageFor(parseLocation('s3://lake/t'), { env })).read('x.txt', { maxBytes: 1024, what: 'file', knob: 'none' });

  test('the bundle trusts the server\'s certificate; without it the read is refused', async () => {
    expect(await read(tlsEnv({ AWS_CA_BUNDLE: tls.cert }))).toEqual(body);
    const e = await read(tlsEnv({})).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LakerecError);
    expect((e as Error).message).not.toContain('\n');
    console.log(`without the bundle: ${(e as LakerecError).code}: ${(e as Error).message}`);
  });

  test('HTTPS_PROXY: one CONNECT to the https endpoint, TLS inside the tunnel', async () => {
    const before = proxy.connects.filter((c) => c === `127.0.0.1:${tls.port}`).length;
    expect(await read(tlsEnv({ AWS_CA_BUNDLE: tls.cert, HTTPS_PROXY: proxy.url }))).toEqual(body);
    expect(proxy.connects.filter((c) => c === `127.0.0.1:${tls.port}`).length).toBeGreaterThan(before);
  });

  test('an unreadable bundle is one line, exit 2 (usage)', async () => {
    const e = await read(tlsEnv({ AWS_CA_BUNDLE: join(tls.dir, 'absent.pem') })).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'usage', message: `AWS_CA_BUNDLE (${join(tls.dir, 'absent.pem')}) could not be read (ENOENT)` });
  });
});

describe('NO_PROXY and the proxy choice', () => {
  test('names, domains, ports and *', () => {
    expect(bypassed('s3.amazonaws.com', '443', '.amazonaws.com')).toBe(true);
    expect(bypassed('amazonaws.com', '443', 'amazonaws.com')).toBe(true);
    expect(bypassed('bucket.s3.amazonaws.com', '443', 'amazonaws.com')).toBe(true);
    expect(bypassed('notamazonaws.com', '443', 'amazonaws.com')).toBe(false);
    expect(bypassed('127.0.0.1', '9000', '127.0.0.1:9001')).toBe(false);
    expect(bypassed('127.0.0.1', '9000', '127.0.0.1:9000')).toBe(true);
    expect(bypassed('anything', '80', '*')).toBe(true);
    expect(bypassed('::1', '80', '[::1]')).toBe(true);
  });

  test('https prefers HTTPS_PROXY, falls back to HTTP_PROXY; http uses HTTP_PROXY only', () => {
    const env = { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://p:2' };
    expect(proxyFor(new URL('https://x.org'), env)?.host).toBe('s:1');
    expect(proxyFor(new URL('http://x.org'), env)?.host).toBe('p:2');
    expect(proxyFor(new URL('https://x.org'), { https_proxy: 'q:3' })?.host).toBe('q:3');
    expect(proxyFor(new URL('http://x.org'), { HTTPS_PROXY: 'http://s:1' })).toBeNull();
  });
});
