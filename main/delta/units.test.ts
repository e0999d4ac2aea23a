// Unit tests without disks: DV decoding (RoaringBitmap portable format, Delta 64-bit layout),
// Z85, checkpoint / log segment selection, path canonicalisation, reader protocol refusal.
import { describe, expect, test } from 'vitest';
import { LakerecError } from '../../shared/errors';
import { decodeDeletionVectorBitmap, deletionVectorLocation, DV_MAGIC } from './dv';
import { z85Decode, z85Encode } from './z85';
import { classifyLogFiles, parseLastCheckpoint, selectSegment } from './logfiles';
import { canonicalisePath, decodeLogPath, isPlainRelative } from './paths';
import { checkReaderProtocol } from './features';
import { numRecordsFromStats, numRecordsOfAdd, parseCommitBytes, parseCommitText, ReplayState } from './replay';
import type { AddFile } from '../../shared/delta';
import { deltaTypeToDuckDb, partitionValueExpr } from './schema';
import { tryFastAdd } from './fastadd';
import { FileTable, hashKey } from './filetable';

// ---- a test-side RoaringBitmap writer (portable format), to feed the decoder known bitmaps ----
function u16(n: number): number[] { return [n & 0xff, (n >>> 8) & 0xff]; }
function u32(n: number): number[] { return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff]; }

type Container = { key: number; kind: 'array'; values: number[] } | { key: number; kind: 'bitmap'; values: number[] } | { key: number; kind: 'run'; runs: [number, number][] };

function roaring32(containers: Container[]): number[] {
  const hasRun = containers.some((c) => c.kind === 'run');
  const out: number[] = [];
  const size = containers.length;
  const card = (c: Container): number => (c.kind === 'run' ? c.runs.reduce((n, [, l]) => n + l + 1, 0) : c.values.length);
  if (hasRun) {
    out.push(...u32(12347 | ((size - 1) << 16)));
    const bits = new Array<number>(Math.ceil(size / 8)).fill(0);
    containers.forEach((c, i) => { if (c.kind === 'run') bits[i >> 3] |= 1 << (i & 7); });
    out.push(...bits);
  } else {
    out.push(...u32(12346), ...u32(size));
  }
  for (const c of containers) out.push(...u16(c.key), ...u16(card(c) - 1));
  if (!hasRun || size >= 4) for (let i = 0; i < size; i++) out.push(...u32(0)); // offsets (ignored by the reader)
  for (const c of containers) {
    if (c.kind === 'run') {
      out.push(...u16(c.runs.length));
      for (const [s, l] of c.runs) out.push(...u16(s), ...u16(l));
    } else if (c.kind === 'array') {
      for (const v of c.values) out.push(...u16(v));
    } else {
      const words = new Uint8Array(8192);
      for (const v of c.values) words[v >> 3] |= 1 << (v & 7);
      out.push(...words);
    }
  }
  return out;
}

function deltaDv(buckets: { key: number; containers: Container[] }[]): Uint8Array {
  const out: number[] = [...u32(DV_MAGIC), ...u32(buckets.length), ...u32(0)];
  for (const b of buckets) out.push(...u32(b.key), ...roaring32(b.containers));
  return Uint8Array.from(out);
}

describe('deletion vector decoding', () => {
  test('array container', () => {
    expect(decodeDeletionVectorBitmap(deltaDv([{ key: 0, containers: [{ key: 0, kind: 'array', values: [0, 9] }] }]))).toEqual([0, 9]);
  });

  test('run container, several containers and 64-bit buckets', () => {
    const bytes = deltaDv([
      { key: 0, containers: [{ key: 0, kind: 'run', runs: [[3, 2], [100, 0]] }, { key: 2, kind: 'array', values: [7] }] },
      { key: 1, containers: [{ key: 0, kind: 'array', values: [5] }] },
    ]);
    expect(decodeDeletionVectorBitmap(bytes)).toEqual([3, 4, 5, 100, 2 * 65536 + 7, 4294967296 + 5]);
  });

  test('bitmap container (more than 4096 values)', () => {
    const values = Array.from({ length: 5000 }, (_, i) => i * 13 % 65536).sort((a, b) => a - b);
    const got = decodeDeletionVectorBitmap(deltaDv([{ key: 0, containers: [{ key: 1, kind: 'bitmap', values }] }]));
    expect(got).toEqual(values.map((v) => 65536 + v));
  });

  test('four or more run-bearing containers carry an offset header', () => {
    const containers: Container[] = [0, 1, 2, 3].map((k) => ({ key: k, kind: 'run', runs: [[1, 1]] }));
    const got = decodeDeletionVectorBitmap(deltaDv([{ key: 0, containers }]));
    expect(got).toEqual([1, 2, 65537, 65538, 131073, 131074, 196609, 196610]);
  });

  test('wrong magic and truncation are log_corrupt', () => {
    const good = deltaDv([{ key: 0, containers: [{ key: 0, kind: 'array', values: [1, 2, 3] }] }]);
    const bad = good.slice();
    bad[0] ^= 0xff;
    expect(() => decodeDeletionVectorBitmap(bad)).toThrow(/magic/);
    expect(() => decodeDeletionVectorBitmap(good.subarray(0, good.length - 2))).toThrow(LakerecError);
  });

  test('Z85 round trip and the UUID-relative DV path', () => {
    const bytes = Uint8Array.from([0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b]);
    expect(z85Encode(bytes)).toBe('HelloWorld');
    expect(z85Decode('HelloWorld')).toEqual(bytes);
    // The DV of delta-rs table-with-dv-small: vBn[lx{q8@P<9BNH/isA -> deletion_vector_61d16c75-...bin
    const loc = deletionVectorLocation({ storageType: 'u', pathOrInlineDv: 'vBn[lx{q8@P<9BNH/isA', offset: 1, sizeInBytes: 36, cardinality: 2 }, '/t');
    expect(loc?.key).toBe('deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin');
    const pre = deletionVectorLocation({ storageType: 'u', pathOrInlineDv: 'ab' + 'vBn[lx{q8@P<9BNH/isA', offset: 1, sizeInBytes: 36, cardinality: 2 }, '/t');
    expect(pre?.key).toBe('ab/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin');
    const abs = deletionVectorLocation({ storageType: 'p', pathOrInlineDv: 'file:/elsewhere/dv.bin', sizeInBytes: 1, cardinality: 1 }, '/t');
    expect(abs?.outside).toBe(true);
  });
});

describe('log files and checkpoint selection', () => {
  const pad = (v: number): string => String(v).padStart(20, '0');
  const listing = (names: string[]) => classifyLogFiles(names);

  test('classifies commits, classic, multi-part, v2 checkpoints and compactions', () => {
    const l = listing([
      `${pad(0)}.json`, `${pad(1)}.json`, `${pad(2)}.checkpoint.parquet`, `${pad(2)}.json`,
      `${pad(4)}.checkpoint.0000000001.0000000002.parquet`, `${pad(4)}.checkpoint.0000000002.0000000002.parquet`,
      `${pad(6)}.checkpoint.0000000001.0000000003.parquet`,
      `${pad(8)}.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json`,
      `${pad(3)}.${pad(5)}.compacted.json`, '_last_checkpoint', `${pad(2)}.crc`, '.tmp',
    ]);
    expect([...l.commits.keys()]).toEqual([0, 1, 2]);
    expect(l.checkpoints.get(2)?.[0].kind).toBe('classic');
    expect(l.checkpoints.get(4)?.[0]).toMatchObject({ kind: 'multipart', complete: true });
    expect(l.checkpoints.get(6)?.[0]).toMatchObject({ kind: 'multipart', complete: false });
    expect(l.checkpoints.get(8)?.[0]).toMatchObject({ kind: 'v2', format: 'json' });
    expect(l.compactions).toEqual([{ from: 3, to: 5, file: `${pad(3)}.${pad(5)}.compacted.json` }]);
  });

  test('newest complete checkpoint at or before the version, then the commits after it', () => {
    const l = listing([0, 1, 2, 3, 4, 5, 6, 7].map((v) => `${pad(v)}.json`).concat(
      `${pad(3)}.checkpoint.parquet`,
      `${pad(6)}.checkpoint.0000000001.0000000002.parquet`, // incomplete: part 2 missing
    ));
    const s = selectSegment(l, 7);
    expect('error' in s).toBe(false);
    if ('error' in s) return;
    expect(s.checkpoint?.version).toBe(3);
    expect(s.commits).toEqual([4, 5, 6, 7]);
    const s2 = selectSegment(l, 2);
    if ('error' in s2) throw new Error(s2.error);
    expect(s2.checkpoint).toBeNull();
    expect(s2.commits).toEqual([0, 1, 2]);
  });

  test('a skipped (corrupt) checkpoint falls back to an older one or to the commits', () => {
    const l = listing([0, 1, 2, 3].map((v) => `${pad(v)}.json`).concat(`${pad(2)}.checkpoint.parquet`));
    const cp = l.checkpoints.get(2)![0];
    const s = selectSegment(l, 3, new Set([cp]));
    if ('error' in s) throw new Error(s.error);
    expect(s.checkpoint).toBeNull();
    expect(s.commits).toEqual([0, 1, 2, 3]);
  });

  test('a cleaned-up log: versions before the oldest checkpoint cannot be rebuilt', () => {
    const l = listing([5, 6, 7].map((v) => `${pad(v)}.json`).concat(`${pad(5)}.checkpoint.parquet`));
    expect('error' in selectSegment(l, 4)).toBe(true);
    const s = selectSegment(l, 7);
    if ('error' in s) throw new Error(s.error);
    expect(s.checkpoint?.version).toBe(5);
  });

  test('a log compaction file stands in for missing commits', () => {
    const l = listing([`${pad(0)}.json`, `${pad(1)}.${pad(3)}.compacted.json`, `${pad(4)}.json`]);
    const s = selectSegment(l, 4);
    if ('error' in s) throw new Error(s.error);
    expect(s.steps).toEqual([{ commit: 0 }, { compaction: { from: 1, to: 3, file: `${pad(1)}.${pad(3)}.compacted.json` } }, { commit: 4 }]);
  });

  test('_last_checkpoint: valid, corrupt, without a version', () => {
    expect(parseLastCheckpoint('{"version":10,"size":13}').value?.version).toBe(10);
    expect(parseLastCheckpoint('{"vers').problem).toMatch(/not valid JSON/);
    expect(parseLastCheckpoint('{"size":3}').problem).toMatch(/version/);
  });
});

describe('path canonicalisation', () => {
  const root = '/data/t';
  test('relative, URL-encoded, file: and absolute forms', () => {
    expect(canonicalisePath('a/part-1.parquet', root)).toMatchObject({ key: 'a/part-1.parquet', absolute: '/data/t/a/part-1.parquet', outside: false });
    expect(canonicalisePath('x=A%2FA/f.parquet', root)).toMatchObject({ key: 'x=A/A/f.parquet', outside: false });
    expect(canonicalisePath('special%20p@%23h', root).key).toBe('special p@#h');
    expect(canonicalisePath('file:/data/t/a/f.parquet', root)).toMatchObject({ key: 'a/f.parquet', outside: false });
    expect(canonicalisePath('file:///data/t/a/f.parquet', root)).toMatchObject({ key: 'a/f.parquet', outside: false });
    expect(canonicalisePath('/data/t/a/f.parquet', root)).toMatchObject({ key: 'a/f.parquet', outside: false });
    expect(canonicalisePath('./a/../a/f.parquet', root).key).toBe('a/f.parquet');
  });

  test('outside the root: absolute elsewhere, .., other schemes, the same file under two spellings', () => {
    expect(canonicalisePath('/etc/passwd', root)).toMatchObject({ outside: true, key: '/etc/passwd' });
    expect(canonicalisePath('../other/f.parquet', root)).toMatchObject({ outside: true, key: '/data/other/f.parquet' });
    expect(canonicalisePath('a/../../x.parquet', root)).toMatchObject({ outside: true });
    expect(canonicalisePath('s3://bucket/t/f.parquet', root)).toMatchObject({ outside: true, absolute: null });
    expect(canonicalisePath('/some/abs/path', root).key).toBe(canonicalisePath('file:/some/abs/path', root).key);
    expect(canonicalisePath('/data/t2/f.parquet', root).outside).toBe(true);
  });

  test('a malformed escape is kept rather than failing the log', () => {
    expect(decodeLogPath('a%zz%41')).toBe('a%zzA');
  });
});

describe('replay', () => {
  const c = (v: number, lines: object[]) => parseCommitText(lines.map((l) => JSON.stringify(l)).join('\n') + '\n', v, `${v}.json`);
  const add = (path: string, extra: object = {}) => ({ add: { path, partitionValues: {}, size: 1, modificationTime: 1, dataChange: true, ...extra } });

  test('remove by canonical path; DV update is remove(old) + add(new); re-add keeps the later add', () => {
    const s = new ReplayState('/t');
    s.apply(c(0, [{ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }, add('a'), add('/abs/b'), add('c%20d')]));
    s.apply(c(1, [{ remove: { path: 'file:/abs/b', dataChange: true } }, { remove: { path: 'c d', dataChange: true } }]));
    expect([...s.files.values()].map((e) => e.key)).toEqual(['a']);
    const dv = { storageType: 'i', pathOrInlineDv: 'xx', sizeInBytes: 1, cardinality: 1 };
    s.apply(c(2, [{ remove: { path: 'a', dataChange: true } }, add('a', { deletionVector: dv })]));
    expect([...s.files.values()].map((e) => e.add.deletionVector?.cardinality)).toEqual([1]);
    s.apply(c(3, [add('a', { deletionVector: dv, modificationTime: 99 })]));
    expect(s.files.size).toBe(1);
    expect([...s.files.values()][0].add.modificationTime).toBe(99);
  });

  test('a corrupt line names the file and line', () => {
    expect(() => parseCommitText('{"add":{}}\n{oops\n', 3, '00000000000000000003.json')).toThrow(/00000000000000000003.json line 2/);
  });

  test('numRecords from stats text', () => {
    expect(numRecordsFromStats('{"numRecords":42,"minValues":{}}')).toBe(42);
    expect(numRecordsFromStats(null)).toBeNull();
    expect(numRecordsFromStats('{"minValues":{}}')).toBeNull();
  });
});

describe('protocol and types', () => {
  test('reader versions and features', () => {
    expect(() => checkReaderProtocol({ minReaderVersion: 1, minWriterVersion: 2 })).not.toThrow();
    expect(() => checkReaderProtocol({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors', 'columnMapping', 'timestampNtz', 'v2Checkpoint', 'vacuumProtocolCheck'] })).not.toThrow();
    expect(() => checkReaderProtocol({ minReaderVersion: 4, minWriterVersion: 7 })).toThrow(/reader protocol version 4/);
    try {
      checkReaderProtocol({ minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['deletionVectors', 'variantType'] });
      throw new Error('not refused');
    } catch (e) {
      expect((e as LakerecError).code).toBe('unsupported_feature');
      expect((e as LakerecError).message).toContain('"variantType"');
    }
  });

  test('Delta types to DuckDB types', () => {
    expect(deltaTypeToDuckDb('timestamp')).toBe('TIMESTAMPTZ');
    expect(deltaTypeToDuckDb('timestamp_ntz')).toBe('TIMESTAMP');
    expect(deltaTypeToDuckDb('decimal(38, 18)')).toBe('DECIMAL(38,18)');
    expect(deltaTypeToDuckDb({ type: 'array', elementType: { type: 'struct', fields: [{ name: 'a b', type: 'byte', nullable: true, metadata: {} }] }, containsNull: true })).toBe('STRUCT("a b" TINYINT)[]');
    expect(deltaTypeToDuckDb({ type: 'map', keyType: 'string', valueType: 'long', valueContainsNull: true })).toBe('MAP(VARCHAR, BIGINT)');
    expect(() => deltaTypeToDuckDb('interval')).toThrow(LakerecError);
  });

  test('partition values: empty string is null; binary is the string bytes', () => {
    expect(partitionValueExpr('v', 'integer')).toBe("CAST(NULLIF(v, '') AS INTEGER)");
    expect(partitionValueExpr('v', 'string')).toBe("NULLIF(v, '')");
    expect(partitionValueExpr('v', 'binary')).toBe("encode(NULLIF(v, ''))");
  });
});

describe('fast add path', () => {
  const lines = [
    '{"add":{"path":"p=1/a.parquet","partitionValues":{"p":"1"},"size":10,"modificationTime":5,"dataChange":true,"stats":"{\\"numRecords\\":3,\\"minValues\\":{\\"size\\":1}}"}}',
    '{"add":{"path":"b.parquet","partitionValues":{"p":null,"q":"x}y"},"size":0,"modificationTime":0,"dataChange":false,"tags":{"size":"9"}}}',
    '{"add":{"path":"c.parquet","partitionValues":{},"size":7,"modificationTime":8,"dataChange":true,"stats":null,"baseRowId":4}}\r',
  ];
  test('gives the same add as JSON.parse, and parses the rest lazily', () => {
    for (const l of lines) {
      const fast = tryFastAdd(l);
      expect(fast).not.toBeNull();
      const full = (JSON.parse(l) as { add: Record<string, unknown> }).add;
      expect(JSON.parse(JSON.stringify(fast))).toEqual(full);
      expect(fast!.path).toBe(full.path);
      expect(fast!.partitionValues).toEqual(full.partitionValues);
      expect([fast!.size, fast!.modificationTime, fast!.dataChange]).toEqual([full.size, full.modificationTime, full.dataChange]);
    }
    expect(tryFastAdd(lines[0])!.numRecordsHint).toBe(3);
    expect(tryFastAdd(lines[1])!.numRecordsHint).toBeNull();
  });

  test('partition values: one shared object per distinct text', () => {
    const mk = (pv: string) => tryFastAdd(`{"add":{"path":"x","partitionValues":${pv},"size":1,"modificationTime":1,"dataChange":true}}`)!;
    const a = mk('{"p":"1"}');
    const b = mk('{"p":"1"}');
    const c = mk('{"p":"2"}');
    expect(a.partitionValues).toBe(b.partitionValues);
    expect(c.partitionValues).toEqual({ p: '2' });
    expect(mk('{"p":"a\\"}"}').partitionValues).toEqual({ p: 'a"}' });
  });

  test('decides plain paths as isPlainRelative does, and reads numRecords only from stats', () => {
    const paths = ['a.parquet', 'p=1/a.parquet', '/abs/a', 'a//b', './a', 'a/../b', 'a/.', '...', 'a/..b', 'x%20y', 'file:/a', 'a/', 'é/ü.parquet'];
    for (const p of paths) {
      const f = tryFastAdd(`{"add":{"path":${JSON.stringify(p)},"partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}`);
      expect(f?.path).toBe(p);
      expect(f?.plainPath).toBe(isPlainRelative(p));
    }
    const withStats = (stats: string, pv = '{}') => tryFastAdd(`{"add":{"path":"a","partitionValues":${pv},"size":1,"modificationTime":1,"dataChange":true,"stats":${JSON.stringify(stats)}}}`)!;
    expect(withStats('{"numRecords" : 12, "minValues":{}}').numRecordsHint).toBe(12);
    expect(withStats('{"minValues":{}}', '{"p":"\\"numRecords\\":7"}').numRecordsHint).toBeNull();
    expect(withStats('{"tightBounds":true,"numRecords":5}').numRecordsHint).toBe(5);
  });

  test('in a commit file, each lazy add parses its own line', () => {
    const c = parseCommitText(lines.join('\n') + '\n', 4, '4.json');
    expect(c.adds.length).toBe(3);
    c.adds.forEach((a, i) => {
      expect(JSON.parse(JSON.stringify(a))).toEqual((JSON.parse(lines[i]) as { add: unknown }).add);
      expect((a as unknown as { version: number }).version).toBe(4);
    });
    expect(c.adds[2].baseRowId).toBe(4);
  });

  test('any add line: the same add, numRecords and replay key as through JSON.parse', () => {
    let seed = 11;
    const rnd = (n: number): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return (seed >>> 8) % n; };
    const pick = <T,>(xs: T[]): T => xs[rnd(xs.length)];
    const names = ['a.parquet', 'p=1/b.parquet', 'x%20y/c.parquet', 'é/ü.parquet', 'a"b.parquet', 'a\\b', './d', '/abs/e', 'file:/t/f', 'q/../g', 'h//i'];
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) {
      const add: Record<string, unknown> = {
        path: `${pick(names)}-${rnd(50)}`,
        partitionValues: pick([{}, { p: String(rnd(3)) }, { p: null, q: 'x}"y' }, { p: 'é' }]),
        size: rnd(1e6), modificationTime: 1.7e12 + rnd(1e6), dataChange: rnd(2) === 0,
      };
      const stats = pick([undefined, null, `{"numRecords":${rnd(100)},"minValues":{"numRecords":1}}`, '{"minValues":{"a":"\\"numRecords\\":9"}}', `{"numRecords" : ${rnd(9)}}`]);
      if (stats !== undefined) add.stats = stats;
      if (rnd(4) === 0) add.tags = { k: 'v' };
      if (rnd(5) === 0) add.baseRowId = rnd(100);
      if (rnd(8) === 0) add.deletionVector = { storageType: 'i', pathOrInlineDv: 'wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L', offset: null, sizeInBytes: 40, cardinality: 2 };
      const keys = Object.keys(add);
      if (rnd(3) === 0) keys.reverse();
      lines.push(JSON.stringify({ add: Object.fromEntries(keys.map((k) => [k, add[k]])) }));
    }
    const c = parseCommitBytes(Buffer.from(lines.join('\n')), 1, '1.json');
    const slow = { ...parseCommitText('', 1, '1.json'), adds: lines.map((l) => (JSON.parse(l) as { add: AddFile }).add) };
    expect(c.adds.length).toBe(lines.length);
    c.adds.forEach((a, i) => {
      const full = slow.adds[i];
      expect(JSON.parse(JSON.stringify(a))).toEqual(full);
      expect([a.path, a.partitionValues, a.size, a.modificationTime, a.dataChange]).toEqual([full.path, full.partitionValues, full.size, full.modificationTime, full.dataChange]);
      expect(numRecordsOfAdd(a)).toBe(numRecordsFromStats(full.stats));
    });
    const fast = new ReplayState('/t');
    fast.apply(c);
    const ref = new ReplayState('/t');
    ref.apply(slow);
    expect([...fast.files.entries()].map(([k, e]) => [k, e.key, e.outside, e.version, e.add.path])).toEqual([...ref.files.entries()].map(([k, e]) => [k, e.key, e.outside, e.version, e.add.path]));
  });

  test('falls back to JSON.parse for DVs, escapes, and damaged lines', () => {
    expect(tryFastAdd('{"add":{"path":"a\\"b","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}')).toBeNull();
    expect(tryFastAdd('{"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true,"deletionVector":null}}')).toBeNull();
    expect(tryFastAdd('{"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":tr')).toBeNull();
    expect(() => parseCommitText('{"add":{"path":"a","partitionValues":{},"size":1,"modificationTime":1,"dataChange":tr\n', 0, '0.json')).toThrow(/line 1/);
  });
});

describe('file table', () => {
  test('behaves as a Map for set/get/delete/order (swapRaw, takeRaw: the previous value), through growth, holes and clones', () => {
    const t = new FileTable<{ i: number }>();
    const m = new Map<string, { i: number }>();
    let seed = 7;
    const rnd = (n: number): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed % n; };
    for (let i = 0; i < 20000; i++) {
      const k = `p=${rnd(50)}/f${rnd(3000)}.parquet`;
      const op = rnd(10);
      if (op < 4) { const v = { i }; t.set(k, v); m.set(k, v); }
      else if (op < 6) { const v = { i }; expect(t.swapRaw(k, v)).toBe(m.get(k)); m.set(k, v); }
      else if (op < 8) { expect(t.delete(k)).toBe(m.delete(k)); }
      else if (op < 9) { const had = m.get(k); expect(t.takeRaw(k)).toBe(had); m.delete(k); }
      else expect(t.get(k)).toBe(m.get(k));
      if (i === 10000) t.reserve(5000);
    }
    expect(t.size).toBe(m.size);
    expect([...t.entries()]).toEqual([...m.entries()]);
    const c = t.clone();
    c.set('new', { i: -1 });
    c.delete([...m.keys()][0]);
    expect([...t.values()]).toEqual([...m.values()]);
    expect(t.valuesArray()).toEqual([...m.values()]);
    expect(c.size).toBe(m.size);
    expect(t.get('x', hashKey('x'))).toBeUndefined();
  });
});
