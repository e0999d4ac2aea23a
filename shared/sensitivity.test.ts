// A profile's min and max are computed in the column's type, not as text (issue 25): an id column
// holding 0..39 has max 39, not "9".
import { describe, expect, it } from 'vitest';
import { compareInType, profileColumn } from './sensitivity';

const minMax = (type: string, values: (string | null)[]) => {
  const p = profileColumn('c', type, null, values);
  return [p.min, p.max];
};

describe('profile min and max in the column type', () => {
  it('integers and timestamps (microseconds) as numbers', () => {
    const ids = Array.from({ length: 40 }, (_, i) => String(i));
    for (const t of ['byte', 'short', 'integer', 'long']) expect(minMax(t, ids)).toEqual(['0', '39']);
    expect(minMax('long', ['-5', '12', '3', null, '-40'])).toEqual(['-40', '12']);
    expect(minMax('timestamp', ['1755000000000000', '999999999999', '1755000000000001'])).toEqual(['999999999999', '1755000000000001']);
  });

  it('decimals by value, doubles as numbers with NaN above all', () => {
    expect(minMax('decimal(10,2)', ['9.99', '-1.50', '10.00', '-12.00'])).toEqual(['-12.00', '10.00']);
    expect(minMax('double', ['9.5', '10', '-0.25', '100'])).toEqual(['-0.25', '100']);
    expect(minMax('double', ['9.5', 'NaN', '-Infinity', 'Infinity'])).toEqual(['-Infinity', 'NaN']);
  });

  it('dates and strings as text; a value that does not parse sorts after those that do', () => {
    expect(minMax('date', ['2026-08-10', '2025-12-31', '2026-01-01'])).toEqual(['2025-12-31', '2026-08-10']);
    expect(minMax('string', ['b', 'a10', 'a9'])).toEqual(['a10', 'b']);
    expect(['x', '2', '10'].sort(compareInType('integer'))).toEqual(['2', '10', 'x']);
  });
});
