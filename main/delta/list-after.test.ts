// The log listed from the _last_checkpoint hint on (latestOnly), on a local folder: the store's
// start-after listing, the same latest snapshot as the whole listing, and the whole listing when
// the hint is stale, corrupt or missing.
import { afterEach, describe, expect, test } from 'vitest';
import { cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openTable } from './open';
import { LocalStorage } from '../storage';

const lake = resolve(__dirname, '..', '..', 'sample-lakes', 'built', 'bisect_many_versions', 'table');
let dir: string | null = null;
afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true }); dir = null; });

function copy(): string {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-list-after-'));
  cpSync(lake, join(dir, 't'), { recursive: true });
  return join(dir, 't');
}

describe('latestOnly', () => {
  test('the local store lists only names after startAfter', async () => {
    const s = new LocalStorage(lake);
    const all = (await s.list('_delta_log'))!.map((e) => e.path);
    const after = (await s.list('_delta_log', { startAfter: '00000000000000000050' }))!.map((e) => e.path);
    expect(after).toEqual(all.filter((p) => p.slice('_delta_log/'.length) > '00000000000000000050'));
    expect(after).toContain('_delta_log/00000000000000000050.checkpoint.parquet');
    expect(after).not.toContain('_delta_log/00000000000000000049.json');
  });

  test('reads the same latest snapshot from the checkpoint on', async () => {
    const whole = await openTable(lake);
    const tail = await openTable(lake, { latestOnly: true });
    expect(tail.log.listedFrom).toBe(60);
    expect(tail.log.commits.size).toBe(1);
    expect((await tail.snapshot()).files.map((f) => f.path).sort()).toEqual((await whole.snapshot()).files.map((f) => f.path).sort());
  });

  test('a stale hint (its checkpoint gone), a corrupt one and a missing one fall back to the whole listing', async () => {
    const t = copy();
    writeFileSync(join(t, '_delta_log', '_last_checkpoint'), JSON.stringify({ version: 55, size: 1 }));
    const stale = await openTable(t, { latestOnly: true });
    expect(stale.log.listedFrom).toBeNull();
    expect(stale.latestVersion).toBe(60);
    writeFileSync(join(t, '_delta_log', '_last_checkpoint'), '{not json');
    expect((await openTable(t, { latestOnly: true })).log.listedFrom).toBeNull();
    unlinkSync(join(t, '_delta_log', '_last_checkpoint'));
    const none = await openTable(t, { latestOnly: true });
    expect(none.log.listedFrom).toBeNull();
    expect(none.versions()).toHaveLength(61);
  });
});
