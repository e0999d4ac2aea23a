// Forensics: every version's commit summarised from the log alone, and the heuristics that say
// which versions a human should look at, each with the evidence that fired it. No data file is
// opened: rows come from add stats; whether data files still exist is read from folder listings.
import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Metadata, RemoveFile, StructField } from '../../shared/delta';
import { numRecordsFromStats } from '../delta/replay';
import type { CommitDetail, ForensicsResult, HeuristicHit, VersionSummary } from '../../shared/forensics';
import { LakerecError } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import { openDuck, sqlIdent, sqlString, type Duck } from '../engine/duck';
import { activeAt, partitionLabel, whoOf, type FileEntry, type History, type VersionState } from '../delta/history';
import { DeltaTable } from '../delta/table';
import { runHeuristics } from './heuristics';
import { commitDetail } from './commit';

export interface ForensicsOptions {
  partitionBy?: string;
  ctx?: JobContext;
  allowOutsidePaths?: boolean;
}

export async function forensics(root: string, opts: ForensicsOptions = {}): Promise<ForensicsResult> {
  const table = await DeltaTable.open(root, { allowOutsidePaths: opts.allowOutsidePaths ?? false });
  return forensicsOfHistory(await table.history(opts.ctx), opts);
}

/** One commit opened (the CLI's --version N): the same drill-down the window shows. */
export async function forensicsCommit(root: string, version: number, opts: ForensicsOptions = {}): Promise<CommitDetail> {
  const table = await DeltaTable.open(root, { allowOutsidePaths: opts.allowOutsidePaths ?? false });
  const history = await table.history(opts.ctx);
  return commitDetail(history, await forensicsOfHistory(history, opts), version);
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/** Rows of remove actions from their own stats (null when any lacks them). */
function removeRows(removes: RemoveFile[]): number | null {
  let total = 0;
  for (const r of removes) {
    const n = numRecordsFromStats(r.stats);
    if (n === null) return null;
    total += n - (r.deletionVector?.cardinality ?? 0);
  }
  return total;
}

function fieldsOf(md: Metadata | null): StructField[] {
  if (!md) return [];
  try { return (JSON.parse(md.schemaString) as { fields?: StructField[] }).fields ?? []; } catch { return []; }
}

function isOverwrite(st: VersionState): boolean {
  const ci = st.change?.commitInfo;
  const op = (ci?.operation ?? '').toUpperCase();
  const mode = String(ci?.operationParameters?.mode ?? '');
  if (mode.toLowerCase() === 'overwrite') return true;
  return /REPLACE TABLE|OVERWRITE/.test(op);
}

function isAppend(st: VersionState, h: History): boolean {
  const ci = st.change?.commitInfo;
  const mode = String(ci?.operationParameters?.mode ?? '').toLowerCase();
  const dataRemoves = st.removed.filter((id) => h.files[id].removedIn === st.version).length;
  if (st.added.length === 0 || dataRemoves > 0) return false;
  return mode === 'append' || ci?.isBlindAppend === true || (ci?.operation ?? '').toUpperCase() === 'WRITE' || !ci;
}

/** The declared predicate of an overwrite/delete (Spark writes a JSON array of strings; delta-rs a string). */
export function declaredPredicate(params: Record<string, unknown> | undefined): string | null {
  if (!params) return null;
  const raw = params.predicate ?? params.replaceWhere;
  if (raw === undefined || raw === null || raw === '') return null;
  if (Array.isArray(raw)) return raw.length ? raw.map((p) => `(${String(p)})`).join(' AND ') : null;
  const s = String(raw);
  if (s.startsWith('[')) {
    try {
      const arr = JSON.parse(s) as unknown;
      if (Array.isArray(arr)) return arr.length ? arr.map((p) => `(${String(p)})`).join(' AND ') : null;
    } catch { /* not JSON: use as written */ }
  }
  return s;
}

/** Stats signature of an added file: row count and per-column min/max/nulls (a retried batch repeats it). */
function signature(f: FileEntry): string | null {
  if (!f.stats || typeof f.stats.numRecords !== 'number' || f.stats.numRecords === 0) return null;
  if (!f.stats.minValues && !f.stats.maxValues) return null;
  return JSON.stringify([f.stats.numRecords, f.stats.minValues ?? null, f.stats.maxValues ?? null, f.stats.nullCount ?? null, f.partitionValues]);
}

export async function forensicsOfHistory(h: History, opts: { partitionBy?: string; ctx?: JobContext } = {}): Promise<ForensicsResult> {
  const latest = h.states[h.states.length - 1];
  const md = latest?.metadata ?? null;
  const tablePartitionCols = md?.partitionColumns ?? [];
  let partitionBy: string[] = tablePartitionCols;
  let partitionSource: ForensicsResult['partitionSource'] = tablePartitionCols.length ? 'partition_values' : 'none';
  const notes: string[] = [];
  if (opts.partitionBy) {
    const col = opts.partitionBy;
    const known = fieldsOf(md).some((f) => f.name === col);
    if (!known) throw new LakerecError('usage', `--partition-by ${col}: the table has no column "${col}" (columns: ${fieldsOf(md).map((f) => f.name).join(', ')})`);
    partitionBy = [col];
    partitionSource = tablePartitionCols.includes(col) ? 'partition_values' : 'stats';
    if (partitionSource === 'stats') notes.push(`"${col}" is not a partition column: a file's partition is read from its stats where min = max, else "mixed".`);
  }
  // Stats carry LOGICAL names (the reader maps column-mapped physical names back).
  // One label per file entry, computed once (a 300,000-file log asks for each several times).
  const partCache: (string | undefined)[] = new Array<string | undefined>(h.files.length);
  const partOf = (f: FileEntry): string => {
    if (partitionSource === 'none') return '';
    const hit = partCache[f.id];
    if (hit !== undefined) return hit;
    if (partitionSource === 'partition_values') return (partCache[f.id] = partitionLabel(f.partitionValues, partitionBy));
    const col = partitionBy[0];
    const lo = f.stats?.minValues?.[col];
    const hi = f.stats?.maxValues?.[col];
    let label = `${col}=mixed`;
    if (lo !== undefined && lo !== null && JSON.stringify(lo) === JSON.stringify(hi)) label = `${col}=${String(lo)}`;
    else if (f.stats?.nullCount?.[col] === f.stats?.numRecords && f.stats?.numRecords) label = `${col}=__null__`;
    partCache[f.id] = label;
    return label;
  };

  // ---- per-version summaries ----
  const versions: VersionSummary[] = [];
  for (const st of h.states) {
    const ci = st.change?.commitInfo ?? null;
    // A snapshot reset shows the commit's own adds, not the whole reset diff.
    const allAdds = (st.commitAdded ?? st.added).map((id) => h.files[id]);
    const allRems = st.commitAdded ? [] : st.removed.map((id) => h.files[id]).filter((e) => e.removedIn === st.version);
    // A file re-added in place (same path, new deletion vector) is a rewrite: its rows count net.
    const rewrittenIds = new Set<number>();
    let dvDeleted = 0;
    let rewriteAdded = 0;
    let rewriteUnknown = false;
    for (const a of allAdds) {
      if (a.rewrote === null || h.files[a.rewrote].removedIn !== st.version) continue;
      const old = h.files[a.rewrote];
      rewrittenIds.add(old.id);
      if (a.numRecords === null || old.numRecords === null) { rewriteUnknown = true; continue; }
      if (old.numRecords >= a.numRecords) dvDeleted += old.numRecords - a.numRecords; else rewriteAdded += a.numRecords - old.numRecords;
    }
    const adds = allAdds.filter((a) => a.rewrote === null || !rewrittenIds.has(a.rewrote));
    const rems = allRems.filter((r) => !rewrittenIds.has(r.id));
    const sum = (xs: FileEntry[], f: (e: FileEntry) => number | null): number | null => {
      let s = 0;
      for (const x of xs) { const n = f(x); if (n === null) return null; s += n; }
      return s;
    };
    const orphanRows = removeRows(st.orphanRemoves);
    const parts = new Set<string>();
    if (partitionSource !== 'none') {
      for (const f of [...allAdds, ...allRems]) parts.add(partOf(f));
      const cols = st.metadata?.partitionColumns ?? [];
      if (partitionSource === 'partition_values') for (const r of st.orphanRemoves) if (r.partitionValues) parts.add(partitionLabel(r.partitionValues, partitionBy.filter((c) => cols.includes(c))));
    }
    const change = st.change;
    const allRearrange = change !== null && (change.adds.length + change.removes.length) > 0
      && change.adds.every((a) => a.dataChange === false) && change.removes.every((r) => r.dataChange === false);
    const addedRows = sum(adds, (e) => e.numRecords);
    const remRows = sum(rems, (e) => e.numRecords);
    versions.push({
      version: st.version,
      timestamp: change?.timestamp ?? 0,
      when: change?.timestamp ? iso(change.timestamp) : '',
      operation: ci?.operation ?? (st.fromSnapshot ? 'CHECKPOINT' : null),
      operationParameters: (ci?.operationParameters as Record<string, unknown> | undefined) ?? {},
      writer: ci?.engineInfo ?? null,
      who: whoOf(ci),
      timestampSource: change?.timestampSource ?? 'none',
      isolationLevel: ci?.isolationLevel ?? null,
      isBlindAppend: ci?.isBlindAppend ?? null,
      readVersion: typeof ci?.readVersion === 'number' ? ci.readVersion : null,
      addedFiles: adds.length,
      // Removes whose add predates the oldest readable version count from the remove actions.
      removedFiles: rems.length + st.orphanRemoves.length,
      addedRows: addedRows === null || rewriteUnknown ? null : addedRows + rewriteAdded,
      removedRows: remRows === null || orphanRows === null || rewriteUnknown ? null : remRows + orphanRows + dvDeleted,
      dvDeletedRows: dvDeleted,
      rewrittenFiles: rewrittenIds.size,
      addedBytes: adds.reduce((s, e) => s + e.size, 0),
      removedBytes: rems.reduce((s, e) => s + e.size, 0) + st.orphanRemoves.reduce((s, r) => s + (r.size ?? 0), 0),
      tableRows: st.tableRows,
      tableFiles: st.tableFiles,
      partitions: [...parts].sort(),
      rearrangeOnly: allRearrange,
      hasCommitFile: st.info.hasCommitFile,
      hasCheckpoint: st.info.hasCheckpoint,
      readable: st.info.readable,
      ...(st.info.readable ? {} : { unreadableReason: st.info.reason ?? 'not readable from the remaining log' }),
      protocolChanged: st.protocolChanged,
      metadataChanged: st.metadataChanged,
    });
  }

  const hits: HeuristicHit[] = [];
  let duck: Duck | null = null;
  // The active set, kept incrementally (one pass over the versions, not one per version):
  // files per partition, and active files by stats signature (for duplicate_batch).
  const partCount = new Map<string, number>();
  // Active files by row count; a row-count bucket is indexed by full stats signature only once an
  // append with that row count arrives (so a log without appends, or without stats, parses nothing).
  const buckets = new Map<number, { files: Set<FileEntry>; bySig: Map<string, Set<FileEntry>> | null }>();
  const indexSig = (idx: Map<string, Set<FileEntry>>, f: FileEntry): void => {
    const s = sigOf(f);
    if (!s) return;
    const set = idx.get(s) ?? new Set<FileEntry>();
    set.add(f);
    idx.set(s, set);
  };
  const sigCache = new Map<number, string | null>();
  const sigOf = (f: FileEntry): string | null => {
    let s = sigCache.get(f.id);
    if (s === undefined) { s = signature(f); sigCache.set(f.id, s); }
    return s;
  };
  // Active files with a null in each column (from stats.nullCount), for nulls_appeared.
  const nullFiles = new Map<string, number>();
  const nullCols = (f: FileEntry): [string, number][] => {
    if (f.numRecords === null) return []; // files without stats are not judged (and not parsed)
    const nc = f.stats?.nullCount;
    if (!nc) return [];
    return Object.entries(nc).filter((e): e is [string, number] => typeof e[1] === 'number' && e[1] > 0);
  };
  const apply = (st: VersionState): void => {
    for (const id of st.removed) {
      const f = h.files[id];
      for (const [c] of nullCols(f)) nullFiles.set(c, (nullFiles.get(c) ?? 1) - 1);
      if (pairs.length) countFits(f, -1);
      if (partitionSource !== 'none') partCount.set(partOf(f), (partCount.get(partOf(f)) ?? 1) - 1);
      if (f.numRecords !== null) {
        const b = buckets.get(f.numRecords);
        b?.files.delete(f);
        if (b?.bySig) { const s = sigOf(f); if (s) b.bySig.get(s)?.delete(f); }
      }
    }
    for (const id of st.added) {
      const f = h.files[id];
      for (const [c] of nullCols(f)) nullFiles.set(c, (nullFiles.get(c) ?? 0) + 1);
      if (pairs.length) countFits(f, 1);
      if (partitionSource !== 'none') partCount.set(partOf(f), (partCount.get(partOf(f)) ?? 0) + 1);
      if (f.numRecords !== null) {
        let b = buckets.get(f.numRecords);
        if (!b) { b = { files: new Set(), bySig: null }; buckets.set(f.numRecords, b); }
        b.files.add(f);
        if (b.bySig) indexSig(b.bySig, f);
      }
    }
  };
  // Date partition columns against timestamp data columns: does each file's [min, max] of the
  // timestamp fall inside its partition's UTC day? Counts of active files that fit / do not.
  const fieldList = fieldsOf(md);
  const datePartCols = tablePartitionCols.filter((c) => fieldList.find((f) => f.name === c)?.type === 'date');
  const tsCols = fieldList.filter((f) => f.type === 'timestamp' || f.type === 'timestamp_ntz').map((f) => f.name);
  const pairs = datePartCols.flatMap((p) => tsCols.map((t) => ({ p, t, key: `${p}\u0000${t}` })));
  const fitCount = new Map<string, { fit: number; misfit: number }>();
  const utcMs = (x: unknown): number | null => {
    if (typeof x !== 'string') return null;
    const ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(x) ? x : `${x}Z`);
    return Number.isNaN(ms) ? null : ms;
  };
  /** 'fit' | 'misfit' | null (no stats or no partition value), with the offset in hours of a misfit. */
  const fits = (f: FileEntry, p: string, t: string): { fit: boolean; lo: number; hi: number; day: number } | null => {
    const pv = f.partitionValues[p];
    if (!pv || f.numRecords === null) return null;
    const day = Date.parse(`${pv}T00:00:00Z`);
    const lo = utcMs(f.stats?.minValues?.[t]);
    const hi = utcMs(f.stats?.maxValues?.[t]);
    if (Number.isNaN(day) || lo === null || hi === null) return null;
    return { fit: lo >= day && hi < day + 86_400_000, lo, hi, day };
  };
  const countFits = (f: FileEntry, sign: 1 | -1): void => {
    for (const { p, t, key } of pairs) {
      const r = fits(f, p, t);
      if (!r) continue;
      const c = fitCount.get(key) ?? { fit: 0, misfit: 0 };
      if (r.fit) c.fit += sign; else c.misfit += sign;
      fitCount.set(key, c);
    }
  };
  /** Each added file matched to a distinct active earlier file with the same signature; null unless all match. */
  const matchEarlier = (adds: FileEntry[]): FileEntry[] | null => {
    if (adds.length === 0) return null;
    const used = new Set<number>();
    const matched: FileEntry[] = [];
    for (const a of adds) {
      if (a.numRecords === null) return null;
      const b = buckets.get(a.numRecords);
      if (!b) return null;
      if (!b.bySig) { b.bySig = new Map(); for (const f of b.files) indexSig(b.bySig, f); }
      const s = sigOf(a);
      if (!s) return null;
      let cand: FileEntry | undefined;
      for (const f of b.bySig.get(s) ?? []) if (!used.has(f.id)) { cand = f; break; }
      if (!cand) return null;
      used.add(cand.id);
      matched.push(cand);
    }
    return matched;
  };
  try {
    for (const st of h.states) {
      if (st.index % 500 === 0) {
        throwIfCancelled(opts.ctx);
        report(opts.ctx, { phase: 'looking for incidents', done: st.index, total: h.states.length });
      }
      const v = st.version;
      const sum = versions[st.index];
      const prevSt = st.index > 0 ? h.states[st.index - 1] : undefined;
      const prevSum = st.index > 0 ? versions[st.index - 1] : undefined;
      const ci = st.change?.commitInfo ?? null;
      const op = ci?.operation ?? 'commit';
      if (st.fromSnapshot) { apply(st); continue; } // a checkpoint reset: not a commit a writer made
      const adds = st.added.map((id) => h.files[id]);
      const rems = st.removed.map((id) => h.files[id]).filter((f) => f.removedIn === v);
      const addedPaths = new Set(adds.map((a) => a.path));
      const dataRems = rems.filter((r) => !addedPaths.has(r.path));
      // Before this version: partition file counts, and earlier appends' signatures still active.
      const countBefore = new Map<string, number>();
      if (partitionSource !== 'none') for (const f of [...dataRems, ...adds]) countBefore.set(partOf(f), partCount.get(partOf(f)) ?? 0);
      const dupMatches = isAppend(st, h) ? matchEarlier(adds) : null;
      // nulls_appeared: a column with no null in any active file gets nulls from this commit.
      const hadData = st.tableFiles > 0 && (prevSt ? prevSt.tableFiles > 0 : false);
      const newNulls = new Map<string, { rows: number; files: number }>();
      if (hadData) {
        for (const f of adds) {
          for (const [c, n] of nullCols(f)) {
            if ((nullFiles.get(c) ?? 0) > 0) continue;
            const cur = newNulls.get(c) ?? { rows: 0, files: 0 };
            newNulls.set(c, { rows: cur.rows + n, files: cur.files + 1 });
          }
        }
      }
      // partition_outside_its_day: until now every file's timestamps fell inside its dt's UTC day;
      // this commit adds files whose timestamps do not (a partition derived in another time zone?).
      const dayHits: HeuristicHit[] = [];
      for (const { p, t, key } of pairs) {
        const before = fitCount.get(key);
        if (!before || before.fit === 0 || before.misfit > 0) continue;
        const misfits = adds.map((f) => ({ f, r: fits(f, p, t) })).filter((x) => x.r !== null && !x.r.fit);
        if (!misfits.length) continue;
        const ex = misfits[0];
        const r = ex.r as NonNullable<typeof ex.r>;
        const offsets = [...new Set(misfits.map((x) => Math.round(((x.r as NonNullable<typeof x.r>).lo - (x.r as NonNullable<typeof x.r>).day) / 3_600_000)))].sort((a, b) => a - b);
        dayHits.push({
          name: 'partition_outside_its_day', version: v, severity: 'warn',
          message: `${op} wrote ${misfits.length} file(s) whose ${t} falls outside their ${p}'s UTC day (e.g. ${p}=${ex.f.partitionValues[p]} holds ${t} ${iso(r.lo)} .. ${iso(r.hi)}); every file before kept ${t} inside its day: ${p} derived in another time zone?`,
          evidence: { partitionColumn: p, timestampColumn: t, files: misfits.length, examplePartition: `${p}=${ex.f.partitionValues[p]}`, exampleMin: iso(r.lo), exampleMax: iso(r.hi), startOffsetHours: offsets, filesThatFitBefore: before.fit },
        });
      }
      apply(st);
      hits.push(...dayHits);
      for (const [c, n] of newNulls) {
        hits.push({
          name: 'nulls_appeared', version: v, severity: 'info',
          message: `${op} brought the first nulls into ${c} (${n.rows} row(s) in ${n.files} file(s)); no file in the table had one before`,
          evidence: { column: c, nullRows: n.rows, files: n.files },
        });
      }

      // partition_emptied: the partition had files before and has none after, none added back.
      if (partitionSource !== 'none' && dataRems.length) {
        const remParts = new Map<string, FileEntry[]>();
        for (const r of dataRems) {
          const p = partOf(r);
          remParts.set(p, [...(remParts.get(p) ?? []), r]);
        }
        for (const [p, rs] of remParts) {
          if (p.endsWith('=mixed')) continue;
          if ((partCount.get(p) ?? 0) > 0) continue;
          const had = countBefore.get(p) ?? 0;
          const rows = rs.reduce((s, f) => s + (f.numRecords ?? 0), 0);
          hits.push({
            name: 'partition_emptied', version: v, severity: 'warn',
            message: `${op} removed every file it touched in ${p} and added none back`,
            evidence: { partition: p, filesBefore: had, filesRemoved: rs.length, rowsRemoved: rows, operation: op, removedPaths: rs.slice(0, 10).map((f) => f.path) },
          });
        }
      }

      if (isOverwrite(st) && dataRems.length) {
        const remParts = new Set(dataRems.map((f) => partOf(f)));
        const addParts = new Set(adds.map((f) => partOf(f)));
        // overwrite_shrank_the_table: removed from more partitions than it wrote.
        if (partitionSource !== 'none' && remParts.size > addParts.size) {
          const gone = [...remParts].filter((p) => !addParts.has(p)).sort();
          hits.push({
            name: 'overwrite_shrank_the_table', version: v, severity: 'warn',
            message: `overwrite removed files from ${remParts.size} partition(s) and wrote ${addParts.size}; the difference is data that is now gone`,
            evidence: { partitionsRemovedFrom: [...remParts].sort(), partitionsWritten: [...addParts].sort(), partitionsNotRewritten: gone, rowsRemoved: sum.removedRows, rowsAdded: sum.addedRows },
          });
        }
      }

      // overwrite_wider_than_predicate: evaluate the declared predicate on each removed file's
      // partition values (in DuckDB, typed by the schema); a removed file outside it is too wide.
      const pred = declaredPredicate(ci?.operationParameters as Record<string, unknown> | undefined);
      if (pred && dataRems.length && tablePartitionCols.length && (isOverwrite(st) || /DELETE/i.test(op))) {
        if (!duck) {
          duck = await openDuck({ threads: 1, memoryLimit: '256MB' });
          // The predicate text comes from the log: evaluate it with no file or network access.
          await duck.conn.run('SET enable_external_access = false');
        }
        const outside = await filesOutsidePredicate(duck, pred, dataRems, st.metadata);
        // A DELETE on data columns is ordinary; an overwrite whose replaceWhere cannot be checked is worth a note.
        if (outside === 'not_evaluable' && isOverwrite(st)) {
          hits.push({
            name: 'predicate_not_evaluable', version: v, severity: 'info',
            message: `${op}'s declared predicate could not be checked against partition values (it names data columns or is not SQL DuckDB reads)`,
            evidence: { predicate: pred },
          });
        } else if (outside !== 'not_evaluable' && outside.length) {
          const parts = [...new Set(outside.map((f) => partOf(f)))].sort();
          hits.push({
            name: 'overwrite_wider_than_predicate', version: v, severity: 'warn',
            message: `${op} removed ${outside.length} file(s) in ${parts.join(', ')}, outside its declared predicate ${pred}`,
            evidence: { predicate: pred, partitionsOutside: parts, filesOutside: outside.length, rowsOutside: outside.reduce((s, f) => s + (f.numRecords ?? 0), 0), paths: outside.slice(0, 10).map((f) => f.path) },
          });
        }
      }

      // duplicate_batch: an append whose files repeat the stats of an earlier append still in the table.
      if (dupMatches) {
        const matched = dupMatches;
        const from = [...new Set(matched.map((f) => f.addedIn))].sort((a, b) => a - b);
        const rows = adds.reduce((s, f) => s + (f.numRecords ?? 0), 0);
        hits.push({
          name: 'duplicate_batch', version: v, severity: 'warn',
          message: `append of ${adds.length} file(s)/${rows} row(s) repeats the row counts and stats of v${from.join(', v')} (still in the table): a retried batch?`,
          evidence: { earlierVersions: from, files: adds.length, rows, partitions: sum.partitions, matchedPaths: matched.slice(0, 10).map((f) => f.path) },
        });
      }

      // blind_append_after_overwrite: an append into partitions the previous commit just overwrote.
      if (prevSt && prevSum && isAppend(st, h) && isOverwrite(prevSt) && partitionSource !== 'none') {
        const prevParts = new Set(prevSum.partitions);
        const overlap = sum.partitions.filter((p) => prevParts.has(p));
        if (overlap.length) {
          hits.push({
            name: 'blind_append_after_overwrite', version: v, severity: 'info',
            message: `append into ${overlap.join(', ')} right after v${prevSt.version} overwrote it: the overwrite's rows and these may both be meant as the partition's contents`,
            evidence: { overwriteVersion: prevSt.version, partitions: overlap, rowsAppended: sum.addedRows },
          });
        }
      }

      if (st.metadataChanged) {
        const prev = prevSt?.metadata ?? null;
        const a = fieldsOf(prev);
        const b = fieldsOf(st.metadata);
        const added = b.filter((f) => !a.some((x) => x.name === f.name)).map((f) => f.name);
        const dropped = a.filter((f) => !b.some((x) => x.name === f.name)).map((f) => f.name);
        const retyped = b.filter((f) => a.some((x) => x.name === f.name && JSON.stringify(x.type) !== JSON.stringify(f.type)))
          .map((f) => `${f.name}: ${JSON.stringify(a.find((x) => x.name === f.name)?.type)} -> ${JSON.stringify(f.type)}`);
        const nullability = b.filter((f) => a.some((x) => x.name === f.name && x.nullable !== f.nullable)).map((f) => `${f.name}: nullable ${!f.nullable} -> ${f.nullable}`);
        const pcBefore = prev?.partitionColumns ?? [];
        const pcAfter = st.metadata?.partitionColumns ?? [];
        const parts: string[] = [];
        if (added.length) parts.push(`added ${added.join(', ')}`);
        if (dropped.length) parts.push(`dropped ${dropped.join(', ')}`);
        if (retyped.length) parts.push(`retyped ${retyped.join('; ')}`);
        if (nullability.length) parts.push(nullability.join('; '));
        if (JSON.stringify(pcBefore) !== JSON.stringify(pcAfter)) parts.push(`partition columns ${JSON.stringify(pcBefore)} -> ${JSON.stringify(pcAfter)}`);
        hits.push({
          name: 'schema_changed', version: v, severity: dropped.length || retyped.length ? 'warn' : 'info',
          message: `${op} changed the schema: ${parts.join('; ') || 'schema text changed'}`,
          evidence: { added, dropped, retyped, nullability, partitionColumnsBefore: pcBefore, partitionColumnsAfter: pcAfter },
        });
      }

      // large_delete: a commit whose net row loss is at least a quarter of the table.
      const prevRows = prevSt ? prevSt.tableRows : null;
      if (prevRows && st.tableRows !== null && prevRows - st.tableRows >= Math.max(1, prevRows * 0.25) && !isOverwrite(st)) {
        hits.push({
          name: 'large_delete', version: v, severity: 'warn',
          message: `${op} took the table from ${prevRows} to ${st.tableRows} row(s) (-${(100 * (prevRows - st.tableRows) / prevRows).toFixed(1)}%)`,
          evidence: { rowsBefore: prevRows, rowsAfter: st.tableRows, operation: op, partitions: sum.partitions },
        });
      }

      // dv_heavy_delete: deletion vectors that hide at least half of their files' rows.
      const dvAdds = adds.filter((a) => a.deletionVector && a.stats && typeof a.stats.numRecords === 'number');
      if (dvAdds.length) {
        const physical = dvAdds.reduce((s, a) => s + (a.stats?.numRecords ?? 0), 0);
        const hidden = dvAdds.reduce((s, a) => s + (a.deletionVector?.cardinality ?? 0), 0);
        if (physical > 0 && hidden / physical >= 0.5) {
          hits.push({
            name: 'dv_heavy_delete', version: v, severity: 'info',
            message: `${op} left deletion vectors hiding ${hidden} of ${physical} row(s) in ${dvAdds.length} file(s): readers skip most of what they read (OPTIMIZE/purge would rewrite them)`,
            evidence: { files: dvAdds.length, physicalRows: physical, hiddenRows: hidden, rowsHiddenThisCommit: sum.dvDeletedRows },
          });
        }
      }

      // clock_went_backwards: a commit timestamp earlier than its predecessor's.
      if (prevSt && prevSum && st.change && prevSt.change && sum.timestamp && prevSum.timestamp && sum.timestamp < prevSum.timestamp) {
        hits.push({
          name: 'clock_went_backwards', version: v, severity: 'info',
          message: `commit time ${sum.when} is ${((prevSum.timestamp - sum.timestamp) / 1000).toFixed(1)} s earlier than v${prevSum.version}'s ${prevSum.when}: time travel by timestamp is ambiguous here`,
          evidence: { timestamp: sum.when, previousTimestamp: prevSum.when, previousVersion: prevSum.version },
        });
      }

      // stats_missing: added files without numRecords (count-level checks and log-only bisect cannot see them).
      const noStats = adds.filter((a) => a.numRecords === null);
      if (noStats.length) {
        hits.push({
          name: 'stats_missing', version: v, severity: 'info',
          message: `${noStats.length} added file(s) carry no row-count stats: counts and log-only predicates cannot see their rows`,
          evidence: { files: noStats.length, paths: noStats.slice(0, 10).map((f) => f.path) },
        });
      }

      // writer_changed: a different engine wrote this commit than the previous one with an engineInfo.
      if (sum.writer) {
        let prevWriter: string | null = null;
        for (let u = st.index - 1; u >= 0 && prevWriter === null; u--) prevWriter = versions[u].writer;
        if (prevWriter && prevWriter !== sum.writer) {
          hits.push({
            name: 'writer_changed', version: v, severity: 'info',
            message: `written by ${sum.writer}, the previous commit by ${prevWriter}`,
            evidence: { writer: sum.writer, previousWriter: prevWriter },
          });
        }
      }
    }
  } finally {
    duck?.close();
  }

  // The heuristics that live in their own files (main/forensics/heuristics/), one signature each.
  hits.push(...runHeuristics({ history: h, versions }));

  // vacuumed_history: versions the log can no longer produce.
  const unreadable = h.states.filter((s) => !s.info.readable).map((s) => s.version);
  if (unreadable.length) {
    hits.push({
      name: 'vacuumed_history', version: unreadable[unreadable.length - 1], severity: 'info',
      message: `${unreadable.length} version(s) can no longer be read (${ranges(unreadable)}); the oldest readable version is ${h.oldestReadable ?? 'none'}`,
      evidence: { unreadableVersions: ranges(unreadable), count: unreadable.length, oldestReadable: h.oldestReadable, reason: h.byVersion.get(unreadable[0])?.info.reason ?? null },
    });
  }

  // data_files_missing: the log outlives the data (VACUUM, a manual delete): active files not on disk,
  // and removed files gone (time travel to before the removal cannot read data).
  if (latest) {
    const fileExists = existenceChecker();
    const missing = activeAt(h, latest.version).filter((f) => !fileExists(f));
    if (missing.length) {
      hits.push({
        name: 'data_files_missing', version: latest.version, severity: 'warn',
        message: `${missing.length} file(s) the latest version needs are not on disk: the table cannot be read in full`,
        evidence: { files: missing.length, rows: missing.reduce((s, f) => s + (f.numRecords ?? 0), 0), paths: missing.slice(0, 10).map((f) => f.path) },
      });
    }
    const gone = h.files.filter((f) => f.removedIn !== null && !fileExists(f));
    if (gone.length) {
      let newest = 0;
      for (const f of gone) if ((f.removedIn as number) > newest) newest = f.removedIn as number;
      hits.push({
        name: 'data_files_missing', version: newest, severity: 'info',
        message: `${gone.length} removed file(s) were deleted from disk (VACUUM): versions before v${newest} keep their log but not their data`,
        evidence: { files: gone.length, oldestDataReadableVersion: newest, paths: gone.slice(0, 10).map((f) => f.path) },
      });
    }
  }

  hits.sort((a, b) => a.version - b.version || (a.severity === b.severity ? 0 : a.severity === 'warn' ? -1 : 1));
  return {
    root: h.root, partitionBy, partitionSource, latestVersion: h.latestVersion, oldestReadableVersion: h.oldestReadable,
    versions, heuristics: hits, dataFilesRead: 0, notes,
  };
}

/** A stat(), not a read. Files on another scheme (s3:, ...) cannot be checked here: assumed present. */
/** Whether data files are on disk, by listing each folder once (300,000 files in 100 partition
 *  folders: 100 readdir calls, not 300,000 stat calls). Files on another scheme count as present. */
function existenceChecker(): (f: FileEntry) => boolean {
  const listings = new Map<string, Set<string> | null>();
  return (f: FileEntry): boolean => {
    if (f.absolutePath === null) return true;
    const dir = dirname(f.absolutePath);
    let names = listings.get(dir);
    if (names === undefined) {
      try { names = new Set(readdirSync(dir)); } catch { names = null; }
      listings.set(dir, names);
    }
    return names !== null && names.has(basename(f.absolutePath));
  };
}

export function ranges(vs: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < vs.length; i++) {
    let j = i;
    while (j + 1 < vs.length && vs[j + 1] === vs[j] + 1) j++;
    out.push(i === j ? `v${vs[i]}` : `v${vs[i]}-v${vs[j]}`);
    i = j;
  }
  return out.join(', ');
}

const duckTypeOf = (t: unknown): string => {
  if (typeof t !== 'string') return 'VARCHAR';
  if (t === 'long') return 'BIGINT';
  if (t === 'integer') return 'INTEGER';
  if (t === 'short') return 'SMALLINT';
  if (t === 'byte') return 'TINYINT';
  if (t === 'date') return 'DATE';
  if (t === 'timestamp') return 'TIMESTAMPTZ';
  if (t === 'timestamp_ntz') return 'TIMESTAMP';
  if (t === 'boolean') return 'BOOLEAN';
  if (t === 'double') return 'DOUBLE';
  if (t === 'float') return 'FLOAT';
  if (t.startsWith('decimal')) return t.toUpperCase();
  return 'VARCHAR';
};

/** Removed files whose partition values do not satisfy `predicate`; 'not_evaluable' when DuckDB
 *  cannot evaluate it over partition columns alone. */
async function filesOutsidePredicate(duck: Duck, predicate: string, files: FileEntry[], md: Metadata | null): Promise<FileEntry[] | 'not_evaluable'> {
  const cols = md?.partitionColumns ?? [];
  const types = new Map(fieldsOf(md).map((f) => [f.name, duckTypeOf(f.type)]));
  const rows = files.map((f, i) => `(${i}, ${cols.map((c) => {
    const v = f.partitionValues[c];
    return v === null || v === undefined ? 'NULL' : `TRY_CAST(${sqlString(v)} AS ${types.get(c) ?? 'VARCHAR'})`;
  }).join(', ')})`);
  try {
    const sql = `SELECT i FROM (VALUES ${rows.join(', ')}) t(i, ${cols.map(sqlIdent).join(', ')}) WHERE NOT coalesce((${predicate}), false)`;
    const r = await duck.conn.runAndReadAll(sql);
    return r.getRows().map((row) => files[Number(row[0])]);
  } catch {
    return 'not_evaluable';
  }
}
