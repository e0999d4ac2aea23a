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
import type { VersionChange, VersionInfo } from './types';
import type { CommitWho, UnreadableCause } from '../../shared/forensics';
import { LakerecError } from '../../shared/errors';
import { throwIfCancelled, report, type JobContext } from '../../shared/jobs';
import { dvUniqueId } from './dv';
import { columnMappingMode, decodePartitionValues, parseSchemaString, physicalToLogical, validateMetadata } from './schema';
import {
  addKey, entryKey, numRecordsFromStats, removeKey, ReplayState,
  type LiveEntry, type LogAddFile, type ParsedCommit, type ReplayHooks,
} from './replay';
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
  /** The local folders the store's engine files lie in (a remote table's cache; default [root]). */
  engineDirs?: string[];
  versions(): VersionInfo[] | Promise<VersionInfo[]>;
  changes(): Promise<VersionChange[]>;
  /** A version's parsed commit: the very object the snapshot replay applies (no promise when cached). */
  commit(version: number): ParsedCommit | Promise<ParsedCommit>;
  /** A readable version's replay state (newest checkpoint + commits), after the snapshot's checks
   *  at it passed (protocol, metadata, paths), with its protocol and metadata. */
  replayAt(version: number): Promise<{ state: ReplayState; protocol: Protocol; metadata: Metadata }>;
  /** Hands the replay's final state (exact, at `version`) back to the reader, for its snapshot there. */
  adopt?(version: number, state: ReplayState): void;
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
  /** The local folders a query engine locked to them can read the table's data files from (a remote table: its cache). */
  engineDirs: string[];
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

/**
 * Schema and column mapping of a metadata, tolerant of a schema the reader already rejected
 * (`parseError`); `problem` is why the snapshot refuses it, decided on first use.
 */
type SchemaInfo = {
  schema: StructType; mode: ReturnType<typeof columnMappingMode>; toLogical: Map<string, string>;
  parseError?: string; problem?: string | null;
};
const schemaCache = new WeakMap<Metadata, SchemaInfo>();
const emptySchema = (): SchemaInfo => ({ schema: { type: 'struct', fields: [] }, mode: 'none', toLogical: new Map() });
const NO_METADATA = emptySchema();
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
/** Parsed once per metaData action (a 10,000-commit log has one or two, and 10,000 adds). */
function schemaOf(md: Metadata | null): SchemaInfo {
  if (!md) return NO_METADATA;
  let s = schemaCache.get(md);
  if (!s) {
    try {
      const schema = parseSchemaString(md);
      const mode = columnMappingMode(md);
      s = { schema, mode, toLogical: physicalToLogical(schema, mode) };
    } catch (e) {
      s = { ...emptySchema(), parseError: messageOf(e) };
    }
    schemaCache.set(md, s);
  }
  return s;
}

export function logicalPartitionValues(pv: Record<string, string | null> | null | undefined, metadata: Metadata | null): Record<string, string | null> {
  if (!pv) return {};
  const { mode, toLogical } = schemaOf(metadata);
  return decodePartitionValues(pv, mode === 'none' ? null : toLogical);
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
  readonly outside: boolean;
  readonly dvKey: string;
  readonly deletionVector: DeletionVectorDescriptor | null;
  readonly size: number;
  readonly add: AddFile;
  removedIn: number | null = null;
  rewrote: number | null = null;
  private parsed: FileStats | null | undefined;
  /** `e` is the replay's own entry: path, key and location are the replay's, not recomputed. */
  constructor(
    readonly id: number, e: LiveEntry, readonly numRecords: number | null,
    readonly partitionValues: Record<string, string | null>, readonly addedIn: number, readonly fromSnapshot: boolean,
    private readonly md: Metadata | null,
  ) {
    this.add = e.add;
    this.path = e.key;
    this.deletionVector = e.add.deletionVector ?? null;
    this.dvKey = dvKeyOf(this.deletionVector);
    this.key = ReplayState.key(e.key, this.dvKey);
    this.outside = e.outside;
    this.size = e.add.size ?? 0;
  }
  get stats(): FileStats | null {
    if (this.parsed === undefined) {
      const { schema, mode } = schemaOf(this.md);
      this.parsed = parseAddStats(this.add as LogAddFile, schema, mode);
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

/** The snapshot's refusal of a state without a protocol or a metaData action (the history marks such a version unreadable with it). */
export function missingStateError(p: Protocol | null, md: Metadata | null, version: number): LakerecError | null {
  if (!p) return new LakerecError('protocol_missing', `no protocol action at or before version ${version}: the log is incomplete`, { version });
  if (!md) return new LakerecError('metadata_missing', `no metaData action at or before version ${version}: the table's schema is unknown`, { version });
  return null;
}

/**
 * Why the snapshot refuses this metaData (no schemaString, a schema the protocol forbids), or
 * null. A version is unreadable for it, not the whole log: an engine may write a schema-less
 * metaData first and the real one a commit later (Databricks DLT does). Checked once per action.
 */
function metadataProblem(md: Metadata, version: number): string | null {
  const s = schemaOf(md);
  if (s.problem === undefined) {
    s.problem = s.parseError ?? null;
    if (s.problem === null) {
      try { validateMetadata(md, s.schema, version); } catch (e) { s.problem = messageOf(e); }
    }
  }
  return s.problem;
}

/** Why the reader cannot read a version under this protocol, or null when it can. */
function protocolProblem(p: Protocol | null): string | null {
  if (!p) return null;
  try { checkReaderProtocol(p); return null; } catch (e) { return e instanceof Error ? e.message : String(e); }
}

/**
 * Builds the history in the replay's own pass: one ReplayState (the snapshot replay, keys path +
 * DV id) applies every commit in version order, and its hooks record each file's lifetime as the
 * replay decides it (which live file a remove took away, which add replaced which, which removes
 * matched nothing). Where commits before a version are gone (or a gap was crossed), the replay is
 * reset to the reader's checkpoint-backed state at that version and the lifetimes diffed against
 * it by the same keys. The snapshot at any readable version is this replay's state there, so the
 * history's "live at v" and the snapshot's files cannot disagree.
 */
export async function buildHistory(src: HistorySource, ctx?: JobContext): Promise<History> {
  const infos = await src.versions();
  const changes = await src.changes();
  const byVersion = new Map<number, VersionState>();
  const empty: History = { root: src.root, engineDirs: src.engineDirs ?? [src.root], latestVersion: -1, oldestReadable: null, states: [], files: [], byVersion };
  const changeBy = new Map(changes.map((c) => [c.version, c]));
  const infoBy = new Map(infos.map((i) => [i.version, i]));
  const all = new Set<number>([...infoBy.keys(), ...changeBy.keys()]);
  if (all.size === 0) return empty;
  const order = [...all].sort((a, b) => a - b);
  const latestVersion = order[order.length - 1];
  const root = src.root;
  const files: FileEntry[] = [];
  // The replay this history records, and each of its live entries' lifetime (by the replay's own
  // entry object: the replay says which one a remove took away).
  let state = new ReplayState(root);
  let lifeOf = new Map<LiveEntry, Entry>();
  let protocol: Protocol | null = null;
  let metadata: Metadata | null = null;
  // rows of open entries with stats, how many open entries lack them, and their bytes
  let knownRows = 0;
  let unknownOpen = 0;
  let openBytes = 0;
  const states: VersionState[] = [];
  let oldestReadable: number | null = null;
  // The replay's state is exactly the previous version's (true at the start: empty before v0).
  let inSync = true;
  let prevVersion = -1;

  const adjust = (sign: 1 | -1, e: Entry): void => {
    if (e.numRecords === null) unknownOpen += sign;
    else knownRows += sign * e.numRecords;
    openBytes += sign * e.size;
  };
  const close = (e: Entry, v: number, st: VersionState): void => {
    e.removedIn = v;
    st.removed.push(e.id);
    adjust(-1, e);
  };
  const open = (e: LiveEntry, v: number, fromSnapshot: boolean): Entry => {
    const add = e.add;
    const n = addRows(add as LogAddFile);
    const he = new Entry(files.length, e, n === null ? null : n - (add.deletionVector?.cardinality ?? 0),
      logicalPartitionValues(add.partitionValues, metadata), v, fromSnapshot, metadata);
    files.push(he);
    adjust(1, he);
    return he;
  };

  // The version being applied, for the hooks (made once, not per commit).
  let curV = 0;
  let curSt = null as VersionState | null;
  const removedPaths = new Map<string, Entry>();
  const hooks: ReplayHooks = {
    onRemove(e) {
      const he = lifeOf.get(e);
      if (!he) return;
      lifeOf.delete(e);
      removedPaths.set(he.path, he);
      close(he, curV, curSt as VersionState);
    },
    onAdd(e) {
      const he = open(e, curV, false);
      const rewritten = removedPaths.get(he.path);
      if (rewritten) he.rewrote = rewritten.id;
      (curSt as VersionState).added.push(he.id);
      lifeOf.set(e, he);
    },
    onOrphanRemove(r) {
      (curSt as VersionState).orphanRemoves.push(r);
    },
  };

  let step = 0;
  for (const v of order) {
    if (++step % 500 === 0) { throwIfCancelled(ctx); report(ctx, { phase: 'replaying log', done: step, total: order.length }); }
    const change = changeBy.get(v) ?? null;
    const info: VersionInfo = { ...(infoBy.get(v) ?? { version: v, hasCommitFile: change?.hasCommitFile ?? false, hasCheckpoint: change?.hasCheckpoint ?? false, readable: false, reason: 'not in the log', unreadableCause: 'version_missing' as const }) };
    const st: VersionState = {
      version: v, index: states.length, info, change, added: [], removed: [], orphanRemoves: [], protocol, metadata,
      protocolChanged: false, metadataChanged: false, tableRows: null, tableFiles: lifeOf.size, tableBytes: openBytes, fromSnapshot: false, exact: false,
      checksum: null,
    };
    const ck = src.checksum?.(v);
    st.checksum = (ck instanceof Promise ? await ck : ck) ?? null;
    const contiguous = v === prevVersion + 1;
    prevVersion = v;
    if (!contiguous) inSync = false;
    const needReset = info.readable && (!info.hasCommitFile || !change || !inSync);
    let reset = false;
    if (needReset) {
      // The commits before this version are gone (or never seen): take the replay's state from the
      // reader's checkpoint-backed replay and diff the lifetimes against it by the replay's keys.
      try {
        const at = await src.replayAt(v);
        const next = at.state.clone();
        const wasInSync = inSync && v > 0;
        const prevSchema = metadata?.schemaString ?? null;
        st.protocolChanged = wasInSync && protocolText(protocol) !== protocolText(at.protocol);
        st.metadataChanged = wasInSync && prevSchema !== null && prevSchema !== at.metadata.schemaString;
        protocol = at.protocol;
        metadata = at.metadata;
        const own = change && info.hasCommitFile ? new Set(change.adds.map((a) => addKey(a, root))) : null;
        const openByKey = new Map<string, Entry>();
        for (const he of lifeOf.values()) openByKey.set(he.key, he);
        const nextLife = new Map<LiveEntry, Entry>();
        for (const e of next.files.values()) {
          const k = entryKey(e);
          let he = openByKey.get(k);
          if (he) {
            openByKey.delete(k);
          } else {
            // addedIn = v, not the file's own add version: the history cannot vouch for earlier
            // versions (unless this very commit wrote it).
            he = open(e, v, !own?.has(k));
            st.added.push(he.id);
          }
          nextLife.set(e, he);
        }
        const closedHere = new Set<string>();
        for (const [k, he] of openByKey) { closedHere.add(k); close(he, v, st); }
        state = next;
        lifeOf = nextLife;
        st.fromSnapshot = true;
        if (change && own) {
          // The commit itself is still on disk: what it added and removed (the reset diff is not a commit's doing).
          st.commitAdded = st.added.filter((id) => own.has(files[id].key));
          for (const r of change.removes) if (!closedHere.has(removeKey(r, root))) st.orphanRemoves.push(r);
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
      if (change.hasCommitFile) {
        // The replay applies the commit (removes first, as for a snapshot); the hooks record it.
        curV = v;
        curSt = st;
        removedPaths.clear();
        const c = src.commit(v);
        state.apply(c instanceof Promise ? await c : c, hooks);
        curSt = null;
      }
      // A commit applied on top of a state that was not exact (or a version the reader cannot
      // rebuild) leaves the history out of sync until the next reset.
      if (!info.readable) inSync = false;
    } else if (!reset) {
      inSync = false;
    }
    if (info.readable) {
      // The reader cannot read a version without a protocol and metadata, or whose protocol needs
      // what it does not support (the snapshot refuses both).
      const missing = missingStateError(protocol, metadata, v);
      const problem = missing ? null : protocolProblem(protocol);
      const badMetadata = missing || problem || !metadata ? null : metadataProblem(metadata, v);
      if (missing) { info.readable = false; info.reason = missing.message; info.unreadableCause = 'unreadable'; }
      else if (problem) { info.readable = false; info.reason = problem; info.unreadableCause = 'unsupported_feature'; }
      else if (badMetadata) { info.readable = false; info.reason = badMetadata; info.unreadableCause = 'unreadable'; }
    }
    if (info.readable && oldestReadable === null) oldestReadable = v;
    st.protocol = protocol;
    st.metadata = metadata;
    st.tableRows = inSync && unknownOpen === 0 ? knownRows : null;
    st.tableFiles = lifeOf.size;
    st.tableBytes = openBytes;
    st.exact = inSync;
    states.push(st);
    byVersion.set(v, st);
  }
  // The snapshot at the latest version is this replay's state: the reader reuses it (no second replay).
  const last = states[states.length - 1];
  if (last?.exact && last.info.readable) src.adopt?.(last.version, state);
  return { root, engineDirs: src.engineDirs ?? [root], latestVersion, oldestReadable, states, files, byVersion };
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
