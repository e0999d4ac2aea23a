// The files of _delta_log, classified by name (PROTOCOL.md "Delta Log Entries"), and the choice of
// checkpoint and commits that rebuild a version (the log segment). Read through the Storage seam.
import { LakerecError } from '../../shared/errors';
import { LIMIT_KNOBS, type FileMeta, type Storage } from '../storage';
import { pushTo } from '../../shared/group';

export type CheckpointKind = 'classic' | 'multipart' | 'v2';

export interface CheckpointRef {
  version: number;
  kind: CheckpointKind;
  /** File names in _delta_log (all parts for a multi-part checkpoint, in part order). */
  files: string[];
  /** For v2: 'json' or 'parquet'. */
  format: 'json' | 'parquet';
  /** Multi-part: all parts present. */
  complete: boolean;
}

export interface CompactionRef {
  from: number;
  to: number;
  file: string;
}

export interface LastCheckpoint {
  version: number;
  size?: number;
  parts?: number;
  sizeInBytes?: number;
  numOfAddFiles?: number;
}

export interface LogListing {
  /** The log folder as named in messages (storage.describe('_delta_log')). */
  logDir: string;
  /** version -> commit file name */
  commits: Map<number, string>;
  /** version -> checkpoints at that version (complete ones first) */
  checkpoints: Map<number, CheckpointRef[]>;
  compactions: CompactionRef[];
  lastCheckpoint: LastCheckpoint | null;
  /** Why _last_checkpoint was ignored, if it was present but unusable. */
  lastCheckpointProblem: string | null;
  /** Commit file mtimes (ms), for versions without commitInfo timestamps. */
  mtimes: Map<number, number>;
  /** Names of the version checksum files (`NNN.crc`) in the listing (read from this one listing, not a second). */
  checksums: Set<string>;
  /**
   * The checkpoint version the log was listed from (listed after the `_last_checkpoint` hint, for
   * work that needs only the latest snapshot); versions before it were not listed. null: the whole log.
   */
  listedFrom: number | null;
}

/** Log file names: versions are 20 digits (PROTOCOL.md); a longer run of digits cannot be a version we can hold. */
const longVersionRe = /^(\d{21,})\.(json|checkpoint\.|\d+\.compacted\.json)/;
const commitRe = /^(\d{20})\.json$/;
const classicRe = /^(\d{20})\.checkpoint\.parquet$/;
const multipartRe = /^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$/;
const v2Re = /^(\d{20})\.checkpoint\.([0-9a-fA-F-]{36})\.(json|parquet)$/;
const compactionRe = /^(\d{20})\.(\d{20})\.compacted\.json$/;

/** Whether a name is one the log reads as an entry (commit, checkpoint, compaction, checksum, _last_checkpoint). */
export function isLogFileName(n: string): boolean {
  return n === '_last_checkpoint' || [commitRe, classicRe, multipartRe, v2Re, compactionRe, longVersionRe, /^\d+\.crc$/].some((re) => re.test(n));
}

export function commitFileName(v: number): string {
  return `${String(v).padStart(20, '0')}.json`;
}

/**
 * A version from a file name's digits, refused (named) above 2^53 - 1: a Number would round it,
 * and two files would claim one version.
 */
function versionOf(digits: string, name: string): number {
  const v = Number(digits);
  if (!Number.isSafeInteger(v)) {
    throw new LakerecError('log_corrupt',
      `_delta_log/${name} names version ${digits.replace(/^0+(?=\d)/, '')}, above the largest version this reader can hold (2^53 - 1 = ${Number.MAX_SAFE_INTEGER}); the log is refused`,
      { file: name });
  }
  return v;
}

/** Classifies a directory listing of _delta_log (pure: unit-testable without a disk). */
export function classifyLogFiles(names: string[]): Omit<LogListing, 'logDir' | 'lastCheckpoint' | 'lastCheckpointProblem' | 'mtimes' | 'checksums' | 'listedFrom'> {
  const commits = new Map<number, string>();
  const checkpoints = new Map<number, CheckpointRef[]>();
  const compactions: CompactionRef[] = [];
  const parts = new Map<string, { version: number; total: number; files: Map<number, string> }>();
  const add = (c: CheckpointRef): void => {
    pushTo(checkpoints, c.version, c);
  };
  for (const n of names) {
    let m: RegExpExecArray | null;
    if ((m = commitRe.exec(n))) commits.set(versionOf(m[1], n), n);
    else if ((m = classicRe.exec(n))) add({ version: versionOf(m[1], n), kind: 'classic', files: [n], format: 'parquet', complete: true });
    else if ((m = multipartRe.exec(n))) {
      const key = `${m[1]}.${m[3]}`;
      const g = parts.get(key) ?? { version: versionOf(m[1], n), total: Number(m[3]), files: new Map<number, string>() };
      g.files.set(Number(m[2]), n);
      parts.set(key, g);
    } else if ((m = v2Re.exec(n))) add({ version: versionOf(m[1], n), kind: 'v2', files: [n], format: m[3] as 'json' | 'parquet', complete: true });
    else if ((m = compactionRe.exec(n))) {
      const from = versionOf(m[1], n);
      const to = versionOf(m[2], n);
      if (to >= from) compactions.push({ from, to, file: n });
    } else if ((m = longVersionRe.exec(n))) {
      throw new LakerecError('log_corrupt', `_delta_log/${n} names a version of ${m[1].length} digits (Delta writes 20); the log is refused`, { file: n });
    }
  }
  for (const g of parts.values()) {
    // The parts present, in part order (never a loop up to the declared total: a name may claim
    // 9,999,999,999 parts); complete when parts 1..total are all there.
    const present = [...g.files.keys()].filter((i) => i >= 1 && i <= g.total).sort((a, b) => a - b);
    const files = present.map((i) => g.files.get(i) as string);
    add({ version: g.version, kind: 'multipart', files, format: 'parquet', complete: g.total > 0 && present.length === g.total });
  }
  for (const list of checkpoints.values()) list.sort((a, b) => Number(b.complete) - Number(a.complete));
  compactions.sort((a, b) => a.from - b.from || a.to - b.to);
  return { commits, checkpoints, compactions };
}

/** Parses _last_checkpoint; returns null with a reason when it is absent or unusable. */
export function parseLastCheckpoint(text: string): { value: LastCheckpoint | null; problem: string | null } {
  try {
    const j = JSON.parse(text) as Partial<LastCheckpoint> | null;
    if (!j || typeof j.version !== 'number' || !Number.isInteger(j.version) || j.version < 0) {
      return { value: null, problem: '_last_checkpoint has no valid "version"' };
    }
    return { value: j as LastCheckpoint, problem: null };
  } catch {
    return { value: null, problem: '_last_checkpoint is not valid JSON' };
  }
}

export interface ListLogOptions {
  /**
   * Only the latest snapshot is needed: read `_last_checkpoint` first and list the log from its
   * checkpoint on (the store's start-after listing), not from the first commit. A missing, corrupt
   * or stale hint (its checkpoint not complete in the listing) falls back to the whole listing.
   */
  fromCheckpoint?: boolean;
}

const lastCheckpointCap = (storage: Storage) => ({ maxBytes: storage.limits.lastCheckpointBytes, what: '_last_checkpoint', knob: LIMIT_KNOBS.lastCheckpointBytes });

/** The log listed from the `_last_checkpoint` hint's checkpoint on, or null when the hint cannot be used. */
async function listLogTail(storage: Storage): Promise<LogListing | null> {
  let hint: LastCheckpoint | null;
  let bytes: Buffer;
  try {
    bytes = await storage.read('_delta_log/_last_checkpoint', lastCheckpointCap(storage));
    hint = parseLastCheckpoint(bytes.toString('utf8')).value;
  } catch (e) {
    if (e instanceof LakerecError && e.code === 'cancelled') throw e;
    return null;
  }
  if (!hint || !Number.isSafeInteger(hint.version)) return null;
  // Every name of version V and later sorts after V's 20 digits alone ('.' and '_' sort after '9').
  const entries = await storage.list('_delta_log', { startAfter: String(hint.version).padStart(20, '0') });
  if (entries === null) return null;
  const listing = await classifyEntries(storage, entries, bytes);
  if (listing.lastCheckpoint?.version !== hint.version || !listing.checkpoints.get(hint.version)?.some((c) => c.complete)) return null;
  return { ...listing, listedFrom: hint.version };
}

/** Lists and classifies _delta_log through the store; null when there is no _delta_log folder. */
export async function listLog(storage: Storage, opts: ListLogOptions = {}): Promise<LogListing | null> {
  if (opts.fromCheckpoint) {
    const tail = await listLogTail(storage);
    if (tail) return tail;
  }
  const entries = await storage.list('_delta_log');
  if (entries === null) return null;
  return classifyEntries(storage, entries);
}

/** The listing classified; `lastCheckpointBytes`: _last_checkpoint already read (not fetched again). */
async function classifyEntries(storage: Storage, entries: FileMeta[], lastCheckpointBytes?: Buffer): Promise<LogListing> {
  const logDir = storage.describe('_delta_log');
  const names: string[] = [];
  const meta = new Map<string, number>();
  for (const e of entries) {
    const name = e.path.slice('_delta_log/'.length);
    if (e.folder) {
      // A folder named like a log file is not a version of the table: refused, never skipped
      // (other folders, such as a v2 checkpoint's _sidecars, are not log entries).
      if (isLogFileName(name)) throw new LakerecError('log_corrupt', `_delta_log/${name} is a folder, not a log file: the log is refused`, { file: name });
      continue;
    }
    names.push(name);
    meta.set(name, e.mtimeMs);
  }
  const c = classifyLogFiles(names);
  let lastCheckpoint: LastCheckpoint | null = null;
  let lastCheckpointProblem: string | null = null;
  if (meta.has('_last_checkpoint')) {
    try {
      const bytes = lastCheckpointBytes ?? await storage.read('_delta_log/_last_checkpoint', lastCheckpointCap(storage));
      const r = parseLastCheckpoint(bytes.toString('utf8'));
      lastCheckpoint = r.value;
      lastCheckpointProblem = r.problem;
    } catch (e) {
      // A hint only: a refused or unreadable _last_checkpoint is reported, and the listing is used.
      lastCheckpointProblem = `_last_checkpoint was not used: ${(e as Error).message}`;
    }
  }
  if (lastCheckpoint && !c.checkpoints.get(lastCheckpoint.version)?.some((x) => x.complete)) {
    lastCheckpointProblem = `_last_checkpoint names version ${lastCheckpoint.version}, which has no complete checkpoint; the listing was used`;
  }
  const mtimes = new Map<number, number>();
  for (const [v, name] of c.commits) {
    const t = meta.get(name);
    if (t !== undefined) mtimes.set(v, t);
  }
  const checksums = new Set(names.filter((n) => n.endsWith('.crc')));
  return { logDir, ...c, lastCheckpoint, lastCheckpointProblem, mtimes, checksums, listedFrom: null };
}

/**
 * The versions the log holds, ascending: a commit file, a complete checkpoint, or the end of a
 * compaction file. Iterate these, never a numeric range from 0 to the latest version (a log may
 * name version 50,000,000 after version 0).
 */
export function listedVersions(listing: Pick<LogListing, 'commits' | 'checkpoints'>): number[] {
  const set = new Set<number>(listing.commits.keys());
  for (const [v, list] of listing.checkpoints) if (list.some((c) => c.complete)) set.add(v);
  return [...set].sort((a, b) => a - b);
}

export interface LogSegment {
  version: number;
  checkpoint: CheckpointRef | null;
  /** Commits to apply after the checkpoint, ascending. */
  commits: number[];
  /** Compaction files used instead of runs of commits (each replaces versions from..to). */
  compactions: CompactionRef[];
  /** What to apply after the checkpoint, in version order. */
  steps: SegmentStep[];
}

export type SegmentStep = { commit: number } | { compaction: CompactionRef };

/**
 * The log segment that rebuilds `version`: the newest complete checkpoint at or before it whose
 * following commits are all present, then those commits. Listing is authoritative;
 * _last_checkpoint is only a hint (it may be stale, missing or corrupt). `skip` lists checkpoints
 * that failed to read, so the caller can fall back to an older one.
 */
export function selectSegment(
  listing: Pick<LogListing, 'commits' | 'checkpoints' | 'compactions'>,
  version: number,
  skip: ReadonlySet<CheckpointRef> = new Set(),
): LogSegment | { error: string } {
  const cps = [...listing.checkpoints.keys()].filter((v) => v <= version).sort((a, b) => b - a);
  const candidates: (CheckpointRef | null)[] = [];
  for (const v of cps) for (const c of listing.checkpoints.get(v) ?? []) if (c.complete && !skip.has(c)) candidates.push(c);
  candidates.push(null);
  let firstGap: number | null = null;
  for (const cp of candidates) {
    const start = cp ? cp.version + 1 : 0;
    const commits: number[] = [];
    const compactions: CompactionRef[] = [];
    const steps: SegmentStep[] = [];
    let ok = true;
    for (let v = start; v <= version;) {
      if (listing.commits.has(v)) { commits.push(v); steps.push({ commit: v }); v++; continue; }
      // A log compaction file can stand in for a run of commits that has been cleaned up.
      const comp = listing.compactions.filter((c) => c.from === v && c.to <= version).sort((a, b) => b.to - a.to)[0];
      if (comp) { compactions.push(comp); steps.push({ compaction: comp }); v = comp.to + 1; continue; }
      ok = false;
      if (firstGap === null || v > firstGap) firstGap = v;
      break;
    }
    if (ok) return { version, checkpoint: cp, commits, compactions, steps };
  }
  return {
    error: `version ${version} cannot be rebuilt: commit ${firstGap ?? 0} is missing and no complete checkpoint at or before version ${version} covers it (the log was cleaned up or is damaged)`,
  };
}
