// The experiments on tiny sample lakes (120 rows): what each one claims must hold on any lake the
// builder makes, whatever its size: the algebra of the checksum, the float rule's verdict, the
// aggregate check's blind spot, the log-only levels. (bisect_histories and order_dependence are
// left to verify's run: they take seconds even at this size.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SEED } from '../../sample-lakes/build';
import { runExperiments, writeExperiments } from './run';
import type { ExperimentResult } from './types';

const dir = mkdtempSync(join(tmpdir(), 'lakerec-experiments-test-'));
const logged: string[] = [];
let results: ExperimentResult[] = [];
const by = (name: string): ExperimentResult => results.find((r) => r.name === name)!;

beforeAll(async () => {
  results = await runExperiments({ dir: join(dir, 'lakes'), rows: 120, seed: DEFAULT_SEED, full: false, log: (l) => logged.push(l) }, ['checksum_algebra', 'float_drift', 'aggregates_agree', 'cost_per_level']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the experiments on 120-row lakes', () => {
  it('run only the ones asked for, in page order, saying each', () => {
    expect(results.map((r) => r.name)).toEqual(['checksum_algebra', 'float_drift', 'aggregates_agree', 'cost_per_level']);
    expect(logged).toEqual(results.map((r) => `experiment ${r.name}`));
    for (const r of results) expect(r.lakes).toEqual({ rows: 120, seed: DEFAULT_SEED });
  });

  it('checksum algebra: XOR cannot see a double load, the sum mod 2^128 can, and it is what reconcile reports', () => {
    const f = by('checksum_algebra').figures;
    expect(f.rows).toBe(120);
    expect(f.xor_twice).toBe(f.xor_empty);
    expect(f.xor_twice_equals_empty).toBe(true);
    expect(f.sum_twice_equals_empty).toBe(false);
    expect(f.sum_twice_is_2x_once).toBe(true);
    expect(f.partition_sums_add_up).toBe(true);
    expect(f.reconcile_target_checksum).toBe(f.sum_once);
    expect(by('checksum_algebra').printed).toContain('a perfect double load is INVISIBLE to XOR');
  });

  it('float drift: bit-exact digests flag rows the tolerance rule accepts', () => {
    const f = by('float_drift').figures;
    expect(f.bit_exact_flagged).toBeGreaterThan(0);
    expect(f.bit_exact_flagged).toBe(f.bitwise_different_values);
    expect(f.contract_verdict).toBe('matches');
    expect(f.contract_flagged_rows).toBe(0);
    expect(Number(f.largest_gap)).toBeLessThan(1e-9);
  });

  it('aggregates agree while rows differ: the check misses them', () => {
    const f = by('aggregates_agree').figures;
    expect(f.rows_that_differ).toBe(by('float_drift').figures.bit_exact_flagged);
    expect(f.totals_equal_rounded).toBe(true);
    expect(f.aggregate_check_missed).toBe(true);
  });

  it('cost per level: schema and counts read no target data file; the deeper levels read every target row', () => {
    const f = by('cost_per_level').figures;
    expect(f.log_only_levels).toBe('schema, counts');
    expect([f['sample.schema.target_data_bytes'], f['sample.counts.target_data_bytes'], f['sample.counts.target_rows']]).toEqual([0, 0, 0]);
    for (const l of ['checksum', 'keys', 'rows']) expect(f[`sample.${l}.target_rows`]).toBe(120);
    expect(by('cost_per_level').fullOnly ?? []).not.toContain('sample.rows.target_rows');
  });

  it('write one JSON each and the page rendered from them', () => {
    const out = join(dir, 'out');
    const md = join(dir, 'experiments.md');
    writeExperiments(results, out, md, dir);
    expect(JSON.parse(readFileSync(join(out, 'float_drift.json'), 'utf8'))).toEqual(by('float_drift'));
    const page = readFileSync(md, 'utf8');
    expect(page).toContain('sample lakes of 120 rows');
    expect(page.indexOf('## Checksum algebra')).toBeLessThan(page.indexOf('## Cost'));
    writeExperiments(results.slice(0, 1), join(dir, 'only'), null, dir);
    expect(existsSync(join(dir, 'only', 'checksum_algebra.json'))).toBe(true);
  });
});
