import { afterAll, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTempDir, removeStaleTempDirs } from './tempdirs';

const parent = mkdtempSync(join(tmpdir(), 'lakerec-tempdirs-test-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

it('removes the folders of processes that are gone, and only those', () => {
  // A pid that existed and is gone: a child that has exited.
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const deadPid = Number(gone.stdout);
  const stale = join(parent, `lakerec-duck-${deadPid}-abc123`);
  const staleUploads = join(parent, `lakerec-uploads-${deadPid}-Zz9xY0`);
  mkdirSync(stale); mkdirSync(join(stale, 'inner')); mkdirSync(staleUploads);
  const mine = makeTempDir('duck', parent);
  const parentPid = join(parent, `lakerec-duck-${process.ppid}-qwerty`);
  mkdirSync(parentPid);
  const legacyOld = join(parent, 'lakerec-duck-OLDone');
  const legacyNew = join(parent, 'lakerec-uploads-NEWone');
  mkdirSync(legacyOld); mkdirSync(legacyNew);
  const old = (Date.now() - 2 * 24 * 3600 * 1000) / 1000;
  utimesSync(legacyOld, old, old);
  const other = join(parent, 'lakerec-verify-abcdef');
  mkdirSync(other);
  const removed = removeStaleTempDirs(parent).sort();
  expect(removed).toEqual([legacyOld, stale, staleUploads].sort());
  for (const p of [mine, parentPid, legacyNew, other]) expect(existsSync(p)).toBe(true);
  expect(mine).toMatch(new RegExp(`lakerec-duck-${process.pid}-`));
});
