import { describe, it, expect } from 'vitest';
import { checkClaims, formatViolation, type Claim } from './receipts';

const claims: Claim[] = [
  { metric: 'matrix.named', phrase: 'All {n} corruptions are named at some level', files: ['README.md'] },
  { metric: 'replay.ratio', phrase: 'log replay takes {range} the time of DuckDB', files: ['README.md'] },
  { metric: 'float.rows', phrase: 'flags {x}% of a partition', files: ['README.md'] },
];

describe('receipts', () => {
  it('passes when every quoted number is the measured one', () => {
    const doc = 'Intro.\nAll 14 corruptions are named at some level.\nOur log replay takes 1.2–2.5x the time of DuckDB.\nIt flags 28.3% of a partition.';
    expect(checkClaims(claims, { 'README.md': doc }, { 'matrix.named': 14, 'replay.ratio': 1.9, 'float.rows': 28.31 })).toEqual([]);
  });

  it('fails a stale number with the file, line, claimed and measured value', () => {
    const doc = 'Intro.\nAll 13 corruptions are named at some level.\nlog replay takes 1.2-2.5x the time of DuckDB. flags 28.3% of a partition';
    const v = checkClaims(claims, { 'README.md': doc }, { 'matrix.named': 14, 'replay.ratio': 3.1, 'float.rows': 28.3 });
    expect(v.map((x) => [x.metric, x.line, x.claimed, x.measured])).toEqual([
      ['matrix.named', 2, 'All 13 corruptions are named at some level', 14],
      ['replay.ratio', 3, 'log replay takes 1.2-2.5x the time of DuckDB', 3.1],
    ]);
    expect(formatViolation(v[0])).toContain('README.md:2');
  });

  it('does not accept the right digits in the wrong sentence', () => {
    const doc = 'We ran 14 scenarios. All corruptions are named at some level.';
    const v = checkClaims(claims.slice(0, 1), { 'README.md': doc }, { 'matrix.named': 14 });
    expect(v).toHaveLength(1);
    expect(v[0].reason).toMatch(/no longer quotes/);
  });

  it('matches a phrase wrapped across lines and numbers with thousands separators', () => {
    const c: Claim[] = [{ metric: 'rows', phrase: 'reads {n} target rows', files: ['a.md'] }];
    expect(checkClaims(c, { 'a.md': 'A cold run reads\n5,400 target rows.' }, { rows: 5400 })).toEqual([]);
  });

  it('reports a metric that was not measured', () => {
    const v = checkClaims(claims.slice(0, 1), { 'README.md': 'All 14 corruptions are named at some level' }, {});
    expect(v[0].reason).toMatch(/not measured/);
  });

  it('checks each placeholder of a table row against its own metric', () => {
    const row: Claim[] = [{ metrics: ['cov.main.lines', 'cov.main.branches'], phrase: '| `main/` | {x}% | {x}% |', files: ['README.md'] }];
    const doc = '| folder | lines | branches |\n| `main/` | 80.3% | 70.6% |\n';
    expect(checkClaims(row, { 'README.md': doc }, { 'cov.main.lines': 80.31, 'cov.main.branches': 70.6 })).toEqual([]);
    const v = checkClaims(row, { 'README.md': doc }, { 'cov.main.lines': 80.3, 'cov.main.branches': 72 });
    expect(v.map((x) => [x.metric, x.line, x.measured])).toEqual([['cov.main.branches', 2, 72]]);
    expect(checkClaims([{ ...row[0], metrics: ['cov.main.lines'] }], { 'README.md': doc }, {})[0].reason).toMatch(/2 placeholder\(s\) but the claim names 1/);
  });
});
