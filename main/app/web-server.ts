// Web mode: the same renderer and the same API (shared/api.ts) served on 127.0.0.1.
//
// Who may call: only a page that was given this launch's token. The token is random per launch,
// travels to the page in the URL fragment (`#token=...`, never sent to a server or written to
// a log), and must come back in `Authorization: Bearer` on every /api/ call, including the
// progress stream. A request without it gets 401 before its body is read or any table touched.
// Host must be this loopback address (DNS rebinding), and a browser's Origin must be ours
// (another site in the same browser cannot drive the engine); no CORS headers are ever sent.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { makeTempDir, removeStaleTempDirs } from '../engine/tempdirs';
import { JsonTooDeep, parseBoundedJson } from '../engine/json-depth';
import { chmod, mkdir, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import {
  HTTP_API_PREFIX, HTTP_CANCEL_PATH, HTTP_EVENTS_PATH, HTTP_JOB_HEADER, HTTP_UPLOAD_PATH, MAX_UPLOAD_BYTES, SOURCE_FILE_PATTERN,
  httpStatusFor, isJobId, type ApiResult, type ProgressEvent,
} from '../../shared/api';
import type { ErrorCode } from '../../shared/errors';
import type { CallDispatcher } from './dispatch';
import { WEB_CSP } from './csp';
import { writeUploadRecord } from './uploads';

export interface WebServerOptions {
  dispatcher: CallDispatcher;
  /** The built renderer (dist/renderer). */
  staticDir: string;
  /** 0 (default): a free port chosen by the OS. */
  port?: number;
  /** For tests only; a launch normally gets a fresh random token. */
  token?: string;
  log?: (line: string) => void;
  /** Largest upload accepted (default MAX_UPLOAD_BYTES). */
  maxUploadBytes?: number;
  /** Bytes all uploads of this launch may hold together (default UPLOAD_QUOTA_BYTES). */
  uploadQuotaBytes?: number;
}

/** Per launch: four of the largest uploads. */
export const UPLOAD_QUOTA_BYTES = 4 * MAX_UPLOAD_BYTES;

export interface WebServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** The page to open: origin + `/#token=...`. */
  pageUrl: string;
  port: number;
  token: string;
  /** Where uploaded source files are kept for this launch (deleted by close() and at exit). */
  uploadDir: string;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
const HEARTBEAT_MS = 15_000;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

function baseHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': WEB_CSP,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...baseHeaders(),
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': String(Buffer.byteLength(text)),
    ...extra,
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, code: ErrorCode, message: string, extra: Record<string, string> = {}): void {
  const body: ApiResult<never> = { ok: false, error: { code, message } };
  sendJson(res, status, body, extra);
}

class BodyTooLarge extends Error {}

/**
 * The request body as text, at most MAX_BODY bytes. Past the cap the rest is drained, not read
 * into memory, so the 400 reaches the client instead of a connection reset.
 */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > MAX_BODY) {
      req.resume();
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > MAX_BODY) {
        over = true;
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => { if (!over) resolveBody(Buffer.concat(chunks).toString('utf8')); });
    req.on('error', reject);
  });
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const token = opts.token ?? randomBytes(32).toString('base64url');
  // Folders a crashed launch left behind (its pid is gone) go first.
  removeStaleTempDirs();
  const tokenBuf = Buffer.from(`Bearer ${token}`);
  const log = opts.log ?? (() => {});
  const staticRoot = resolve(opts.staticDir);
  const sseClients = new Set<ServerResponse>();
  let port = 0;
  // Uploaded sources live in one sandbox per launch: readable by this user only, never inside a
  // table the user opened, removed when the server closes or the process exits.
  const uploadDir = makeTempDir('uploads');
  await chmod(uploadDir, 0o700);
  const removeUploads = () => rmSync(uploadDir, { recursive: true, force: true });
  process.once('exit', removeUploads);
  const maxUpload = opts.maxUploadBytes ?? MAX_UPLOAD_BYTES;
  // All uploads of one launch together: a page cannot fill the disk one file at a time.
  const uploadQuota = opts.uploadQuotaBytes ?? UPLOAD_QUOTA_BYTES;
  let uploadedBytes = 0;

  const allowedHosts = (): Set<string> => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const allowedOrigins = (): Set<string> => new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  const authorised = (req: IncomingMessage): boolean => {
    const h = req.headers.authorization;
    if (typeof h !== 'string') return false;
    const got = Buffer.from(h);
    return got.length === tokenBuf.length && timingSafeEqual(got, tokenBuf);
  };

  const broadcast = (e: ProgressEvent): void => {
    const frame = `event: progress\ndata: ${JSON.stringify(e)}\n\n`;
    for (const c of sseClients) c.write(frame);
  };

  async function handleApi(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins().has(origin)) {
      sendError(res, 403, 'usage', 'Cross-origin request refused: only the workbench page may call its API.');
      return;
    }
    // A browser tells us when a request is cross-site even where Origin is absent (e.g. GET).
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') {
      sendError(res, 403, 'usage', 'Cross-site request refused.');
      return;
    }
    if (!authorised(req)) {
      // Nothing is read: not the body, not a table.
      sendError(res, 401, 'usage', 'Missing or wrong token: open the URL printed by `npm start` (it carries the token).', {
        'WWW-Authenticate': 'Bearer realm="lakerec"',
        Connection: 'close',
      });
      req.resume();
      return;
    }

    if (path === HTTP_EVENTS_PATH) {
      if (req.method !== 'GET') { sendError(res, 405, 'usage', 'Use GET for the event stream.'); return; }
      res.writeHead(200, {
        ...baseHeaders(),
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
      });
      res.write(': lakerec progress stream\n\n');
      sseClients.add(res);
      const beat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
      res.on('close', () => {
        clearInterval(beat);
        sseClients.delete(res);
      });
      return;
    }

    if (req.method !== 'POST') {
      sendError(res, 405, 'usage', 'API calls are POST with a JSON body.', { Allow: 'POST' });
      return;
    }
    if (path === HTTP_UPLOAD_PATH) {
      await handleUpload(req, res);
      return;
    }
    const ctype = req.headers['content-type'] ?? '';
    if (!ctype.startsWith('application/json')) {
      sendError(res, 415, 'usage', 'API calls must send Content-Type: application/json.');
      return;
    }
    let body: unknown;
    try {
      const text = await readBody(req);
      body = text === '' ? {} : parseBoundedJson(text);
    } catch (e) {
      if (e instanceof BodyTooLarge) sendError(res, 400, 'usage', 'The request body is larger than 1 MB.');
      else if (e instanceof JsonTooDeep) sendError(res, 400, 'usage', `The request body is nested deeper than ${e.limit} levels.`);
      else sendError(res, 400, 'usage', 'The request body is not valid JSON (or larger than 1 MB).');
      return;
    }

    if (path === HTTP_CANCEL_PATH) {
      const jobId = (body as { jobId?: unknown } | null)?.jobId;
      if (!isJobId(jobId)) { sendError(res, 400, 'usage', 'Bad request to cancel: "jobId" is missing or malformed.'); return; }
      sendJson(res, 200, { ok: true, value: { cancelled: opts.dispatcher.cancel(jobId) } });
      return;
    }

    const method = path.slice(HTTP_API_PREFIX.length);
    const jobHeader = req.headers[HTTP_JOB_HEADER];
    const jobId = typeof jobHeader === 'string' ? jobHeader : null;
    let finished = false;
    // A page that goes away (reload, closed tab, aborted fetch) cancels its job.
    res.on('close', () => {
      if (!finished && jobId !== null) opts.dispatcher.cancel(jobId);
    });
    const began = performance.now();
    const result = await opts.dispatcher.call(method, body, { jobId, onProgress: broadcast });
    finished = true;
    if (res.destroyed) return;
    // The engine's share of the request, for the page's resource timing (the timeline benchmark splits server and page time).
    const timing = { 'Server-Timing': `engine;dur=${(performance.now() - began).toFixed(1)}` };
    // An error the engine answered (a folder that is not a table, a refused filter) is an expected
    // answer, carried as data with 200: a browser logs every 4xx as a red console error. Transport
    // refusals (token, origin, body) keep their 4xx; an engine bug stays a 500.
    if (result.ok || result.error.code !== 'internal') sendJson(res, 200, result, result.ok ? timing : { ...timing, 'x-lakerec-error': result.error.code });
    else sendJson(res, httpStatusFor(result.error.code), result, timing);
  }

  /** A dropped source file's bytes, kept in the upload sandbox; answers its path there. */
  async function handleUpload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (status: number, message: string) => {
      sendError(res, status, 'usage', message, { Connection: 'close' });
      req.resume();
    };
    const name = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('name') ?? '';
    // A bare file name: no folder part, no dot-name, one of the formats a source can be.
    if (!name || name.length > 255 || /[\\/\0]/.test(name) || name.startsWith('.') || !SOURCE_FILE_PATTERN.test(name)) {
      refuse(400, 'Upload a Parquet, CSV or JSON lines file (.parquet, .csv, .tsv, .json, .jsonl, .ndjson). A Delta folder cannot be uploaded: type its path.');
      return;
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > maxUpload) {
      refuse(413, `The file is larger than ${Math.round(maxUpload / 1048576)} MB: type its path instead (the engine reads it in place).`);
      return;
    }
    const quotaLeft = uploadQuota - uploadedBytes;
    const quotaMessage = `This launch has taken ${Math.round(uploadQuota / 1048576)} MB of uploads: type the file's path instead (the engine reads it in place), or restart the workbench.`;
    if ((Number.isFinite(declared) && declared > quotaLeft) || quotaLeft <= 0) {
      refuse(413, quotaMessage);
      return;
    }
    // One folder per upload inside this launch's uploads folder (from makeTempDir, so cleaned after a crash).
    const dir = join(uploadDir, `u-${randomBytes(6).toString('hex')}`);
    await mkdir(dir, { mode: 0o700 });
    const file = join(dir, name);
    let size = 0;
    const hash = createHash('sha256');
    const ok = await new Promise<boolean>((done) => {
      const out = createWriteStream(file, { mode: 0o600 });
      req.on('data', (c: Buffer) => {
        size += c.length;
        hash.update(c);
        if (size > maxUpload || size > quotaLeft) {
          req.unpipe(out);
          out.destroy();
          done(false);
        }
      });
      req.on('error', () => done(false));
      out.on('error', () => done(false));
      out.on('finish', () => done(size <= maxUpload && size <= quotaLeft));
      req.pipe(out);
    });
    if (!ok) {
      await rm(dir, { recursive: true, force: true });
      if (size > maxUpload) refuse(413, `The file is larger than ${Math.round(maxUpload / 1048576)} MB: type its path instead (the engine reads it in place).`);
      else if (size > quotaLeft) refuse(413, quotaMessage);
      else if (!res.destroyed) sendError(res, 400, 'io_error', 'The upload was interrupted.');
      return;
    }
    uploadedBytes += size;
    // What a report records instead of the temporary path (uploads.ts).
    const sha256 = hash.digest('hex');
    writeUploadRecord(file, { name, bytes: size, sha256 });
    log(`upload: ${name} (${size} bytes)`);
    sendJson(res, 200, { ok: true, value: { path: file, name, bytes: size, sha256 } });
  }

  async function handleStatic(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(res, 405, 'usage', 'Method not allowed.', { Allow: 'GET, HEAD' });
      return;
    }
    let rel: string;
    try {
      rel = decodeURIComponent(path);
    } catch {
      sendError(res, 400, 'usage', 'Bad path.');
      return;
    }
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = normalize(join(staticRoot, rel));
    if (file !== staticRoot && !file.startsWith(staticRoot + sep)) {
      sendError(res, 404, 'not_found', 'Not found.');
      return;
    }
    let size: number;
    try {
      const s = await stat(file);
      if (!s.isFile()) throw new Error('not a file');
      size = s.size;
    } catch {
      sendError(res, 404, 'not_found', 'Not found.');
      return;
    }
    res.writeHead(200, {
      ...baseHeaders(),
      'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': String(size),
      'Cache-Control': rel === '/index.html' ? 'no-store' : 'private, max-age=3600',
    });
    if (req.method === 'HEAD') { res.end(); return; }
    createReadStream(file).pipe(res);
  }

  const server: Server = createServer((req, res) => {
    const host = req.headers.host;
    if (typeof host !== 'string' || !allowedHosts().has(host.toLowerCase())) {
      // DNS rebinding: a page on evil.example resolved to 127.0.0.1 still sends its own Host.
      sendError(res, 421, 'usage', 'Wrong Host header: web mode answers only on its loopback address.');
      req.resume();
      return;
    }
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    } catch {
      sendError(res, 400, 'usage', 'Bad URL.');
      return;
    }
    const handler = path === '/api' || path.startsWith(HTTP_API_PREFIX) ? handleApi : handleStatic;
    handler(req, res, path).catch((e: unknown) => {
      log(`web server error on ${path}: ${e instanceof Error ? e.stack : String(e)}`);
      if (!res.headersSent) sendError(res, 500, 'internal', 'The server failed on this request.');
      else res.destroy();
    });
  });
  server.headersTimeout = 30_000;
  server.requestTimeout = 0; // long jobs keep their request open

  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', fail);
      ok();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    pageUrl: `${origin}/#token=${token}`,
    port,
    token,
    uploadDir,
    close: () => new Promise<void>((done) => {
      for (const c of sseClients) c.end();
      sseClients.clear();
      server.close(() => {
        removeUploads();
        process.off('exit', removeUploads);
        done();
      });
      server.closeAllConnections();
    }),
  };
}
