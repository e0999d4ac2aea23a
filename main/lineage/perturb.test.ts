// Detection as the seed defines it: a multiset change; values that only moved, compared paired with
// the columns claimed independent; rows matched by an identifying column when rows come or go.
import { describe, expect, it } from 'vitest';
import { detect, identifyingColumns, sattolo, shiftFor, type ResultRows } from './perturb';

const rows = (names: string[], data: (string | null)[][]): ResultRows => ({ names, rows: data });

describe('detection', () => {
  const base = rows(['id', 'name', 'rank'], [['1', 'a', '1'], ['2', 'b', '2'], ['3', 'c', '3']]);

  it('a changed multiset of values is a change', () => {
    const p = rows(base.names, [['1', 'a', '1'], ['2', 'b', '2'], ['3', 'zz', '3']]);
    expect([...detect(base, p, () => true, []).columns]).toEqual(['name']);
  });

  it('values that only moved between rows are seen paired with the columns claimed independent', () => {
    // rank is a ROW_NUMBER ordered by the perturbed input: still 1..n, but on other rows
    const p = rows(base.names, [['1', 'a', '3'], ['2', 'b', '1'], ['3', 'c', '2']]);
    const independent = (c: string) => c !== 'rank';
    expect([...detect(base, p, independent, []).columns]).toEqual(['rank']);
    // claimed dependent on everything: nothing to pair with, so the move is not seen
    expect([...detect(base, p, () => false, []).columns]).toEqual([]);
  });

  it('rows matched by an identifying column: a change seen although rows were removed', () => {
    const p = rows(base.names, [['1', 'a', '1'], ['3', 'CHANGED', '3']]);
    const keys = identifyingColumns(base);
    expect(keys).toEqual([0, 1, 2]);
    const d = detect(base, p, (c) => c === 'id', keys);
    expect(d.key).toBe('id');
    expect(d.rows).toBe(true);
    expect([...d.columns]).toEqual(['name']);
    // without a key, every column whose multiset changed is reported
    expect([...detect(base, p, () => true, []).columns].sort()).toEqual(['id', 'name', 'rank']);
  });

  it('a key claimed to depend on the perturbed input is not used to match rows', () => {
    const p = rows(base.names, [['10', 'a', '1'], ['20', 'b', '2'], ['30', 'c', '3']]);
    const d = detect(base, p, (c) => c !== 'id', [0, 1]);
    expect(d.key).toBe('name');
    expect([...d.columns]).toEqual(['id']);
  });

  it('an identifying column has no NULL and no repeat', () => {
    expect(identifyingColumns(rows(['a', 'b'], [['1', null], ['1', 'x']]))).toEqual([]);
    expect(identifyingColumns(rows(['a'], []))).toEqual([]);
  });
});

describe('seeded perturbations', () => {
  it('the shift and the permutation follow the seed; the permutation moves every row', () => {
    expect(shiftFor(1729)).toEqual(shiftFor(1729));
    expect(shiftFor(1729)).not.toEqual(shiftFor(1730));
    const p = sattolo(50, 7);
    expect(p).toEqual(sattolo(50, 7));
    expect([...p].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(p.every((v, i) => v !== i)).toBe(true);
  });
});
