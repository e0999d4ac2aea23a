// One result object for local and pushed runs: a pushed reconcile of the same tables names the
// same corruption modes with the same sentences as the local reconcile (the local classifier,
// fed from the partials and the key-level rows of the disagreeing partitions). The scenarios
// whose mode needs evidence a pushed run does not fetch are listed with that reason, and what
// the pushed run says for them is pinned too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';
import { SCENARIOS } from '../../sample-lakes/scenarios';
import type { Level, ReconcileResult } from '../../shared/reconcile';
import { reconcile } from '../reconcile/reconcile';
import { loadContract } from '../reconcile/contract';
import { localSide } from './sides';
import { pushedReconcile } from './result';

/** Modes a pushed run cannot name as the local run does, and why (each also said in the result's notExamined). */
const NEEDS_LOCAL: Record<string, string> = {
  overwrite_too_wide: "the commit's predicate is in the target's Delta log, which a pushed run does not read",
  unicode_normalisation: 'the NFC re-comparison needs the rows\' strings, and only key text and digests come back',
};
/** Below the keys level, null keys are counted locally from the target's file statistics (its log). */
const NEEDS_LOCAL_BELOW_KEYS: Record<string, string> = { null_keys: "the target's file statistics are in its Delta log" };

let dir: string;
let lakes: BuiltLake[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-wh-modes-'));
  lakes = await buildSampleLakes({ out: dir, rows: 240, only: SCENARIOS.map((s) => s.name) });
}, 240_000);
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

async function both(lake: BuiltLake, level: Level): Promise<{ local: ReconcileResult; pushed: ReconcileResult }> {
  const contract = loadContract(lake.contractPath);
  const local = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract, level, digest: 'md5' });
  const s = await localSide(lake.sourceParquet, dir, contract, 'lk_source');
  const t = await localSide(lake.tablePath, dir, contract, 'lk_target');
  try {
    return { local, pushed: await pushedReconcile({ source: s, target: t, contract, level }) };
  } finally {
    await s.connector.close();
    await t.connector.close();
  }
}

const said = (r: ReconcileResult) => ({ verdict: r.verdict, exitCode: r.exitCode, findings: r.findings.map((f) => `${f.mode}: ${f.summary}`), unnamed: r.unnamed });

describe('pushed and local runs of the same tables name the same modes in the same sentences', () => {
  for (const spec of SCENARIOS) {
    for (const level of ['rows', 'checksum'] as const) {
      it(`${spec.name} at ${level}`, async () => {
        const { local, pushed } = await both(lakes.find((l) => l.name === spec.name)!, level);
        expect(pushed.pushed?.ran.length).toBeGreaterThan(0);
        const why = spec.expectedMode ? (level === 'checksum' ? NEEDS_LOCAL_BELOW_KEYS[spec.expectedMode] ?? (spec.expectedMode === 'overwrite_too_wide' ? NEEDS_LOCAL.overwrite_too_wide : undefined) : NEEDS_LOCAL[spec.expectedMode]) : undefined;
        if (spec.expectedMode && why) {
          // Not named as locally: still diverging, and the reason is in the result.
          expect(local.findings.map((f) => f.mode)).toContain(spec.expectedMode);
          expect(pushed.verdict).toBe('diverges');
          expect(pushed.findings.map((f) => f.mode)).not.toContain(spec.expectedMode);
          expect(pushed.pushed!.notExamined.join(' ')).toMatch({ overwrite_too_wide: /Delta log is not read/, unicode_normalisation: /Unicode normal forms are not re-compared/, null_keys: /null keys are not counted below the keys level/ }[spec.expectedMode as string]!);
          return;
        }
        expect(said(pushed)).toEqual(said(local));
        expect(pushed.partitions.map((p) => [p.partition, p.sourceRows, p.targetRows, p.state])).toEqual(local.partitions.map((p) => [p.partition, p.sourceRows, p.targetRows, p.state]));
      }, 120_000);
    }
  }
});

describe('ordering values compare as the values they came from', () => {
  it('integers, epoch microseconds and decimals by number; dates and strings by text', async () => {
    const { orderingCompare } = await import('./levels');
    expect(orderingCompare('9', '10')).toBe(-1);
    expect(orderingCompare('-1700000000000001', '-1700000000000000')).toBe(-1);
    expect(orderingCompare('9.50', '12.30')).toBe(-1);
    expect(orderingCompare('-0.5', '-0.25')).toBe(-1);
    expect(orderingCompare('2026-08-09', '2026-08-10')).toBe(-1);
    expect(orderingCompare('b', 'a')).toBe(1);
    expect(orderingCompare('12.3', '12.30')).toBe(0);
  });
});
