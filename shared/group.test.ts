import { describe, expect, it } from 'vitest';
import { pushTo } from './group';

describe('pushTo', () => {
  it('groups in order, one list per key, without copying a list per add', () => {
    const m = new Map<string, number[]>();
    for (let i = 0; i < 200_000; i++) pushTo(m, i % 2 ? 'odd' : 'even', i);
    expect([...m.keys()]).toEqual(['even', 'odd']);
    expect(m.get('even')!.slice(0, 3)).toEqual([0, 2, 4]);
    expect(m.get('odd')!.length).toBe(100_000);
  });
});
