// Log integrity as findings with evidence: the table still opens, and each doctored part of the log
// is named. Hand-written logs (empty commit, doctored operationMetrics, a .crc that disagrees).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forensics } from './forensics';
import { runCli } from '../cli/main';
import { HandLog, add, commitInfo, metaData, protocol } from '../testing/handlog';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-integrity-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = (name: string) => new HandLog(join(dir, name))
  .commit(0, [protocol(), metaData(), commitInfo(0, 'CREATE TABLE')])
  .commit(1, [commitInfo(1, 'WRITE', { operationMetrics: { numFiles: '1', numOutputRows: '900' } }), add('dt=a/1.parquet', 900, { dt: 'a' })]);

describe('log integrity findings', () => {
  it('an empty or whitespace-only commit file is a finding, with its timestamp marked as the file time', async () => {
    base('empty').commit(2, '').commit(3, '  \n\n');
    const r = await forensics(join(dir, 'empty'));
    const hits = r.heuristics.filter((h) => h.name === 'empty_commit');
    expect(hits.map((h) => h.version)).toEqual([2, 3]);
    expect(hits[0].evidence).toMatchObject({ file: '00000000000000000002.json', bytes: 0 });
    expect(r.versions[2]).toMatchObject({ timestampSource: 'file_mtime' });
    expect(r.versions[1]).toMatchObject({ timestampSource: 'commitInfo' });
    expect(r.heuristics.some((h) => h.name === 'timestamp_from_file_time' && h.version === 2)).toBe(true);
  });

  it('operationMetrics that disagree with the actions: a commit whose add was deleted by hand', async () => {
    base('doctored').commit(2, [commitInfo(2, 'WRITE', { operationMetrics: { numFiles: '1', numOutputRows: '900' } })]);
    const r = await forensics(join(dir, 'doctored'));
    const hit = r.heuristics.find((h) => h.name === 'metrics_disagree');
    expect(hit?.version).toBe(2);
    expect(hit?.severity).toBe('warn');
    expect(hit?.evidence).toMatchObject({ numFiles: 1, addsInLog: 0, numOutputRows: 900, rowsInLog: 0 });
    expect(r.heuristics.some((h) => h.name === 'metrics_disagree' && h.version === 1)).toBe(false);
  });

  it('a deletion-vector DELETE whose metrics match (no files added or removed, only rewritten) is not a finding', async () => {
    const dv = { storageType: 'u', pathOrInlineDv: 'ab^-aqEH.-t@S}K{vb[*k^', offset: 1, sizeInBytes: 34, cardinality: 529 };
    base('dv-metrics').commit(2, [
      commitInfo(2, 'DELETE', { operationMetrics: { numAddedFiles: '0', numRemovedFiles: '0', numDeletedRows: '529', numDeletionVectorsAdded: '1' } }),
      { remove: { path: 'dt=a/1.parquet', deletionTimestamp: 1, dataChange: true, partitionValues: { dt: 'a' }, size: 9100 } },
      add('dt=a/1.parquet', 900, { dt: 'a' }, { deletionVector: dv } as never),
    ]);
    const r = await forensics(join(dir, 'dv-metrics'));
    expect(r.versions[2]).toMatchObject({ addedFiles: 0, removedFiles: 0, rewrittenFiles: 1, removedRows: 529, dvDeletedRows: 529 });
    expect(r.heuristics.filter((h) => h.name === 'metrics_disagree')).toEqual([]);
  });

  it('a version checksum file that disagrees with the replayed state', async () => {
    base('crc')
      .crc(1, { tableSizeBytes: 9100, numFiles: 1, numMetadata: 1, numProtocol: 1 })
      .commit(2, [commitInfo(2, 'WRITE'), add('dt=a/2.parquet', 10, { dt: 'a' })])
      .crc(2, { tableSizeBytes: 9100, numFiles: 1, numMetadata: 1, numProtocol: 1 });
    const r = await forensics(join(dir, 'crc'));
    const hits = r.heuristics.filter((h) => h.name === 'checksum_disagrees');
    expect(hits.map((h) => h.version)).toEqual([2]);
    expect(hits[0].evidence).toMatchObject({ crcNumFiles: 1, numFiles: 2, crcTableSizeBytes: 9100, tableSizeBytes: 9300 });
  });

  it('protocol_upgraded names what changed and does not say older readers are locked out when only the writer rose', async () => {
    base('proto').commit(2, [commitInfo(2, 'SET TBLPROPERTIES'), protocol({ minReaderVersion: 1, minWriterVersion: 4 })])
      .commit(3, [commitInfo(3, 'SET TBLPROPERTIES'), protocol({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors'], writerFeatures: ['deletionVectors'] })]);
    const r = await forensics(join(dir, 'proto'));
    const [w, rd] = r.heuristics.filter((h) => h.name === 'protocol_upgraded');
    expect(w.message).toBe('writer version 2 -> 4; older writers can no longer write this table, readers are unaffected');
    expect(rd.message).toMatch(/^reader version 1 -> 3, writer version 4 -> 7, features added: deletionVectors; older readers can no longer read this table$/);
    expect(rd.evidence).toMatchObject({ readerBefore: 1, readerAfter: 3, featuresAdded: ['deletionVectors'] });
  });

  it('who and why are shown and filterable on the CLI', async () => {
    const l = new HandLog(join(dir, 'who'))
      .commit(0, [protocol(), metaData(), commitInfo(0, 'CREATE TABLE', { userName: 'alice' })])
      .commit(1, [commitInfo(1, 'WRITE', { userName: 'alice', userId: '17', engineInfo: 'Apache-Spark/3.5 Delta-Lake/3.2', txnId: 't-1', job: { jobId: '9', jobName: 'nightly', runId: '44' }, notebook: { notebookId: 'nb1' }, clusterId: 'c-1', userMetadata: 'backfill ticket OPS-12' }), add('dt=a/1.parquet', 9, { dt: 'a' })])
      .commit(2, [commitInfo(2, 'DELETE', { userName: 'bob', operationParameters: { predicate: '["dt = \'b\'"]' } }), add('dt=b/2.parquet', 1, { dt: 'b' })]);
    void l;
    const r = await forensics(join(dir, 'who'));
    expect(r.versions[1].who).toEqual({ userName: 'alice', userId: '17', userMetadata: 'backfill ticket OPS-12', clusterId: 'c-1', job: { id: '9', name: 'nightly', run: '44' }, notebook: 'nb1', engineInfo: 'Apache-Spark/3.5 Delta-Lake/3.2', txnId: 't-1' });
    let out = '';
    const code = await runCli(['forensics', 'who', '--user', 'alice', '--text', 'OPS-12', '--json'], { out: (t) => { out += t; }, err: () => {}, cwd: dir, env: {} });
    expect(code).toBe(0);
    expect((JSON.parse(out) as { versions: { version: number }[] }).versions.map((v) => v.version)).toEqual([1]);
    out = '';
    await runCli(['forensics', 'who', '--operation', 'DELETE', '--partition', 'dt=b', '--since', '2026-08-10T12:01:30Z'], { out: (t) => { out += t; }, err: () => {}, cwd: dir, env: {} });
    expect(out).toMatch(/bob/);
    expect(out).not.toMatch(/alice/);
  });
});
