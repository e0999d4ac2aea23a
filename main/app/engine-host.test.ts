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
