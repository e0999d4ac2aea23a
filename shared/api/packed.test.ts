import { describe, expect, it } from 'vitest';
import { packRows, unpackRows } from './packed';

describe('records packed by column', () => {
  it('come back equal: numbers as numbers, the rest once in the dictionary, a missing field missing', () => {
    const rows = [
      { v: 0, op: 'WRITE', who: { user: 'a' }, rows: null, part: ['dt=1'] },
      { v: 1, op: 'WRITE', who: { user: 'a' }, rows: 5, part: [] },
      { v: 2, op: 'DELETE', rows: 7, extra: true },
    ];
    const p = packRows(rows);
    expect(p.n).toBe(3);
    expect(p.cols.find((c) => c.key === 'v')).toEqual({ key: 'v', nums: [0, 1, 2] });
    expect(p.cols.find((c) => c.key === 'rows')).toEqual({ key: 'rows', nums: [null, 5, 7] });
    expect(p.dict.filter((d) => d === 'WRITE')).toHaveLength(1);
    expect(p.cols.find((c) => c.key === 'extra')).toEqual({ key: 'extra', idx: [-1, -1, p.dict.indexOf(true)] });
    expect(unpackRows(p)).toEqual(rows);
  });

  it('a non-finite number or a field some records lack is not a number column', () => {
    const p = packRows([{ x: 1 }, { x: Infinity }, {}]);
    expect('idx' in p.cols[0]).toBe(true);
    expect(unpackRows(p)).toEqual([{ x: 1 }, { x: Infinity }, {}]);
    expect(unpackRows(packRows([]))).toEqual([]);
  });
});
