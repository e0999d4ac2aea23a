import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultDataDir, getRun, listRuns, recordRun } from './store';

const dir = join(mkdtempSync(join(tmpdir(), 'lakerec-runs-test-')), 'data');
afterAll(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

describe('run history', () => {
  it('is empty before anything is recorded', async () => {
    expect(await listRuns(dir)).toEqual([]);
  });

  it('records runs of each kind and lists them newest first', async () => {
    const a = await recordRun(dir, { kind: 'proof', status: 'pass', title: 'duckdb -> arrow', startedAt: '2026-11-29T10:00:00.000Z', summary: { passed: true, big: 2n ** 70n } });
    await recordRun(dir, { kind: 'reconcile', status: 'fail', title: 'orders', startedAt: '2026-11-29T11:00:00.000Z', summary: { findings: 2 } });
    await recordRun(dir, { kind: 'bisect', status: 'found', title: 'orders v12', startedAt: '2026-11-29T12:00:00.000Z', summary: null });
    const all = await listRuns(dir);
    expect(all.map((r) => r.kind)).toEqual(['bisect', 'reconcile', 'proof']);
    expect((await listRuns(dir, { kind: 'proof' })).map((r) => r.id)).toEqual([a.id]);
    expect((await getRun(dir, a.id))?.summary).toEqual({ passed: true, big: (2n ** 70n).toString() });
    expect((await listRuns(dir, { withoutSummary: true }))[0].summary).toBeNull();
    expect(await getRun(dir, 'nope')).toBeNull();
    if (process.platform !== 'win32') expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses an unknown kind', async () => {
    await expect(recordRun(dir, { kind: 'other' as never, status: 'x', title: 'x', summary: null })).rejects.toThrow(/unknown run kind/);
  });

  it('finds the app-data folder', () => {
    expect(defaultDataDir({ LAKEREC_DATA_DIR: '/d' })).toBe('/d');
    expect(defaultDataDir({ XDG_DATA_HOME: '/x' })).toBe(join('/x', 'lakerec'));
    expect(defaultDataDir({ HOME: '/h' })).toBe(join('/h', '.local', 'share', 'lakerec'));
  });
});
