// A compact wire form for a long list of flat records (the timeline's 10,000 VersionSummary
// objects): one column per field, numbers as they are, every other value (strings, booleans,
// null, the small `who` and parameter objects, partition lists) as an index into one dictionary
// of the distinct values. The same records come out; the JSON is a fraction of the size, so the
// engine's message to the host, the host's JSON and the page's parse all shrink (issue #12).
// Generic over the fields: a field added to the record travels without a change here.

/** Records packed by column. */
export interface PackedRows {
  n: number;
  /** A number column (every record has the field, a number or null), or an index column into `dict` (-1: the record has no such field). */
  cols: ({ key: string; nums: (number | null)[] } | { key: string; idx: number[] })[];
  /** The distinct non-number values, each once. */
  dict: unknown[];
}

const own = Object.prototype.hasOwnProperty;

export function packRows<T extends object>(rows: readonly T[]): PackedRows {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) if (!seen.has(k)) { seen.add(k); keys.push(k); }
  const dict: unknown[] = [];
  const at = new Map<string, number>();
  const intern = (v: unknown): number => {
    const key = JSON.stringify(v);
    let i = at.get(key);
    if (i === undefined) { i = dict.length; dict.push(v); at.set(key, i); }
    return i;
  };
  const cols: PackedRows['cols'] = keys.map((key) => {
    const numeric = rows.every((r) => own.call(r, key) && (typeof (r as Record<string, unknown>)[key] === 'number' || (r as Record<string, unknown>)[key] === null)
      && Number.isFinite((r as Record<string, unknown>)[key] ?? 0));
    if (numeric) return { key, nums: rows.map((r) => (r as Record<string, unknown>)[key] as number | null) };
    return { key, idx: rows.map((r) => (own.call(r, key) ? intern((r as Record<string, unknown>)[key]) : -1)) };
  });
  return { n: rows.length, cols, dict };
}

/** The records again. Equal values share one object (read them, do not change them). */
export function unpackRows<T>(p: PackedRows): T[] {
  const out: Record<string, unknown>[] = new Array(p.n);
  for (let i = 0; i < p.n; i++) out[i] = {};
  for (const c of p.cols) {
    if ('nums' in c) {
      const xs = c.nums;
      for (let i = 0; i < p.n; i++) out[i][c.key] = xs[i];
    } else {
      const xs = c.idx;
      for (let i = 0; i < p.n; i++) if (xs[i] >= 0) out[i][c.key] = p.dict[xs[i]];
    }
  }
  return out as T[];
}
