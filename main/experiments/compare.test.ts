import { describe, expect, it } from 'vitest';
import { compareFigures } from './run';
import { experimentsMarkdown } from './markdown';
import { compareMatrices } from '../receipts/fresh';
import type { ExperimentResult } from './types';
import type { DetectionMatrix } from '../reconcile/matrix';

const result = (figures: ExperimentResult['figures'], extra: Partial<ExperimentResult> = {}): ExperimentResult => ({
  name: 'float_drift', title: 'Float drift', question: 'q?', method: 'm.', lakes: { rows: 5400, seed: 1 }, figures, tables: [], findings: ['f.'], contradicted: [], ...extra,
});

describe('re-measured experiments against the published ones', () => {
  it('agree when every figure is the same, whatever the CPU times', () => {
    expect(compareFigures(result({ a: 1, b: 'x' }, { cpuMs: { a: 10 } }), result({ a: 1, b: 'x' }, { cpuMs: { a: 99 } }))).toEqual([]);
  });

  it('name each figure that changed, vanished or appeared', () => {
    expect(compareFigures(result({ a: 1, b: 2 }), result({ a: 3, c: 4 }))).toEqual([
      'float_drift.a: published 1, measured 3',
      'float_drift.b: published 2, not measured any more',
      'float_drift.c: measured 4, not published',
    ]);
  });

  it('a quick run may skip the figures only a full run measures', () => {
    expect(compareFigures(result({ a: 1, '1m.rows': 7 }, { fullOnly: ['1m.rows'] }), result({ a: 1 }))).toEqual([]);
  });

  it('the page lists what contradicted expectations first', () => {
    const md = experimentsMarkdown([result({ a: 1 }, { contradicted: ['it surprised us'] })]);
    expect(md.indexOf('## What contradicted expectations')).toBeLessThan(md.indexOf('## Float drift'));
    expect(md).toContain('- **Float drift.** it surprised us');
  });
});

describe('the re-measured detection matrix', () => {
  const m = (rowsToName: number | null, ms: number): DetectionMatrix => ({
    generatedAt: '2026-01-01T00:00:00Z', rows: 60, seed: 1, levels: ['schema', 'counts', 'checksum', 'keys', 'rows'],
    scenarios: [{ scenario: 'double_load', title: 'double load', expectedMode: 'double_load', firstNotices: 'counts', firstNames: 'counts', rowsReadToName: rowsToName, silentAsExpected: null, otherModes: [], cells: [{ level: 'counts', verdict: 'diverges', modes: ['double_load'], unnamed: 0, targetRowsRead: 0, sourceRowsRead: 60, ms }] }],
    summary: { corruptions: 1, named: 1, namedFromLogOnly: 1, silentKeptSilent: 0, silentTotal: 0 },
  });
  it('ignores timings and dates, not results', () => {
    expect(compareMatrices(m(0, 5), { ...m(0, 900), generatedAt: '2027-01-01T00:00:00Z' })).toEqual([]);
    expect(compareMatrices(m(0, 5), m(60, 5))[0]).toMatch(/double_load is published as .* but measures/);
  });
});
