// One model of a version: the History list's row, the timeline's summary, Compare's commit and
// bisect's culprit are views of the same VersionSummary (shared/forensics.ts), so a commit reads the
// same on every screen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHandlers } from '../../shared/api';
import { TinyLake } from '../testing/forensics-tables';
import { formatBisect } from '../cli/bisect';
import { diffVersions } from '../views/diff';
import { createService } from './service';

let dir: string;
let root: string;
let service: ApiHandlers;
const ctx = {};
// Values a writer may put in operationParameters besides strings (the protocol's commitInfo is free JSON).
const PARAMS = { mode: 'Append', batch: 7, replay: false, owner: null, tags: ['a', 'b'] };
const DV = { storageType: 'u' as const, pathOrInlineDv: 'vBn[lx{q8@P<9BNH/isA', offset: 1, sizeInBytes: 36, cardinality: 1 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-one-model-'));
  root = join(dir, 't');
  const lake = await TinyLake.create(root, [{ name: 'id', type: 'long' }, { name: 'v', type: 'string' }]);
  await lake.append([[{ id: 1, v: 'a' }, { id: 2, v: 'b' }]]); // v1
  await lake.append([[{ id: 3, v: 'c' }]], { operationParameters: PARAMS }); // v2
  // v3: a deletion-vector delete re-adds the first file in place (same path, a DV): a rewrite.
  const first = lake.liveFiles()[0];
  lake.writeCommit([
    { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors'], writerFeatures: ['deletionVectors'] } },
    { remove: { path: first.path, deletionTimestamp: 1, dataChange: true, extendedFileMetadata: true, partitionValues: {}, size: first.size, stats: first.stats } },
    { add: { ...first, deletionVector: DV } },
  ], { operation: 'DELETE', operationParameters: { predicate: '["id = 1"]' } });
  lake.close();
  service = createService({ mode: 'web', userDataDir: join(dir, 'userdata'), cwd: dir });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('one model of a version', () => {
  it('the History row and the timeline summary say the same of each commit', async () => {
    const { versions: rows } = await service.listVersions({ path: root }, ctx);
    const { forensics } = await service.forensics({ path: root }, ctx);
    for (const row of rows) {
      const s = forensics.versions.find((x) => x.version === row.version)!;
      expect({ v: row.version, ...row }).toEqual({
        v: s.version, version: s.version, timestamp: s.timestamp, operation: s.operation, operationParameters: s.operationParameters,
        writer: s.writer, who: s.who, addedFiles: s.addedFiles, removedFiles: s.removedFiles,
      });
    }
    // The DV delete rewrote one file in place: neither added nor removed on any screen.
    expect(rows.find((r) => r.version === 3)).toMatchObject({ addedFiles: 0, removedFiles: 0 });
  });

  it('operationParameters are encoded once, as the protocol names them: strings, other values as their JSON', async () => {
    const { forensics } = await service.forensics({ path: root }, ctx);
    const want = { mode: 'Append', batch: '7', replay: 'false', owner: 'null', tags: '["a","b"]' };
    expect(forensics.versions.find((v) => v.version === 2)!.operationParameters).toEqual(want);
    expect((await service.listVersions({ path: root }, ctx)).versions.find((v) => v.version === 2)!.operationParameters).toEqual(want);
    const diff = await diffVersions(root, { from: 1, to: 2, keys: ['id'] });
    expect(diff.commits.map((c) => c.operationParameters)).toEqual([want]);
    // Compare's commit is the summary's fields, picked.
    const s = forensics.versions.find((v) => v.version === 2)!;
    expect(diff.commits[0]).toEqual({
      version: 2, timestamp: s.timestamp, operation: s.operation, operationParameters: want,
      addedFiles: s.addedFiles, removedFiles: s.removedFiles, addedRows: s.addedRows, removedRows: s.removedRows,
    });
  });
});

// Bisect's culprit is the same commit as the timeline's: a deletion-vector delete that rewrote one
// file in place names no file added or removed and one row removed, with operationParameters as
// the protocol names them, on both (shared/bisect.ts CulpritCommit is a pick of VersionSummary).
describe('one model of a version: bisect', () => {
  let broot: string;
  beforeAll(async () => {
    broot = join(dir, 'b');
    const lake = await TinyLake.create(broot, [{ name: 'id', type: 'long' }, { name: 'p', type: 'string' }], ['p']);
    await lake.append([[{ id: 1, p: 'a' }, { id: 2, p: 'a' }]]); // v1
    await lake.append([[{ id: 3, p: 'b' }]]); // v2
    const first = lake.liveFiles().find((f) => f.partitionValues.p === 'a')!;
    lake.writeCommit([
      { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors'], writerFeatures: ['deletionVectors'] } },
      { remove: { path: first.path, deletionTimestamp: 1, dataChange: true, extendedFileMetadata: true, partitionValues: first.partitionValues, size: first.size, stats: first.stats } },
      { add: { ...first, deletionVector: DV } },
    ], { operation: 'DELETE', operationParameters: { predicate: '["id = 1"]', numDeletedRows: 1 } }); // v3
    lake.close();
  });

  it('the culprit is the timeline summary of its version, picked', async () => {
    const r = await service.bisect({ path: broot, predicate: 'row-count', expect: 2, partition: 'p=a' }, ctx);
    expect(r.outcome).toBe('bad');
    const { forensics } = await service.forensics({ path: broot }, ctx);
    const s = forensics.versions.find((v) => v.version === 3)!;
    const { addedPaths, removedPaths, rewrittenPaths, ...picked } = r.culprit!;
    expect(picked).toEqual({
      version: s.version, timestamp: s.timestamp, when: s.when, operation: s.operation, operationParameters: s.operationParameters,
      who: s.who, addedFiles: s.addedFiles, removedFiles: s.removedFiles, addedRows: s.addedRows, removedRows: s.removedRows,
      dvDeletedRows: s.dvDeletedRows, rewrittenFiles: s.rewrittenFiles, partitions: s.partitions,
    });
    expect(picked).toMatchObject({ addedFiles: 0, removedFiles: 0, removedRows: 1, dvDeletedRows: 1, rewrittenFiles: 1, partitions: ['p=a'] });
    expect(picked.operationParameters).toEqual({ predicate: '["id = 1"]', numDeletedRows: '1' });
    // The file rewritten in place is named as such, not as one added and one removed.
    expect({ addedPaths, removedPaths, rewrittenPaths: rewrittenPaths.map((p) => p.split('/')[0]) }).toEqual({ addedPaths: [], removedPaths: [], rewrittenPaths: ['p=a'] });
    // The CLI's culprit line says it from the result: no file added or removed, one row hidden by a DV.
    expect(formatBisect(r)).toContain('· {"predicate": "[\\"id = 1\\"]", "numDeletedRows": "1"} · +0 file(s)/0 row(s) -0 file(s)/1 row(s) (1 row(s) deleted by deletion vectors, 1 file(s) rewritten in place)');
  });

  it('a remove of a file the readable log never added counts on both: its rows from the remove\'s stats', async () => {
    const oroot = join(dir, 'o');
    const lake = await TinyLake.create(oroot, [{ name: 'id', type: 'long' }, { name: 'p', type: 'string' }], ['p']);
    await lake.append([[{ id: 1, p: 'a' }, { id: 2, p: 'a' }]]); // v1
    await lake.append([[{ id: 3, p: 'b' }]]); // v2
    const first = lake.liveFiles().find((f) => f.partitionValues.p === 'a')!;
    lake.writeCommit([
      { remove: { path: first.path, deletionTimestamp: 1, dataChange: true, extendedFileMetadata: true, partitionValues: first.partitionValues, size: first.size, stats: first.stats } },
      { remove: { path: 'p=a/part-gone.parquet', deletionTimestamp: 1, dataChange: true, extendedFileMetadata: true, partitionValues: { p: 'a' }, size: 900, stats: JSON.stringify({ numRecords: 5 }) } },
    ], { operation: 'DELETE', operationParameters: { predicate: '["p = \'a\'"]' } }); // v3
    lake.close();
    const r = await service.bisect({ path: oroot, predicate: 'row-count', expect: 2, partition: 'p=a' }, ctx);
    expect(r.firstBad).toBe(3);
    const s = (await service.forensics({ path: oroot }, ctx)).forensics.versions.find((v) => v.version === 3)!;
    expect(r.culprit).toMatchObject({ removedFiles: s.removedFiles, removedRows: s.removedRows, partitions: s.partitions });
    expect(r.culprit).toMatchObject({ removedFiles: 2, removedRows: 7 });
    expect(r.culprit!.removedPaths).toEqual([first.path, 'p=a/part-gone.parquet']);
  });
});
