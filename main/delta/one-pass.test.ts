// The history is the snapshot replay's own pass: at every version the history's "live at v" and the
// snapshot's active files are the same files (path + deletion-vector id), with the same counts, and
// a file the history saw added carries the version the snapshot says added it. Checked on logs the
// project's writer built (sample lakes: checkpoints, log cleanup, deletion vectors, overwrites) and
// on the shared conformance tables written by other implementations (skipped, saying so, when absent).
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { openTable } from './open';
import { DeltaWriter } from '../writer';
import { activeAt, dvKeyOf } from './history';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';

/** Compares history and snapshot at every version the history can read; returns how many were compared. */
async function agreeAtEveryVersion(root: string): Promise<number> {
  const table = await openTable(root);
  const h = await table.history();
  let compared = 0;
  for (const st of h.states) {
    if (!st.info.readable) continue;
    let snap;
    try {
      snap = await table.snapshot({ version: st.version });
    } catch (e) {
      // A path outside the root is refused by the snapshot, recorded by the history: not a disagreement.
      if (e instanceof LakerecError && e.code === 'path_outside_table') continue;
      throw new Error(`${root} v${st.version}: the history says readable, the snapshot fails: ${String(e)}`);
    }
    expect(st.exact, `${root} v${st.version} exact`).toBe(true);
    const live = activeAt(h, st.version);
    const hist = live.map((f) => `${f.path}\u0000${f.dvKey}`).sort();
    const snapKeys = snap.files.map((f) => `${f.path}\u0000${dvKeyOf(f.deletionVector)}`).sort();
    expect(hist, `${root} v${st.version}: live files`).toEqual(snapKeys);
    expect(st.tableFiles, `${root} v${st.version}: file count`).toBe(snap.files.length);
    if (st.tableRows !== null) expect(st.tableRows, `${root} v${st.version}: rows`).toBe(snap.numRecords);
    const addedAt = new Map(snap.files.map((f) => [`${f.path}\u0000${dvKeyOf(f.deletionVector)}`, f.addedInVersion]));
    // The snapshot names a file known from its checkpoint by the checkpoint's version; the history,
    // which saw the commit, by the commit's (no later than the checkpoint).
    let cp = -1;
    for (const [cv, list] of table.log.checkpoints) if (cv <= st.version && cv > cp && list.some((c) => c.complete)) cp = cv;
    for (const f of live) {
      if (f.fromSnapshot) continue;
      const at = addedAt.get(`${f.path}\u0000${f.dvKey}`);
      if (at === cp) expect(f.addedIn, `${root} v${st.version}: ${f.path} added at`).toBeLessThanOrEqual(cp);
      else expect(f.addedIn, `${root} v${st.version}: ${f.path} added at`).toBe(at);
    }
    compared++;
  }
  return compared;
}

let dir: string;
let lakes: BuiltLake[];
const LAKES = ['missing_rows_dv', 'vacuumed_history', 'overwrite_too_wide', 'schema_drift', 'bisect_many_versions'];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-one-pass-'));
  lakes = await buildSampleLakes({ out: join(dir, 'lakes'), rows: 300, only: LAKES });
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the history and the snapshot agree at every version', () => {
  it('on the sample lakes the writer built', async () => {
    expect(lakes.map((l) => l.name).sort()).toEqual([...LAKES].sort());
    for (const l of lakes) expect(await agreeAtEveryVersion(l.tablePath), l.name).toBeGreaterThan(0);
  });

  it('across a checkpoint, log cleanup, a deletion-vector update and a missing commit covered by a later checkpoint', async () => {
    const schema = { type: 'struct' as const, fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }, { name: 'dt', type: 'string', nullable: true, metadata: {} }] };
    let t = Date.UTC(2026, 7, 1);
    const root = join(dir, 'mixed');
    const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], configuration: { 'delta.enableDeletionVectors': 'true' }, clock: () => (t += 1000) });
    for (let i = 1; i <= 3; i++) await w.append({ rows: [{ id: i, dt: 'a' }, { id: i + 10, dt: 'b' }, { id: i + 20, dt: 'b' }] });
    await w.checkpoint();
    w.cleanupLog(3);
    await w.deleteWhere('id = 12');
    await w.append({ rows: [{ id: 4, dt: 'a' }] });
    await w.deleteWhere('id = 4');
    await w.checkpoint();
    await w.append({ rows: [{ id: 5, dt: 'b' }] });
    w.close();
    const latest = (await openTable(root)).latestVersion;
    // the commit before the second checkpoint goes missing: versions before it stay readable, the
    // checkpoint makes the table readable again
    unlinkSync(join(root, '_delta_log', `${String(latest - 2).padStart(20, '0')}.json`));
    const h = await (await openTable(root)).history();
    expect(h.files.some((f) => f.dvKey !== '' && f.rewrote !== null)).toBe(true);
    expect(h.states.find((s) => s.version === 6)?.fromSnapshot).toBe(true);
    // v3 (checkpoint, v0-v2 cleaned up), v4, v6 (checkpoint after the hole at v5), v7
    expect(latest).toBe(7);
    expect(await agreeAtEveryVersion(root)).toBe(4);
  });
});

const conformance = resolve(__dirname, '..', '..', '..', 'shared', 'conformance');
const have = existsSync(conformance);
if (!have) console.log(`history/snapshot agreement on the conformance tables skipped: ${conformance} is absent (the shared conformance tables are not on this machine)`);
const tables = (): string[] => {
  if (!have) return [];
  const out: string[] = [];
  const rs = join(conformance, 'delta-rs');
  for (const d of readdirSync(rs)) if (existsSync(join(rs, d, '_delta_log'))) out.push(join(rs, d));
  if (existsSync(join(rs, 'golden'))) for (const d of readdirSync(join(rs, 'golden'))) if (existsSync(join(rs, 'golden', d, '_delta_log'))) out.push(join(rs, 'golden', d));
  const golden = join(conformance, 'golden');
  if (existsSync(golden)) for (const c of readdirSync(golden)) if (existsSync(join(golden, c, 'delta', '_delta_log'))) out.push(join(golden, c, 'delta'));
  return out.sort();
};

let comparedInConformance = 0;
describe.skipIf(!have)('the history and the snapshot agree at every version of the conformance tables', () => {
  test.each(tables().map((p) => [p.slice(conformance.length + 1), p]))('%s', async (_name, path) => {
    let history = true;
    try {
      await (await openTable(path)).history();
    } catch (e) {
      // A table the reader refuses as a whole (metadata the protocol forbids) has no version to compare.
      if (!(e instanceof LakerecError)) throw e;
      history = false;
    }
    if (history) comparedInConformance += await agreeAtEveryVersion(path);
  });
  test('compared a real number of versions', () => {
    expect(comparedInConformance).toBeGreaterThan(100);
  });
});
