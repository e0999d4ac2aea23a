// The fingerprint and both engines against real Delta tables written by Spark and delta-rs (the
// conformance tables in ../shared): DuckDB SQL over our reader's view, TypeScript over the duckdb
// engine's Arrow, and TypeScript over the arrow engine's Arrow (parquet-wasm reading Spark's and
// delta-rs's Parquet, INT96 timestamps included) must give the same figures. An engine may refuse
// a table feature it does not implement, by name; it may never crash or disagree.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareFingerprints } from '../../shared/fingerprint';
import { LakerecError } from '../../shared/errors';
import { openDuck, type Duck } from '../engine/duck';
import { openTable } from '../delta/open';
import { registerSnapshotView } from '../delta/scan';
import { arrowEngine } from './engines/arrow';
import { duckdbEngine } from './engines/duckdb';
import { fingerprintArrow, fingerprintDuckdb } from './fingerprint';

const base = resolve(__dirname, '..', '..', '..', 'shared', 'conformance');
const present = existsSync(base);
if (!present) console.log(`skipping the proof's conformance test: ${base} is absent`);

function tables(): string[] {
  const out: string[] = [];
  for (const c of readdirSync(join(base, 'golden'))) if (existsSync(join(base, 'golden', c, 'delta', '_delta_log'))) out.push(join(base, 'golden', c, 'delta'));
  for (const c of readdirSync(join(base, 'delta-rs'))) if (existsSync(join(base, 'delta-rs', c, '_delta_log'))) out.push(join(base, 'delta-rs', c));
  return out;
}

describe.skipIf(!present)('fingerprints of the conformance tables agree across methods and engines', () => {
  let duck: Duck;
  beforeAll(async () => { duck = await openDuck({ threads: 1 }); });
  afterAll(() => duck.close());

  it('every table our reader reads', async () => {
    let both = 0;
    let duckOnly = 0;
    const disagreements: string[] = [];
    for (const root of tables()) {
      const name = root.slice(base.length + 1);
      let snapshot;
      try { snapshot = await (await openTable(root)).snapshot(); } catch { continue; } // the reader's own tests cover refusals
      // Keep the test to seconds: the million-row case is for the reader's benchmark.
      if ((snapshot.numRecords ?? 0) > 200_000) continue;
      let sql;
      try {
        await registerSnapshotView(duck.conn, snapshot, 'conf');
        sql = await fingerprintDuckdb(duck.conn, snapshot.schema, 'conf');
      } catch { continue; } // e.g. a data file the log names is absent from the fixture
      const viaDuck = compareFingerprints(sql, fingerprintArrow((await duckdbEngine.read(root)).table));
      if (viaDuck.length) disagreements.push(`${name} duckdb engine: ${viaDuck.join('; ')}`);
      try {
        const viaArrow = compareFingerprints(sql, fingerprintArrow((await arrowEngine.read(root)).table));
        if (viaArrow.length) disagreements.push(`${name} arrow engine: ${viaArrow.join('; ')}`);
        both++;
      } catch (e) {
        if (!(e instanceof LakerecError) || e.code !== 'unsupported_feature') disagreements.push(`${name} arrow engine crashed: ${String(e)}`);
        duckOnly++;
      }
    }
    expect(disagreements).toEqual([]);
    // Not vacuous: most tables went through both engines.
    expect(both).toBeGreaterThan(30);
    expect(duckOnly).toBeGreaterThan(0);
  }, 300_000);
});
