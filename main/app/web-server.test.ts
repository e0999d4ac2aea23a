// The web transport over a real socket: token, Origin and Host checks, typed errors with HTTP
// statuses, progress over SSE and cancellation.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHandlers, ApiResult, ProgressEvent } from '../../shared/api';
import { throwIfCancelled } from '../../shared/jobs';
import { writeDemoTable } from './demo-table';
import { Dispatcher } from './dispatch';
import { RECENT_FILE } from './recent';
import { createService } from './service';
import { startWebServer, type WebServer } from './web-server';

let dir: string;
let table: string;
let server: WebServer;
let calls = 0;
let slowStarted: () => void = () => {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-web-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(dir, 'secret.txt'), 'outside the static folder');
  const real = createService({ mode: 'web', userDataDir: join(dir, 'userdata') });
  // Count every call that reaches the engine, and add one slow job to watch progress and cancel.
  const counted = Object.fromEntries(Object.entries(real).map(([k, f]) => [k, (req: never, ctx: never) => {
    calls++;
    return (f as (r: never, c: never) => Promise<unknown>)(req, ctx);
  }])) as unknown as ApiHandlers;
  counted.listVersions = async (req, ctx) => {
    calls++;
    if (req.path !== 'slow') return real.listVersions(req, ctx);
    for (let i = 0; ; i++) {
      throwIfCancelled(ctx);
      ctx.progress?.({ phase: 'waiting', done: i, total: null });
      if (i === 1) slowStarted();
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  server = await startWebServer({ dispatcher: new Dispatcher(counted), staticDir });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function post(method: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.origin}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('web server', () => {
  it('binds 127.0.0.1 on a random port and hands the token over in the URL fragment only', () => {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
    expect(server.pageUrl).toBe(`${server.origin}/#token=${server.token}`);
    expect(server.token.length).toBeGreaterThanOrEqual(40);
  });

  it('refuses a call without the token (401) and reads nothing', async () => {
    const before = calls;
    const noToken = await fetch(`${server.origin}/api/openTable`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: table }),
    });
    expect(noToken.status).toBe(401);
    const body = (await noToken.json()) as ApiResult<unknown>;
    expect(body.ok).toBe(false);
    const wrong = await post('openTable', { path: table }, { authorization: `Bearer ${server.token.slice(1)}x` });
    expect(wrong.status).toBe(401);
    const events = await fetch(`${server.origin}/api/events`);
    expect(events.status).toBe(401);
    expect(calls).toBe(before);
    expect(existsSync(join(dir, 'userdata', RECENT_FILE))).toBe(false);
  });

  it('refuses another Origin (403) and another Host (421)', async () => {
    const before = calls;
    expect((await post('openTable', { path: table }, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await post('openTable', { path: table }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // Host cannot be set through fetch; a raw request can.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const r = request({ host: '127.0.0.1', port: server.port, path: '/', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      r.on('error', reject);
      r.end();
    });
    expect(status).toBe(421);
    expect(calls).toBe(before);
  });

  it('answers a good call; typed errors travel as data with 200 (no red console error), transport refusals keep 4xx', async () => {
    const ok = await post('openTable', { path: table }, { origin: server.origin });
    expect(ok.status).toBe(200);
    const okBody = (await ok.json()) as ApiResult<{ table: { latestVersion: number } }>;
    expect(okBody.ok && okBody.value.table.latestVersion).toBe(3);

    const notTable = await post('openTable', { path: dir });
    expect(notTable.status).toBe(200);
    expect(notTable.headers.get('x-lakerec-error')).toBe('not_a_delta_table');
    expect(await notTable.json()).toMatchObject({ ok: false, error: { code: 'not_a_delta_table' } });

    const badReq = await post('openTable', { path: 42 });
    expect(badReq.status).toBe(200);
    expect(await badReq.json()).toMatchObject({ ok: false, error: { code: 'usage' } });

    const unknown = await post('dropTable', {});
    expect(unknown.status).toBe(200);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('Unknown API method');

    const badJson = await fetch(`${server.origin}/api/openTable`, {
      method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: '{',
    });
    expect(badJson.status).toBe(400);
    const notJson = await fetch(`${server.origin}/api/openTable`, {
      method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/plain' }, body: '{}',
    });
    expect(notJson.status).toBe(415);
  });

  it('answers a JSON body over 1 MB with the documented 400, declared or chunked, and keeps serving', async () => {
    const big = JSON.stringify({ path: 'x'.repeat(1024 * 1024 + 10) });
    const r = await post('openTable', JSON.parse(big));
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ ok: false, error: { code: 'usage', message: 'The request body is larger than 1 MB.' } });
    // chunked (no Content-Length): the cap applies while reading
    const stream = new ReadableStream({
      start(c) { for (let i = 0; i < 3; i++) c.enqueue(new TextEncoder().encode(big.slice(i * 400_000, (i + 1) * 400_000) || ' ')); c.close(); },
    });
    const r2 = await fetch(`${server.origin}/api/openTable`, {
      method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: stream, duplex: 'half',
    } as RequestInit);
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as ApiResult<unknown>).ok).toBe(false);
    expect((await post('recentTables', {})).status).toBe(200);
  });

  it('serves the renderer with a CSP and never a file outside it', async () => {
    const page = await fetch(`${server.origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fetch(`${server.origin}/..%2fsecret.txt`)).status).toBe(404);
    expect((await fetch(`${server.origin}/../secret.txt`)).status).toBe(404);
  });

  it('pushes progress over SSE and cancels a job', async () => {
    const ac = new AbortController();
    const stream = await fetch(`${server.origin}/api/events`, { headers: { authorization: `Bearer ${server.token}` }, signal: ac.signal });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    const jobId = 'job-test-0001';
    const started = new Promise<void>((r) => { slowStarted = r; });
    const pending = post('listVersions', { path: 'slow' }, { 'x-lakerec-job': jobId });
    await started;
    let text = '';
    while (!text.includes('"jobId":"job-test-0001"')) text += (await reader.read()).value ?? '';
    const frame = text.split('\n\n').find((f) => f.includes(jobId))!;
    const ev = JSON.parse(frame.split('\n').find((l) => l.startsWith('data: '))!.slice(6)) as ProgressEvent;
    expect(ev).toMatchObject({ jobId, method: 'listVersions', progress: { phase: 'waiting' } });

    const cancel = await post('cancel', { jobId });
    expect(await cancel.json()).toEqual({ ok: true, value: { cancelled: true } });
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.headers.get('x-lakerec-error')).toBe('cancelled');
    expect(await res.json()).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    ac.abort();
  });
});
