// Log integrity as findings with evidence: the table still opens, and each doctored part of the log
// is named. Hand-written logs (empty commit, doctored operationMetrics, a .crc that disagrees).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forensics } from './forensics';
import { runCli } from '../cli/main';
import { HandLog, add, commitInfo, metaData, protocol } from '../testing/handlog';
import { DeltaWriter } from '../writer';

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

describe('a commit missing between two that exist', () => {
  // v0..v4 and v6 exist, 00..05.json does not, and no checkpoint covers it (PROTOCOL.md: versions
  // are contiguous; metadata cleanup only ever removes the oldest commits, before a checkpoint).
  const holed = () => {
    const l = new HandLog(join(dir, 'holed')).commit(0, [protocol(), metaData(), commitInfo(0, 'CREATE TABLE')]);
    for (const v of [1, 2, 3, 4, 6]) l.commit(v, [commitInfo(v, 'WRITE'), add(`dt=a/${v}.parquet`, 10, { dt: 'a' })]);
    return l.root;
  };

  it('is version_missing with its evidence, not vacuumed_history, and the versions are unreadable with that cause', async () => {
    const root = holed();
    const r = await forensics(root);
    const hit = r.heuristics.find((h) => h.name === 'version_missing');
    expect(hit).toMatchObject({ version: 5, severity: 'warn', evidence: { missingVersions: 'v5', count: 1, before: 4, after: 6, unreadableAfter: 'v6', readableAgainAt: null } });
    expect(hit?.message).toBe('version 5 is missing: 00000000000000000005.json does not exist (v4 and v6 do) and no checkpoint covers it; v6 cannot be read');
    expect(r.heuristics.some((h) => h.name === 'vacuumed_history')).toBe(false);
    const at = (v: number) => r.versions.find((x) => x.version === v);
    expect(at(5)).toMatchObject({ readable: false, unreadableCause: 'version_missing', unreadableReason: expect.stringMatching(/version 5 is missing/) });
    expect(at(6)).toMatchObject({ readable: false, unreadableCause: 'version_missing' });
    expect(at(4)).toMatchObject({ readable: true });
  });

  it('the CLI says so: forensics --json, history, bisect', async () => {
    const root = holed();
    const io = () => { const o = { text: '', out: (t: string) => { o.text += t; }, err: (t: string) => { o.text += t; }, cwd: dir, env: {} }; return o; };
    let o = io();
    await runCli(['forensics', root, '--json'], o);
    const j = JSON.parse(o.text) as { heuristics: { name: string; version: number }[] };
    expect(j.heuristics).toContainEqual(expect.objectContaining({ name: 'version_missing', version: 5 }));
    o = io();
    await runCli(['forensics', root], o);
    expect(o.text).toMatch(/v5 version_missing: version 5 is missing/);
    expect(o.text).toMatch(/\(unreadable: version 5 is missing from the log/);
    o = io();
    expect(await runCli(['history', root, '--json'], o)).toBe(0);
    const rows = (JSON.parse(o.text) as { versions: { version: number; readable: boolean; reason: string | null; unreadableCause?: string | null }[] }).versions;
    expect(rows.find((x) => x.version === 5)).toMatchObject({ readable: false, unreadableCause: 'version_missing', reason: expect.stringMatching(/version 5 is missing/) });
    o = io();
    await runCli(['bisect', root, '--predicate', 'row-count', '--expect', '50', '--partition', 'dt=a', '--json'], o);
    const b = JSON.parse(o.text) as { unreadable: { version: number; cause?: string }[] };
    expect(b.unreadable).toEqual([expect.objectContaining({ version: 5, cause: 'version_missing' }), expect.objectContaining({ version: 6, cause: 'version_missing' })]);
  });

  it('log cleanup (the oldest commits gone, a checkpoint after them) stays vacuumed history; a hole after the checkpoint is version_missing', async () => {
    const schema = { type: 'struct' as const, fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }, { name: 'dt', type: 'string', nullable: true, metadata: {} }] };
    let t = Date.UTC(2026, 7, 1);
    const root = join(dir, 'cleaned');
    const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], clock: () => (t += 1000) });
    for (let i = 1; i <= 3; i++) await w.append({ rows: [{ id: i, dt: 'a' }] });
    await w.checkpoint();
    w.cleanupLog(3);
    for (let i = 4; i <= 7; i++) await w.append({ rows: [{ id: i, dt: 'a' }] });
    w.close();
    const cleaned = await forensics(root);
    expect(cleaned.heuristics.some((h) => h.name === 'version_missing')).toBe(false);
    expect(cleaned.heuristics.find((h) => h.name === 'vacuumed_history')?.evidence).toMatchObject({ unreadableVersions: 'v0-v2', oldestReadable: 3 });
    expect(cleaned.versions.find((v) => v.version === 1)).toMatchObject({ readable: false, unreadableCause: 'history_expired' });
    // now a commit after the checkpoint goes missing
    unlinkSync(join(root, '_delta_log', '00000000000000000005.json'));
    const r = await forensics(root);
    expect(r.heuristics.find((h) => h.name === 'version_missing')).toMatchObject({ version: 5, evidence: { missingVersions: 'v5', before: 4, after: 6, unreadableAfter: 'v6-v7' } });
    expect(r.heuristics.find((h) => h.name === 'vacuumed_history')?.evidence).toMatchObject({ unreadableVersions: 'v0-v2', oldestReadable: 3 });
  });
  // Only log cleanup is vacuumed history. A version the reader cannot read for another reason
  // (a reader feature it does not support, a schema the protocol forbids) is named as such.
  it('versions unreadable for a reason other than cleanup are versions_unreadable with that reason, not vacuumed_history', async () => {
    const md = metaData() as unknown as { metaData: Record<string, unknown> };
    const dup = { metaData: { ...md.metaData, schemaString: JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }, { name: 'ID', type: 'long', nullable: true, metadata: {} }, { name: 'dt', type: 'string', nullable: true, metadata: {} }] }) } };
    const root = new HandLog(join(dir, 'unreadable-kinds'))
      .commit(0, [protocol(), md as never, commitInfo(0, 'CREATE TABLE')])
      .commit(1, [commitInfo(1, 'WRITE'), add('dt=a/1.parquet', 10, { dt: 'a' })])
      .commit(2, [commitInfo(2, 'ALTER'), dup as never])
      .commit(3, [commitInfo(3, 'ALTER'), md as never])
      .commit(4, [commitInfo(4, 'UPGRADE'), protocol({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['futureFeature'], writerFeatures: ['futureFeature'] })])
      .root;
    const r = await forensics(root);
    expect(r.heuristics.some((h) => h.name === 'vacuumed_history')).toBe(false);
    const hits = r.heuristics.filter((h) => h.name === 'versions_unreadable');
    expect(hits.map((h) => [h.version, h.severity, h.evidence.cause, h.evidence.unreadableVersions])).toEqual([
      [2, 'warn', 'unreadable', 'v2'],
      [4, 'warn', 'unsupported_feature', 'v4'],
    ]);
    expect(hits[0].message).toMatch(/"id" and "ID"/);
    expect(hits[1].message).toMatch(/futureFeature/);
  });
});
