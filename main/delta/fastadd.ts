// A fast path for the most common line of a large log: an `add` without a deletion vector.
// JSON.parse of every such line (with its stats string) dominates opening a 300k-file log, yet a
// snapshot needs only the path, partition values, size, modification time and numRecords.
// Those are taken from the raw bytes of the line in one pass over the add's members; the full
// JSON is parsed on first use of any other field. Anything unusual (whitespace between tokens,
// escapes in the path, a DV, nested values, a missing field) takes the ordinary JSON.parse.
// Bytes, not a string: indexing a Buffer is several times cheaper than charCodeAt on the slices
// of a large string, and a commit file then needs no UTF-8 decoding except where it is used.
// One file on purpose (over 400 lines): the byte scanner, the lazy add it fills and the batch that
// holds them share one layout of offsets; split, each half would be unreadable without the other.
import type { AddFile, DeletionVectorDescriptor } from '../../shared/delta';
import { hashKey } from './filetable';

const PREFIX = '{"add":{';

/** buf[at..] starts with the ASCII text t (an inlinable loop; a builtin call per token costs more). */
function same(buf: Uint8Array, at: number, t: string): boolean {
  if (at + t.length > buf.length) return false;
  for (let i = 0; i < t.length; i++) if (buf[at + i] !== t.charCodeAt(i)) return false;
  return true;
}

// Partition value objects repeat across files (a 300k-file table has ~100 partitions): one parse
// and one shared, frozen object per distinct text, found by a hash of the bytes in place so that
// a repeated text costs neither a substring nor a string hash.
interface PvEntry { bytes: Uint8Array; pv: Readonly<Record<string, string | null>> }
const pvByHash = new Map<number, PvEntry[]>();
let pvCount = 0;
const PV_CACHE_MAX = 200_000;

// In front of the map: the last entry seen per hash slot (most logs have few distinct texts).
const pvRecent: (PvEntry | undefined)[] = new Array<PvEntry | undefined>(1024).fill(undefined);

function sameBytes(buf: Buffer, open: number, b: Uint8Array, len: number): boolean {
  if (b.length !== len) return false;
  let i = 0;
  while (i < len && buf[open + i] === b[i]) i++;
  return i === len;
}

function partitionValuesAt(buf: Buffer, open: number, close: number, hash: number): Readonly<Record<string, string | null>> {
  const len = close - open + 1;
  const recent = pvRecent[hash & 1023];
  if (recent !== undefined && sameBytes(buf, open, recent.bytes, len)) return recent.pv;
  const found = partitionValuesSlow(buf, open, close, hash, len);
  return found.pv;
}

function partitionValuesSlow(buf: Buffer, open: number, close: number, hash: number, len: number): PvEntry {
  const bucket = pvByHash.get(hash);
  if (bucket) {
    for (const e of bucket) {
      if (sameBytes(buf, open, e.bytes, len)) {
        pvRecent[hash & 1023] = e;
        return e;
      }
    }
  }
  const pv = Object.freeze(JSON.parse(buf.toString('utf8', open, close + 1)) as Record<string, string | null>);
  const entry = { bytes: new Uint8Array(buf.subarray(open, close + 1)), pv };
  if (pvCount < PV_CACHE_MAX) {
    pvCount++;
    if (bucket) bucket.push(entry); else pvByHash.set(hash, [entry]);
    pvRecent[hash & 1023] = entry;
  }
  return entry;
}

type Full = AddFile & { stats_parsed?: Record<string, unknown> | null };

/**
 * An add action read lazily from its JSON line; behaves as a plain AddFile. With a plain path it
 * is also its own replay entry (see LiveEntry in replay.ts: `add`, `key`, `outside`, `absolute`
 * are prototype getters), so replay allocates nothing more per file.
 */
export class LazyAddFile implements AddFile {
  partitionValues: Record<string, string | null>;
  size: number;
  modificationTime: number;
  dataChange: boolean;
  deletionVector: DeletionVectorDescriptor | null = null;
  /** numRecords read from the raw stats text at parse time (null: no stats or no numRecords). */
  readonly numRecordsHint: number | null;
  /** hashKey(path), computed while scanning it. */
  readonly pathHash: number;
  // Few fields: a 300k-file log keeps 300k of these alive, and the GC copies each while young.
  /** version * 2 + (plain path ? 1 : 0). */
  private readonly flags: number;
  private full: Full | undefined;
  /** The path is decoded on first use: a snapshot's per-partition counts never need it. */
  private pathText: string | undefined;
  /** `buf` is the whole commit file; `pathAt` the first byte of the path (its line is found from there). */
  constructor(private readonly buf: Buffer, private readonly pathAt: number, version: number,
    pathText: string | undefined, pathHash: number, pv: Record<string, string | null>,
    size: number, mtime: number, dataChange: boolean, numRecords: number | null, plainPath: boolean) {
    this.flags = version * 2 + (plainPath ? 1 : 0);
    this.pathHash = pathHash;
    this.pathText = pathText;
    this.partitionValues = pv;
    this.size = size;
    this.modificationTime = mtime;
    this.dataChange = dataChange;
    this.numRecordsHint = numRecords;
  }
  get path(): string {
    let p = this.pathText;
    if (p === undefined) {
      // An ASCII path without escapes (a non-ASCII one was decoded while scanning).
      let e = this.pathAt;
      while (this.buf[e] !== 34) e++;
      p = this.pathText = this.buf.toString('latin1', this.pathAt, e);
    }
    return p;
  }
  set path(v: string) { this.pathText = v; }
  /** The version of the commit it was read from. */
  get version(): number { return Math.floor(this.flags / 2); }
  /** The path needs no canonicalisation (isPlainRelative), decided while scanning it. */
  get plainPath(): boolean { return (this.flags & 1) === 1; }
  private parsed(): Full {
    if (!this.full) {
      // A JSON line holds no raw newline, so its bounds are the newlines around the path.
      const buf = this.buf;
      let start = this.pathAt;
      while (start > 0 && buf[start - 1] !== 10) start--;
      let end = buf.indexOf(10, this.pathAt);
      if (end < 0) end = buf.length;
      this.full = (JSON.parse(buf.toString('utf8', start, end)) as { add: Full }).add;
    }
    return this.full;
  }
  get stats(): string | null | undefined { return this.parsed().stats; }
  get tags(): Record<string, string> | null | undefined { return this.parsed().tags; }
  get baseRowId(): number | null | undefined { return this.parsed().baseRowId; }
  get defaultRowCommitVersion(): number | null | undefined { return this.parsed().defaultRowCommitVersion; }
  get clusteringProvider(): string | null | undefined { return this.parsed().clusteringProvider; }
  get stats_parsed(): Record<string, unknown> | null | undefined { return this.parsed().stats_parsed; }
  // As a replay entry (only used when plainPath).
  get add(): LazyAddFile { return this; }
  get key(): string { return this.path; }
  get outside(): boolean { return false; }
  get absolute(): undefined { return undefined; }
  toJSON(): AddFile {
    return this.parsed();
  }
}

// Scanner results beside the returned position (no object per token).
let numberValue = 0;
let objectHash = 0;
let statsNumRecords: number | null = null;

/** Index of the quote closing the JSON string opened at `open` (before `end`), or -1. */
function stringEnd(buf: Uint8Array, open: number, end: number): number {
  for (let i = open + 1; i < end; i++) {
    const ch = buf[i];
    if (ch === 92 /* \ */) i++;
    else if (ch === 34 /* " */) return i;
  }
  return -1;
}

/** Index just past a plain unsigned integer at `i` (1 to 15 digits), or -1; its value in `numberValue`. */
function numberEnd(buf: Uint8Array, i: number, end: number): number {
  let v = 0;
  let j = i;
  for (; j < end; j++) {
    const ch = buf[j];
    if (ch < 48 || ch > 57) break;
    v = v * 10 + (ch - 48);
  }
  if (j === i || j - i > 15) return -1;
  numberValue = v;
  return j;
}

/**
 * Index of the } closing a flat object of string/null values opened at `open`, or -1 (nested
 * values or anything else). Leaves an FNV-1a hash of its bytes in `objectHash`.
 */
function flatObjectEnd(buf: Uint8Array, open: number, end: number): number {
  let inStr = false;
  let hash = Math.imul(2166136261 ^ 123, 16777619);
  for (let i = open + 1; i < end; i++) {
    const ch = buf[i];
    hash = Math.imul(hash ^ ch, 16777619);
    if (inStr) {
      if (ch === 92) { i++; hash = Math.imul(hash ^ buf[i], 16777619); } else if (ch === 34) inStr = false;
    } else if (ch === 34) inStr = true;
    else if (ch === 125 /* } */) { objectHash = hash; return i; }
    else if (ch === 123 || ch === 91 /* { [ */) return -1;
  }
  return -1;
}

// Inside the raw line the stats JSON is a string, so its quotes are escaped.
const NUM_RECORDS = 'numRecords\\"';

/**
 * The stats string opened at `open`: index of its closing quote, or -1; in `statsNumRecords` the
 * first `"numRecords" : digits` of its text (as numRecordsFromStats reads the decoded string).
 */
function statsEnd(buf: Uint8Array, open: number, end: number): number {
  statsNumRecords = null;
  for (let i = open + 1; i < end; i++) {
    const ch = buf[i];
    if (ch === 34) return i;
    if (ch !== 92) continue;
    i++;
    // An escape inside the stats text itself (\\ in the line) may spell a key another way: JSON.parse decides.
    if (buf[i] === 92) return -1;
    if (buf[i] === 34 && buf[i + 1] === 110 && same(buf, i + 1, NUM_RECORDS) && statsNumRecords !== null) return -1; // a second numRecords: the last wins in JSON.parse
    if (statsNumRecords === null && buf[i] === 34 && buf[i + 1] === 110 /* n */ && same(buf, i + 1, NUM_RECORDS)) {
      let j = i + 1 + NUM_RECORDS.length;
      while (buf[j] === 32) j++;
      if (buf[j] !== 58) continue;
      j++;
      while (buf[j] === 32) j++;
      if (numberEnd(buf, j, end) > 0) statsNumRecords = numberValue;
    }
  }
  return -1;
}

/** Index just past a value we can skip safely at `i` (string, number, true/false/null), or -1. */
function scalarEnd(buf: Uint8Array, i: number, end: number): number {
  const ch = buf[i];
  if (ch === 34) { const e = stringEnd(buf, i, end); return e < 0 ? -1 : e + 1; }
  if (ch === 110 /* n */) return same(buf, i, 'null') ? i + 4 : -1;
  if (ch === 116 /* t */) return same(buf, i, 'true') ? i + 4 : -1;
  if (ch === 102 /* f */) return same(buf, i, 'false') ? i + 5 : -1;
  let j = i;
  for (; j < end; j++) {
    const c = buf[j];
    if (!((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69)) break;
  }
  return j === i ? -1 : j;
}

/**
 * Reads the add of the commit line buf[start..end) through the fast path into a batch, or returns
 * false to use JSON.parse. One pass over the members of the add object; any layout it does not
 * fully understand returns false, and so does a damaged line (it must still fail loudly in JSON.parse).
 * One JSON semantics: a key with any escape (`"pa\u0074h"` is `path` to every JSON parser) or a
 * key seen twice (JSON.parse keeps the last) also returns false, so the fast path never reads
 * another value than JSON.parse would.
 */
export function scanAdd(buf: Buffer, start: number, end: number, into: AddBatch): boolean {
  if (!same(buf, start, PREFIX)) return false;
  let pathAt = -1;
  let pathText: string | undefined;
  let pathHash = 0;
  let plain = false;
  let pv: Record<string, string | null> | null = null;
  let size = -1;
  let mtime = -1;
  let dc = -1;
  let numRecords: number | null = null;
  // Known keys seen so far (bit per key): a duplicate goes to JSON.parse.
  let seen = 0;
  let p = start + PREFIX.length;
  for (;;) {
    if (buf[p] !== 34) return false;
    let ke = p + 1;
    while (ke < end && buf[ke] !== 34) {
      if (buf[ke] === 92 /* \ */) return false;
      ke++;
    }
    if (buf[ke + 1] !== 58 /* : */ || ke + 2 >= end) return false;
    const k = p + 1;
    const kl = ke - k;
    const v = ke + 2;
    const c = buf[v];
    let next: number;
    if (kl === 4 && same(buf, k, 'path')) {
      if (c !== 34 || (seen & 1) !== 0) return false;
      seen |= 1;
      // Up to the closing quote; an escape (backslash) goes to JSON.parse. The same pass decides
      // isPlainRelative: no % or :, no empty, "." or ".." segment, not absolute.
      let segLen = 0;
      let segDots = 0;
      let ok = true;
      let ascii = true;
      let h = 2166136261;
      let i = v + 1;
      for (; i < end; i++) {
        const ch = buf[i];
        if (ch === 34) break;
        if (ch === 92) return false;
        h = Math.imul(h ^ ch, 16777619);
        if (ch === 47 /* / */) {
          if (segLen === 0 || (segDots === segLen && segLen <= 2)) ok = false;
          segLen = 0;
          segDots = 0;
        } else {
          segLen++;
          if (ch === 46 /* . */) segDots++;
          else if (ch === 37 /* % */ || ch === 58 /* : */) ok = false;
          else if (ch >= 128) ascii = false;
        }
      }
      if (i >= end) return false;
      if (segLen > 0 && segDots === segLen && segLen <= 2) ok = false;
      pathAt = v + 1;
      if (ascii) {
        pathText = undefined;
        pathHash = h | 0;
      } else {
        pathText = buf.toString('utf8', v + 1, i);
        pathHash = hashKey(pathText);
      }
      plain = ok && i > v + 1;
      next = i + 1;
    } else if (kl === 15 && same(buf, k, 'partitionValues')) {
      if (c !== 123 || (seen & 2) !== 0) return false;
      seen |= 2;
      const close = flatObjectEnd(buf, v, end);
      if (close < 0) return false;
      try {
        pv = partitionValuesAt(buf, v, close, objectHash) as Record<string, string | null>;
      } catch {
        return false;
      }
      next = close + 1;
    } else if (kl === 4 && same(buf, k, 'size')) {
      if ((seen & 4) !== 0) return false;
      seen |= 4;
      next = numberEnd(buf, v, end);
      size = numberValue;
    } else if (kl === 16 && same(buf, k, 'modificationTime')) {
      if ((seen & 8) !== 0) return false;
      seen |= 8;
      next = numberEnd(buf, v, end);
      mtime = numberValue;
    } else if (kl === 10 && same(buf, k, 'dataChange')) {
      if ((seen & 16) !== 0) return false;
      seen |= 16;
      if (same(buf, v, 'true')) { dc = 1; next = v + 4; } else if (same(buf, v, 'false')) { dc = 0; next = v + 5; } else return false;
    } else if (kl === 5 && same(buf, k, 'stats')) {
      if ((seen & 32) !== 0) return false;
      seen |= 32;
      if (c === 34) {
        const close = statsEnd(buf, v, end);
        numRecords = statsNumRecords;
        next = close < 0 ? -1 : close + 1;
      } else {
        numRecords = null;
        next = scalarEnd(buf, v, end);
      }
    } else if (kl === 4 && same(buf, k, 'tags')) {
      if ((seen & 64) !== 0) return false;
      seen |= 64;
      next = c === 123 ? flatObjectEnd(buf, v, end) + 1 : scalarEnd(buf, v, end);
      if (next === 0) return false;
    } else if (kl === 14 && same(buf, k, 'deletionVector')) {
      return false;
    } else {
      next = scalarEnd(buf, v, end);
    }
    if (next < 0) return false;
    const sepCh = buf[next];
    p = next + 1;
    if (sepCh === 44 /* , */) continue;
    if (sepCh !== 125 /* } */) return false;
    break;
  }
  // The outer object closes, then only whitespace (a CR of a CRLF file).
  if (buf[p] !== 125) return false;
  for (let i = p + 1; i < end; i++) {
    const ch = buf[i];
    if (ch !== 13 && ch !== 32 && ch !== 9) return false;
  }
  if (pathAt < 0 || pv === null || size < 0 || mtime < 0 || dc < 0) return false;
  into.pushFast(pathAt, pathText, pathHash, pv, size, mtime, dc === 1, numRecords, plain);
  return true;
}

type Add = AddFile & { stats_parsed?: Record<string, unknown> | null };

/**
 * The adds of one commit file in order, columnar: a fast-path add is a row of typed arrays (its
 * LazyAddFile is made on first request), any other add is kept as the object JSON.parse gave.
 * A 300k-add commit then costs no object per add until something asks for one, and the GC has
 * nothing to copy.
 */
export class AddBatch {
  n = 0;
  // Small to start: a 10,000-commit log has 10,000 batches, most of one add (grows by doubling).
  private cap = 16;
  pathAt = new Int32Array(this.cap);
  pathHash = new Int32Array(this.cap);
  size = new Float64Array(this.cap);
  mtime = new Float64Array(this.cap);
  /** numRecords from the stats text; NaN for none. */
  numRecords = new Float64Array(this.cap);
  /** bit 0: fast-path row; bit 1: plain path; bit 2: dataChange. */
  flags = new Uint8Array(this.cap);
  pv: (Record<string, string | null> | undefined)[] = [];
  /** The add objects: made on request for fast rows, given for the others. */
  objs: (Add | undefined)[] = [];
  /** Decoded paths of fast rows (non-ASCII ones at scan time, others on request). */
  private paths: (string | undefined)[] = [];
  constructor(readonly buf: Buffer, readonly version: number) {}

  private grow(): void {
    this.cap *= 2;
    const g = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => { const b = make(this.cap); b.set(a); return b; };
    this.pathAt = g(this.pathAt, (c) => new Int32Array(c));
    this.pathHash = g(this.pathHash, (c) => new Int32Array(c));
    this.size = g(this.size, (c) => new Float64Array(c));
    this.mtime = g(this.mtime, (c) => new Float64Array(c));
    this.numRecords = g(this.numRecords, (c) => new Float64Array(c));
    this.flags = g(this.flags, (c) => new Uint8Array(c));
  }

  pushFast(pathAt: number, pathText: string | undefined, pathHash: number, pv: Record<string, string | null>, size: number, mtime: number,
    dataChange: boolean, numRecords: number | null, plain: boolean): void {
    if (this.n === this.cap) this.grow();
    const i = this.n++;
    this.pathAt[i] = pathAt;
    this.pathHash[i] = pathHash;
    this.size[i] = size;
    this.mtime[i] = mtime;
    this.numRecords[i] = numRecords === null ? NaN : numRecords;
    this.flags[i] = 1 | (plain ? 2 : 0) | (dataChange ? 4 : 0);
    this.pv.push(pv);
    this.objs.push(undefined);
    this.paths.push(pathText);
  }

  pushObject(add: Add): void {
    if (this.n === this.cap) this.grow();
    const i = this.n++;
    this.flags[i] = 0;
    this.pv.push(undefined);
    this.objs.push(add);
    this.paths.push(undefined);
  }

  isFast(i: number): boolean { return (this.flags[i] & 1) === 1; }
  isFastPlain(i: number): boolean { return (this.flags[i] & 3) === 3; }

  /** The path of a fast row (decoded once). */
  pathOf(i: number): string {
    let p = this.paths[i];
    if (p === undefined) {
      const buf = this.buf;
      const at = this.pathAt[i];
      let e = at;
      while (buf[e] !== 34) e++;
      p = this.paths[i] = buf.toString('latin1', at, e);
    }
    return p;
  }

  /** The add of row i (made once for a fast row). */
  addAt(i: number): Add {
    let a = this.objs[i];
    if (a === undefined) {
      const f = this.flags[i];
      const n = this.numRecords[i];
      a = this.objs[i] = new LazyAddFile(this.buf, this.pathAt[i], this.version, this.paths[i], this.pathHash[i], this.pv[i] as Record<string, string | null>,
        this.size[i], this.mtime[i], (f & 4) === 4, Number.isNaN(n) ? null : n, (f & 2) === 2);
    }
    return a;
  }

  /** Every add in order, as objects. */
  all(): Add[] {
    const out = new Array<Add>(this.n);
    for (let i = 0; i < this.n; i++) out[i] = this.addAt(i);
    return out;
  }
}

/** The add of one commit line through the fast path, or null to use JSON.parse. */
export function tryFastAdd(line: string, version = 0): LazyAddFile | null {
  const buf = Buffer.from(line, 'utf8');
  const batch = new AddBatch(buf, version);
  return scanAdd(buf, 0, buf.length, batch) ? batch.addAt(0) as LazyAddFile : null;
}

const ACTION_KEYS = ['add', 'remove', 'metaData', 'protocol', 'txn', 'commitInfo', 'domainMetadata', 'checkpointMetadata', 'sidecar', 'cdc'] as const;

/**
 * Refuses a parsed log line that is not one action: an array, a scalar, an empty object, two
 * actions on one line, or an action whose value is not an object (Spark and delta-kernel read
 * each line as one action object; an object with only unknown keys is a newer action and ignored).
 */
export function checkActionLine(a: unknown, fileName: string, lineNo: number, corrupt: (why: string) => Error): void {
  if (a === null || typeof a !== 'object' || Array.isArray(a)) {
    throw corrupt(`${fileName} line ${lineNo} is ${Array.isArray(a) ? 'a JSON array' : a === null ? 'null' : `a JSON ${typeof a}`}, not an action object`);
  }
  const o = a as Record<string, unknown>;
  let found: string | null = null;
  let any = false;
  for (const k in o) {
    any = true;
    if (!(ACTION_KEYS as readonly string[]).includes(k)) continue;
    const v = o[k];
    if (v === null) continue;
    if (typeof v !== 'object' || Array.isArray(v)) throw corrupt(`${fileName} line ${lineNo}: the "${k}" action is not an object`);
    if (found !== null) throw corrupt(`${fileName} line ${lineNo} holds two actions ("${found}" and "${k}"); a log line holds one`);
    found = k;
  }
  if (!any) throw corrupt(`${fileName} line ${lineNo} is an empty object, not an action`);
}
