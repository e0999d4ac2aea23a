// Bisect and forensics over the sample lakes (built by sample-lakes/build.ts through the project's
// own Delta writer): every bisect expectation a scenario declares is met, and forensics names
// what each corruption left in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';
import { bisect } from './bisect';
import { forensics } from '../forensics/forensics';
import type { BisectPlan, ProbeEvent } from '../../shared/bisect';

const NAMES = ['double_load', 'healed_history', 'vacuumed_history', 'null_keys', 'control', 'bisect_many_versions', 'partition_wipe', 'overwrite_too_wide', 'schema_drift', 'demo', 'timezone_partition_shift', 'stale_rows'];
let dir: string;
let lakes: BuiltLake[];
const lake = (name: string): BuiltLake => {
  const l = lakes.find((x) => x.name === name);
  if (!l) throw new Error(`lake ${name} was not built`);
  return l;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-bisect-lakes-'));
  lakes = await buildSampleLakes({ out: dir, rows: 600, only: NAMES });
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bisect meets every expectation the scenario lakes declare', () => {
  for (const name of NAMES) {
    it(name, async () => {
      const l = lake(name);
      for (const e of l.meta.bisect) {
        const events: ProbeEvent[] = [];
        const plans: BisectPlan[] = [];
        const r = await bisect(l.tablePath, { predicate: e.predicate, keys: e.keys, expect: e.expect, partition: e.partition }, {
          onProbe: (p) => events.push(p), onPlan: (p) => plans.push(p),
        });
        expect(plans).toEqual([{ latestVersion: l.meta.headVersion, unreadableVersions: r.unreadableVersions, unreadable: r.unreadable, partitionAppearsAt: r.partitionAppearsAt, exhaustive: r.exhaustive }]);
        expect(r.exhaustive).toBe(e.exhaustive);
        expect(events.map((p) => p.probeIndex)).toEqual(events.map((_p, i) => i));
        expect(events).toHaveLength(r.examined);
        if (e.firstBadRecoverable === false) {
          expect(r.outcome).toBe('not_recoverable');
          expect(r.firstBad).toBeNull();
          expect(r.notes.join('\n')).toMatch(/true first bad version is not recoverable/);
        } else {
          expect(r.firstBad).toBe(e.firstBadVersion);
          expect(r.outcome).toBe(e.firstBadVersion === null ? 'clean' : 'bad');
          if (e.firstBadVersion !== null) {
            expect(r.lastGood).toBe(e.lastGoodVersion);
            expect(r.culprit?.version).toBe(e.firstBadVersion);
          }
        }
        if (e.unreadableVersions) expect(r.unreadableVersions).toEqual(e.unreadableVersions);
        if (e.healedAtVersion !== undefined && e.healedAtVersion !== null) {
          expect(r.healed).toBe(true);
          expect(r.transitions).toContainEqual({ kind: 'recovered', from: e.firstBadVersion, to: e.healedAtVersion });
        } else {
          expect(r.healed).toBe(false);
        }
        if (!e.exhaustive) {
          expect(r.monotone).toBeNull();
          expect(r.examined).toBeLessThan(l.meta.headVersion / 2);
        }
        if (e.predicate === 'no-null-keys') expect(r.filesRead).toBe(0);
      }
    });
  }

  it('double load: the culprit is the append that repeated a day', async () => {
    const l = lake('double_load');
    const r = await bisect(l.tablePath, { predicate: 'unique-keys', keys: ['order_id'] });
    expect(r.culprit).toMatchObject({ operation: 'WRITE', operationParameters: { mode: 'Append' }, removedFiles: 0, addedRows: 100 });
    expect(r.culprit?.partitions).toEqual(l.meta.affectedPartitions);
  });

  it('matches-source is refused without a partition, and finds the wipe with one', async () => {
    const l = lake('partition_wipe');
    await expect(bisect(l.tablePath, { predicate: 'matches-source', source: l.sourceParquet })).rejects.toMatchObject({ code: 'predicate_refused' });
    const [p] = l.meta.affectedPartitions;
    const r = await bisect(l.tablePath, { predicate: 'matches-source', source: l.sourceCsv, partition: p });
    // bad before the day's load, good from it, bad again at the wipe: an exhaustive walk sees both
    expect(r.transitions.at(-1)).toEqual({ kind: 'broke', from: l.meta.brokenAtVersion as number - 1, to: l.meta.brokenAtVersion });
  });
});

describe('forensics names what the corruptions left in the log', () => {
  const hits = async (name: string) => (await forensics(lake(name).tablePath)).heuristics;

  it('double load: duplicate_batch at the version that appended twice', async () => {
    const l = lake('double_load');
    const h = (await hits('double_load')).filter((x) => x.name === 'duplicate_batch');
    expect(h.map((x) => x.version)).toEqual([l.meta.brokenAtVersion]);
  });

  it('partition wipe and too-wide overwrite', async () => {
    const wipe = lake('partition_wipe');
    expect((await hits('partition_wipe')).find((x) => x.name === 'partition_emptied')).toMatchObject({ version: wipe.meta.brokenAtVersion, evidence: { partition: wipe.meta.affectedPartitions[0] } });
    const wide = lake('overwrite_too_wide');
    const h = await hits('overwrite_too_wide');
    expect(h.find((x) => x.name === 'overwrite_shrank_the_table')?.version).toBe(wide.meta.brokenAtVersion);
    expect(h.find((x) => x.name === 'partition_emptied')?.evidence.partition).toBe(wide.meta.affectedPartitions[0]);
    // replaceWhere dt >= day 5 covers day 6 too: declared wide, so not wider than declared
    expect(h.find((x) => x.name === 'overwrite_wider_than_predicate')).toBeUndefined();
  });

  it('null keys: the first nulls in order_id', async () => {
    const l = lake('null_keys');
    expect((await hits('null_keys')).filter((x) => x.name === 'nulls_appeared')).toEqual([
      expect.objectContaining({ version: l.meta.brokenAtVersion, evidence: expect.objectContaining({ column: 'order_id' }) }),
    ]);
  });

  it('timezone shift: files whose ts leaves their dt\'s UTC day, named from stats alone', async () => {
    const l = lake('timezone_partition_shift');
    const h = (await hits('timezone_partition_shift')).filter((x) => x.name === 'partition_outside_its_day');
    expect(h).toEqual([expect.objectContaining({ version: l.meta.brokenAtVersion, evidence: expect.objectContaining({ partitionColumn: 'dt', timestampColumn: 'ts' }) })]);
    // no other lake's history trips it
    for (const other of ['double_load', 'stale_rows', 'control', 'demo']) {
      expect((await hits(other)).filter((x) => x.name === 'partition_outside_its_day'), other).toEqual([]);
    }
  });

  it('schema drift, vacuumed history, control', async () => {
    expect((await hits('schema_drift')).find((x) => x.name === 'schema_changed')?.evidence.added).toEqual(['channel']);
    const vac = await hits('vacuumed_history');
    expect(vac.find((x) => x.name === 'vacuumed_history')?.evidence.oldestReadable).toBe(lake('vacuumed_history').meta.bisect[0].firstBadVersion);
    // the files VACUUM deleted were removed before the checkpoint: the log that remains no longer names them
    expect(vac.filter((x) => x.name === 'data_files_missing')).toEqual([]);
    expect((await hits('control')).filter((x) => x.severity === 'warn')).toEqual([]);
  });
});
