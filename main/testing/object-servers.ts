// Real object-store servers for the tests, on loopback free ports, started and stopped by the test:
// s3rver (an S3-compatible server in-process, npm) and Azurite (Microsoft's Azure Storage emulator,
// npm, run as a child process), plus a recording and fault-injecting loopback proxy to put in front
// of either. The proxy forwards the Host header unchanged (SigV4 and SharedKey sign it).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';

const repoRoot = resolve(__dirname, '..', '..');

/** Azurite's development account and its well-known key (public, documented by Microsoft). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface RunningServer {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createNetServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

async function waitForPort(port: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((res) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => { c.destroy(); res(true); });
      c.once('error', () => res(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** s3rver on a free loopback port, with the buckets named; credentials S3RVER / S3RVER. */
export async function startS3rver(buckets: string[]): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-s3rver-'));
  const S3rver = createRequire(import.meta.url)('s3rver') as new (o: object) => { run(): Promise<{ port: number }>; close(): Promise<void>; httpServer?: Server };
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: buckets.map((name) => ({ name })) });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    // Kept-alive client sockets (the test's own upload client) would hold the close.
    close: async () => { server.httpServer?.closeAllConnections(); await server.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

/** The S3 environment for a server (endpoint, region, s3rver's credentials). */
export function s3Env(endpoint: string): NodeJS.ProcessEnv {
  return { AWS_ENDPOINT_URL_S3: endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
}

/** Azurite's Blob service on a free loopback port (a child process, killed by close()). */
export async function startAzurite(): Promise<RunningServer & { connectionString: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-azurite-'));
  const port = await freePort();
  const bin = join(repoRoot, 'node_modules', 'azurite', 'dist', 'src', 'blob', 'main.js');
  const child: ChildProcess = spawn(process.execPath, [bin, '--blobHost', '127.0.0.1', '--blobPort', String(port), '-l', dir, '--silent', '--skipApiVersionCheck', '--loose'], { stdio: 'ignore' });
  try {
    await waitForPort(port, 90_000);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    port,
    connectionString: azuriteConnectionString(endpoint),
    close: async () => {
      await new Promise<void>((res) => {
        if (child.exitCode !== null) { res(); return; }
        // Azurite's graceful stop waits for its clients' kept-alive sockets: killed after 3 s.
        const hard = setTimeout(() => child.kill('SIGKILL'), 3000);
        child.once('exit', () => { clearTimeout(hard); res(); });
        child.kill('SIGTERM');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function azuriteConnectionString(endpoint: string): string {
  return `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${endpoint}/${AZURITE_ACCOUNT};`;
}

/** Every file under `dir`, as '/'-separated paths relative to it. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push(relative(dir, p).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** Uploads a folder with `put(key, bytes)`, a few at a time (the test's setup writes; lakerec never does). */
export async function uploadFolder(dir: string, prefix: string, put: (key: string, bytes: Buffer) => Promise<void>): Promise<number> {
  const files = filesUnder(dir);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const f = files[next++];
      await put(prefix ? `${prefix}/${f}` : f, readFileSync(join(dir, f)));
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return files.length;
}

export interface SeenRequest { method: string; url: string; status: number; signed: boolean }

/** What the fault injector may do with a request: pass it on, answer it, or break it. */
export type Fault =
  | { kind: 'pass' }
  | { kind: 'status'; status: number; code?: string }
  | { kind: 'reset' }
  | { kind: 'truncate' }
  | { kind: 'delay'; ms: number };

export interface Proxy extends RunningServer {
  requests: SeenRequest[];
  /** Replaces the fault rule (default: pass everything). */
  fault: (req: { method: string; url: string; n: number }) => Fault;
}

/** A loopback HTTP proxy in front of `target`: records every request, can inject faults. */
export async function startProxy(target: string): Promise<Proxy> {
  const t = new URL(target);
  let n = 0;
  // Its own agent, destroyed on close: kept-alive sockets to the server would hold the server's close.
  const agent = new Agent({ keepAlive: true });
  const proxy: Proxy = {
    endpoint: '',
    port: 0,
    requests: [],
    fault: () => ({ kind: 'pass' }),
    close: async () => {},
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const f = proxy.fault({ method: req.method ?? '', url: req.url ?? '', n: n++ });
    const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', status: 0, signed: typeof req.headers.authorization === 'string' || /[?&](X-Amz-Signature|sig)=/.test(req.url ?? '') };
    proxy.requests.push(seen);
    if (f.kind === 'reset') { seen.status = -1; req.socket.destroy(); return; }
    if (f.kind === 'status') {
      seen.status = f.status;
      const code = f.code ?? (f.status === 503 ? 'SlowDown' : f.status === 403 ? 'AccessDenied' : 'InternalError');
      res.writeHead(f.status, { 'content-type': 'application/xml', 'x-ms-error-code': code });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected</Message></Error>`);
      return;
    }
    const forward = (): void => {
      const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers, agent }, (ur) => {
        seen.status = ur.statusCode ?? 0;
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        if (f.kind === 'truncate') {
          let sent = false;
          ur.once('data', (chunk: Buffer) => {
            sent = true;
            res.write(chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2))));
            res.socket?.destroy();
          });
          ur.once('end', () => { if (!sent) res.end(); });
          return;
        }
        ur.pipe(res);
      });
      up.on('error', () => res.socket?.destroy());
      req.pipe(up);
    };
    if (f.kind === 'delay') setTimeout(forward, f.ms); else forward();
  };
  const server: Server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  proxy.port = (server.address() as { port: number }).port;
  proxy.endpoint = `http://127.0.0.1:${proxy.port}`;
  proxy.close = () => new Promise<void>((r) => { server.closeAllConnections(); agent.destroy(); server.close(() => r()); });
  return proxy;
}

/** A put(key, bytes) into an s3rver bucket, for uploadFolder (the setup writes; lakerec never does). */
export async function s3Putter(endpoint: string, bucket: string): Promise<(key: string, bytes: Buffer) => Promise<void>> {
  const { PutObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  return async (key, bytes) => { await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes })); };
}

/** Runs `fn` with `env` set in the process environment (as a user's shell gives it), restored after. */
export async function withProcessEnv<T>(env: NodeJS.ProcessEnv, fn: () => Promise<T>): Promise<T> {
  const saved = new Map(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
}
