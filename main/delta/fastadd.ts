// A fast path for the most common line of a large log: an `add` without a deletion vector.
// JSON.parse of every such line (with its stats string) dominates opening a 300k-file log, yet a
// snapshot needs only the path, partition values, size, modification time and numRecords.
// Those are taken from the raw line; the full JSON is parsed on first use of any other field.
// Anything unusual (escapes in the path, a DV, an unexpected layout) takes the ordinary JSON.parse.
import type { AddFile, DeletionVectorDescriptor } from '../../shared/delta';

const PREFIX = '{"add":{"path":"';

/**
 * The unsigned integer right after the first `key` (e.g. `"size":`), or -1 when absent or not a
 * plain number. Inside the stats string quotes are escaped, and partition values and tags are
 * strings, so the first unescaped `"size":` followed by a digit is the action's own field.
 */
function numberAfter(line: string, key: string): number {
  const i = line.indexOf(key);
  if (i < 0) return -1;
  let j = i + key.length;
  let v = 0;
  const start = j;
  for (; j < line.length; j++) {
    const ch = line.charCodeAt(j);
    if (ch < 48 || ch > 57) break;
    v = v * 10 + (ch - 48);
  }
  if (j === start || j - start > 15) return -1;
  const end = line.charCodeAt(j);
  return end === 44 /* , */ || end === 125 /* } */ ? v : -1;
}
// Inside the raw line the stats JSON is a string, so its quotes are escaped.
const escapedNumRecordsRe = /\\"numRecords\\":(\d+)/;

// Partition value objects repeat across files (a 300k-file table has ~100 partitions): one parse
// and one shared, frozen object per distinct text, found by a hash of the characters in place so
// that a repeated text costs neither a substring nor a string hash.
interface PvEntry { text: string; pv: Readonly<Record<string, string | null>> }
const pvByHash = new Map<number, PvEntry[]>();
let pvCount = 0;
const PV_CACHE_MAX = 200_000;

function partitionValuesAt(line: string, open: number, close: number, hash: number): Readonly<Record<string, string | null>> {
  const len = close - open + 1;
  const bucket = pvByHash.get(hash);
  if (bucket) {
    for (const e of bucket) if (e.text.length === len && line.startsWith(e.text, open)) return e.pv;
  }
  const text = line.slice(open, close + 1);
  const pv = Object.freeze(JSON.parse(text) as Record<string, string | null>);
  if (pvCount < PV_CACHE_MAX) {
    pvCount++;
    if (bucket) bucket.push({ text, pv }); else pvByHash.set(hash, [{ text, pv }]);
  }
  return pv;
}

type Full = AddFile & { stats_parsed?: Record<string, unknown> | null };

/** An add action read lazily from its JSON line; behaves as a plain AddFile. */
export class LazyAddFile implements AddFile {
  path: string;
  partitionValues: Record<string, string | null>;
  size: number;
  modificationTime: number;
  dataChange: boolean;
  deletionVector: DeletionVectorDescriptor | null = null;
  private full: Full | undefined;
  constructor(private readonly line: string, path: string, pv: Record<string, string | null>, size: number, mtime: number, dataChange: boolean) {
    this.path = path;
    this.partitionValues = pv;
    this.size = size;
    this.modificationTime = mtime;
    this.dataChange = dataChange;
  }
  private parsed(): Full {
    if (!this.full) this.full = (JSON.parse(this.line) as { add: Full }).add;
    return this.full;
  }
  get stats(): string | null | undefined { return this.parsed().stats; }
  get tags(): Record<string, string> | null | undefined { return this.parsed().tags; }
  get baseRowId(): number | null | undefined { return this.parsed().baseRowId; }
  get defaultRowCommitVersion(): number | null | undefined { return this.parsed().defaultRowCommitVersion; }
  get clusteringProvider(): string | null | undefined { return this.parsed().clusteringProvider; }
  get stats_parsed(): Record<string, unknown> | null | undefined { return this.parsed().stats_parsed; }
  /** numRecords from the raw stats text, without parsing anything. */
  get numRecordsHint(): number | null {
    if (this.line.indexOf('numRecords') < 0) return null;
    const m = escapedNumRecordsRe.exec(this.line);
    return m ? Number(m[1]) : null;
  }
  toJSON(): AddFile {
    return this.parsed();
  }
}

/** The add of a commit line through the fast path, or null to use JSON.parse. */
export function tryFastAdd(line: string): LazyAddFile | null {
  if (!line.startsWith(PREFIX)) return null;
  // A truncated or damaged line must still fail loudly in JSON.parse.
  let end = line.length - 1;
  while (end > 0 && (line.charCodeAt(end) === 13 || line.charCodeAt(end) === 32)) end--;
  if (line.charCodeAt(end) !== 125 || line.charCodeAt(end - 1) !== 125) return null;
  const pathEnd = line.indexOf('"', PREFIX.length);
  if (pathEnd < 0) return null;
  const path = line.slice(PREFIX.length, pathEnd);
  if (path.indexOf('\\') >= 0 || line.indexOf('deletionVector') >= 0) return null;
  const k = line.indexOf('"partitionValues":', pathEnd);
  if (k < 0) return null;
  const open = k + 18;
  if (line.charCodeAt(open) !== 123 /* { */) return null;
  // Partition values are a flat map of strings/nulls: the first } outside a string closes it.
  let inStr = false;
  let close = -1;
  let hash = Math.imul(2166136261 ^ 123, 16777619);
  for (let i = open + 1; i < line.length; i++) {
    const ch = line.charCodeAt(i);
    hash = Math.imul(hash ^ ch, 16777619);
    if (inStr) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inStr = false;
    } else if (ch === 34) inStr = true;
    else if (ch === 125 /* } */) { close = i; break; }
    else if (ch === 123 || ch === 91 /* { [ */) return null;
  }
  if (close < 0) return null;
  const size = numberAfter(line, '"size":');
  const mtime = numberAfter(line, '"modificationTime":');
  const dcTrue = line.indexOf('"dataChange":true');
  const dc = dcTrue >= 0 ? true : line.indexOf('"dataChange":false') >= 0 ? false : null;
  if (size < 0 || mtime < 0 || dc === null) return null;
  let pv: Record<string, string | null>;
  try {
    pv = partitionValuesAt(line, open, close, hash) as Record<string, string | null>;
  } catch {
    return null;
  }
  return new LazyAddFile(line, path, pv, size, mtime, dc);
}
