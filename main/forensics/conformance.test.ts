// Forensics and bisect over tables written by other implementations (../shared/conformance:
// Spark's golden tables, delta-rs's test tables). Skips, saying why, when that folder is absent.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { forensics } from './forensics';
import { bisect } from '../bisect/bisect';
import { LakerecError } from '../../shared/errors';

const repoRoot = resolve(__dirname, '..', '..');
const conformance = join(resolve(repoRoot, '..', 'shared'), 'conformance');
const present = existsSync(conformance);
if (!present) console.log(`skipping forensics conformance tests: ${conformance} is absent`);

function tables(): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(conformance, 'delta-rs'))) out.push(join(conformance, 'delta-rs', d));
  for (const d of readdirSync(join(conformance, 'golden'))) out.push(join(conformance, 'golden', d, 'delta'));
  return out.filter((t) => existsSync(t));
}

describe.skipIf(!present)('forensics and bisect on tables other engines wrote', () => {
  it('forensics reads every table or refuses it with a named error, never an internal one', async () => {
    let read = 0;
    for (const t of tables()) {
      try {
        const r = await forensics(t);
        expect(r.versions.length, t).toBe(r.latestVersion + 1);
        read++;
      } catch (e) {
        expect(e, t).toBeInstanceOf(LakerecError);
        expect((e as LakerecError).code, `${t}: ${(e as Error).message}`).not.toBe('internal');
      }
    }
    expect(read).toBeGreaterThan(40);
  });

  it('a deletion-vector DELETE: rows from stats minus DV cardinality, answered from the log', async () => {
    const t = join(conformance, 'delta-rs', 'table-with-dv-small');
    const f = await forensics(t);
    // a DV delete is the rows it deleted (net), the file rewritten in place, not +8 / -10
    expect(f.versions[1]).toMatchObject({ operation: 'DELETE', addedFiles: 0, removedFiles: 0, rewrittenFiles: 1, addedRows: 0, removedRows: 2, dvDeletedRows: 2, tableRows: 8 });
    const r = await bisect(t, { predicate: 'row-count', expect: 10, allowMoving: true });
    expect(r).toMatchObject({ firstBad: 1, lastGood: 0, filesRead: 0 });
    // the DV is applied when rows are read: the 8 remaining values are unique
    const u = await bisect(t, { predicate: 'unique-keys', keys: ['value'] });
    expect(u.outcome).toBe('clean');
    expect(u.filesRead).toBe(2);
  });

  it('a vacuumed delta-rs history: unreadable versions reported, never evaluated', async () => {
    const t = join(conformance, 'delta-rs', 'checkpoints_vacuumed');
    const f = await forensics(t);
    const unreadable = f.versions.filter((v) => !v.readable).map((v) => v.version);
    expect(unreadable.length).toBeGreaterThan(0);
    expect(f.heuristics.find((h) => h.name === 'vacuumed_history')?.evidence.oldestReadable).toBe(f.oldestReadableVersion);
  });
});
