// Log replay: commit parsing and the add/remove reconciliation that yields a snapshot's files.
// Pure logic over actions (no disk), so it is unit-testable; table.ts feeds it files.
import { LakerecError } from '../../shared/errors';
import type {
  Action, AddFile, ColumnMappingMode, CommitInfo, DeletionVectorDescriptor, DomainMetadata, FileStats, Metadata, Protocol,
  RemoveFile, Sidecar, StructType, TransactionId,
} from '../../shared/delta';
import type { ActiveFile } from './types';
import { sep } from 'node:path';
import { canonicalisePath, isPlainRelative, type CanonicalPath } from './paths';
import { dvUniqueId } from './dv';
import { physicalToLogical, statsToLogical } from './schema';
import { AddBatch, checkActionLine, LazyAddFile, scanAdd } from './fastadd';
import { FileTable, type RowResolver } from './filetable';

/** A checkpoint add may carry typed `stats_parsed` instead of the JSON `stats` string. */
export type LogAddFile = AddFile & { stats_parsed?: Record<string, unknown> | null };

export interface ParsedCommit {
  version: number;
  adds: LogAddFile[];
  removes: RemoveFile[];
  protocol: Protocol | null;
  metaData: Metadata | null;
  commitInfo: CommitInfo | null;
  txns: TransactionId[];
  domainMetadata: DomainMetadata[];
  sidecars: Sidecar[];
  hasCheckpointMetadata: boolean;
}

export function emptyCommit(version: number): ParsedCommit {
  return { version, adds: [], removes: [], protocol: null, metaData: null, commitInfo: null, txns: [], domainMetadata: [], sidecars: [], hasCheckpointMetadata: false };
}

/** Adds one action to a parsed commit (unknown action kinds are ignored, per protocol). */
export function addAction(c: ParsedCommit, a: Action): void {
  if (a.add) c.adds.push(a.add as LogAddFile);
  else if (a.remove) c.removes.push(a.remove);
  else if (a.commitInfo) c.commitInfo = a.commitInfo;
  else if (a.metaData) c.metaData = a.metaData;
  else if (a.protocol) c.protocol = a.protocol;
  else if (a.txn) c.txns.push(a.txn);
  else if (a.domainMetadata) c.domainMetadata.push(a.domainMetadata);
  else if (a.sidecar) c.sidecars.push(a.sidecar);
  else if (a.checkpointMetadata) c.hasCheckpointMetadata = true;
}

/** Parses a newline-delimited JSON commit (or JSON checkpoint / compaction file). */
export function parseCommitText(text: string, version: number, fileName: string): ParsedCommit {
  // A plain object (adds as an array): callers copy it with Object.assign or spread.
  const b = parseCommitBytes(Buffer.from(text, 'utf8'), version, fileName) as BatchedCommit;
  return {
    version, adds: b.adds, removes: b.removes, protocol: b.protocol, metaData: b.metaData, commitInfo: b.commitInfo,
    txns: b.txns, domainMetadata: b.domainMetadata, sidecars: b.sidecars, hasCheckpointMetadata: b.hasCheckpointMetadata,
  };
}

/**
 * The same from the file's bytes: lines are found with indexOf on the Buffer; plain add lines
 * take the fast path (fastadd.ts) and only the other lines are decoded and JSON-parsed.
 */
export function parseCommitBytes(buf: Buffer, version: number, fileName: string): ParsedCommit {
  const c = new BatchedCommit(new AddBatch(buf, version));
  const batch = c.batch;
  const n = buf.length;
  let start = 0;
  let lineNo = 0;
  while (start < n) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = n;
    lineNo++;
    if (scanAdd(buf, start, end, batch)) {
      start = end + 1;
      continue;
    }
    const line = buf.toString('utf8', start, end);
    start = end + 1;
    if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === '')) continue;
    let a: Action;
    try {
      a = JSON.parse(line) as Action;
    } catch (e) {
      throw new LakerecError('log_corrupt', `${fileName} line ${lineNo} is not valid JSON (${(e as Error).message})`, { file: fileName, line: lineNo });
    }
    checkActionLine(a, fileName, lineNo, (why) => new LakerecError('log_corrupt', `commit at version ${version}: ${why}`, { file: fileName, line: lineNo, version }));
    if (a.add) batch.pushObject(a.add as LogAddFile);
    else addAction(c, a);
  }
  return c;
}

/** How many adds a parsed commit holds (without making objects of a batch's adds). */
export function addCount(c: ParsedCommit): number {
  return c instanceof BatchedCommit ? c.batch.n : c.adds.length;
}

/**
 * A commit read from JSON: its adds live in a columnar batch (fastadd.ts) and become objects only
 * when `adds` is read (the timeline, forensics); replay reads the batch directly.
 */
class BatchedCommit implements ParsedCommit {
  removes: RemoveFile[] = [];
  protocol: Protocol | null = null;
  metaData: Metadata | null = null;
  commitInfo: CommitInfo | null = null;
  txns: TransactionId[] = [];
  domainMetadata: DomainMetadata[] = [];
  sidecars: Sidecar[] = [];
  hasCheckpointMetadata = false;
  private list: LogAddFile[] | undefined;
  readonly version: number;
  constructor(readonly batch: AddBatch) {
    this.version = batch.version;
  }
  get adds(): LogAddFile[] {
    if (!this.list) this.list = this.batch.all();
    return this.list;
  }
  set adds(v: LogAddFile[]) { this.list = v; }
  /** The batch still says what `adds` says (nobody replaced or grew the list). */
  get batchCurrent(): boolean {
    return this.list === undefined || this.list.length === this.batch.n;
  }
}

const numRecordsRe = /"numRecords"\s*:\s*(\d+)/;

/** numRecords from a stats JSON string without parsing the whole (possibly 100-column) object. */
export function numRecordsFromStats(stats: string | null | undefined): number | null {
  if (!stats) return null;
  const m = numRecordsRe.exec(stats);
  // An escape or a second numRecords: what JSON.parse reads (the last duplicate) is the answer.
  if (stats.indexOf('\\') >= 0 || (m && stats.indexOf('"numRecords"', m.index + 1) >= 0)) {
    try {
      const n = (JSON.parse(stats) as { numRecords?: unknown }).numRecords;
      return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
    } catch {
      return null;
    }
  }
  return m ? Number(m[1]) : null;
}

/** numRecords of an add from its stats (or checkpoint stats_parsed), without parsing all of its stats. */
export function numRecordsOfAdd(add: AddFile): number | null {
  return addNumRecords(add as LogAddFile);
}

function addNumRecords(add: LogAddFile): number | null {
  if (add instanceof LazyAddFile) return add.numRecordsHint;
  const n = numRecordsFromStats(add.stats);
  if (n !== null) return n;
  const p = add.stats_parsed?.numRecords;
  return typeof p === 'number' ? p : null;
}

export interface FileEntry {
  add: LogAddFile;
  version: number;
  /** Canonical path: relative to the root when inside it (see paths.ts). */
  key: string;
  outside: boolean;
  /** Absolute local path; undefined for a plain relative key (root + key), null when not local. */
  absolute: string | null | undefined;
}

/** Absolute local path of an entry (null for another scheme). */
export function entryAbsolute(e: FileEntry, root: string): string | null {
  if (e.absolute !== undefined) return e.absolute;
  return root.endsWith(sep) ? root + e.key : root + sep + e.key;
}

function canonicalKey(path: string, root: string): { key: string; outside: boolean; absolute: string | null | undefined } {
  if (isPlainRelative(path)) return { key: path, outside: false, absolute: undefined };
  const c: CanonicalPath = canonicalisePath(path, root);
  return { key: c.key, outside: c.outside, absolute: c.absolute };
}

/** The state of the table as actions are applied in version order. */
export class ReplayState implements RowResolver<FileEntry> {
  protocol: Protocol | null = null;
  metadata: Metadata | null = null;
  /** key: canonical path + NUL + DV unique id. A plain fast-path add is held as a row number
   *  (see rowOf): base of its batch + its index there. */
  files = new FileTable<FileEntry>(this);
  readonly txns = new Map<string, TransactionId>();
  readonly domains = new Map<string, DomainMetadata>();
  private batches: AddBatch[] = [];
  private bases: number[] = [];
  private nextRow = 0;
  // The batch of the last row looked up (rows are mostly read in order).
  private lastBatch = -1;
  constructor(readonly root: string) {}

  /** The batch holding row r and r's index in it. */
  rowOf(r: number): { batch: AddBatch; i: number } {
    let b = this.lastBatch;
    if (b < 0 || r < this.bases[b] || r >= this.bases[b] + this.batches[b].n) {
      let lo = 0;
      let hi = this.bases.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.bases[mid] <= r) lo = mid; else hi = mid - 1;
      }
      b = this.lastBatch = lo;
    }
    return { batch: this.batches[b], i: r - this.bases[b] };
  }

  /** Room for n more files (the adds of the commits about to be applied), to grow the table once. */
  reserve(n: number): void {
    this.files.reserve(n);
  }

  keyOf(r: number): string {
    const { batch, i } = this.rowOf(r);
    return batch.pathOf(i);
  }

  valueOf(r: number): FileEntry {
    const { batch, i } = this.rowOf(r);
    return batch.addAt(i) as LazyAddFile;
  }

  clone(): ReplayState {
    const s = new ReplayState(this.root);
    s.protocol = this.protocol;
    s.metadata = this.metadata;
    s.files = this.files.clone(s);
    s.batches = this.batches.slice();
    s.bases = this.bases.slice();
    s.nextRow = this.nextRow;
    for (const [k, v] of this.txns) s.txns.set(k, v);
    for (const [k, v] of this.domains) s.domains.set(k, v);
    return s;
  }

  static key(canonKey: string, dvId: string): string {
    return dvId ? `${canonKey}\u0000${dvId}` : canonKey;
  }

  /**
   * Applies one version. Removes go first: within a version an add and a remove of the same file
   * cannot both be meant literally, and a DV update writes remove(old DV) + add(new DV).
   */
  apply(c: ParsedCommit, hooks?: { onAdd?(e: FileEntry): void; onRemove?(e: FileEntry): void }): void {
    if (c.protocol) this.protocol = c.protocol;
    if (c.metaData) this.metadata = c.metaData;
    for (const t of c.txns) this.txns.set(t.appId, t);
    for (const d of c.domainMetadata) {
      if (d.removed) this.domains.delete(d.domain); else this.domains.set(d.domain, d);
    }
    for (const r of c.removes) {
      const rk = isPlainRelative(r.path) ? r.path : canonicalisePath(r.path, this.root).key;
      const k = r.deletionVector ? ReplayState.key(rk, dvUniqueId(r.deletionVector)) : rk;
      const e = this.files.get(k);
      if (e) {
        this.files.delete(k);
        hooks?.onRemove?.(e);
      }
    }
    if (c instanceof BatchedCommit && c.batchCurrent && this.nextRow + c.batch.n < 2 ** 30) {
      this.applyBatch(c.batch, hooks);
      return;
    }
    this.files.reserve(c.adds.length);
    for (const a of c.adds) {
      if (a instanceof LazyAddFile && a.plainPath && a.version === c.version) {
        // The common case: the add is its own entry, keyed by its path, hash known from the scan.
        if (hooks) {
          const prev = this.files.get(a, a.pathHash);
          if (prev) hooks.onRemove?.(prev);
        }
        this.files.set(a, a, a.pathHash);
        hooks?.onAdd?.(a);
        continue;
      }
      this.applyAdd(a, c.version, hooks);
    }
  }

  /** The adds of a batch, in order: plain fast rows by row number, the rest as entries. */
  private applyBatch(batch: AddBatch, hooks?: { onAdd?(e: FileEntry): void; onRemove?(e: FileEntry): void }): void {
    const base = this.nextRow;
    this.batches.push(batch);
    this.bases.push(base);
    this.nextRow += batch.n;
    this.files.reserve(batch.n);
    for (let i = 0; i < batch.n; i++) {
      if (batch.isFastPlain(i)) {
        const r = base + i;
        const h = batch.pathHash[i];
        if (hooks) {
          const prev = this.files.get(r, h);
          if (prev) hooks.onRemove?.(prev);
        }
        this.files.set(r, r, h);
        if (hooks?.onAdd) hooks.onAdd(this.valueOf(r));
        continue;
      }
      this.applyAdd(batch.addAt(i), batch.version, hooks);
    }
  }

  /** An add that is not a plain fast-path row: keyed by its canonical path (and DV id). */
  private applyAdd(a: AddFile, version: number, hooks?: { onAdd?(e: FileEntry): void; onRemove?(e: FileEntry): void }): void {
    let e: FileEntry;
    if (isPlainRelative(a.path)) {
      e = { add: a, version, key: a.path, outside: false, absolute: undefined };
    } else {
      const ck = canonicalKey(a.path, this.root);
      e = { add: a, version, key: ck.key, outside: ck.outside, absolute: ck.absolute };
    }
    const k = a.deletionVector ? ReplayState.key(e.key, dvUniqueId(a.deletionVector)) : e.key;
    if (hooks) {
      const prev = this.files.get(k);
      if (prev) hooks.onRemove?.(prev);
    }
    this.files.set(k, e);
    hooks?.onAdd?.(e);
  }
}

export function parseStats(add: LogAddFile, schema: StructType, mode: ColumnMappingMode): FileStats | null {
  let raw: Record<string, unknown> | null = null;
  if (add.stats) {
    try { raw = JSON.parse(add.stats) as Record<string, unknown>; } catch { raw = null; }
  } else if (add.stats_parsed) {
    raw = add.stats_parsed;
  }
  if (!raw || typeof raw !== 'object') return null;
  const s: FileStats = {};
  if (typeof raw.numRecords === 'number') s.numRecords = raw.numRecords;
  if (typeof raw.tightBounds === 'boolean') s.tightBounds = raw.tightBounds;
  if (raw.minValues) s.minValues = statsToLogical(raw.minValues, schema, mode) as Record<string, unknown>;
  if (raw.maxValues) s.maxValues = statsToLogical(raw.maxValues, schema, mode) as Record<string, unknown>;
  const nc = raw.nullCount ?? raw.nullCounts;
  if (nc) s.nullCount = statsToLogical(nc, schema, mode) as Record<string, unknown>;
  return s;
}

interface SnapshotContext {
  root: string;
  schema: StructType;
  mode: ColumnMappingMode;
  /** Physical to logical partition column names, under column mapping. */
  toLogical: Map<string, string> | null;
  /** Logical partition values per physical object (those are shared between files). */
  logicalPv: Map<Record<string, string | null>, Record<string, string | null>>;
}

/**
 * A file of a snapshot: a thin view over its replay entry, so that a 300k-file snapshot costs one
 * small object per file; every field is read from the add on access (they are cheap) and `stats`
 * is parsed on first read (a 300k-file log with 100-column stats must not pay for JSON nobody
 * reads) and cached; numRecords comes from a cheap scan of the stats text. The fields live on the
 * prototype: `toJSON` gives them all as a plain object (spread or structured clone do not).
 */
class SnapshotFile implements ActiveFile {
  private parsed: FileStats | null | undefined = undefined;
  constructor(private readonly e: FileEntry, private readonly ctx: SnapshotContext) {}
  get path(): string { return this.e.key; }
  get absolutePath(): string { return entryAbsolute(this.e, this.ctx.root) ?? this.e.add.path; }
  get size(): number { return this.e.add.size; }
  get modificationTime(): number { return this.e.add.modificationTime; }
  get partitionValues(): Record<string, string | null> {
    return logicalPartitionValues(this.e.add.partitionValues ?? EMPTY_PV, this.ctx);
  }
  get deletionVector(): DeletionVectorDescriptor | null { return this.e.add.deletionVector ?? null; }
  get numRecords(): number | null {
    const a = this.e.add;
    const n = addNumRecords(a);
    return n === null ? null : n - (a.deletionVector?.cardinality ?? 0);
  }
  get addedInVersion(): number { return this.e.version; }
  get add(): AddFile { return this.e.add; }
  get outside(): boolean { return this.e.outside; }
  get stats(): FileStats | null {
    if (this.parsed === undefined) this.parsed = parseStats(this.e.add, this.ctx.schema, this.ctx.mode);
    return this.parsed;
  }
  set stats(v: FileStats | null) {
    this.parsed = v;
  }
  toJSON(): ActiveFile {
    return plainActiveFile(this);
  }
}

/** A getter-based snapshot file as a plain object (what JSON and a structured clone can carry). */
function plainActiveFile(f: ActiveFile): ActiveFile {
  return {
    path: f.path, absolutePath: f.absolutePath, size: f.size, modificationTime: f.modificationTime,
    partitionValues: f.partitionValues, stats: f.stats, deletionVector: f.deletionVector,
    numRecords: f.numRecords, addedInVersion: f.addedInVersion, add: f.add, outside: f.outside,
  };
}

const EMPTY_PV: Record<string, string | null> = Object.freeze({}) as Record<string, string | null>;

function logicalPartitionValues(pv: Record<string, string | null>, ctx: SnapshotContext): Record<string, string | null> {
  const toLogical = ctx.toLogical;
  if (!toLogical) return pv;
  let m = ctx.logicalPv.get(pv);
  if (m === undefined) {
    m = {};
    for (const k in pv) m[toLogical.get(k) ?? k] = pv[k] ?? null;
    ctx.logicalPv.set(pv, m);
  }
  return m;
}

/**
 * A snapshot file over a row of a commit's add batch (a plain fast-path add): the same fields as
 * SnapshotFile, read from the batch's columns, so per-partition counts touch no add object.
 */
interface BatchView { batch: AddBatch; ctx: SnapshotContext }

class BatchFile implements ActiveFile {
  private parsed: FileStats | null | undefined = undefined;
  // Two fields besides the stats cache: 300k of these are copied by the GC while young.
  constructor(private readonly view: BatchView, private readonly i: number) {}
  private get batch(): AddBatch { return this.view.batch; }
  private get ctx(): SnapshotContext { return this.view.ctx; }
  get path(): string { return this.batch.pathOf(this.i); }
  get absolutePath(): string { const r = this.ctx.root; return r.endsWith(sep) ? r + this.path : r + sep + this.path; }
  get size(): number { return this.batch.size[this.i]; }
  get modificationTime(): number { return this.batch.mtime[this.i]; }
  get partitionValues(): Record<string, string | null> {
    return logicalPartitionValues(this.batch.pv[this.i] ?? EMPTY_PV, this.ctx);
  }
  get deletionVector(): DeletionVectorDescriptor | null { return null; }
  get numRecords(): number | null {
    const n = this.batch.numRecords[this.i];
    return Number.isNaN(n) ? null : n;
  }
  get addedInVersion(): number { return this.batch.version; }
  get add(): AddFile { return this.batch.addAt(this.i); }
  get outside(): boolean { return false; }
  get stats(): FileStats | null {
    if (this.parsed === undefined) this.parsed = parseStats(this.batch.addAt(this.i), this.ctx.schema, this.ctx.mode);
    return this.parsed;
  }
  set stats(v: FileStats | null) {
    this.parsed = v;
  }
  toJSON(): ActiveFile {
    return plainActiveFile(this);
  }
}

/** The snapshot's file list, keyed partition values translated to logical names under column mapping. */
export function activeFiles(state: ReplayState, schema: StructType, mode: ColumnMappingMode): ActiveFile[] {
  const ctx: SnapshotContext = { root: state.root, schema, mode, toLogical: mode === 'none' ? null : physicalToLogical(schema, mode), logicalPv: new Map() };
  const entries = state.files.rawValuesArray();
  const out: ActiveFile[] = new Array<ActiveFile>(entries.length);
  let view = null as BatchView | null;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (typeof e === 'number') {
      const row = state.rowOf(e);
      if (view?.batch !== row.batch) view = { batch: row.batch, ctx };
      out[i] = new BatchFile(view, row.i);
    } else {
      out[i] = new SnapshotFile(e, ctx);
    }
  }
  return out;
}
