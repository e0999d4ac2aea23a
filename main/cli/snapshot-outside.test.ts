// A data file outside the table root, allowed with --allow-outside-paths, is on DuckDB's allow list
// because the store says it is outside, not because its path string lacks the root as a prefix:
// a sibling folder whose name starts with the table's (orders-archive beside orders) is outside too.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TinyLake } from '../testing/forensics-tables';
import { openDuck, sqlString } from '../engine/duck';
import { runCli } from './main';

let dir: string;
let root: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-snap-outside-'));
  root = join(dir, 'orders');
  const lake = await TinyLake.create(root, [{ name: 'id', type: 'long' }]);
  await lake.append([[{ id: 1 }, { id: 2 }]]);
  const f = lake.liveFiles()[0];
  const archived = join(dir, 'orders-archive', 'part-0.parquet');
  mkdirSync(join(dir, 'orders-archive'));
  copyFileSync(join(root, f.path), archived);
  rmSync(join(root, f.path));
  lake.writeCommit([
    { remove: { path: f.path, deletionTimestamp: 1, dataChange: false, extendedFileMetadata: true, partitionValues: {}, size: f.size, stats: f.stats } },
    { add: { ...f, path: archived, dataChange: false } },
  ], { operation: 'MOVE' });
  lake.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('snapshot with a data file outside the root', () => {
  it('reads a file in a sibling folder whose name starts with the root\'s', async () => {
    const out = join(dir, 'out.parquet');
    const err: string[] = [];
    const code = await runCli(['snapshot', root, '--out', out, '--allow-outside-paths'], { out: () => {}, err: (t: string) => err.push(t), cwd: dir, env: {} });
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    const duck = await openDuck({ threads: 1 });
    try {
      const r = await duck.conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(out)})`);
      expect(Number(r.getRows()[0][0])).toBe(2);
    } finally {
      duck.close();
    }
  });
});
