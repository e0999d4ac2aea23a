// Crash isolation in web mode, for real: the web server in front of engine processes (the built
// dist/main/engine-worker.js, forked with a small heap ceiling). A job that exhausts the heap,
// exits or hangs fails with a typed error; the server keeps answering other calls meanwhile and
// after; the next job runs in a fresh engine.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResult } from '../../shared/api';
import { writeDemoTable } from './demo-table';
import { EngineHost, forkSpawner } from './engine-host';
import { startWebServer, type WebServer } from './web-server';
import { jsonDepth, MAX_JSON_DEPTH, parseBoundedJson } from '../engine/json-depth';

const entry = resolve(__dirname, '..', '..', 'dist', 'main', 'engine-worker.js');
let dir: string;
let table: string;
let server: WebServer;
let engine: EngineHost;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-engine-host-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
  engine = new EngineHost({
    spawn: forkSpawner(entry, { mode: 'web', userDataDir: join(dir, 'userdata'), testFaults: true }, 160),
    memoryMb: 160, cancelGraceMs: 400,
  });
  server = await startWebServer({ dispatcher: engine, staticDir });
}, 60_000);

afterAll(async () => {
  engine?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function post(method: string, body: unknown, jobId?: string): Promise<ApiResult<unknown>> {
  const r = await fetch(`${server.origin}/api/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...(jobId ? { 'x-lakerec-job': jobId } : {}) },
    body: JSON.stringify(body),
  });
  return (await r.json()) as ApiResult<unknown>;
}

describe('web mode: the engine runs outside the server', () => {
  it('a job that exhausts its heap is a typed error; the server answers other calls meanwhile and after', async () => {
    // both lanes warm (each is its own engine process)
    expect((await post('listVersions', { path: table })).ok).toBe(true);
    expect((await post('recentTables', {})).ok).toBe(true);
    const order: string[] = [];
    const crash = post('listVersions', { path: '/lakerec-test-fault/oom' }).then((r) => { order.push('crash'); return r; });
    const quick = post('recentTables', {}).then((r) => { order.push('quick'); return r; });
    const [c, q] = await Promise.all([crash, quick]);
    expect(q.ok).toBe(true);
    expect(order[0]).toBe('quick');
    expect(c).toMatchObject({ ok: false, error: { code: 'internal' } });
    if (!c.ok) expect(c.error.message).toMatch(/^The engine stopped while running this job \(out of memory: over its 160 MB heap ceiling\)/);
    // the next job gets a fresh engine
    const again = await post('listVersions', { path: table });
    expect(again.ok).toBe(true);
  }, 60_000);

  it('a job whose engine exits is a typed error naming the exit', async () => {
    const r = await post('listVersions', { path: '/lakerec-test-fault/exit' });
    expect(r).toMatchObject({ ok: false, error: { code: 'internal' } });
    if (!r.ok) expect(r.error.message).toMatch(/\(exit code 70\)/);
  }, 30_000);

  it('a job that hangs without yielding is ended on cancel; the quick lane never waited', async () => {
    const hung = post('listVersions', { path: '/lakerec-test-fault/hang' }, 'job-hang-1');
    await new Promise((r) => setTimeout(r, 300));
    expect((await post('recentTables', {})).ok).toBe(true);
    const c = await fetch(`${server.origin}/api/cancel`, {
      method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ jobId: 'job-hang-1' }),
    });
    expect(c.status).toBe(200);
    expect(await hung).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect((await post('listVersions', { path: table })).ok).toBe(true);
  }, 30_000);
});

// Web mode reads every request body with a bounded decoder: a body nested 100,000 levels deep (it
// used to be `500 internal`) or malformed is a 400 with one line, before the engine sees it; the
// server keeps answering.
async function postRaw(method: string, body: string): Promise<{ status: number; json: { ok: boolean; error?: { code: string; message: string } } }> {
  const r = await fetch(`${server.origin}/api/${method}`, {
    method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body,
  });
  return { status: r.status, json: (await r.json()) as { ok: boolean; error?: { code: string; message: string } } };
}

describe('web mode: request bodies from outside', () => {
  it('a body nested 100,000 levels deep is a 400 with one line; the server keeps answering', async () => {
    for (const deep of [
      `{"path":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
      `{"path":"x","extra":${'['.repeat(100_000)}`,
    ]) {
      const r = await postRaw('listVersions', deep);
      expect(r).toEqual({ status: 400, json: { ok: false, error: { code: 'usage', message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.` } } });
    }
    const ok = await postRaw('listVersions', JSON.stringify({ path: table }));
    expect(ok.status).toBe(200);
    expect(ok.json.ok).toBe(true);
  }, 60_000);

  it('a malformed body is a 400 with one line', async () => {
    for (const bad of ['{"path":', '{"path": "x"} trailing', '\u0000', '[1,2', '{"a":"\\u12"}']) {
      const r = await postRaw('listVersions', bad);
      expect(r.status).toBe(400);
      expect(r.json.error?.code).toBe('usage');
      expect(r.json.error?.message).toMatch(/^The request body is not valid JSON[^\n]*$/);
    }
  });

  it('brackets inside strings do not count; escapes are followed', () => {
    expect(jsonDepth('{"a":"[[[[{{{{\\"[[["}')).toBe(1);
    expect(jsonDepth('[[1],[[2]]]')).toBe(3);
    expect(parseBoundedJson(`{"where":"${'('.repeat(500)}"}`)).toEqual({ where: '('.repeat(500) });
    expect(() => parseBoundedJson('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))).toThrow(/nested deeper than 64 levels/);
    expect(parseBoundedJson('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBeDefined();
  });
});
