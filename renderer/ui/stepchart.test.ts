import { describe, expect, it } from 'vitest';
import { linearTicks, logTicks, stepGeometry } from './stepchart';

const fmt = (n: number) => String(n);

describe('step chart geometry', () => {
  it('holds each value from its version to the next, on a linear scale from 0', () => {
    const g = stepGeometry([0, 1, 2], [{ name: 'a', color: '#000', values: [0, 10, 5] }], { width: 300, height: 122, log: false, format: fmt });
    expect(g.plot).toEqual({ left: 62, right: 282, top: 18, bottom: 100 });
    // Ticks 0..10 by 2: 10 is the top of the plot, 0 its bottom.
    expect(g.leftTicks.map((t) => t.value)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(g.paths[0].d).toBe('M62,100H172V18H282V59H282');
    expect(g.xTicks.map((t) => t.label)).toEqual(['0', '1', '2']);
  });

  it('finds the version under the pointer, clamped to the data', () => {
    const g = stepGeometry([3, 7, 9], [{ name: 'a', color: '#000', values: [1, 2, 3] }], { width: 300, height: 122, log: false, format: fmt });
    expect([g.indexAt(0), g.indexAt(g.xAt(1) + 10), g.indexAt(1000)]).toEqual([0, 1, 2]);
  });

  it('a log scale draws values under its floor at the floor; a right axis has its own scale', () => {
    const g = stepGeometry([0, 1], [
      { name: 'mb', color: '#000', values: [0, 100] },
      { name: 'files', color: '#111', values: [4, 8], axis: 'right' },
    ], { width: 300, height: 122, log: true, format: fmt, formatRight: (n) => `${n} f` });
    expect(g.leftTicks.map((t) => t.value)).toEqual([1, 10, 100]);
    expect(g.paths[0].d.startsWith('M62,100')).toBe(true);
    expect(g.rightTicks.map((t) => t.label)).toEqual(['0 f', '2 f', '4 f', '6 f', '8 f']);
    expect(g.plot.right).toBe(252);
  });

  it('ticks: round steps reaching the maximum; powers of ten over the range', () => {
    expect(linearTicks(0)).toEqual([0, 1]);
    expect(linearTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(linearTicks(1234)).toEqual([0, 250, 500, 750, 1000, 1250]);
    expect(logTicks(0.001, 0.5)).toEqual([0.001, 0.01, 0.1, 1]);
  });
});
