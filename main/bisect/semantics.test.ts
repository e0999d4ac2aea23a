// Bisect answers that cannot name an impossible culprit: a partition that did not exist yet is not
// bad, a moving reference is refused, the result is checked against its own probes, and versions
// the reader cannot read are unreadable with the reason. Hand-written logs; row-count is answered
// from the log's stats, so no data file is needed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bisect } from './bisect';
import { bisectHeadline } from '../../shared/bisect';
import { runCli } from '../cli/main';
import { HandLog, add, commitInfo, metaData, protocol, remove } from '../testing/handlog';

let dir: string;
const lakes: Record<string, string> = {};

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd: dir, env: {} });
  return { code, out, err };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-bisect-sem-'));
  const start = (name: string, proto = protocol()) => {
    lakes[name] = join(dir, name);
    return new HandLog(lakes[name]).commit(0, [proto, metaData(), commitInfo(0, 'CREATE TABLE')]);
  };
  // dt=c appears at v3 with 900 rows, v4 touches another partition, v5 wipes dt=c
  start('appears')
    .commit(1, [commitInfo(1, 'WRITE'), add('dt=a/1.parquet', 10, { dt: 'a' })])
    .commit(2, [commitInfo(2, 'WRITE'), add('dt=b/2.parquet', 10, { dt: 'b' })])
    .commit(3, [commitInfo(3, 'WRITE'), add('dt=c/3.parquet', 900, { dt: 'c' })])
    .commit(4, [commitInfo(4, 'WRITE'), add('dt=a/4.parquet', 10, { dt: 'a' })])
    .commit(5, [commitInfo(5, 'DELETE', { operationParameters: { predicate: '["dt = \'c\'"]' } }), remove('dt=c/3.parquet', 900, { dt: 'c' })]);
  // dt=a holds 5 rows at v1 (bad), 10 from v2 on (good): not monotone
  start('rising')
    .commit(1, [commitInfo(1, 'WRITE'), add('dt=a/1.parquet', 5, { dt: 'a' })])
    .commit(2, [commitInfo(2, 'WRITE'), add('dt=a/2.parquet', 5, { dt: 'a' })])
    .commit(3, [commitInfo(3, 'WRITE'), add('dt=b/3.parquet', 5, { dt: 'b' })]);
  // good at v1, bad at v2, good again at v3 (healed), bad at v4 (the latest fails: not healed)
  start('flap')
    .commit(1, [commitInfo(1, 'WRITE'), add('dt=a/1.parquet', 10, { dt: 'a' })])
    .commit(2, [commitInfo(2, 'WRITE'), add('dt=a/2.parquet', 10, { dt: 'a' })])
    .commit(3, [commitInfo(3, 'DELETE'), remove('dt=a/2.parquet', 10, { dt: 'a' })])
    .commit(4, [commitInfo(4, 'WRITE'), add('dt=a/4.parquet', 10, { dt: 'a' })]);
  // an unsupported reader feature from v5 on
  const future = protocol({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['futureFeature'], writerFeatures: ['futureFeature'] });
  const l = start('feature');
  for (let v = 1; v <= 4; v++) l.commit(v, [commitInfo(v, 'WRITE'), add(`dt=a/${v}.parquet`, 10, { dt: 'a' })]);
  l.commit(5, [commitInfo(5, 'SET TBLPROPERTIES'), future]);
  l.commit(6, [commitInfo(6, 'WRITE'), add('dt=a/6.parquet', 10, { dt: 'a' })]);
  start('future-from-0', future).commit(1, [commitInfo(1, 'WRITE'), add('dt=a/1.parquet', 10, { dt: 'a' })]);
  // 60 versions: dt=z appears at v59 only; the binary search must not name v0
  const many = start('many');
  for (let v = 1; v < 60; v++) many.commit(v, [commitInfo(v, 'WRITE'), add(`dt=${v === 59 ? 'z' : 'a'}/${v}.parquet`, 10, { dt: v === 59 ? 'z' : 'a' })]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bisect semantics', () => {
  it('versions before the partition first appears are "before the partition existed", not bad', async () => {
    const r = await bisect(lakes.appears, { predicate: 'row-count', expect: 900, partition: 'dt=c' });
    expect(r.probes.map((p) => p.state)).toEqual(['before_partition', 'before_partition', 'before_partition', 'good', 'good', 'bad']);
    expect(r.partitionAppearsAt).toBe(3);
    expect(r).toMatchObject({ outcome: 'bad', firstBad: 5, lastGood: 4 });
    expect(r.culprit?.operation).toBe('DELETE');
    expect(r.probes[5].detail).toMatch(/0 row\(s\) in dt=c, expected 900/);
    expect(bisectHeadline(r)).toMatch(/^broke at v5/);
  });

  it('a binary search over 60 versions starts where the partition appears', async () => {
    const r = await bisect(lakes.many, { predicate: 'row-count', expect: 10, partition: 'dt=z' });
    expect(r.outcome).toBe('clean');
    expect(r.firstBad).toBeNull();
    expect(r.partitionAppearsAt).toBe(59);
  });

  it('bad at the oldest version and good at the latest is "not monotone", never a culprit', async () => {
    const r = await bisect(lakes.rising, { predicate: 'row-count', expect: 10, partition: 'dt=a' });
    expect(r.outcome).toBe('not_monotone');
    expect(r.firstBad).toBeNull();
    expect(r.culprit).toBeNull();
    expect(r.healed).toBe(false);
    expect(bisectHeadline(r)).toBe('not monotone: the predicate fails at the oldest version (v1) and passes at the latest (v3); no version can be named as the culprit');
    const c = await cli(['bisect', 'rising', '--predicate', 'row-count', '--expect', '10', '--partition', 'dt=a']);
    expect(c.out.split('\n')[0]).toBe(bisectHeadline(r));
    expect(c.code).toBe(0);
    const j = JSON.parse((await cli(['bisect', 'rising', '--predicate', 'row-count', '--expect', '10', '--partition', 'dt=a', '--json'])).out) as { headline: string };
    expect(j.headline).toBe(bisectHeadline(r));
  });

  it('healed only when the latest version passes after a bad one', async () => {
    const r = await bisect(lakes.flap, { predicate: 'row-count', expect: 10, partition: 'dt=a' });
    expect(r.probes.map((p) => p.state)).toEqual(['before_partition', 'good', 'bad', 'good', 'bad']);
    expect(r.healed).toBe(false);
    expect(r.latestState).toBe('bad');
    expect(r.firstBad).toBe(2);
    expect(bisectHeadline(r)).not.toMatch(/healed/i);
  });

  it('a partition no version ever held is refused, not "broke at v0"', async () => {
    await expect(bisect(lakes.appears, { predicate: 'row-count', expect: 10, partition: 'dt=zz' })).rejects.toMatchObject({ code: 'predicate_refused', message: expect.stringMatching(/no version of this log holds a file/) });
  });

  it('row-count without --partition is refused (a moving reference) unless --allow-moving', async () => {
    await expect(bisect(lakes.appears, { predicate: 'row-count', expect: 10 })).rejects.toMatchObject({ code: 'predicate_refused', message: expect.stringMatching(/--allow-moving/) });
    const r = await bisect(lakes.appears, { predicate: 'row-count', expect: 20, allowMoving: true });
    expect(r.probes[2].state).toBe('good');
    const c = await cli(['bisect', 'appears', '--predicate', 'row-count', '--expect', '10']);
    expect(c.code).toBe(2);
    expect(c.err.trim().split('\n')).toHaveLength(1);
  });

  it('versions that need an unsupported reader feature are unreadable, with the reason, never good', async () => {
    const r = await bisect(lakes.feature, { predicate: 'row-count', expect: 40, partition: 'dt=a' });
    expect(r.probes.filter((p) => p.version >= 5)).toEqual([]);
    expect(r.unreadableVersions).toEqual([5, 6]);
    expect(r.unreadable.map((u) => u.reason)).toEqual([expect.stringMatching(/futureFeature/), expect.stringMatching(/futureFeature/)]);
    expect(r.outcome).toBe('unreadable');
    expect(r.latestState).toBe('unreadable');
  });

  it('a table whose protocol needs an unsupported reader feature: exit 3 and one line saying why', async () => {
    const r = await bisect(lakes['future-from-0'], { predicate: 'row-count', expect: 10, partition: 'dt=a' });
    expect(r.outcome).toBe('unreadable');
    expect(r.probes.some((p) => p.state === 'good')).toBe(false);
    const c = await cli(['bisect', 'future-from-0', '--predicate', 'row-count', '--expect', '10', '--partition', 'dt=a']);
    expect(c.code).toBe(3);
    const lines = c.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/futureFeature/);
  });
});
