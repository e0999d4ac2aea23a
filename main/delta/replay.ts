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
import { LazyAddFile, scanAdd } from './fastadd';
import { FileTable } from './filetable';

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
  return parseCommitBytes(Buffer.from(text, 'utf8'), version, fileName);
}

/**
 * The same from the file's bytes: lines are found with indexOf on the Buffer; plain add lines
 * take the fast path (fastadd.ts) and only the other lines are decoded and JSON-parsed.
 */
export function parseCommitBytes(buf: Buffer, version: number, fileName: string): ParsedCommit {
  const c = emptyCommit(version);
  const n = buf.length;
  let start = 0;
  let lineNo = 0;
  while (start < n) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = n;
    lineNo++;
    const fast = scanAdd(buf, start, end, version);
    if (fast) {
      c.adds.push(fast);
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
    if (a === null || typeof a !== 'object') {
      throw new LakerecError('log_corrupt', `${fileName} line ${lineNo} is not an action object`, { file: fileName, line: lineNo });
    }
    addAction(c, a);
  }
  return c;
}

const numRecordsRe = /"numRecords"\s*:\s*(\d+)/;

/** numRecords from a stats JSON string without parsing the whole (possibly 100-column) object. */
export function numRecordsFromStats(stats: string | null | undefined): number | null {
  if (!stats) return null;
  const m = numRecordsRe.exec(stats);
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
export class ReplayState {
  protocol: Protocol | null = null;
  metadata: Metadata | null = null;
  /** key: canonical path + NUL + DV unique id */
  files = new FileTable<FileEntry>();
  readonly txns = new Map<string, TransactionId>();
  readonly domains = new Map<string, DomainMetadata>();
  constructor(readonly root: string) {}

  clone(): ReplayState {
    const s = new ReplayState(this.root);
    s.protocol = this.protocol;
    s.metadata = this.metadata;
    s.files = this.files.clone();
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
      let e: FileEntry;
      if (isPlainRelative(a.path)) {
        e = { add: a, version: c.version, key: a.path, outside: false, absolute: undefined };
      } else {
        const ck = canonicalKey(a.path, this.root);
        e = { add: a, version: c.version, key: ck.key, outside: ck.outside, absolute: ck.absolute };
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
    const pv = this.e.add.partitionValues ?? EMPTY_PV;
    const toLogical = this.ctx.toLogical;
    if (!toLogical) return pv;
    let m = this.ctx.logicalPv.get(pv);
    if (m === undefined) {
      m = {};
      for (const k in pv) m[toLogical.get(k) ?? k] = pv[k] ?? null;
      this.ctx.logicalPv.set(pv, m);
    }
    return m;
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
    return {
      path: this.path, absolutePath: this.absolutePath, size: this.size, modificationTime: this.modificationTime,
      partitionValues: this.partitionValues, stats: this.stats, deletionVector: this.deletionVector,
      numRecords: this.numRecords, addedInVersion: this.addedInVersion, add: this.add, outside: this.outside,
    };
  }
}

const EMPTY_PV: Record<string, string | null> = Object.freeze({}) as Record<string, string | null>;

/** The snapshot's file list, keyed partition values translated to logical names under column mapping. */
export function activeFiles(state: ReplayState, schema: StructType, mode: ColumnMappingMode): ActiveFile[] {
  const ctx: SnapshotContext = { root: state.root, schema, mode, toLogical: mode === 'none' ? null : physicalToLogical(schema, mode), logicalPv: new Map() };
  const entries = state.files.valuesArray();
  const out: ActiveFile[] = new Array<ActiveFile>(entries.length);
  for (let i = 0; i < entries.length; i++) out[i] = new SnapshotFile(entries[i], ctx);
  return out;
}
