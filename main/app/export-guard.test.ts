// The window's "Export incident report" writes through the one output guard, for real: the engine
// process (the built engine-worker.js) asks the host's save dialog, and a path the dialog answers
// inside the table (directly, inside _delta_log, through a symlinked folder) is refused with one
// line, the table byte-identical; a path outside is written.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResult } from '../../shared/api';
import { treeHash } from '../testing/tree-hash';
import { EngineHost, forkSpawner } from './engine-host';

const repo = resolve(__dirname, '..', '..');
const entry = join(repo, 'dist', 'main', 'engine-worker.js');
const lake = join(repo, 'sample-lakes', 'built', 'double_load');
let dir: string;
let answer = '';
let engine: EngineHost;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-export-guard-'));
  symlinkSync(join(lake, 'table', '_delta_log'), join(dir, 'log-link'));
  engine = new EngineHost({
    spawn: forkSpawner(entry, { mode: 'electron', dialogs: true, userDataDir: join(dir, 'userdata'), runsDir: join(dir, 'runs') }, 512),
    memoryMb: 512,
    dialog: async () => answer,
  });
});

afterAll(() => {
  engine?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const call = <T>(method: string, request: unknown) => engine.call(method, request, { jobId: `j-${Math.random().toString(36).slice(2)}` }) as Promise<ApiResult<T>>;

describe("the window's report export", () => {
  it('refuses a path inside the table, writes one outside', async (t) => {
    if (!existsSync(join(lake, 'table', '_delta_log'))) t.skip();
    const before = treeHash(join(lake, 'table'));
    const rec = await call<{ resultId: string }>('reconcile', {
      source: join(lake, 'source', 'orders.parquet'), table: join(lake, 'table'), contract: readFileSync(join(lake, 'contract.yaml'), 'utf8') + '# the user\'s own copy\n', level: 'counts',
    });
    expect(rec.ok, JSON.stringify(rec).slice(0, 400)).toBe(true);
    if (!rec.ok) return;
    for (const inside of [join(lake, 'table', 'report.html'), join(lake, 'table', '_delta_log', '00000000000000000099.json'), join(dir, 'log-link', 'report.html')]) {
      answer = inside;
      const r = await call<{ savedTo: string | null }>('exportReport', { resultId: rec.value.resultId, save: true });
      expect(r).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/^the report \S+ is inside the table \S+: lakerec never writes into a table; choose a path outside it$/) } });
    }
    expect(treeHash(join(lake, 'table'))).toBe(before);
    answer = join(dir, 'out', 'report.html');
    const ok = await call<{ savedTo: string | null }>('exportReport', { resultId: rec.value.resultId, save: true });
    expect(ok.ok && ok.value.savedTo).toBe(answer);
    expect(readFileSync(answer, 'utf8')).toMatch(/^<!doctype html>/i);
  }, 120_000);
});
