import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TinyLake, type Row } from '../testing/forensics-tables';
import { bisect } from './bisect';
import { examinedText, type ProbeEvent } from '../../shared/bisect';
import { DeltaWriter } from '../writer';

const days = ['2026-08-06', '2026-08-07', '2026-08-08', '2026-08-09', '2026-08-10', '2026-08-11'];
const rowsFor = (dt: string, start: number, n: number, nullEvery = 0): Row[] =>
  Array.from({ length: n }, (_, i) => ({ order_id: nullEvery && i % nullEvery === 0 ? null : start + i, amount: (start + i) % 97, dt }));
const cols = [{ name: 'order_id', type: 'long' as const }, { name: 'amount', type: 'long' as const }, { name: 'dt', type: 'date' as const }];

let dir: string;
const lakes: Record<string, string> = {};

/** Every Parquet file under a folder (not the log). */
function dataFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '_delta_log') continue;
      if (e.isDirectory()) walk(join(d, e.name)); else if (e.name.endsWith('.parquet')) out.push(join(d, e.name));
    }
  };
  walk(root);
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-bisect-'));
  // double load: v1..v5 one day each, v6 appends the v5 batch again
  {
    const lake = await TinyLake.create(join(dir, 'double'), cols, ['dt']);
    for (let d = 0; d < 5; d++) await lake.append([rowsFor(days[d], d * 100, 30)]);
    await lake.append([rowsFor(days[4], 400, 30)]);
    lake.close();
    lakes.double = lake.root;
  }
  // healed: the double load of v6 is repaired by v7 (the day overwritten with one copy), v8 a clean append
  {
    const lake = await TinyLake.create(join(dir, 'healed'), cols, ['dt']);
    for (let d = 0; d < 5; d++) await lake.append([rowsFor(days[d], d * 100, 30)]);
    await lake.append([rowsFor(days[4], 400, 30)]);
    await lake.overwrite({ remove: (f) => f.partitionValues.dt === days[4], batches: [rowsFor(days[4], 400, 30)], predicate: `dt = '${days[4]}'` });
    await lake.append([rowsFor(days[5], 500, 30)]);
    lake.close();
    lakes.healed = lake.root;
  }
  // null keys arrive at v3; then every data file is deleted (the predicate must not need them)
  {
    const lake = await TinyLake.create(join(dir, 'nulls'), cols, ['dt']);
    await lake.append([rowsFor(days[0], 0, 20)]);
    await lake.append([rowsFor(days[1], 100, 20)]);
    await lake.append([rowsFor(days[2], 200, 20, 7)]);
    await lake.append([rowsFor(days[3], 300, 20)]);
    lake.close();
    for (const f of dataFiles(lake.root)) unlinkSync(f);
    lakes.nulls = lake.root;
  }
  // a partition wiped at v4 (for row-count and matches-source); the source extract is a CSV
  {
    const lake = await TinyLake.create(join(dir, 'wipe'), cols, ['dt']);
    for (let d = 0; d < 3; d++) await lake.append([rowsFor(days[d], d * 100, 25)]);
    await lake.overwrite({ remove: (f) => f.partitionValues.dt === days[1], batches: [], predicate: `dt = '${days[1]}'` });
    await lake.append([rowsFor(days[3], 300, 25)]);
    lake.close();
    lakes.wipe = lake.root;
    const csv = ['order_id,amount,dt', ...[0, 1, 2, 3].flatMap((d) => rowsFor(days[d], d * 100, 25).map((r) => `${r.order_id},${r.amount},${r.dt}`))];
    writeFileSync(join(dir, 'extract.csv'), csv.join('\n') + '\n');
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bisect, exhaustive walk (< 48 versions)', () => {
  it('finds the double load at the version that appended twice, with the culprit commit', async () => {
    const events: ProbeEvent[] = [];
    const progress: string[] = [];
    const r = await bisect(lakes.double, { predicate: 'unique-keys', keys: ['order_id'] }, {
      onProbe: (e) => events.push(e), progress: (p) => { if (p.phase === 'bisect') progress.push(`${p.done}/${p.total}`); },
    });
    expect(progress).toEqual(['1/7', '2/7', '3/7', '4/7', '5/7', '6/7', '7/7']);
    expect(r.outcome).toBe('bad');
    expect(r.firstBad).toBe(6);
    expect(r.lastGood).toBe(5);
    expect(r.exhaustive).toBe(true);
    expect(r.monotone).toBe(true);
    expect(r.healed).toBe(false);
    expect(r.examined).toBe(7);
    expect(r.culprit).toMatchObject({ version: 6, operation: 'WRITE', operationParameters: { mode: 'Append' }, addedFiles: 1, addedRows: 30, removedFiles: 0 });
    expect(r.probes[6].detail).toMatch(/^30 key\(s\) occur on more than one row/);
    expect(events.map((e) => [e.version, e.state, e.probeIndex])).toEqual([0, 1, 2, 3, 4, 5, 6].map((v) => [v, v === 6 ? 'bad' : 'good', v]));
    // each file read once: per-file key sets are cached across probes
    expect(r.filesRead).toBe(6);
    expect(r.semantics).toMatch(/not counted as duplicates/);
  });

  it('reports a healed history with the breaking and recovering versions', async () => {
    const r = await bisect(lakes.healed, { predicate: 'unique-keys', keys: ['order_id'] });
    expect(r.outcome).toBe('bad');
    expect(r.firstBad).toBe(6);
    expect(r.healed).toBe(true);
    expect(r.transitions).toEqual([{ kind: 'broke', from: 5, to: 6 }, { kind: 'recovered', from: 6, to: 7 }]);
    expect(r.latestState).toBe('good');
    expect(r.monotone).toBe(false);
  });

  it('no-null-keys is answered from stats alone, with no data file on disk', async () => {
    expect(dataFiles(lakes.nulls)).toEqual([]);
    const r = await bisect(lakes.nulls, { predicate: 'no-null-keys', keys: ['order_id'] });
    expect(r.firstBad).toBe(3);
    expect(r.lastGood).toBe(2);
    expect(r.filesRead).toBe(0);
    expect(r.probes.every((p) => p.filesRead === 0)).toBe(true);
    expect(r.probes[3].measured).toBe(3);
    expect(r.notes).toContain('answered from the log alone: no data file was opened');
  });

  it('unique-keys does not count repeated null keys as duplicates (as dbt\'s unique)', async () => {
    const root = join(dir, 'null-dups');
    const lake = await TinyLake.create(root, cols, ['dt']);
    await lake.append([rowsFor(days[0], 0, 20, 5)]); // ids 1..19 minus every 5th, 4 null ids
    await lake.append([rowsFor(days[1], 100, 20, 5)]); // 4 more null ids
    lake.close();
    const r = await bisect(root, { predicate: 'unique-keys', keys: ['order_id'] });
    expect(r.outcome).toBe('clean');
    expect(r.probes[2].detail).toBe('every key unique (8 row(s) with a null key not counted)');
    const nn = await bisect(root, { predicate: 'no-null-keys', keys: ['order_id'] });
    expect(nn.firstBad).toBe(1);
  });

  it('row-count per partition from the log', async () => {
    const r = await bisect(lakes.wipe, { predicate: 'row-count', expect: 25, partition: `dt=${days[1]}` });
    // v0, v1: the partition is not loaded yet: before it existed, not bad; v2, v3 good; v4 wiped
    expect(r.probes.map((p) => p.state)).toEqual(['before_partition', 'before_partition', 'good', 'good', 'bad', 'bad']);
    expect(r.transitions).toEqual([{ kind: 'broke', from: 3, to: 4 }]);
    expect(r.firstBad).toBe(4);
    expect(r.partitionAppearsAt).toBe(2);
    expect(r.filesRead).toBe(0);
    // One count: every probe listed is a version examined; of them, the ones the predicate judged.
    expect(r.examined).toBe(r.probes.length);
    expect(r.evaluated).toBe(4);
    expect(examinedText(r, { how: 'exhaustive' })).toBe('6 version(s) (exhaustive): 4 evaluated, 2 before the partition existed');
    expect(examinedText(r, { of: 6 })).toBe('6 of 6 version(s): 4 evaluated, 2 before the partition existed');
  });

  it('matches-source over a closed partition finds the wipe', async () => {
    const r = await bisect(lakes.wipe, { predicate: 'matches-source', source: join(dir, 'extract.csv'), partition: `dt=${days[0]}` });
    expect(r.outcome).toBe('clean'); // v0 predates the partition: not bad
    const r2 = await bisect(lakes.wipe, { predicate: 'matches-source', source: join(dir, 'extract.csv'), partition: `dt=${days[1]}` });
    expect(r2.probes.map((p) => p.state)).toEqual(['before_partition', 'before_partition', 'good', 'good', 'bad', 'bad']);
    expect(r2.firstBad).toBe(4);
    expect(r2.probes[4].detail).toMatch(/0 row\(s\) vs source 25/);
    expect(r2.notes.some((n) => n.includes('source: 25 row(s)'))).toBe(true);
    // the same source as a Delta table (its latest version)
    const src = await TinyLake.create(join(dir, 'extract-delta'), cols, ['dt']);
    await src.append([0, 1, 2, 3].map((d) => rowsFor(days[d], d * 100, 25)));
    src.close();
    const r3 = await bisect(lakes.wipe, { predicate: 'matches-source', source: src.root, partition: `dt=${days[1]}` });
    expect(r3.probes.map((p) => p.state)).toEqual(['before_partition', 'before_partition', 'good', 'good', 'bad', 'bad']);
    expect(r3.notes).toContain('source is a Delta table: its latest version, v1');
  });

  it('refuses matches-source without a partition, and says why', async () => {
    await expect(bisect(lakes.wipe, { predicate: 'matches-source', source: join(dir, 'extract.csv') })).rejects.toMatchObject({
      code: 'predicate_refused', message: expect.stringMatching(/non-monotone/),
    });
  });

  it('stops when cancelled, between probes', async () => {
    const ac = new AbortController();
    const seen: number[] = [];
    await expect(bisect(lakes.double, { predicate: 'unique-keys', keys: ['order_id'] }, {
      signal: ac.signal, onProbe: (e) => { seen.push(e.version); if (e.probeIndex === 1) ac.abort(); },
    })).rejects.toMatchObject({ code: 'cancelled' });
    expect(seen).toEqual([0, 1]);
  });

  it('refuses bad invocations with usage errors', async () => {
    await expect(bisect(lakes.double, { predicate: 'unique-keys' })).rejects.toMatchObject({ code: 'usage' });
    await expect(bisect(lakes.double, { predicate: 'unique-keys', keys: ['nope'] })).rejects.toMatchObject({ code: 'usage' });
    await expect(bisect(lakes.double, { predicate: 'row-count' })).rejects.toMatchObject({ code: 'usage' });
    await expect(bisect(lakes.double, { predicate: 'row-count', expect: 3, partition: 'amount=3' })).rejects.toMatchObject({ code: 'predicate_refused' });
    await expect(bisect(lakes.double, { predicate: 'unique-keys', keys: ['order_id'], expect: 3 })).rejects.toMatchObject({ code: 'usage', message: expect.stringMatching(/--expect does not apply/) });
    await expect(bisect(lakes.double, { predicate: 'row-count', expect: 3, partition: 'dt' })).rejects.toMatchObject({ code: 'usage' });
  });
});

describe('bisect, binary search and vacuumed history', () => {
  let big: string;
  let vac: string;
  beforeAll(async () => {
    // 60 versions: appends of 5 rows each; duplicate keys from v41 on
    big = join(dir, 'big');
    const schema = { type: 'struct' as const, fields: [
      { name: 'id', type: 'long', nullable: true, metadata: {} }, { name: 'day', type: 'string', nullable: true, metadata: {} }] };
    let t = Date.UTC(2026, 7, 1);
    const w = await DeltaWriter.create(big, { schema, partitionColumns: ['day'], clock: () => (t += 1000) });
    for (let v = 1; v < 60; v++) {
      const base = v === 41 ? 10 : v * 10; // v41 re-sends ids 10..14
      await w.append({ rows: Array.from({ length: 5 }, (_, i) => ({ id: base + i, day: `d${v % 3}` })) });
    }
    w.close();
    // vacuumed: the double load at v3, checkpoint at v5, commits before it cleaned up
    vac = join(dir, 'vacuumed');
    t = Date.UTC(2026, 7, 1);
    const w2 = await DeltaWriter.create(vac, { schema, partitionColumns: ['day'], clock: () => (t += 1000) });
    for (let v = 1; v <= 7; v++) await w2.append({ rows: Array.from({ length: 5 }, (_, i) => ({ id: (v === 3 ? 1 : v) * 10 + i, day: 'd' })) });
    await w2.checkpoint(); // at v7
    w2.cleanupLog(7);
    w2.close();
  });

  it('binary-searches above 48 versions with monotone: null and a note', async () => {
    const r = await bisect(big, { predicate: 'unique-keys', keys: ['id'] });
    expect(r.exhaustive).toBe(false);
    expect(r.monotone).toBeNull();
    expect(r.firstBad).toBe(41);
    expect(r.lastGood).toBe(40);
    expect(r.examined).toBeLessThan(12);
    expect(r.notes[0]).toMatch(/monotonicity was assumed, not checked/);
    expect(r.filesFromCache).toBeGreaterThan(0);
  });

  it('says the first bad version is not recoverable when the oldest readable version already fails', async () => {
    const r = await bisect(vac, { predicate: 'unique-keys', keys: ['id'] });
    expect(r.outcome).toBe('not_recoverable');
    expect(r.firstBad).toBeNull();
    expect(r.oldestReadableVersion).toBe(7);
    expect(r.unreadableVersions).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(r.notes.join('\n')).toMatch(/already fails at v7, the oldest version this log still holds: the true first bad version is not recoverable/);
  });

  it('not recoverable when every version before the first failing one had its data vacuumed', async () => {
    const root = join(dir, 'data-vacuumed-early');
    const schema = { type: 'struct' as const, fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }] };
    let t = Date.UTC(2026, 7, 1);
    const w = await DeltaWriter.create(root, { schema, clock: () => (t += 1000), data: { rows: [{ id: 1 }, { id: 2 }] } }); // v0 with data
    const v0File = join(root, [...w.state.files.keys()][0]);
    await w.append({ rows: [{ id: 2 }] }); // v1: a duplicate
    w.close();
    unlinkSync(v0File); // vacuumed: v0 and v1 cannot be read any more
    const r = await bisect(root, { predicate: 'unique-keys', keys: ['id'] });
    expect(r.probes.map((p) => p.state)).toEqual(['unreadable', 'unreadable']);
    expect(r.outcome).toBe('unreadable'); // nothing could be evaluated: exit 3, never "clean"
    // a later copy-on-write DELETE rewrites v0's file: v2 is readable again, and still holds the duplicate
    const w2 = await DeltaWriter.create(join(dir, 'data-vacuumed-early-2'), { schema, clock: () => (t += 1000), data: { rows: [{ id: 1 }, { id: 2 }] } });
    const a = join(dir, 'data-vacuumed-early-2', [...w2.state.files.keys()][0]);
    await w2.append({ rows: [{ id: 2 }] }); // v1: the duplicate
    await w2.deleteWhere('id = 1'); // v2: rewrites v0's file without id 1
    w2.close();
    unlinkSync(a);
    const r2 = await bisect(join(dir, 'data-vacuumed-early-2'), { predicate: 'unique-keys', keys: ['id'] });
    expect(r2.probes.map((p) => p.state)).toEqual(['unreadable', 'unreadable', 'bad']);
    expect(r2).toMatchObject({ outcome: 'not_recoverable', firstBad: null });
    expect(r2.notes[0]).toBe('it already fails at v2, the oldest version this log still holds with readable data: the true first bad version is not recoverable from this table');
  });

  it('a data-vacuumed prefix before a failing version makes the first bad version not recoverable', async () => {
    const root = join(dir, 'data-vacuumed-prefix');
    const lake = await TinyLake.create(root, cols, ['dt']);
    await lake.append([rowsFor(days[0], 0, 10)]); // v1
    const v1File = join(root, lake.liveFiles()[0].path);
    await lake.append([rowsFor(days[0], 0, 10)]); // v2: the double load
    await lake.overwrite({ remove: (f) => join(root, f.path) === v1File, batches: [rowsFor(days[1], 500, 10)] }); // v3: v1's file removed: unique again
    await lake.append([rowsFor(days[0], 0, 10)]); // v4: the double load again
    lake.close();
    unlinkSync(v1File); // v1, v2 unreadable; v0 good (empty), v3 good, v4 bad
    const r = await bisect(root, { predicate: 'unique-keys', keys: ['order_id'] });
    expect(r.probes.map((p) => p.state)).toEqual(['good', 'unreadable', 'unreadable', 'good', 'bad']);
    expect(r).toMatchObject({ outcome: 'bad', firstBad: 4, lastGood: 3 });
  });

  it('a commit missing in the middle of the log: the versions it breaks are skipped, and the gap is named', async () => {
    const root = join(dir, 'gap');
    const schema = { type: 'struct' as const, fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }] };
    let t = Date.UTC(2026, 7, 1);
    const w = await DeltaWriter.create(root, { schema, clock: () => (t += 1000) });
    await w.append({ rows: [{ id: 1 }, { id: 2 }] }); // v1
    await w.append({ rows: [{ id: 3 }] }); // v2
    await w.append({ rows: [{ id: 1 }] }); // v3: the duplicate, in the commit that will go missing
    await w.append({ rows: [{ id: 4 }] }); // v4
    await w.append({ rows: [{ id: 5 }] }); // v5
    await w.checkpoint(); // at v5
    await w.append({ rows: [{ id: 6 }] }); // v6
    w.close();
    unlinkSync(join(root, '_delta_log', '00000000000000000003.json'));
    const r = await bisect(root, { predicate: 'unique-keys', keys: ['id'] });
    expect(r.unreadableVersions).toEqual([3, 4]);
    expect(r.probes.map((p) => p.version)).toEqual([0, 1, 2, 5, 6]);
    expect(r).toMatchObject({ outcome: 'bad', firstBad: 5, lastGood: 2 });
    expect(r.notes).toContain('v3-v4 between the last good and the first bad version could not be evaluated (unreadable): the failure may have started at any of them');
    const { forensics } = await import('../forensics/forensics');
    const f = await forensics(root);
    expect(f.versions.map((v) => v.tableRows)).toEqual([0, 2, 3, null, null, 6, 7]);
  });

  it('counts a version whose data files were vacuumed as unreadable, neither good nor bad', async () => {
    const root = join(dir, 'double-vacuumed');
    const lake = await TinyLake.create(root, cols, ['dt']);
    await lake.append([rowsFor(days[0], 0, 10)]);
    const v1File = join(root, lake.liveFiles()[0].path);
    await lake.overwrite({ remove: () => true, batches: [rowsFor(days[0], 0, 10)] }); // v2 rewrites v1's file
    await lake.append([rowsFor(days[0], 0, 10)]); // v3 double
    lake.close();
    unlinkSync(v1File); // removed at v2, then deleted as VACUUM would
    const r = await bisect(root, { predicate: 'unique-keys', keys: ['order_id'] });
    expect(r.probes.map((p) => p.state)).toEqual(['good', 'unreadable', 'good', 'bad']);
    expect(r.firstBad).toBe(3);
    expect(r.lastGood).toBe(2);
  });
});
