// A source uploaded in web mode is recorded in the report by what it was (the uploaded file's name,
// size and sha256), never by its temporary path, which is deleted when the server stops.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_UPLOAD_PATH } from '../../shared/api';
import { Dispatcher } from './dispatch';
import { createScreenHandlers } from './screens';
import { createService } from './service';
import { uploadedFile } from './uploads';
import { startWebServer, type WebServer } from './web-server';

const lake = resolve(__dirname, '..', '..', 'sample-lakes', 'built', 'double_load');
const built = existsSync(join(lake, 'table', '_delta_log'));
if (!built) process.stdout.write('upload-report.test: SKIPPED: sample lakes not built (npm run sample-lakes)\n');

let dir: string;
let server: WebServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-upload-report-'));
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir);
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
  const service = createService({ mode: 'web', userDataDir: join(dir, 'userdata') });
  server = await startWebServer({ dispatcher: new Dispatcher(service), staticDir, token: 'test-token-0123456789' });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!built)('an uploaded source in the report', () => {
  it('names the upload, its size and sha256, not the temporary path', async () => {
    const bytes = readFileSync(join(lake, 'source', 'orders.csv'));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const res = await fetch(`${server.origin}${HTTP_UPLOAD_PATH}?name=orders.csv`, {
      method: 'POST', headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${server.token}` }, body: bytes,
    });
    const up = (await res.json() as { value: { path: string; name: string; bytes: number; sha256: string } }).value;
    expect(up).toMatchObject({ name: 'orders.csv', bytes: bytes.length, sha256 });
    expect(uploadedFile(up.path)).toEqual({ name: 'orders.csv', bytes: bytes.length, sha256 });
    // A file that is not an upload is not described as one.
    expect(uploadedFile(join(lake, 'source', 'orders.csv'))).toBeNull();

    const h = createScreenHandlers({ runsDir: join(dir, 'runs'), cwd: dir, toolVersion: '0.1.0' });
    // Not the table's own contract file (that one runs only once accepted).
    const contract = readFileSync(join(lake, 'contract.yaml'), 'utf8') + '# a copy\n';
    const run = await h.reconcile({ source: up.path, table: join(lake, 'table'), contract, level: 'rows' }, {});
    expect(run.result.source.description).toBe('orders.csv');
    expect(run.result.source.upload).toEqual({ name: 'orders.csv', bytes: bytes.length, sha256 });
    const report = await h.exportReport({ resultId: run.resultId, save: false }, {});
    const truth = /Source of truth<\/th><td>([^\n]*?)<\/td><\/tr>/.exec(report.html)?.[1] ?? '';
    expect(truth).toContain('orders.csv, uploaded in web mode');
    expect(truth).toContain(`${bytes.length.toLocaleString('en-US')} bytes`);
    expect(truth).toContain(sha256);
    expect(report.html).not.toContain(server.uploadDir);
  }, 60_000);
});
