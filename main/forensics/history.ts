// The log replayed once into file lifetimes: every (path, deletion vector) the log ever added
// gets one entry with the version that added it and the version that removed it. Any version's
// active file set is then "added at or before v, not removed at or before v", so forensics and
// every bisect probe share one pass over the log instead of rebuilding a snapshot per version.
import type {
  AddFile, DeletionVectorDescriptor, FileStats, Metadata, Protocol, RemoveFile, StructType,
} from '../../shared/delta';
import type { ActiveFile, VersionChange, VersionInfo } from '../delta/types';
import { throwIfCancelled, report, type JobContext } from '../../shared/jobs';
import { canonicalisePath, type CanonicalPath } from '../delta/paths';
import { dvUniqueId } from '../delta/dv';
import { columnMappingMode, parseSchemaString, physicalToLogical } from '../delta/schema';
import { numRecordsFromStats, parseStats as parseAddStats, type LogAddFile } from '../delta/replay';
import { LazyAddFile } from '../delta/fastadd';

/** What the replay needs from a table; `openHistorySource` adapts the reader to it. */
export interface HistorySource {
  root: string;
  versions(): Promise<VersionInfo[]>;
  changes(): Promise<VersionChange[]>;
  /** The active files, protocol and metadata of a readable version (used where commits are gone). */
  snapshotAt(version: number): Promise<{ files: ActiveFile[]; protocol: Protocol; metadata: Metadata; timestamp: number }>;
}

export interface FileEntry {
  /** Dense id, stable for this replay: the cache key of per-file results in bisect. */
  id: number;
  /** Canonical path key (relative to the root when inside it), as the reader keys files. */
  path: string;
  /** Absolute local path, or null for another scheme. */
  absolutePath: string | null;
  /** Outside the table root (the reader refuses it unless allowed). */
  outside: boolean;
  /** deletion vector identity ('' when none): a file with a new DV is a new entry. */
  dvKey: string;
  deletionVector: DeletionVectorDescriptor | null;
  add: AddFile;
  /** Stats with LOGICAL column names (parsed on first use). */
  stats: FileStats | null;
  /** Rows the file contributes (numRecords minus DV cardinality); null without stats. */
  numRecords: number | null;
  /** Partition values keyed by LOGICAL column name. */
  partitionValues: Record<string, string | null>;
  size: number;
  addedIn: number;
  /** The version that removed it; null while still active at the latest version. */
  removedIn: number | null;
}

export interface VersionState {
  version: number;
  info: VersionInfo;
  change: VersionChange | null;
  /** Entries this version added to / removed from the active set (ids): the full diff, also where
   *  the set was reset from a snapshot. */
  added: number[];
  removed: number[];
  /** For a snapshot reset whose commit file exists: the entries the commit itself added. */
  commitAdded?: number[];
  protocol: Protocol | null;
  metadata: Metadata | null;
  /** Protocol / metadata in force after this version. */
  protocolChanged: boolean;
  metadataChanged: boolean;
  tableRows: number | null;
  tableFiles: number;
  /** The file set was reset from a checkpoint-backed snapshot here (the commits before are gone). */
  fromSnapshot: boolean;
}

export interface History {
  root: string;
  latestVersion: number;
  oldestReadable: number | null;
  /** Indexed by version (0..latest); versions never seen are present with readable=false. */
  states: VersionState[];
  files: FileEntry[];
}

export const dvKeyOf = dvUniqueId;

/** Schema and column mapping of a metadata, tolerant of a schema the reader already rejected. */
type SchemaInfo = { schema: StructType; mode: ReturnType<typeof columnMappingMode>; toLogical: Map<string, string> };
const schemaCache = new WeakMap<Metadata, SchemaInfo>();
const emptySchema: SchemaInfo = { schema: { type: 'struct', fields: [] }, mode: 'none', toLogical: new Map() };
/** Parsed once per metaData action (a 10,000-commit log has one or two, and 10,000 adds). */
function schemaOf(md: Metadata | null): SchemaInfo {
  if (!md) return emptySchema;
  let s = schemaCache.get(md);
  if (!s) {
    try {
      const schema = parseSchemaString(md);
      const mode = columnMappingMode(md);
      s = { schema, mode, toLogical: physicalToLogical(schema, mode) };
    } catch {
      s = emptySchema;
    }
    schemaCache.set(md, s);
  }
  return s;
}

function logicalPartitionValues(pv: Record<string, string | null> | null | undefined, metadata: Metadata | null): Record<string, string | null> {
  if (!pv) return {};
  const { mode, toLogical } = schemaOf(metadata);
  if (mode === 'none') return pv;
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(pv)) out[toLogical.get(k) ?? k] = v === undefined ? null : v;
  return out;
}

function addRows(add: LogAddFile): number | null {
  // The reader's lazy add answers numRecords from the raw line without parsing the stats.
  if (add instanceof LazyAddFile) return add.numRecordsHint;
  const n = numRecordsFromStats(add.stats);
  if (n !== null) return n;
  const p = add.stats_parsed?.numRecords;
  return typeof p === 'number' ? p : null;
}

/** A file entry whose stats are parsed on first use: a 300,000-file log must not pay for JSON nobody reads. */
class Entry implements FileEntry {
  readonly path: string;
  readonly absolutePath: string | null;
  readonly outside: boolean;
  readonly dvKey: string;
  readonly deletionVector: DeletionVectorDescriptor | null;
  readonly size: number;
  removedIn: number | null = null;
  private parsed: FileStats | null | undefined;
  constructor(
    readonly id: number, cp: CanonicalPath, readonly add: AddFile, readonly numRecords: number | null,
    readonly partitionValues: Record<string, string | null>, readonly addedIn: number,
    private readonly md: Metadata | null, private readonly statsOf?: () => FileStats | null,
  ) {
    this.path = cp.key;
    this.absolutePath = cp.absolute;
    this.outside = cp.outside;
    this.deletionVector = add.deletionVector ?? null;
    this.dvKey = dvKeyOf(this.deletionVector);
    this.size = add.size ?? 0;
  }
  get stats(): FileStats | null {
    if (this.parsed === undefined) {
      if (this.statsOf) this.parsed = this.statsOf();
      else { const { schema, mode } = schemaOf(this.md); this.parsed = parseAddStats(this.add as LogAddFile, schema, mode); }
    }
    return this.parsed;
  }
}

/** Replays the log once. Versions whose commit file is gone but which a checkpoint covers reset
 *  the file set from the reader's snapshot at that version. */
export async function replayHistory(src: HistorySource, ctx?: JobContext): Promise<History> {
  const infos = await src.versions();
  const changes = await src.changes();
  const latestVersion = infos.reduce((m, i) => Math.max(m, i.version), changes.reduce((m, c) => Math.max(m, c.version), -1));
  if (latestVersion < 0) return { root: src.root, latestVersion: -1, oldestReadable: null, states: [], files: [] };
  const infoBy = new Map(infos.map((i) => [i.version, i]));
  const changeBy = new Map(changes.map((c) => [c.version, c]));
  const files: FileEntry[] = [];
  /** open entries by path (a path holds at most one active entry) */
  const open = new Map<string, FileEntry>();
  let protocol: Protocol | null = null;
  let metadata: Metadata | null = null;
  // rows of open entries with stats, and how many open entries lack them
  let knownRows = 0;
  let unknownOpen = 0;
  const states: VersionState[] = [];
  let oldestReadable: number | null = null;
  // The open set is exactly version v-1's file set (true at the start: before version 0 it is empty).
  let inSync = true;

  const openEntry = (add: AddFile, v: number, logicalPv?: Record<string, string | null>, statsOf?: () => FileStats | null, canon?: CanonicalPath): FileEntry => {
    const cp = canon ?? canonicalisePath(add.path, src.root);
    const n = addRows(add as LogAddFile);
    const e = new Entry(files.length, cp, add, n === null ? null : n - (add.deletionVector?.cardinality ?? 0),
      logicalPv ?? logicalPartitionValues(add.partitionValues, metadata), v, metadata, statsOf);
    files.push(e);
    open.set(e.path, e);
    return e;
  };

  for (let v = 0; v <= latestVersion; v++) {
    if (v % 500 === 0) { throwIfCancelled(ctx); report(ctx, { phase: 'replaying log', done: v, total: latestVersion + 1 }); }
    const info: VersionInfo = infoBy.get(v) ?? { version: v, hasCommitFile: changeBy.get(v)?.hasCommitFile ?? false, hasCheckpoint: changeBy.get(v)?.hasCheckpoint ?? false, readable: false, reason: 'not in the log' };
    const change = changeBy.get(v) ?? null;
    const st: VersionState = {
      version: v, info, change, added: [], removed: [], protocol, metadata,
      protocolChanged: false, metadataChanged: false, tableRows: null, tableFiles: open.size, fromSnapshot: false,
    };
    const needSnapshot = info.readable && (!info.hasCommitFile || !change || !inSync);
    if (needSnapshot) {
      const wasInSync = inSync && v > 0;
      const prevSchema = metadata?.schemaString ?? null;
      // The commits before this version are gone (or never seen): take the file set from the
      // reader's snapshot and diff it against what the replay has open.
      const snap = await src.snapshotAt(v);
      const keep = new Set<string>();
      for (const f of snap.files) {
        const cur = open.get(f.path);
        if (cur && cur.dvKey === dvKeyOf(f.deletionVector)) { keep.add(f.path); continue; }
        if (cur) { cur.removedIn = v; st.removed.push(cur.id); open.delete(f.path); adjustRows(-1, cur); }
        // addedIn = v, not the file's own add version: the replay cannot vouch for earlier versions
        const e = openEntry(f.add, v, f.partitionValues, () => f.stats);
        adjustRows(1, e);
        st.added.push(e.id);
        keep.add(f.path);
      }
      for (const [p, e] of [...open]) if (!keep.has(p)) { e.removedIn = v; st.removed.push(e.id); open.delete(p); adjustRows(-1, e); }
      st.protocolChanged = wasInSync && JSON.stringify(protocol) !== JSON.stringify(snap.protocol);
      st.metadataChanged = wasInSync && prevSchema !== null && prevSchema !== snap.metadata.schemaString;
      protocol = snap.protocol;
      metadata = snap.metadata;
      st.fromSnapshot = true;
      if (change && info.hasCommitFile) {
        // The commit itself is still on disk: what it added (the reset diff is not a commit's doing).
        const own = new Set(change.adds.map((a) => canonicalisePath(a.path, src.root).key));
        st.commitAdded = [...open.values()].filter((e) => own.has(e.path)).map((e) => e.id);
      }
      inSync = true;
    } else if (change) {
      if (change.protocol) {
        st.protocolChanged = protocol !== null && JSON.stringify(protocol) !== JSON.stringify(change.protocol);
        protocol = change.protocol;
      }
      if (change.metaData) {
        st.metadataChanged = metadata !== null && (metadata.schemaString !== change.metaData.schemaString
          || JSON.stringify(metadata.partitionColumns) !== JSON.stringify(change.metaData.partitionColumns));
        metadata = change.metaData;
      }
      for (const r of change.removes) applyRemove(r, v, st);
      for (const a of change.adds) {
        const cp = canonicalisePath(a.path, src.root);
        const cur = open.get(cp.key);
        if (cur) { cur.removedIn = v; st.removed.push(cur.id); open.delete(cp.key); adjustRows(-1, cur); }
        const e = openEntry(a, v, undefined, undefined, cp);
        st.added.push(e.id);
        adjustRows(1, e);
      }
      // A commit applied on top of a state that was not exact (or a version the reader cannot
      // rebuild) leaves the replay out of sync until the next snapshot reset.
      if (!info.readable) inSync = false;
    } else {
      inSync = false;
    }
    if (info.readable && oldestReadable === null) oldestReadable = v;
    st.protocol = protocol;
    st.metadata = metadata;
    st.tableRows = inSync && unknownOpen === 0 ? knownRows : null;
    st.tableFiles = open.size;
    states.push(st);
  }

  function applyRemove(r: RemoveFile, v: number, st: VersionState): void {
    const key = canonicalisePath(r.path, src.root).key;
    const cur = open.get(key);
    if (!cur) return; // removing a file the log never added here (a vacuumed prefix): nothing open
    if (r.deletionVector && cur.dvKey !== dvKeyOf(r.deletionVector)) return;
    cur.removedIn = v;
    st.removed.push(cur.id);
    open.delete(key);
    adjustRows(-1, cur);
  }
  function adjustRows(sign: 1 | -1, e: FileEntry): void {
    if (e.numRecords === null) unknownOpen += sign;
    else knownRows += sign * e.numRecords;
  }

  return { root: src.root, latestVersion, oldestReadable, states, files };
}

/** The files active at `version` (added at or before it and not removed at or before it). */
export function activeAt(h: History, version: number): FileEntry[] {
  const out: FileEntry[] = [];
  for (const f of h.files) if (f.addedIn <= version && (f.removedIn === null || f.removedIn > version)) out.push(f);
  return out;
}

/** Partition label `a=1/b=x` for the given logical columns. */
export function partitionLabel(pv: Record<string, string | null>, cols: string[]): string {
  return cols.map((c) => `${c}=${pv[c] === null || pv[c] === undefined ? '__null__' : pv[c]}`).join('/');
}
