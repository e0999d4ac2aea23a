import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { progressGate, report, throwIfCancelled, type Progress } from './jobs';

beforeEach(() => { vi.useFakeTimers(); vi.setSystemTime(0); });
afterEach(() => { vi.useRealTimers(); });

const p = (phase: string, done: number, total: number | null, data?: unknown): Progress & { data?: unknown } => ({ phase, done, total, ...(data !== undefined ? { data } : {}) });

describe('a job\'s progress, coalesced', () => {
  it('a new phase, the last line and a line with data pass at once; plain lines at most every ms, the latest winning', () => {
    const shown: string[] = [];
    const g = progressGate<Progress>((x) => shown.push(`${x.phase}:${x.done}`), 100);
    g.push(p('read', 1, 10));
    g.push(p('read', 2, 10));
    g.push(p('read', 3, 10));
    expect(shown).toEqual(['read:1']);
    vi.advanceTimersByTime(100);
    expect(shown).toEqual(['read:1', 'read:3']);
    vi.setSystemTime(1000);
    g.push(p('read', 4, 10));
    g.push(p('read', 5, 10, { probe: 1 }));
    g.push(p('read', 10, 10));
    g.push(p('hash', 0, null));
    expect(shown).toEqual(['read:1', 'read:3', 'read:4', 'read:5', 'read:10', 'hash:0']);
    g.push(p('hash', 1, null));
    g.close();
    vi.advanceTimersByTime(1000);
    expect(shown.at(-1)).toBe('hash:0');
  });

  it('a cancelled job throws cancelled; report reaches the listener if any', () => {
    const c = new AbortController();
    expect(() => throwIfCancelled({ signal: c.signal })).not.toThrow();
    c.abort();
    expect(() => throwIfCancelled({ signal: c.signal })).toThrow(expect.objectContaining({ code: 'cancelled' }));
    expect(() => throwIfCancelled(undefined)).not.toThrow();
    const seen: Progress[] = [];
    report({ progress: (x) => seen.push(x) }, p('a', 1, 2));
    report(undefined, p('a', 1, 2));
    expect(seen).toHaveLength(1);
  });
});
