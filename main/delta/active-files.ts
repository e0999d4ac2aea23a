// A replayed state's live files as the snapshot's ActiveFile objects: stats parsed on first read,
// partition values in logical names, plain fast-path adds read from their batch's columns.
import type { AddFile, ColumnMappingMode, DeletionVectorDescriptor, FileStats, StructType } from '../../shared/delta';
import type { ActiveFile } from './types';
import { decodePartitionValues, physicalToLogical, statsToLogical } from './schema';
import type { AddBatch } from './fastadd';
import { addNumRecords, type LogAddFile } from './commits';
import type { LiveEntry, ReplayState } from './replay';

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

/**
 * The stats signature of a data file: row count, deletion-vector cardinality, per-column min/max
 * and null counts, and partition values (logical names). Two files with one signature look like one
 * batch written twice (a retried write). A file part-deleted by a deletion vector does not repeat
 * the same file without one (nor one with another cardinality). Null when the stats cannot tell a
 * repeat: no stats, no row count, no rows, or no column bounds at all.
 */
export function statsSignature(f: Pick<ActiveFile, 'stats' | 'partitionValues' | 'deletionVector'>): string | null {
  const s = f.stats;
  if (!s || typeof s.numRecords !== 'number' || s.numRecords === 0) return null;
  if (!hasBounds(s.minValues) && !hasBounds(s.maxValues)) return null;
  return JSON.stringify([s.numRecords, f.deletionVector?.cardinality ?? 0, s.minValues ?? null, s.maxValues ?? null, s.nullCount ?? null, f.partitionValues]);
}

const hasBounds = (v: Record<string, unknown> | undefined): boolean => v !== undefined && Object.keys(v).length > 0;

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
  constructor(private readonly e: LiveEntry, private readonly ctx: SnapshotContext) {}
  get path(): string { return this.e.key; }
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
    path: f.path, size: f.size, modificationTime: f.modificationTime,
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
    m = decodePartitionValues(pv, toLogical);
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
