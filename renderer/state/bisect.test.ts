// The bisect form's request, built from what the user typed (moved from the timeline's tests: a tab's test imports its own tab).
import { describe, expect, it } from 'vitest';
import { requestOf } from '../state/bisect';

describe('bisect form', () => {
  const base = { predicate: 'unique-keys' as const, keys: '', expect: '', partition: '', source: '', allowMoving: false };
  it('builds the request or says what is missing', () => {
    expect(requestOf('/t', { ...base, keys: ' order_id , dt ' })).toEqual({ path: '/t', predicate: 'unique-keys', keys: ['order_id', 'dt'] });
    expect(requestOf('/t', base)).toMatch(/key column/);
    expect(requestOf('/t', { ...base, predicate: 'row-count', expect: '12x' })).toMatch(/whole number/);
    expect(requestOf('/t', { ...base, predicate: 'row-count', expect: '5400', partition: 'dt=2026-08-12' })).toEqual({ path: '/t', predicate: 'row-count', expect: 5400, partition: 'dt=2026-08-12' });
    expect(requestOf('/t', { ...base, predicate: 'matches-source' })).toMatch(/source/);
    // row-count without a partition: the engine refuses it unless the user accepts a moving total
    expect(requestOf('/t', { ...base, predicate: 'row-count', expect: '10' })).toEqual({ path: '/t', predicate: 'row-count', expect: 10 });
    expect(requestOf('/t', { ...base, predicate: 'row-count', expect: '10', allowMoving: true })).toEqual({ path: '/t', predicate: 'row-count', expect: 10, allowMoving: true });
    // Without a partition the engine refuses with its reason; the form does not pre-empt it.
    expect(requestOf('/t', { ...base, predicate: 'matches-source', source: 's.parquet' })).toEqual({ path: '/t', predicate: 'matches-source', source: 's.parquet' });
  });
});
