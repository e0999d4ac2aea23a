// Web mode's upload route for a dropped source file: token first, a source file name only, a size
// limit, kept in the per-launch sandbox (mode 0700), gone when the server closes.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_UPLOAD_PATH } from '../../shared/api';
import { Dispatcher } from './dispatch';
import { createService } from './service';
import { startWebServer, type WebServer } from './web-server';

let dir: string;
let server: WebServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-upload-test-'));
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
  const service = createService({ mode: 'web', userDataDir: join(dir, 'userdata') });
  server = await startWebServer({ dispatcher: new Dispatcher(service), staticDir, token: 'test-token-0123456789', maxUploadBytes: 1024 });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function upload(name: string, body: string | Buffer, token: string | null = server.token) {
  return fetch(`${server.origin}${HTTP_UPLOAD_PATH}?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });
}

describe('web mode upload', () => {
  it('refuses a request without the token before reading it', async () => {
    const r = await upload('orders.csv', 'a,b\n1,2\n', null);
    expect(r.status).toBe(401);
  });

  it('keeps a source file in the launch sandbox and answers its path', async () => {
    const r = await upload('orders.csv', 'order_id,amount\n1,2.50\n');
    expect(r.status).toBe(200);
    const body = await r.json() as { ok: true; value: { path: string } };
    expect(body.ok).toBe(true);
    expect(body.value.path.startsWith(server.uploadDir)).toBe(true);
    expect(body.value.path.endsWith('/orders.csv')).toBe(true);
    expect(readFileSync(body.value.path, 'utf8')).toBe('order_id,amount\n1,2.50\n');
    if (process.platform !== 'win32') expect(statSync(server.uploadDir).mode & 0o777).toBe(0o700);
    // The same name twice does not overwrite the first.
    const again = await (await upload('orders.csv', 'order_id\n9\n')).json() as { value: { path: string } };
    expect(again.value.path).not.toBe(body.value.path);
    expect(dirname(again.value.path).startsWith(server.uploadDir)).toBe(true);
  });

  it('refuses names that are not a source file, or that carry a folder', async () => {
    for (const name of ['notes.txt', '../orders.csv', 'a/b.parquet', '.hidden.csv', '']) {
      const r = await upload(name, 'x');
      expect(r.status, name).toBe(400);
      expect((await r.json() as { error: { code: string } }).error.code).toBe('usage');
    }
  });

  it('refuses a file over the size limit and keeps nothing of it', async () => {
    const r = await upload('big.parquet', Buffer.alloc(4096, 1));
    expect(r.status).toBe(413);
    expect((await r.json() as { error: { message: string } }).error.message).toMatch(/larger than/);
  });

  it('removes the sandbox when the server closes', async () => {
    const dirPath = server.uploadDir;
    expect(existsSync(dirPath)).toBe(true);
    await server.close();
    expect(existsSync(dirPath)).toBe(false);
  });

  it('holds all uploads of one launch to a quota', async () => {
    const q = await startWebServer({ dispatcher: new Dispatcher(createService({ mode: 'web', userDataDir: join(dir, 'userdata-q') })), staticDir: join(dir, 'static'), maxUploadBytes: 1024, uploadQuotaBytes: 2000 });
    try {
      const send = (name: string, n: number) => fetch(`${q.origin}${HTTP_UPLOAD_PATH}?name=${name}`, {
        method: 'POST', headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${q.token}` }, body: 'x'.repeat(n),
      });
      expect((await send('a.csv', 900)).status).toBe(200);
      expect((await send('b.csv', 900)).status).toBe(200);
      const third = await send('c.csv', 900);
      expect(third.status).toBe(413);
      expect(((await third.json()) as { error: { message: string } }).error.message).toMatch(/^This launch has taken 0 MB of uploads/);
    } finally {
      await q.close();
    }
  });
});
