// Web mode reads every request body with a bounded decoder: a body nested 100,000 levels deep (it
// used to be `500 internal`) or malformed is a 400 with one line, before the engine sees it; the
// server keeps answering. Run for real: the web server in front of the forked engine process.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  dir = mkdtempSync(join(tmpdir(), 'lakerec-web-body-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
  engine = new EngineHost({ spawn: forkSpawner(entry, { mode: 'web', userDataDir: join(dir, 'userdata') }, 256), memoryMb: 256 });
  server = await startWebServer({ dispatcher: engine, staticDir });
}, 60_000);

afterAll(async () => {
  engine?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function post(method: string, body: string): Promise<{ status: number; json: { ok: boolean; error?: { code: string; message: string } } }> {
  const r = await fetch(`${server.origin}/api/${method}`, {
    method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body,
  });
  return { status: r.status, json: (await r.json()) as { ok: boolean; error?: { code: string; message: string } } };
}

describe('request bodies from outside', () => {
  it('a body nested 100,000 levels deep is a 400 with one line; the server keeps answering', async () => {
    for (const deep of [
      `{"path":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
      `{"path":"x","extra":${'['.repeat(100_000)}`,
    ]) {
      const r = await post('listVersions', deep);
      expect(r).toEqual({ status: 400, json: { ok: false, error: { code: 'usage', message: `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.` } } });
    }
    const ok = await post('listVersions', JSON.stringify({ path: table }));
    expect(ok.status).toBe(200);
    expect(ok.json.ok).toBe(true);
  }, 60_000);

  it('a malformed body is a 400 with one line', async () => {
    for (const bad of ['{"path":', '{"path": "x"} trailing', '\u0000', '[1,2', '{"a":"\\u12"}']) {
      const r = await post('listVersions', bad);
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
