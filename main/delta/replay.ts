// Log replay: the add/remove reconciliation that yields a snapshot's files, as actions are applied
// in version order. Pure logic over actions (no disk), so it is unit-testable; table.ts feeds it
// files. Parsing a commit is commits.ts (re-exported here); the state's files as ActiveFile objects
// are active-files.ts, which reads this module (never the other way round: no import cycle).
import type { AddFile, DomainMetadata, Metadata, Protocol, RemoveFile, TransactionId } from '../../shared/delta';
import { canonicalisePath, isPlainRelative, type CanonicalPath } from './paths';
import { dvUniqueId } from './dv';
import { LazyAddFile, type AddBatch } from './fastadd';
import { FileTable, type RowResolver } from './filetable';
import { BatchedCommit, type LogAddFile, type ParsedCommit } from './commits';

export {
  addAction, addCount, emptyCommit, numRecordsFromStats, numRecordsOfAdd, parseCommitBytes, parseCommitText,
  type LogAddFile, type ParsedCommit,
} from './commits';

/** An entry of the replay's live set (its own state, held per file while replaying). The file
 *  model other layers read is the history's `FileEntry` (history.ts); the snapshot's `ActiveFile`
 *  is a view over this entry. */
export interface LiveEntry {
  add: LogAddFile;
  version: number;
  /** Canonical path: relative to the root when inside it (see paths.ts). */
  key: string;
  outside: boolean;
  /** Absolute local path; undefined for a plain relative key (root + key), null when not local. */
  absolute: string | null | undefined;
}

function canonicalKey(path: string, root: string): { key: string; outside: boolean; absolute: string | null | undefined } {
  if (isPlainRelative(path)) return { key: path, outside: false, absolute: undefined };
  const c: CanonicalPath = canonicalisePath(path, root);
  return { key: c.key, outside: c.outside, absolute: c.absolute };
}

/**
 * What a replay reports as it applies a version (the history records file lifetimes from these, so
 * its lifetimes are the replay's own decisions, not a second matching of removes to adds).
 */
export interface ReplayHooks {
  /** A file entered the live set. */
  onAdd?(e: LiveEntry): void;
  /** A live file left it: a remove action, or an add of the same key that replaced it. */
  onRemove?(e: LiveEntry): void;
  /** A remove action that matched no live file (its add predates what this replay has seen). */
  onOrphanRemove?(r: RemoveFile): void;
}

/** The reconciliation key of a remove action (canonical path + DV unique id, PROTOCOL.md). */
export function removeKey(r: RemoveFile, root: string): string {
  const rk = isPlainRelative(r.path) ? r.path : canonicalisePath(r.path, root).key;
  return r.deletionVector ? ReplayState.key(rk, dvUniqueId(r.deletionVector)) : rk;
}

/** The reconciliation key of an add action, as the replay keys its entry. */
export function addKey(a: AddFile, root: string): string {
  const k = isPlainRelative(a.path) ? a.path : canonicalisePath(a.path, root).key;
  return a.deletionVector ? ReplayState.key(k, dvUniqueId(a.deletionVector)) : k;
}

/** The reconciliation key of a live entry (the key it is held under in `files`). */
export function entryKey(e: LiveEntry): string {
  const dv = e.add.deletionVector;
  return dv ? ReplayState.key(e.key, dvUniqueId(dv)) : e.key;
}

/** The state of the table as actions are applied in version order. */
export class ReplayState implements RowResolver<LiveEntry> {
  protocol: Protocol | null = null;
  metadata: Metadata | null = null;
  /** key: canonical path + NUL + DV unique id. A plain fast-path add is held as a row number
   *  (see rowOf): base of its batch + its index there. */
  files = new FileTable<LiveEntry>(this);
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

  valueOf(r: number): LiveEntry {
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
  apply(c: ParsedCommit, hooks?: ReplayHooks): void {
    if (c.protocol) this.protocol = c.protocol;
    if (c.metaData) this.metadata = c.metaData;
    for (const t of c.txns) this.txns.set(t.appId, t);
    for (const d of c.domainMetadata) {
      if (d.removed) this.domains.delete(d.domain); else this.domains.set(d.domain, d);
    }
    for (const r of c.removes) {
      // One lookup; the entry is made an object only when a hook wants it.
      const raw = this.files.takeRaw(removeKey(r, this.root));
      if (raw === undefined) hooks?.onOrphanRemove?.(r);
      else hooks?.onRemove?.(this.files.resolve(raw));
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
          const prev = this.files.swapRaw(a, a, a.pathHash);
          if (prev !== undefined) hooks.onRemove?.(this.files.resolve(prev));
          hooks.onAdd?.(a);
        } else {
          this.files.set(a, a, a.pathHash);
        }
        continue;
      }
      this.applyAdd(a, c.version, hooks);
    }
  }

  /** The adds of a batch, in order: plain fast rows by row number, the rest as entries. */
  private applyBatch(batch: AddBatch, hooks?: ReplayHooks): void {
    const base = this.nextRow;
    this.batches.push(batch);
    this.bases.push(base);
    // Its rows are the next looked up (hooks read each added row's entry).
    this.lastBatch = this.batches.length - 1;
    this.nextRow += batch.n;
    this.files.reserve(batch.n);
    for (let i = 0; i < batch.n; i++) {
      if (batch.isFastPlain(i)) {
        const r = base + i;
        const h = batch.pathHash[i];
        if (hooks) {
          const prev = this.files.swapRaw(r, r, h);
          if (prev !== undefined) hooks.onRemove?.(this.files.resolve(prev));
          hooks.onAdd?.(this.valueOf(r));
        } else {
          this.files.set(r, r, h);
        }
        continue;
      }
      this.applyAdd(batch.addAt(i), batch.version, hooks);
    }
  }

  /** An add that is not a plain fast-path row: keyed by its canonical path (and DV id). */
  private applyAdd(a: AddFile, version: number, hooks?: ReplayHooks): void {
    let e: LiveEntry;
    if (isPlainRelative(a.path)) {
      e = { add: a, version, key: a.path, outside: false, absolute: undefined };
    } else {
      const ck = canonicalKey(a.path, this.root);
      e = { add: a, version, key: ck.key, outside: ck.outside, absolute: ck.absolute };
    }
    const k = a.deletionVector ? ReplayState.key(e.key, dvUniqueId(a.deletionVector)) : e.key;
    if (hooks) {
      const prev = this.files.swapRaw(k, e);
      if (prev !== undefined) hooks.onRemove?.(this.files.resolve(prev));
      hooks.onAdd?.(e);
    } else {
      this.files.set(k, e);
    }
  }
}
