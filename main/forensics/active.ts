// The active-set index forensics keeps while it walks the versions (one pass, not one per
// version): files per partition, active files by stats signature (duplicate_batch), files with
// nulls per column (nulls_appeared), and date partitions vs timestamp stats (partition_outside_its_day).
import type { FileEntry, History, VersionState } from '../delta/history';
import { statsSignature } from '../delta/active-files';
import { fieldsOf } from './helpers';
import type { Partitioner } from './partitions';

export interface DayFit { fit: boolean; lo: number; hi: number; day: number }

export class ActiveSet {
  readonly partCount = new Map<string, number>();
  /** Active files by row count; a bucket is indexed by full stats signature only once an append with that row count arrives. */
  private readonly buckets = new Map<number, { files: Set<FileEntry>; bySig: Map<string, Set<FileEntry>> | null }>();
  private readonly sigCache = new Map<number, string | null>();
  /** Active files with a null in each column (from stats.nullCount). */
  readonly nullFiles = new Map<string, number>();
  /** Date partition column x timestamp column pairs, and counts of active files that fit / do not fit their UTC day. */
  readonly pairs: { p: string; t: string; key: string }[];
  readonly fitCount = new Map<string, { fit: number; misfit: number }>();

  constructor(private readonly h: History, private readonly part: Partitioner) {
    const md = h.states[h.states.length - 1]?.metadata ?? null;
    const fieldList = fieldsOf(md);
    const datePartCols = (md?.partitionColumns ?? []).filter((c) => fieldList.find((f) => f.name === c)?.type === 'date');
    const tsCols = fieldList.filter((f) => f.type === 'timestamp' || f.type === 'timestamp_ntz').map((f) => f.name);
    this.pairs = datePartCols.flatMap((p) => tsCols.map((t) => ({ p, t, key: `${p}\u0000${t}` })));
  }

  sigOf(f: FileEntry): string | null {
    let s = this.sigCache.get(f.id);
    if (s === undefined) { s = statsSignature(f); this.sigCache.set(f.id, s); }
    return s;
  }

  private indexSig(idx: Map<string, Set<FileEntry>>, f: FileEntry): void {
    const s = this.sigOf(f);
    if (!s) return;
    const set = idx.get(s) ?? new Set<FileEntry>();
    set.add(f);
    idx.set(s, set);
  }

  /** Columns with nulls in a file, from its stats (files without stats are not judged, and not parsed). */
  nullCols(f: FileEntry): [string, number][] {
    if (f.numRecords === null) return [];
    const nc = f.stats?.nullCount;
    if (!nc) return [];
    return Object.entries(nc).filter((e): e is [string, number] => typeof e[1] === 'number' && e[1] > 0);
  }

  /** Whether a file's [min, max] of timestamp column t falls inside its date partition p's UTC day; null when unknown. */
  fits(f: FileEntry, p: string, t: string): DayFit | null {
    const pv = f.partitionValues[p];
    if (!pv || f.numRecords === null) return null;
    const day = Date.parse(`${pv}T00:00:00Z`);
    const lo = utcMs(f.stats?.minValues?.[t]);
    const hi = utcMs(f.stats?.maxValues?.[t]);
    if (Number.isNaN(day) || lo === null || hi === null) return null;
    return { fit: lo >= day && hi < day + 86_400_000, lo, hi, day };
  }

  private countFits(f: FileEntry, sign: 1 | -1): void {
    for (const { p, t, key } of this.pairs) {
      const r = this.fits(f, p, t);
      if (!r) continue;
      const c = this.fitCount.get(key) ?? { fit: 0, misfit: 0 };
      if (r.fit) c.fit += sign; else c.misfit += sign;
      this.fitCount.set(key, c);
    }
  }

  /** Applies a version's diff (removes, then adds) to the index. */
  apply(st: VersionState): void {
    const { h, part } = this;
    for (const id of st.removed) {
      const f = h.files[id];
      for (const [c] of this.nullCols(f)) this.nullFiles.set(c, (this.nullFiles.get(c) ?? 1) - 1);
      if (this.pairs.length) this.countFits(f, -1);
      if (part.partitionSource !== 'none') this.partCount.set(part.partOf(f), (this.partCount.get(part.partOf(f)) ?? 1) - 1);
      if (f.numRecords !== null) {
        const b = this.buckets.get(f.numRecords);
        b?.files.delete(f);
        if (b?.bySig) { const s = this.sigOf(f); if (s) b.bySig.get(s)?.delete(f); }
      }
    }
    for (const id of st.added) {
      const f = h.files[id];
      for (const [c] of this.nullCols(f)) this.nullFiles.set(c, (this.nullFiles.get(c) ?? 0) + 1);
      if (this.pairs.length) this.countFits(f, 1);
      if (part.partitionSource !== 'none') this.partCount.set(part.partOf(f), (this.partCount.get(part.partOf(f)) ?? 0) + 1);
      if (f.numRecords !== null) {
        let b = this.buckets.get(f.numRecords);
        if (!b) { b = { files: new Set(), bySig: null }; this.buckets.set(f.numRecords, b); }
        b.files.add(f);
        if (b.bySig) this.indexSig(b.bySig, f);
      }
    }
  }

  /** Each added file matched to a distinct active earlier file with the same signature; null unless all match. */
  matchEarlier(adds: FileEntry[]): FileEntry[] | null {
    if (adds.length === 0) return null;
    const used = new Set<number>();
    const matched: FileEntry[] = [];
    for (const a of adds) {
      if (a.numRecords === null) return null;
      const b = this.buckets.get(a.numRecords);
      if (!b) return null;
      if (!b.bySig) { b.bySig = new Map(); for (const f of b.files) this.indexSig(b.bySig, f); }
      const s = this.sigOf(a);
      if (!s) return null;
      let cand: FileEntry | undefined;
      for (const f of b.bySig.get(s) ?? []) if (!used.has(f.id)) { cand = f; break; }
      if (!cand) return null;
      used.add(cand.id);
      matched.push(cand);
    }
    return matched;
  }
}

function utcMs(x: unknown): number | null {
  if (typeof x !== 'string') return null;
  const ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(x) ? x : `${x}Z`);
  return Number.isNaN(ms) ? null : ms;
}
