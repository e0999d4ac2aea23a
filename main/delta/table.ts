// DeltaTable: a Delta table's log, read per PROTOCOL.md. Open a folder, list its versions, build a
// snapshot at any version or timestamp, and produce every version's change set in one pass.
// Every byte is read through the Storage seam (./storage): a local folder by default.
// One file, over 400 lines, because it is one idea: a single object's caches (commits, checkpoints,
// snapshots, the replay state) that listing, snapshots, timestamps and changes() all share and
// invalidate together on refresh(); parsing and replay already live in commits.ts and replay.ts.
import { LakerecError } from '../../shared/errors';
import type { CommitInfo, Metadata } from '../../shared/delta';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import type { ActiveFile, Snapshot, TimestampSource, VersionChange, VersionInfo } from './types';
import type { UnreadableCause } from '../../shared/forensics';
import { buildHistory, missingStateError, type History, type VersionChecksum } from './history';
import { commitFileName, listedVersions, listLog, selectSegment, type CheckpointRef, type LogListing, type LogSegment } from './logfiles';
import { addCount, parseCommitBytes, ReplayState, type ParsedCommit } from './replay';
import { activeFiles } from './active-files';
import { readCheckpoint } from './checkpoint';
import { checkReaderProtocol } from './features';
import { columnMappingMode, parseSchemaString, validateMetadata } from './schema';
import { deletionVectorLocation, dvStoragePath } from './dv';
import { bindStorage, LIMIT_KNOBS, type ReadLimits, type Storage } from '../storage';
import type { Location } from '../../shared/location';
import { pushTo } from '../../shared/group';
import { presenceOf } from './presence';

export interface OpenOptions {
  /** Read data and DV files whose paths resolve outside the table root (off by default). */
  allowOutsidePaths?: boolean;
  /**
   * Only the latest snapshot is wanted: the log is listed from the `_last_checkpoint` hint's
   * checkpoint on (logfiles.ts listLog), not from its first commit. The handle then refuses what
   * needs the earlier versions (history, changes, an older version or a timestamp).
   */
  latestOnly?: boolean;
  /** Override the read limits (default: storage/limits.ts and its environment knobs). */
  limits?: Partial<ReadLimits>;
}

/** versions() lists missing versions one by one only up to this many; beyond, the versions that exist. */
export const MISSING_VERSIONS_LISTED_MAX = 100_000;

export interface SnapshotOptions {
  version?: number;
  /** ms since epoch, an ISO string, or a Date: the newest version committed at or before it. */
  timestamp?: number | string | Date;
  /** false: rebuild from JSON commits only, ignoring checkpoints (to cross-check a checkpoint). */
  useCheckpoints?: boolean;
}

function commitTimestamp(c: ParsedCommit, mtime: number | undefined): number {
  return commitTimestampOf(c, mtime).timestamp;
}

/** A commit's timestamp and where it came from (a file time is not a commit time: say so). */
function commitTimestampOf(c: ParsedCommit, mtime: number | undefined): { timestamp: number; source: TimestampSource } {
  const ci = c.commitInfo;
  if (ci && typeof ci.inCommitTimestamp === 'number') return { timestamp: ci.inCommitTimestamp, source: 'inCommitTimestamp' };
  if (ci && typeof ci.timestamp === 'number') return { timestamp: ci.timestamp, source: 'commitInfo' };
  return { timestamp: mtime ?? 0, source: 'file_mtime' };
}

const crcName = (version: number): string => `${String(version).padStart(20, '0')}.crc`;

/** A checksum file is a few hundred bytes; anything larger is not read. */
const MAX_CRC_BYTES = 1 << 20;

export class DeltaTable {
  readonly root: string;
  readonly allowOutsidePaths: boolean;
  /** Where the table's bytes come from (the reader reads nothing else). */
  readonly storage: Storage;
  private listing: LogListing;
  private readonly commitCache = new Map<number, ParsedCommit>();
  private readonly checkpointCache = new Map<CheckpointRef, Promise<ParsedCommit>>();
  private readonly badCheckpoints = new Set<CheckpointRef>();
  private readonly snapshotCache = new Map<number, Promise<Snapshot>>();
  private changesCache: VersionChange[] | null = null;
  private lastState: { version: number; state: ReplayState } | null = null;
  private historyCache: Promise<History> | null = null;
  private commitFileReads = 0;
  private readonly commitBytes = new Map<number, number>();
  private readonly commitBlank = new Map<number, boolean>();

  /** Where the table lives (displayLocation(table.location) is how it is shown). */
  readonly location: Location;

  private constructor(storage: Storage, listing: LogListing, location: Location) {
    this.location = location;
    this.storage = storage;
    this.root = storage.root;
    this.listing = listing;
    this.allowOutsidePaths = storage.allowOutsidePaths;
  }

  /**
   * Opens the table a store holds (the local folder, memory, an object store). Callers open tables
   * by location with openTable (open.ts); this is for a store already built (tests, memory).
   */
  static async openStorage(storage: Storage, location?: Location, opts: Pick<OpenOptions, 'latestOnly'> = {}): Promise<DeltaTable> {
    let listing: LogListing | null;
    try {
      listing = await listLog(storage, { fromCheckpoint: opts.latestOnly === true });
    } catch (e) {
      // A file named _delta_log: not a table (as before the seam), not a folder error.
      if (e instanceof LakerecError && e.code === 'not_a_folder') listing = null;
      else throw e;
    }
    if (listing === null) {
      throw new LakerecError('not_a_delta_table', `${storage.root} has no _delta_log folder, so it is not a Delta table`, { path: storage.root });
    }
    if (listing.commits.size === 0 && listing.checkpoints.size === 0) {
      throw new LakerecError('not_a_delta_table', `${listing.logDir} holds no commits or checkpoints`, { path: storage.root });
    }
    return new DeltaTable(storage, listing, location ?? { kind: 'local', path: storage.root });
  }

  /** Re-lists _delta_log (new commits by another writer); cached parses stay valid (commits are immutable). */
  async refresh(): Promise<void> {
    const listing = await listLog(this.storage, { fromCheckpoint: this.listing.listedFrom !== null });
    if (listing === null) throw new LakerecError('not_a_delta_table', `${this.root} has no _delta_log folder any more`, { path: this.root });
    this.listing = listing;
    this.changesCache = null;
    this.lastState = null;
    this.historyCache = null;
  }

  get latestVersion(): number {
    let max = -1;
    for (const v of this.listing.commits.keys()) if (v > max) max = v;
    for (const [v, list] of this.listing.checkpoints) if (v > max && list.some((c) => c.complete)) max = v;
    return max;
  }

  /** Oldest version that appears in the log (as a commit or a checkpoint). */
  get earliestVersion(): number {
    let min = Infinity;
    for (const v of this.listing.commits.keys()) if (v < min) min = v;
    for (const v of this.listing.checkpoints.keys()) if (v < min) min = v;
    return min === Infinity ? 0 : min;
  }

  /** Refuses work that needs versions the listing from the checkpoint left out (a caller's mistake, named). */
  private wholeLog(what: string): void {
    if (this.listing.listedFrom === null) return;
    throw new LakerecError('usage', `${this.root} was opened for its latest snapshot only (its log listed from the checkpoint at version ${this.listing.listedFrom}): ${what} need the whole log; open it without latestOnly`);
  }

  /** Things a user should know that did not stop the read (e.g. a stale or corrupt _last_checkpoint). */
  get warnings(): string[] {
    return this.listing.lastCheckpointProblem ? [this.listing.lastCheckpointProblem] : [];
  }

  /** The log files, classified (for forensics: which versions have checkpoints). */
  get log(): Readonly<LogListing> {
    return this.listing;
  }

  /**
   * The versions the log holds (a commit file or a complete checkpoint), ascending. Iterate these
   * (or changes()), never 0..latestVersion: a hostile log may name version 50,000,000 after 0.
   */
  listedVersions(): number[] {
    return listedVersions(this.listing);
  }

  /**
   * Every version from 0 to the latest: whether its commit file and a checkpoint exist, and whether
   * a snapshot can be rebuilt from the log that remains (without opening checkpoints). Missing
   * versions (cleaned up) are listed one by one only while there are at most
   * MISSING_VERSIONS_LISTED_MAX of them; beyond that, only the versions that exist.
   */
  versions(): VersionInfo[] {
    this.wholeLog('its versions');
    const listed = this.listedVersions();
    const latest = this.latestVersion;
    const missingCount = latest + 1 - listed.length;
    const walk: Iterable<number> = missingCount <= MISSING_VERSIONS_LISTED_MAX ? rangeTo(latest) : listed;
    const out: VersionInfo[] = [];
    const readable = new Map<number, boolean>();
    const readableAt = (v: number): boolean => readable.get(v) ?? false;
    const compactionsByEnd = new Map<number, number[]>();
    for (const c of this.listing.compactions) pushTo(compactionsByEnd, c.to, c.from);
    // Metadata cleanup (PROTOCOL.md) deletes only the oldest commits, before a checkpoint it keeps:
    // versions gone below the oldest listed one, with a checkpoint in the log, are expired history.
    // Any other gap (versions are contiguous) is a version missing from the log.
    const oldestListed = listed.length ? listed[0] : 0;
    let anyCheckpoint = false;
    for (const list of this.listing.checkpoints.values()) if (list.some((c) => c.complete)) anyCheckpoint = true;
    const gapCause = (first: number): UnreadableCause => (first < oldestListed && anyCheckpoint ? 'history_expired' : 'version_missing');
    let li = 0; // listed[li] is the first listed version >= v
    let prev = -1;
    // The gap that makes the next versions unreadable, until a checkpoint covers them.
    let gap: { first: number; last: number; cause: UnreadableCause } | null = null;
    for (const v of walk) {
      while (li < listed.length && listed[li] < v) li++;
      const hasCommitFile = this.listing.commits.has(v);
      const hasCheckpoint = (this.listing.checkpoints.get(v) ?? []).some((c) => c.complete);
      const ok = hasCheckpoint
        || (hasCommitFile && (v === 0 || readableAt(v - 1)))
        || (compactionsByEnd.get(v) ?? []).some((from) => from === 0 || readableAt(from - 1));
      readable.set(v, ok);
      const info: VersionInfo = { version: v, hasCommitFile, hasCheckpoint, readable: ok };
      const skipped = v - prev - 1;
      if (skipped > 0) gap = { first: prev + 1, last: v - 1, cause: gapCause(prev + 1) };
      if (ok) {
        gap = null;
      } else if (!hasCommitFile && !hasCheckpoint) {
        // A version the log does not hold.
        const cause = gapCause(v);
        if (gap?.last !== v - 1 || gap.cause !== cause) gap = { first: v, last: v, cause };
        else gap.last = v;
        info.unreadableCause = cause;
        const before = li > 0 ? listed[li - 1] : null;
        const after = listed[li] ?? null;
        info.reason = cause === 'history_expired'
          ? `commit ${commitFileName(v)} is missing (cleaned up) and no checkpoint covers version ${v}`
          : `version ${v} is missing from the log: ${commitFileName(v)} does not exist${before !== null || after !== null ? ` (${[before, after].filter((x) => x !== null).map((x) => `v${x}`).join(' and ')} do${before === null || after === null ? 'es' : ''})` : ''} and no checkpoint covers it`;
      } else {
        const g = gap ?? { first: prev + 1, last: v - 1, cause: gapCause(prev + 1) };
        info.unreadableCause = g.cause;
        const n = g.last - g.first + 1;
        const which = n <= 1 ? `v${g.first} is` : `v${g.first}-v${g.last} are`;
        info.reason = g.cause === 'history_expired'
          ? `commit${n > 1 ? 's' : ''} ${which} missing (cleaned up) and no checkpoint at or before version ${v} covers ${n > 1 ? 'them' : 'it'}`
          : `commit${n > 1 ? 's' : ''} ${which} missing from the log and no checkpoint at or before version ${v} covers ${n > 1 ? 'them' : 'it'}`;
      }
      out.push(info);
      prev = v;
    }
    return out;
  }

  /** Commit files read so far (each is read once per open table; tests count them). */
  get commitReads(): number {
    return this.commitFileReads;
  }

  /**
   * The one history of the log (main/delta/history.ts): the snapshot replay run once over every
   * commit, recording each file's lifetime as it goes (keys path + DV id), from this table's cached
   * commits; kept until the log changes (refresh()). Its final state is this table's replay state
   * at the latest version (a snapshot there is read off it).
   */
  history(ctx?: JobContext): Promise<History> {
    this.wholeLog('its history');
    if (!this.historyCache) {
      const p = buildHistory({
        root: this.root,
        engineDirs: this.storage.engineDirs(),
        versions: () => this.versions(),
        changes: () => this.changes({}, ctx),
        commit: (version) => this.commitCache.get(version) ?? this.commit(version),
        replayAt: async (version) => {
          // The snapshot's checks first (protocol, metadata, paths): a version they refuse is unreadable.
          const s = await this.snapshot({ version }, ctx);
          return { state: await this.stateAt(version, ctx), protocol: s.protocol, metadata: s.metadata };
        },
        adopt: (version, state) => {
          if (!this.lastState || this.lastState.version < version) this.lastState = { version, state };
        },
        // No promise per version where the listing says there is no .crc (10,000 versions, a few files).
        checksum: (version) => (this.listing.checksums.has(crcName(version)) ? this.checksum(version) : null),
      }, ctx);
      // The history knows its store, so "does this file still exist" has one answer (presence.ts).
      void p.then((h) => bindStorage(h, this.storage), () => undefined);
      this.historyCache = p;
      p.catch(() => { if (this.historyCache === p) this.historyCache = null; });
    }
    return this.historyCache;
  }

  /** The version checksum file `NNN.crc` (PROTOCOL.md "Version Checksum File"), when present and sane. */
  async checksum(version: number): Promise<VersionChecksum | null> {
    const name = crcName(version);
    // The log's one listing says which exist (no lookup per version, no second listing).
    if (!this.listing.checksums.has(name)) return null;
    try {
      const bytes = await this.storage.read(`_delta_log/${name}`, { maxBytes: MAX_CRC_BYTES, what: `checksum ${name}`, knob: LIMIT_KNOBS.commitBytes });
      const j = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      const out: VersionChecksum = {};
      for (const k of ['tableSizeBytes', 'numFiles', 'numMetadata', 'numProtocol'] as const) if (typeof j[k] === 'number') out[k] = j[k];
      return out;
    } catch {
      // An unreadable or malformed checksum file is not evidence either way.
      return null;
    }
  }

  /** A JSON log file's bytes (commit or compaction), capped. */
  private async logBytes(name: string, version: number): Promise<Buffer> {
    try {
      return await this.storage.read(`_delta_log/${name}`, { maxBytes: this.storage.limits.commitBytes, what: `commit ${name}`, knob: LIMIT_KNOBS.commitBytes });
    } catch (e) {
      if (e instanceof LakerecError && e.code === 'not_found') {
        throw new LakerecError('version_missing', `commit file ${name} cannot be read (it no longer exists)`, { version });
      }
      throw e;
    }
  }

  private async commit(v: number): Promise<ParsedCommit> {
    let c = this.commitCache.get(v);
    if (c) return c;
    const name = this.listing.commits.get(v) ?? commitFileName(v);
    const bytes = await this.logBytes(name, v);
    this.commitFileReads++;
    this.commitBytes.set(v, bytes.length);
    this.commitBlank.set(v, bytes.every((b) => b === 10 || b === 13 || b === 32 || b === 9));
    c = parseCommitBytes(bytes, v, name);
    this.commitCache.set(v, c);
    return c;
  }

  private checkpoint(cp: CheckpointRef): Promise<ParsedCommit> {
    let p = this.checkpointCache.get(cp);
    if (!p) {
      p = readCheckpoint(this.storage, cp);
      this.checkpointCache.set(cp, p);
      p.catch(() => this.checkpointCache.delete(cp));
    }
    return p;
  }

  private segment(version: number, useCheckpoints = true): LogSegment {
    const latest = this.latestVersion;
    if (!Number.isInteger(version) || version < 0 || version > latest) {
      throw new LakerecError('version_not_found', `version ${version} does not exist (the table's versions are ${this.earliestVersion} to ${latest})`, { version });
    }
    const listing = useCheckpoints ? this.listing : { ...this.listing, checkpoints: new Map() };
    const s = selectSegment(listing, version, this.badCheckpoints);
    if ('error' in s) throw new LakerecError('version_missing', s.error, { version });
    return s;
  }

  /** Rebuilds the replay state at a version: newest usable checkpoint, then commits. */
  /**
   * The state at a version. The result is shared (kept for the next call): callers must not
   * apply actions to it without clone().
   */
  private async stateAt(version: number, ctx?: JobContext, useCheckpoints = true): Promise<ReplayState> {
    for (;;) {
      const seg = this.segment(version, useCheckpoints);
      // Walking forward (timeline, bisect, forensics): continue from the last state built instead
      // of replaying the whole segment again, when only commits lie between the two.
      const last = useCheckpoints ? this.lastState : null;
      if (last && last.version <= version && last.version >= (seg.checkpoint?.version ?? -1)) {
        const need = seg.steps.filter((st) => !('commit' in st) || st.commit > last.version);
        if (need.every((st) => 'commit' in st)) {
          if (need.length === 0) return last.state;
          const state = last.state.clone();
          for (const st of need) {
            throwIfCancelled(ctx);
            if ('commit' in st) state.apply(await this.commit(st.commit));
          }
          this.lastState = { version, state };
          return state;
        }
      }
      const state = new ReplayState(this.root);
      if (seg.checkpoint) {
        try {
          state.apply(await this.checkpoint(seg.checkpoint));
        } catch (e) {
          // A damaged checkpoint: fall back to an older one or to the commits, if they remain.
          if (e instanceof LakerecError && e.code === 'checkpoint_corrupt') {
            this.badCheckpoints.add(seg.checkpoint);
            const retry = selectSegment(this.listing, version, this.badCheckpoints);
            if ('error' in retry) throw e;
            continue;
          }
          throw e;
        }
      }
      // Size the file table once for every add ahead (parse errors surface below, in order).
      let ahead = 0;
      try {
        for (const step of seg.steps) if ('commit' in step) ahead += addCount(await this.commit(step.commit));
      } catch { /* reported by the loop below */ }
      state.reserve(ahead);
      let done = 0;
      for (const step of seg.steps) {
        throwIfCancelled(ctx);
        if ('commit' in step) {
          state.apply(await this.commit(step.commit));
        } else {
          const name = step.compaction.file;
          const c = parseCommitBytes(await this.logBytes(name, step.compaction.to), step.compaction.to, name);
          state.apply(c);
        }
        report(ctx, { phase: 'replaying log', done: ++done, total: seg.steps.length });
      }
      if (useCheckpoints) this.lastState = { version, state };
      return state;
    }
  }

  /** The table at a version (default: latest) or timestamp. */
  async snapshot(opts: SnapshotOptions = {}, ctx?: JobContext): Promise<Snapshot> {
    if (opts.version !== undefined && opts.timestamp !== undefined) {
      throw new LakerecError('usage', 'give a version or a timestamp, not both');
    }
    const version = opts.timestamp !== undefined ? await this.versionAtTimestamp(opts.timestamp, ctx) : (opts.version ?? this.latestVersion);
    if (this.listing.listedFrom !== null && version < this.listing.listedFrom) this.wholeLog(`version ${version}`);
    if (opts.useCheckpoints === false) return await this.snapshotFromState(await this.stateAt(version, ctx, false), version);
    let p = this.snapshotCache.get(version);
    if (!p) {
      p = this.buildSnapshot(version, ctx);
      this.snapshotCache.set(version, p);
      p.catch(() => this.snapshotCache.delete(version));
      if (this.snapshotCache.size > 8) this.snapshotCache.delete(this.snapshotCache.keys().next().value as number);
    }
    return p;
  }

  private async buildSnapshot(version: number, ctx?: JobContext): Promise<Snapshot> {
    const state = await this.stateAt(version, ctx);
    return this.snapshotFromState(state, version);
  }

  private async snapshotFromState(state: ReplayState, version: number): Promise<Snapshot> {
    if (!state.protocol) throw missingStateError(null, state.metadata, version) as LakerecError;
    checkReaderProtocol(state.protocol);
    if (!state.metadata) throw missingStateError(state.protocol, null, version) as LakerecError;
    const metadata: Metadata = state.metadata;
    const schema = parseSchemaString(metadata);
    validateMetadata(metadata, schema, version);
    const mode = columnMappingMode(metadata);
    if (mode !== 'none' && state.protocol.minReaderVersion < 2) {
      throw new LakerecError('log_corrupt', `column mapping mode "${mode}" needs reader version 2 or higher, the protocol says ${state.protocol.minReaderVersion}`);
    }
    const files = activeFiles(state, schema, mode);
    for (const f of files) {
      if (f.outside && !this.allowOutsidePaths) {
        throw new LakerecError('path_outside_table',
          `version ${version} references "${f.add.path}", which resolves outside the table root ${this.root}; it is not read unless outside paths are allowed for this table`,
          { path: f.add.path, version });
      }
      if (f.deletionVector) {
        const loc = deletionVectorLocation(f.deletionVector, this.root);
        if (loc && loc.outside && !this.allowOutsidePaths) {
          throw new LakerecError('path_outside_table',
            `version ${version} references deletion vector "${loc.raw}", which resolves outside the table root ${this.root}`,
            { path: loc.raw, version });
        }
      }
    }
    let numRecords: number | null = 0;
    for (const f of files) {
      if (f.numRecords === null) { numRecords = null; break; }
      numRecords += f.numRecords;
    }
    const partitionColumns = metadata.partitionColumns ?? [];
    const snapshot: Snapshot = {
      root: this.root,
      version,
      timestamp: await this.timestampOf(version),
      protocol: state.protocol,
      metadata,
      schema,
      partitionColumns,
      columnMapping: mode,
      files,
      numRecords,
    };
    bindStorage(snapshot, this.storage);
    return snapshot;
  }

  private async timestampOf(version: number): Promise<number> {
    if (this.listing.commits.has(version)) {
      try {
        return commitTimestamp(await this.commit(version), this.listing.mtimes.get(version));
      } catch { /* fall through */ }
    }
    const cp = this.listing.checkpoints.get(version)?.[0];
    if (cp) {
      try {
        const st = await this.storage.stat(`_delta_log/${cp.files[0]}`);
        if (st) return st.mtimeMs;
      } catch { /* ignore */ }
    }
    return this.listing.mtimes.get(version) ?? 0;
  }

  /**
   * The newest version committed at or before a timestamp (commit timestamps: in-commit timestamp
   * where the table writes one, else commitInfo.timestamp, else the file time; made monotonic as
   * Delta does). Before the first version: `version_not_found`.
   */
  async versionAtTimestamp(ts: number | string | Date, ctx?: JobContext): Promise<number> {
    const t = typeof ts === 'number' ? ts : typeof ts === 'string' ? Date.parse(ts) : ts.getTime();
    if (Number.isNaN(t)) throw new LakerecError('usage', `"${String(ts)}" is not a timestamp (use ISO 8601, e.g. 2024-01-31T12:00:00Z)`);
    const changes = await this.changes({}, ctx);
    let best: number | null = null;
    let prev = -Infinity;
    for (const c of changes) {
      const adj = Math.max(c.timestamp, prev + 1);
      prev = adj;
      if (adj <= t) best = c.version;
    }
    if (best === null) {
      const first = changes[0];
      throw new LakerecError('version_not_found',
        `no version was committed at or before ${new Date(t).toISOString()}${first ? ` (the earliest, version ${first.version}, is from ${new Date(first.timestamp).toISOString()})` : ''}`);
    }
    return best;
  }

  /**
   * Every version's change set in one pass over the log: adds, removes, commitInfo, protocol and
   * metaData. Versions known only from a checkpoint (their commit was cleaned up) appear with
   * `hasCommitFile: false` and no actions.
   */
  async changes(opts: { from?: number; to?: number } = {}, ctx?: JobContext): Promise<VersionChange[]> {
    this.wholeLog('its change sets');
    if (!this.changesCache) {
      const versions = new Set<number>([...this.listing.commits.keys()]);
      for (const [v, list] of this.listing.checkpoints) if (list.some((c) => c.complete)) versions.add(v);
      const sorted = [...versions].sort((a, b) => a - b);
      const out: VersionChange[] = [];
      let done = 0;
      for (const v of sorted) {
        throwIfCancelled(ctx);
        const hasCommitFile = this.listing.commits.has(v);
        const hasCheckpoint = (this.listing.checkpoints.get(v) ?? []).some((c) => c.complete);
        if (hasCommitFile) {
          out.push(this.changeOf(v, await this.commit(v), hasCheckpoint));
        } else {
          out.push({ version: v, timestamp: await this.timestampOf(v), timestampSource: 'checkpoint_mtime', commitBytes: null, blankCommit: false, commitInfo: null, adds: [], removes: [], protocol: null, metaData: null, hasCommitFile, hasCheckpoint });
        }
        report(ctx, { phase: 'reading log', done: ++done, total: sorted.length });
        // Yield now and then so a window stays responsive while a large log is read.
        if (done % 64 === 0) await new Promise<void>((r) => setImmediate(r));
      }
      this.changesCache = out;
    }
    const from = opts.from ?? -Infinity;
    const to = opts.to ?? Infinity;
    return this.changesCache.filter((c) => c.version >= from && c.version <= to);
  }

  /** A commit file's change set (its version is in the listing's commits). */
  private changeOf(v: number, c: ParsedCommit, hasCheckpoint: boolean): VersionChange {
    const ts = commitTimestampOf(c, this.listing.mtimes.get(v));
    return {
      version: v,
      timestamp: ts.timestamp,
      timestampSource: ts.source,
      commitBytes: this.commitBytes.get(v) ?? null,
      blankCommit: this.commitBlank.get(v) ?? false,
      commitInfo: c.commitInfo as CommitInfo | null,
      adds: c.adds,
      removes: c.removes,
      protocol: c.protocol,
      metaData: c.metaData,
      hasCommitFile: true,
      hasCheckpoint,
    };
  }

  /**
   * The change sets of the newest `limit` commit files, ascending: a first page of the history
   * from the listing and those commits alone (no replay, no older commit read). They are parsed
   * into the same cache changes() reads, so the full read after it reads none of them again.
   */
  async newestCommits(limit: number, ctx?: JobContext): Promise<VersionChange[]> {
    const newest = [...this.listing.commits.keys()].sort((a, b) => b - a).slice(0, Math.max(0, limit));
    const out: VersionChange[] = [];
    for (const v of newest.reverse()) {
      throwIfCancelled(ctx);
      const hasCheckpoint = (this.listing.checkpoints.get(v) ?? []).some((c) => c.complete);
      out.push(this.changeOf(v, await this.commit(v), hasCheckpoint));
    }
    return out;
  }

  /** How many commit files the listing holds (the History list's length once the log is read). */
  get commitFileCount(): number {
    return this.listing.commits.size;
  }

  /**
   * The history's versions plus, for every readable version, whether all its data files (and DV
   * files) still exist: after VACUUM the log outlives the data ("history shows it but time travel
   * fails"). Read off the one history (each version's added/removed entries), not a replay of its
   * own; each file is checked on disk once.
   */
  async versionsWithData(ctx?: JobContext): Promise<VersionInfo[]> {
    const h = await this.history(ctx);
    // The one presence check (presence.ts): each folder listed once through the store. A file that
    // is refused or unknown (outside the root) is not "missing": the read names the refusal.
    const present = presenceOf(this.storage);
    const check = async (path: string | null, f?: { outside: boolean }): Promise<boolean> => {
      if (path === null) return false;
      return (await present({ path, outside: f?.outside ?? false })) !== false;
    };
    const missingById = new Map<number, boolean>();
    const missingOf = async (id: number): Promise<boolean> => {
      let m = missingById.get(id);
      if (m !== undefined) return m;
      const fe = h.files[id];
      m = false;
      if (!(fe.outside && !this.allowOutsidePaths)) {
        if (!await check(fe.path, fe)) m = true;
        else if (fe.deletionVector) {
          const loc = deletionVectorLocation(fe.deletionVector, this.root);
          if (loc && !await check(dvStoragePath(loc))) m = true;
        }
      }
      missingById.set(id, m);
      return m;
    };
    // The history's open set moves by each version's added/removed ids (the full diff, also where
    // it was reset from a checkpoint), so the count of missing files follows it exactly.
    let missing = 0;
    const out: VersionInfo[] = [];
    let done = 0;
    for (const st of h.states) {
      throwIfCancelled(ctx);
      for (const id of st.removed) if (await missingOf(id)) missing--;
      for (const id of st.added) if (await missingOf(id)) missing++;
      const info: VersionInfo = { ...st.info };
      if (info.readable && st.exact) {
        info.dataFilesExist = missing === 0;
        info.missingDataFiles = missing;
      } else {
        info.dataFilesExist = null;
      }
      out.push(info);
      report(ctx, { phase: 'checking data files', done: ++done, total: h.states.length });
    }
    return out;
  }
}

function* rangeTo(last: number): Generator<number> {
  for (let v = 0; v <= last; v++) yield v;
}

export type { ActiveFile, Snapshot, VersionChange, VersionInfo };
