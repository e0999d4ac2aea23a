// The one atomic commit over the storage seam: the same code commits to a local folder and to the
// in-memory store, and neither lets a second commit of a version replace the first.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Action } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { MemoryStorage, type Storage } from '../storage';
import { commitText, commitVersion, tableStorage } from './commit';

const dir = mkdtempSync(join(tmpdir(), 'lakerec-commit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const info = (op: string): Action[] => [{ commitInfo: { timestamp: 1, operation: op, operationParameters: {} } }];

async function race(store: Storage): Promise<void> {
  const settled = await Promise.allSettled([commitVersion(store, 0, info('first')), commitVersion(store, 0, info('second'))]);
  expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  const lost = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
  expect(lost.reason).toBeInstanceOf(LakerecError);
  expect((lost.reason as LakerecError).code).toBe('commit_conflict');
  const winner = settled[0].status === 'fulfilled' ? 'first' : 'second';
  const text = (await store.read('_delta_log/00000000000000000000.json', { maxBytes: 1 << 20, what: 'commit' })).toString('utf8');
  expect(text).toBe(commitText(info(winner)));
  // A later commit of the taken version loses too, with the caller's own words.
  const late = await commitVersion(store, 0, info('late'), () => new LakerecError('commit_conflict', 'taken')).then(() => null, (e: unknown) => e);
  expect((late as LakerecError).message).toBe('taken');
  await commitVersion(store, 1, info('next'));
  expect((await store.list('_delta_log'))!.map((f) => f.path)).toEqual(['_delta_log/00000000000000000000.json', '_delta_log/00000000000000000001.json']);
}

describe('commitVersion', () => {
  it('on a local folder: one of two commits of a version wins, whole; no temp file is left', async () => {
    const root = join(dir, 'local');
    mkdirSync(join(root, '_delta_log'), { recursive: true });
    await race(tableStorage(root));
    expect(readFileSync(join(root, '_delta_log', '00000000000000000001.json'), 'utf8')).toBe(commitText(info('next')));
  });

  it('on the in-memory store: the same', async () => {
    await race(new MemoryStorage());
  });
});
