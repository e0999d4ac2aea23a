// One JSON semantics: whatever a commit line spells, the reader sees what JSON.parse sees (and so
// what Spark and delta-kernel see). Lines are generated: keys reordered, escaped, repeated.
import { describe, expect, test } from 'vitest';
import { tryFastAdd } from './fastadd';
import { numRecordsFromStats, parseCommitText } from './replay';

/** A deterministic generator (xorshift), so a failure names a reproducible seed. */
function rng(seed: number): () => number {
  let x = seed || 1;
  return () => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    return ((x >>> 0) % 1_000_000) / 1_000_000;
  };
}

/** `key` written with one of its letters as a \u escape (every JSON parser reads the same key). */
function escapeOne(key: string, r: () => number): string {
  const i = Math.floor(r() * key.length);
  return key.slice(0, i) + '\\u' + key.charCodeAt(i).toString(16).padStart(4, '0') + key.slice(i + 1);
}

function addLine(r: () => number): string {
  const members: [string, string][] = [
    ['path', JSON.stringify(`p${Math.floor(r() * 100)}.parquet`)],
    ['partitionValues', '{}'],
    ['size', String(Math.floor(r() * 1000))],
    ['modificationTime', String(Math.floor(r() * 1e12))],
    ['dataChange', r() < 0.5 ? 'true' : 'false'],
    ['stats', JSON.stringify(JSON.stringify({ numRecords: Math.floor(r() * 50) }))],
  ];
  // Repeat some members with other values (the last wins in JSON.parse).
  if (r() < 0.4) members.push(['path', JSON.stringify(r() < 0.5 ? '../outside.parquet' : `q${Math.floor(r() * 100)}.parquet`)]);
  if (r() < 0.2) members.push(['size', String(Math.floor(r() * 1000))]);
  if (r() < 0.2) members.push(['stats', JSON.stringify(JSON.stringify({ numRecords: 7, x: 1 }))]);
  for (let i = members.length - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [members[i], members[j]] = [members[j], members[i]]; }
  const body = members.map(([k, v]) => `"${r() < 0.25 ? escapeOne(k, r) : k}":${v}`).join(',');
  return `{"add":{${body}}}`;
}

describe('the fast path for add lines agrees with JSON.parse', () => {
  test('"pa\\u0074h" is path, and a repeated key: the last wins', () => {
    expect(tryFastAdd('{"add":{"pa\\u0074h":"a.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}')).toBeNull();
    expect(tryFastAdd('{"add":{"path":"a.parquet","path":"b.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}')).toBeNull();
    expect(tryFastAdd('{"add":{"path":"a.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}')?.path).toBe('a.parquet');
    const c = parseCommitText('{"add":{"path":"a.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true,"pa\\u0074h":"b.parquet"}}\n', 0, 'x.json');
    expect(c.adds[0].path).toBe('b.parquet');
  });

  test('2,000 generated lines: path, size, dataChange and numRecords as JSON.parse reads them', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const line = addLine(rng(seed));
      const want = (JSON.parse(line) as { add: { path: string; size: number; dataChange: boolean; stats: string } }).add;
      const got = parseCommitText(line + '\n', 3, 'x.json').adds[0];
      const wantN = (JSON.parse(want.stats) as { numRecords: number }).numRecords;
      expect({ seed, path: got.path, size: got.size, dataChange: got.dataChange, n: numRecordsFromStats(got.stats) })
        .toEqual({ seed, path: want.path, size: want.size, dataChange: want.dataChange, n: wantN });
    }
  });

  test('numRecords from the stats text: escapes and repeats as JSON.parse reads them', () => {
    expect(numRecordsFromStats('{"numRecords":1,"numRecords":9}')).toBe(9);
    expect(numRecordsFromStats('{"num\\u0052ecords":4}')).toBe(4);
    expect(numRecordsFromStats('{"numRecords":5}')).toBe(5);
  });

  test('lines that are not one action object are refused, naming the version and line', () => {
    const bad = ['[{"add":{}}]', '42', '"text"', 'null', '{}', '{"add":5}', '{"add":{"path":"a"},"remove":{"path":"b"}}'];
    for (const l of bad) {
      expect(() => parseCommitText(`{"commitInfo":{}}\n${l}\n`, 7, 'v7.json'), l).toThrow(/version 7: v7\.json line 2/);
    }
    // A newer action this reader does not know is ignored, as the protocol asks.
    expect(parseCommitText('{"futureAction":{"x":1}}\n', 0, 'x.json').adds).toEqual([]);
  });
});
