// DeltaTable: a Delta table's log, read per PROTOCOL.md. Open a folder, list its versions, build a
// snapshot at any version or timestamp, and produce every version's change set in one pass.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import type { CommitInfo, Metadata } from '../../shared/delta';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import type { ActiveFile, Snapshot, TimestampSource, VersionChange, VersionInfo } from './types';
import { buildHistory, type History, type VersionChecksum } from './history';
import { commitFileName, listLog, selectSegment, type CheckpointRef, type LogListing, type LogSegment } from './logfiles';
import { activeFiles, addCount, entryAbsolute, parseCommitBytes, ReplayState, type FileEntry, type ParsedCommit } from './replay';
import { readCheckpoint } from './checkpoint';
import { checkReaderProtocol } from './features';
import { columnMappingMode, parseSchemaString } from './schema';
import { deletionVectorLocation } from './dv';

export interface OpenOptions {
  /** Read data and DV files whose paths resolve outside the table root (off by default). */
  allowOutsidePaths?: boolean;
}

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

/** Missing versions listed one by one up to this gap; a larger gap is one range. */
const MAX_LISTED_GAP = 10_000;
/** A checksum file is a few hundred bytes; anything larger is not read. */
const MAX_CRC_BYTES = 1 << 20;

export class DeltaTable {
  readonly root: string;
  readonly allowOutsidePaths: boolean;
  private listing: LogListing;
  private readonly commitCache = new Map<number, ParsedCommit>();
  private readonly checkpointCache = new Map<CheckpointRef, Promise<ParsedCommit>>();
  private readonly badCheckpoints = new Set<CheckpointRef>();
  private readonly snapshotCache = new Map<number, Promise<Snapshot>>();
  private changesCache: VersionChange[] | null = null;
  private lastState: { version: number; state: ReplayState } | null = null;
  private historyCache: Promise<History> | null = null;
  private crcNames: Set<string> | null = null;
  private commitFileReads = 0;
  private readonly commitBytes = new Map<number, number>();
  private readonly commitBlank = new Map<number, boolean>();

  private constructor(root: string, listing: LogListing, opts: OpenOptions) {
    this.root = root;
    this.listing = listing;
    this.allowOutsidePaths = opts.allowOutsidePaths ?? false;
  }

  /** Opens a table folder. Throws `not_found`, `not_a_folder`, `not_a_delta_table`. */
  static async open(root: string, opts: OpenOptions = {}): Promise<DeltaTable> {
    const abs = resolve(root);
    let st;
    try {
      st = statSync(abs);
    } catch {
      throw new LakerecError('not_found', `${abs} does not exist`, { path: abs });
    }
    if (!st.isDirectory()) throw new LakerecError('not_a_folder', `${abs} is not a folder`, { path: abs });
    const logDir = join(abs, '_delta_log');
    if (!existsSync(logDir) || !statSync(logDir).isDirectory()) {
      throw new LakerecError('not_a_delta_table', `${abs} has no _delta_log folder, so it is not a Delta table`, { path: abs });
    }
    const listing = listLog(abs);
    if (listing.commits.size === 0 && listing.checkpoints.size === 0) {
      throw new LakerecError('not_a_delta_table', `${logDir} holds no commits or checkpoints`, { path: abs });
    }
    return new DeltaTable(abs, listing, opts);
  }

  /** Re-lists _delta_log (new commits by another writer); cached parses stay valid (commits are immutable). */
  refresh(): void {
    this.listing = listLog(this.root);
    this.changesCache = null;
    this.lastState = null;
    this.historyCache = null;
    this.crcNames = null;
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

  /** Things a user should know that did not stop the read (e.g. a stale or corrupt _last_checkpoint). */
  get warnings(): string[] {
    return this.listing.lastCheckpointProblem ? [this.listing.lastCheckpointProblem] : [];
  }

  /** The log files, classified (for forensics: which versions have checkpoints). */
  get log(): Readonly<LogListing> {
    return this.listing;
  }

  /**
   * The versions of the log: every version with a commit file or a checkpoint, whether a snapshot
   * can be rebuilt from the log that remains (without opening checkpoints), and why not. Only
   * versions that exist are walked; the missing versions of a gap are listed (unreadable) when the
   * gap is small (a cleaned-up prefix), and named as a range in the next version's reason when it
   * is not (a commit named 50,000,000 must not cost fifty million entries).
   */
  versions(): VersionInfo[] {
    const present = new Set<number>(this.listing.commits.keys());
    for (const [v, list] of this.listing.checkpoints) if (list.some((c) => c.complete)) present.add(v);
    for (const c of this.listing.compactions) present.add(c.to);
    const sorted = [...present].sort((a, b) => a - b);
    const out: VersionInfo[] = [];
    const readable = new Map<number, boolean>();
    const compactionsByEnd = new Map<number, number[]>();
    for (const c of this.listing.compactions) compactionsByEnd.set(c.to, [...(compactionsByEnd.get(c.to) ?? []), c.from]);
    const ok = (v: number): boolean => v < 0 || readable.get(v) === true;
    let prev = -1;
    for (const v of sorted) {
      const gap = v - prev - 1;
      if (gap > 0 && gap <= MAX_LISTED_GAP) {
        for (let m = prev + 1; m < v; m++) {
          readable.set(m, false);
          out.push({ version: m, hasCommitFile: false, hasCheckpoint: false, readable: false, reason: `commit ${commitFileName(m)} is missing (cleaned up) and no checkpoint covers version ${m}` });
        }
      }
      const hasCommitFile = this.listing.commits.has(v);
      const hasCheckpoint = (this.listing.checkpoints.get(v) ?? []).some((c) => c.complete);
      const r = hasCheckpoint
        || (hasCommitFile && gap === 0 && ok(v - 1))
        || (compactionsByEnd.get(v) ?? []).some((from) => from === 0 || ok(from - 1));
      readable.set(v, r);
      const info: VersionInfo = { version: v, hasCommitFile, hasCheckpoint, readable: r };
      if (!r) {
        info.reason = gap > 0
          ? `commits ${gap === 1 ? `v${prev + 1} is` : `v${prev + 1}-v${v - 1} are`} missing and no checkpoint at or before version ${v} covers ${gap === 1 ? 'it' : 'them'}`
          : hasCommitFile
            ? `an earlier commit is missing and no checkpoint at or before version ${v} covers it`
            : `commit ${commitFileName(v)} is missing (cleaned up) and no checkpoint covers version ${v}`;
      }
      out.push(info);
      prev = v;
    }
    return out;
  }

  /** Commit files read from disk so far (each is read once per open table; tests count them). */
  get commitReads(): number {
    return this.commitFileReads;
  }

  /**
   * The one history of the log (main/delta/history.ts): file lifetimes keyed as the replay keys
   * them, built from this table's cached commits, kept until the log changes (refresh()).
   */
  history(ctx?: JobContext): Promise<History> {
    if (!this.historyCache) {
      const p = buildHistory({
        root: this.root,
        versions: () => this.versions(),
        changes: () => this.changes({}, ctx),
        snapshotAt: async (version) => {
          const s = await this.snapshot({ version }, ctx);
          return { files: s.files, protocol: s.protocol, metadata: s.metadata, timestamp: s.timestamp };
        },
        checksum: (version) => this.checksum(version),
      }, ctx);
      this.historyCache = p;
      p.catch(() => { if (this.historyCache === p) this.historyCache = null; });
    }
    return this.historyCache;
  }

  /** The version checksum file `NNN.crc` (PROTOCOL.md "Version Checksum File"), when present and sane. */
  checksum(version: number): VersionChecksum | null {
    const name = `${String(version).padStart(20, '0')}.crc`;
    // One listing of the folder, not a stat per version (10,000 versions, a handful of .crc files).
    if (!this.crcNames) {
      try { this.crcNames = new Set(readdirSync(this.listing.logDir).filter((n) => n.endsWith('.crc'))); } catch { this.crcNames = new Set(); }
    }
    if (!this.crcNames.has(name)) return null;
    const file = join(this.listing.logDir, name);
    try {
      const st = statSync(file);
      if (!st.isFile() || st.size > MAX_CRC_BYTES) return null;
      const j = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const out: VersionChecksum = {};
      for (const k of ['tableSizeBytes', 'numFiles', 'numMetadata', 'numProtocol'] as const) if (typeof j[k] === 'number') out[k] = j[k];
      return out;
    } catch {
      return null;
    }
  }

  private commit(v: number): ParsedCommit {
    let c = this.commitCache.get(v);
    if (c) return c;
    const name = this.listing.commits.get(v) ?? commitFileName(v);
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(this.listing.logDir, name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new LakerecError(code === 'ENOENT' ? 'version_missing' : 'io_error', `commit file ${name} cannot be read (${code ?? (e as Error).message})`, { version: v });
    }
    this.commitFileReads++;
    this.commitBytes.set(v, bytes.length);
    this.commitBlank.set(v, bytes.length === 0 || bytes.every((b) => b === 10 || b === 13 || b === 32 || b === 9));
    c = parseCommitBytes(bytes, v, name);
    this.commitCache.set(v, c);
    return c;
  }

  private checkpoint(cp: CheckpointRef): Promise<ParsedCommit> {
    let p = this.checkpointCache.get(cp);
    if (!p) {
      p = readCheckpoint(this.listing.logDir, cp);
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
            if ('commit' in st) state.apply(this.commit(st.commit));
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
        for (const step of seg.steps) if ('commit' in step) ahead += addCount(this.commit(step.commit));
      } catch { /* reported by the loop below */ }
      state.reserve(ahead);
      let done = 0;
      for (const step of seg.steps) {
        throwIfCancelled(ctx);
        if ('commit' in step) {
          state.apply(this.commit(step.commit));
        } else {
          const name = step.compaction.file;
          const c = parseCommitBytes(readFileSync(join(this.listing.logDir, name)), step.compaction.to, name);
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
    if (opts.useCheckpoints === false) return this.snapshotFromState(await this.stateAt(version, ctx, false), version);
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

  private snapshotFromState(state: ReplayState, version: number): Snapshot {
    if (!state.protocol) {
      throw new LakerecError('protocol_missing', `no protocol action at or before version ${version}: the log is incomplete`, { version });
    }
    checkReaderProtocol(state.protocol);
    if (!state.metadata) {
      throw new LakerecError('metadata_missing', `no metaData action at or before version ${version}: the table's schema is unknown`, { version });
    }
    const metadata: Metadata = state.metadata;
    const schema = parseSchemaString(metadata);
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
    return {
      root: this.root,
      version,
      timestamp: this.timestampOf(version),
      protocol: state.protocol,
      metadata,
      schema,
      partitionColumns,
      columnMapping: mode,
      files,
      numRecords,
    };
  }

  private timestampOf(version: number): number {
    if (this.listing.commits.has(version)) {
      try {
        return commitTimestamp(this.commit(version), this.listing.mtimes.get(version));
      } catch { /* fall through */ }
    }
    const cp = this.listing.checkpoints.get(version)?.[0];
    if (cp) {
      try { return statSync(join(this.listing.logDir, cp.files[0])).mtimeMs; } catch { /* ignore */ }
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
          const c = this.commit(v);
          const ts = commitTimestampOf(c, this.listing.mtimes.get(v));
          out.push({
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
            hasCommitFile,
            hasCheckpoint,
          });
        } else {
          out.push({ version: v, timestamp: this.timestampOf(v), timestampSource: 'checkpoint_mtime', commitBytes: null, blankCommit: false, commitInfo: null, adds: [], removes: [], protocol: null, metaData: null, hasCommitFile, hasCheckpoint });
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

  /**
   * versions() plus, for every readable version, whether all its data files (and DV files) still
   * exist: after VACUUM the log outlives the data ("history shows it but time travel fails").
   * One forward pass; each file is checked on disk once.
   */
  async versionsWithData(ctx?: JobContext): Promise<VersionInfo[]> {
    const infos = this.versions();
    const exists = new Map<string, boolean>();
    const check = (abs: string | null): boolean => {
      if (abs === null) return false;
      let e = exists.get(abs);
      if (e === undefined) { e = existsSync(abs); exists.set(abs, e); }
      return e;
    };
    const missingOf = (fe: FileEntry): boolean => {
      if (fe.outside && !this.allowOutsidePaths) return false; // refused, not missing
      if (!check(entryAbsolute(fe, this.root))) return true;
      const dv = fe.add.deletionVector;
      if (dv) {
        const loc = deletionVectorLocation(dv, this.root);
        if (loc && !check(loc.absolute)) return true;
      }
      return false;
    };
    let state: ReplayState | null = null;
    let missing = 0;
    const hooks = {
      onAdd: (fe: FileEntry) => { if (missingOf(fe)) missing++; },
      onRemove: (fe: FileEntry) => { if (missingOf(fe)) missing--; },
    };
    for (const info of infos) {
      throwIfCancelled(ctx);
      if (!info.readable) { state = null; info.dataFilesExist = null; continue; }
      try {
        if (state && info.hasCommitFile) {
          state.apply(this.commit(info.version), hooks);
        } else {
          state = (await this.stateAt(info.version)).clone();
          missing = 0;
          for (const fe of state.files.values()) if (missingOf(fe)) missing++;
        }
        info.dataFilesExist = missing === 0;
        info.missingDataFiles = missing;
      } catch (e) {
        state = null;
        info.readable = false;
        info.reason = e instanceof Error ? e.message : String(e);
        info.dataFilesExist = null;
      }
      report(ctx, { phase: 'checking data files', done: info.version + 1, total: infos.length });
    }
    return infos;
  }
}

export type { ActiveFile, Snapshot, VersionChange, VersionInfo };
