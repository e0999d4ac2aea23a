// The reader's one history of the log: every file the log ever added, keyed exactly as the
// snapshot replay keys it (canonical path + deletion-vector id, ReplayState.key), with the version
// that added it, the version that removed it and the entry it rewrote (a DV update re-adds the
// same path). Any version's active set is "added at or before v, not removed at or before v", so
// forensics, the commit drill-down, the table header, bisect's predicates and the timeline all read
// one model instead of replaying the log again. Only versions that exist are walked: a commit
// named 50,000,000 costs one state, not fifty million.
import type {
  AddFile, CommitInfo, DeletionVectorDescriptor, FileStats, Metadata, Protocol, RemoveFile, StructType,
} from '../../shared/delta';
import type { ActiveFile, VersionChange, VersionInfo } from './types';
import type { CommitWho, UnreadableCause } from '../../shared/forensics';
import { LakerecError } from '../../shared/errors';
import { throwIfCancelled, report, type JobContext } from '../../shared/jobs';
import { canonicalisePath, type CanonicalPath } from './paths';
import { dvUniqueId } from './dv';
import { columnMappingMode, parseSchemaString, physicalToLogical } from './schema';
import { numRecordsFromStats, ReplayState, type LogAddFile } from './replay';
import { parseStats as parseAddStats } from './active-files';
import { LazyAddFile } from './fastadd';
import { checkReaderProtocol } from './features';

/** A version checksum file's claims (PROTOCOL.md "Version Checksum File"), the fields compared. */
export interface VersionChecksum {
  tableSizeBytes?: number;
  numFiles?: number;
  numMetadata?: number;
  numProtocol?: number;
}

/** What the history needs from the reader; `DeltaTable.history()` supplies it from its own caches. */
export interface HistorySource {
  root: string;
  versions(): VersionInfo[] | Promise<VersionInfo[]>;
  changes(): Promise<VersionChange[]>;
  /** The active files, protocol and metadata of a readable version (used where commits are gone). */
  snapshotAt(version: number): Promise<{ files: ActiveFile[]; protocol: Protocol; metadata: Metadata; timestamp: number }>;
  /** The version's checksum file, when there is one (null: none, or unreadable). */
  checksum?(version: number): Promise<VersionChecksum | null> | VersionChecksum | null;
}

export interface FileEntry {
  /** Dense id, stable for this history: the cache key of per-file results in bisect. */
  id: number;
  /** Canonical path key (relative to the root when inside it), as the reader keys files. */
  path: string;
  /** ReplayState.key(path, dv id): the identity the snapshot replay uses. */
  key: string;
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
  /** The entry (same path) this one replaced in the version that added it: a DV update or rewrite in place. */
  rewrote: number | null;
  /** Known only from a checkpoint-backed snapshot: the add that wrote it predates the oldest readable version. */
  fromSnapshot: boolean;
}

export interface VersionState {
  version: number;
  /** Position in `History.states`. */
  index: number;
  info: VersionInfo;
  change: VersionChange | null;
  /** Entries this version added to / removed from the active set (ids): the full diff, also where
   *  the set was reset from a snapshot. */
  added: number[];
  removed: number[];
  /** For a snapshot reset whose commit file exists: the entries the commit itself added. */
  commitAdded?: number[];
  /** Remove actions of this commit whose add the history never saw (added before the oldest readable version). */
  orphanRemoves: RemoveFile[];
  protocol: Protocol | null;
  metadata: Metadata | null;
  /** Protocol / metadata in force after this version. */
  protocolChanged: boolean;
  metadataChanged: boolean;
  tableRows: number | null;
  tableFiles: number;
  tableBytes: number;
  /** The file set was reset from a checkpoint-backed snapshot here (the commits before are gone). */
  fromSnapshot: boolean;
  /** The active set is exactly this version's (not a commit applied over a gap). */
  exact: boolean;
  /** The version's checksum file, when present. */
  checksum: VersionChecksum | null;
}

export interface History {
  root: string;
  latestVersion: number;
  oldestReadable: number | null;
  /** The versions that exist, ascending (missing versions of a small gap are present, unreadable). */
  states: VersionState[];
  files: FileEntry[];
  byVersion: Map<number, VersionState>;
}

export const dvKeyOf = dvUniqueId;

/** The state of a version, or undefined for a version the log does not have. */
export function stateOf(h: History, version: number): VersionState | undefined {
  return h.byVersion.get(version);
}

/** The state before this one in the log (the previous version that exists). */
export function previousState(h: History, st: VersionState): VersionState | undefined {
  return st.index > 0 ? h.states[st.index - 1] : undefined;
}

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

export function logicalPartitionValues(pv: Record<string, string | null> | null | undefined, metadata: Metadata | null): Record<string, string | null> {
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

/** Rows a remove action itself says (its stats minus its DV's cardinality); null without stats. */
export function removeActionRows(r: RemoveFile): number | null {
  const n = numRecordsFromStats(r.stats);
  return n === null ? null : n - (r.deletionVector?.cardinality ?? 0);
}

/** A file entry whose stats are parsed on first use: a 300,000-file log must not pay for JSON nobody reads. */
class Entry implements FileEntry {
  readonly path: string;
  readonly key: string;
  readonly absolutePath: string | null;
  readonly outside: boolean;
  readonly dvKey: string;
  readonly deletionVector: DeletionVectorDescriptor | null;
  readonly size: number;
  removedIn: number | null = null;
  rewrote: number | null = null;
  private parsed: FileStats | null | undefined;
  constructor(
    readonly id: number, cp: CanonicalPath, readonly add: AddFile, readonly numRecords: number | null,
    readonly partitionValues: Record<string, string | null>, readonly addedIn: number, readonly fromSnapshot: boolean,
    private readonly md: Metadata | null, private readonly statsOf?: () => FileStats | null,
  ) {
    this.path = cp.key;
    this.deletionVector = add.deletionVector ?? null;
    this.dvKey = dvKeyOf(this.deletionVector);
    this.key = ReplayState.key(cp.key, this.dvKey);
    this.absolutePath = cp.absolute;
    this.outside = cp.outside;
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

const protocolText = (p: Protocol | null): string => JSON.stringify(p ? [p.minReaderVersion, p.minWriterVersion, p.readerFeatures ?? [], p.writerFeatures ?? []] : null);

/** The kind of a read failure, for a version it makes unreadable. */
export function unreadableCauseOf(e: unknown): UnreadableCause {
  const code = e instanceof LakerecError ? e.code : null;
  if (code === 'unsupported_feature') return 'unsupported_feature';
  if (code === 'checkpoint_corrupt') return 'checkpoint_unreadable';
  if (code === 'version_missing') return 'version_missing';
  return 'unreadable';
}

/** Why the reader cannot read a version under this protocol, or null when it can. */
function protocolProblem(p: Protocol | null): string | null {
  if (!p) return null;
  try { checkReaderProtocol(p); return null; } catch (e) { return e instanceof Error ? e.message : String(e); }
}

/** Builds the history in one pass over the versions the log holds. Versions whose commit file is
 *  gone but which a checkpoint covers reset the file set from the reader's snapshot there. */
export async function buildHistory(src: HistorySource, ctx?: JobContext): Promise<History> {
  const infos = await src.versions();
  const changes = await src.changes();
  const byVersion = new Map<number, VersionState>();
  const empty: History = { root: src.root, latestVersion: -1, oldestReadable: null, states: [], files: [], byVersion };
  const changeBy = new Map(changes.map((c) => [c.version, c]));
  const infoBy = new Map(infos.map((i) => [i.version, i]));
  const all = new Set<number>([...infoBy.keys(), ...changeBy.keys()]);
  if (all.size === 0) return empty;
  const order = [...all].sort((a, b) => a - b);
  const latestVersion = order[order.length - 1];
  const files: FileEntry[] = [];
  /** open entries by the reader's key (path + DV id) */
  const open = new Map<string, FileEntry>();
  /** open entries by canonical path: a path holds at most one active entry */
  const openByPath = new Map<string, FileEntry>();
  let protocol: Protocol | null = null;
  let metadata: Metadata | null = null;
  // rows of open entries with stats, how many open entries lack them, and their bytes
  let knownRows = 0;
  let unknownOpen = 0;
  let openBytes = 0;
  const states: VersionState[] = [];
  let oldestReadable: number | null = null;
  // The open set is exactly the previous version's file set (true at the start: empty before v0).
  let inSync = true;
  let prevVersion = -1;

  const adjust = (sign: 1 | -1, e: FileEntry): void => {
    if (e.numRecords === null) unknownOpen += sign;
    else knownRows += sign * e.numRecords;
    openBytes += sign * e.size;
  };
  const close = (e: FileEntry, v: number, st: VersionState): void => {
    e.removedIn = v;
    st.removed.push(e.id);
    open.delete(e.key);
    if (openByPath.get(e.path) === e) openByPath.delete(e.path);
    adjust(-1, e);
  };
  const openEntry = (add: AddFile, v: number, fromSnapshot: boolean, logicalPv?: Record<string, string | null>, statsOf?: () => FileStats | null, canon?: CanonicalPath): FileEntry => {
    const cp = canon ?? canonicalisePath(add.path, src.root);
    const n = addRows(add as LogAddFile);
    const e = new Entry(files.length, cp, add, n === null ? null : n - (add.deletionVector?.cardinality ?? 0),
      logicalPv ?? logicalPartitionValues(add.partitionValues, metadata), v, fromSnapshot, metadata, statsOf);
    files.push(e);
    open.set(e.key, e);
    openByPath.set(e.path, e);
    adjust(1, e);
    return e;
  };

  let step = 0;
  for (const v of order) {
    if (++step % 500 === 0) { throwIfCancelled(ctx); report(ctx, { phase: 'replaying log', done: step, total: order.length }); }
    const change = changeBy.get(v) ?? null;
    const info: VersionInfo = { ...(infoBy.get(v) ?? { version: v, hasCommitFile: change?.hasCommitFile ?? false, hasCheckpoint: change?.hasCheckpoint ?? false, readable: false, reason: 'not in the log', unreadableCause: 'version_missing' as const }) };
    const st: VersionState = {
      version: v, index: states.length, info, change, added: [], removed: [], orphanRemoves: [], protocol, metadata,
      protocolChanged: false, metadataChanged: false, tableRows: null, tableFiles: open.size, tableBytes: openBytes, fromSnapshot: false, exact: false,
      checksum: (await src.checksum?.(v)) ?? null,
    };
    const contiguous = v === prevVersion + 1;
    prevVersion = v;
    if (!contiguous) inSync = false;
    const needSnapshot = info.readable && (!info.hasCommitFile || !change || !inSync);
    let reset = false;
    if (needSnapshot) {
      // The commits before this version are gone (or never seen): take the file set from the
      // reader's snapshot and diff it against what the history has open.
      try {
        const snap = await src.snapshotAt(v);
        const wasInSync = inSync && v > 0;
        const prevSchema = metadata?.schemaString ?? null;
        const keep = new Set<string>();
        const own = change && info.hasCommitFile ? new Set(change.adds.map((a) => ReplayState.key(canonicalisePath(a.path, src.root).key, dvKeyOf(a.deletionVector)))) : null;
        const closedHere = new Map<string, FileEntry>();
        for (const f of snap.files) {
          const k = ReplayState.key(f.path, dvKeyOf(f.deletionVector));
          if (open.has(k)) { keep.add(k); continue; }
          // addedIn = v, not the file's own add version: the history cannot vouch for earlier versions
          // (unless this very commit wrote it).
          const e = openEntry(f.add, v, !own?.has(k), f.partitionValues, () => f.stats);
          st.added.push(e.id);
          keep.add(k);
        }
        for (const [k, e] of [...open]) if (!keep.has(k)) { closedHere.set(k, e); close(e, v, st); }
        st.protocolChanged = wasInSync && protocolText(protocol) !== protocolText(snap.protocol);
        st.metadataChanged = wasInSync && prevSchema !== null && prevSchema !== snap.metadata.schemaString;
        protocol = snap.protocol;
        metadata = snap.metadata;
        st.fromSnapshot = true;
        if (change && own) {
          // The commit itself is still on disk: what it added and removed (the reset diff is not a commit's doing).
          st.commitAdded = st.added.filter((id) => own.has(files[id].key));
          for (const r of change.removes) {
            const k = ReplayState.key(canonicalisePath(r.path, src.root).key, dvKeyOf(r.deletionVector));
            if (!closedHere.has(k)) st.orphanRemoves.push(r);
          }
        }
        inSync = true;
        reset = true;
      } catch (e) {
        // A checkpoint that cannot be read (corrupt, unsupported): the version is unreadable, with why.
        info.readable = false;
        info.reason = e instanceof Error ? e.message : String(e);
        info.unreadableCause = unreadableCauseOf(e);
        inSync = false;
      }
    }
    if (!reset && change) {
      if (change.protocol) {
        st.protocolChanged = protocol !== null && protocolText(protocol) !== protocolText(change.protocol);
        protocol = change.protocol;
      }
      if (change.metaData) {
        st.metadataChanged = metadata !== null && (metadata.schemaString !== change.metaData.schemaString
          || JSON.stringify(metadata.partitionColumns) !== JSON.stringify(change.metaData.partitionColumns));
        metadata = change.metaData;
      }
      // Removes first, as the reader applies them (a DV update writes remove(old DV) + add(new DV)).
      const removedPaths = new Map<string, FileEntry>();
      for (const r of change.removes) {
        const key = canonicalisePath(r.path, src.root).key;
        const k = ReplayState.key(key, dvKeyOf(r.deletionVector));
        const cur = open.get(k);
        if (!cur) { st.orphanRemoves.push(r); continue; }
        removedPaths.set(cur.path, cur);
        close(cur, v, st);
      }
      for (const a of change.adds) {
        const cp = canonicalisePath(a.path, src.root);
        const k = ReplayState.key(cp.key, dvKeyOf(a.deletionVector));
        const prev = open.get(k) ?? openByPath.get(cp.key);
        if (prev) { removedPaths.set(prev.path, prev); close(prev, v, st); }
        const e = openEntry(a, v, false, undefined, undefined, cp);
        const rewritten = removedPaths.get(cp.key);
        if (rewritten) e.rewrote = rewritten.id;
        st.added.push(e.id);
      }
      // A commit applied on top of a state that was not exact (or a version the reader cannot
      // rebuild) leaves the history out of sync until the next snapshot reset.
      if (!info.readable) inSync = false;
    } else if (!reset) {
      inSync = false;
    }
    if (info.readable) {
      // The reader cannot read a version whose protocol needs what it does not support.
      const problem = protocolProblem(protocol);
      if (problem) { info.readable = false; info.reason = problem; info.unreadableCause = 'unsupported_feature'; }
    }
    if (info.readable && oldestReadable === null) oldestReadable = v;
    st.protocol = protocol;
    st.metadata = metadata;
    st.tableRows = inSync && unknownOpen === 0 ? knownRows : null;
    st.tableFiles = open.size;
    st.tableBytes = openBytes;
    st.exact = inSync;
    states.push(st);
    byVersion.set(v, st);
  }
  return { root: src.root, latestVersion, oldestReadable, states, files, byVersion };
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

export type { CommitWho };

/** Who wrote a commit and why, from its commitInfo (fields Databricks, Spark and delta-rs write). */
const strOrNull = (x: unknown): string | null => (x === undefined || x === null || x === '' ? null : typeof x === 'object' ? JSON.stringify(x) : String(x));

export function whoOf(ci: CommitInfo | null): CommitWho {
  const job = ci?.job as Record<string, unknown> | undefined;
  const nb = ci?.notebook as Record<string, unknown> | string | undefined;
  return {
    userName: strOrNull(ci?.userName),
    userId: strOrNull(ci?.userId),
    userMetadata: strOrNull(ci?.userMetadata),
    clusterId: strOrNull(ci?.clusterId),
    job: job && typeof job === 'object' ? { id: strOrNull(job.jobId), name: strOrNull(job.jobName), run: strOrNull(job.runId ?? job.jobRunId) } : null,
    notebook: nb && typeof nb === 'object' ? strOrNull(nb.notebookId ?? nb.notebookPath) : strOrNull(nb),
    engineInfo: strOrNull(ci?.engineInfo),
    txnId: strOrNull(ci?.txnId),
  };
}
