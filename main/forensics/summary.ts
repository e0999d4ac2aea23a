// The per-version summary: one VersionSummary per version that exists, from the history alone.
// A file re-added in place (a deletion-vector delete) counts net: the rows it deleted.
import { operationParametersOf, type VersionSummary } from '../../shared/forensics';
import { partitionLabel, whoOf, type FileEntry, type History, type VersionState } from '../delta/history';
import { iso, removeRows } from './helpers';
import type { Partitioner } from './partitions';

export function versionSummaries(h: History, part: Partitioner): VersionSummary[] {
  return h.states.map((st) => versionSummary(h, st, part));
}

/** The files one commit added and removed, as the summary counts them. */
export interface CommitFiles {
  /** Adds that are not a re-add in place. */
  adds: FileEntry[];
  /** Removes (of files removed in this version) that are not the old side of a re-add in place. */
  rems: FileEntry[];
  /** Every add and every remove of this version, rewrites included. */
  allAdds: FileEntry[];
  allRems: FileEntry[];
  /** The new entries of files re-added in place (same path, new deletion vector). */
  rewritten: FileEntry[];
  /** Rows the rewrites hid (old numRecords above the new) and added (the reverse). */
  dvDeleted: number;
  rewriteAdded: number;
  /** A rewrite whose old or new side lacks numRecords. */
  rewriteUnknown: boolean;
}

export function commitFilesOf(h: History, st: VersionState): CommitFiles {
  // A snapshot reset shows the commit's own adds, not the whole reset diff.
  const allAdds = (st.commitAdded ?? st.added).map((id) => h.files[id]);
  const allRems = st.commitAdded ? [] : st.removed.map((id) => h.files[id]).filter((e) => e.removedIn === st.version);
  // A file re-added in place (same path, new deletion vector) is a rewrite: its rows count net.
  const rewrittenIds = new Set<number>();
  const rewritten: FileEntry[] = [];
  let dvDeleted = 0;
  let rewriteAdded = 0;
  let rewriteUnknown = false;
  for (const a of allAdds) {
    if (a.rewrote === null || h.files[a.rewrote].removedIn !== st.version) continue;
    const old = h.files[a.rewrote];
    rewrittenIds.add(old.id);
    rewritten.push(a);
    if (a.numRecords === null || old.numRecords === null) { rewriteUnknown = true; continue; }
    if (old.numRecords >= a.numRecords) dvDeleted += old.numRecords - a.numRecords; else rewriteAdded += a.numRecords - old.numRecords;
  }
  const adds = allAdds.filter((a) => a.rewrote === null || !rewrittenIds.has(a.rewrote));
  const rems = allRems.filter((r) => !rewrittenIds.has(r.id));
  return { adds, rems, allAdds, allRems, rewritten, dvDeleted, rewriteAdded, rewriteUnknown };
}

/** One version's summary, from the history alone. */
export function versionSummary(h: History, st: VersionState, part: Partitioner): VersionSummary {
  const { partitionSource, partitionBy, partOf } = part;
  const ci = st.change?.commitInfo ?? null;
  const { adds, rems, allAdds, allRems, rewritten, dvDeleted, rewriteAdded, rewriteUnknown } = commitFilesOf(h, st);
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
  return {
    version: st.version,
    timestamp: change?.timestamp ?? 0,
    when: change?.timestamp ? iso(change.timestamp) : '',
    operation: ci?.operation ?? (st.fromSnapshot ? 'CHECKPOINT' : null),
    operationParameters: operationParametersOf(ci?.operationParameters),
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
    rewrittenFiles: new Set(rewritten.map((a) => a.rewrote)).size,
    addedBytes: adds.reduce((s, e) => s + e.size, 0),
    removedBytes: rems.reduce((s, e) => s + e.size, 0) + st.orphanRemoves.reduce((s, r) => s + (r.size ?? 0), 0),
    tableRows: st.tableRows,
    tableFiles: st.tableFiles,
    partitions: [...parts].sort(),
    rearrangeOnly: allRearrange,
    hasCommitFile: st.info.hasCommitFile,
    hasCheckpoint: st.info.hasCheckpoint,
    readable: st.info.readable,
    ...(st.info.readable ? {} : { unreadableReason: st.info.reason ?? 'not readable from the remaining log', unreadableCause: st.info.unreadableCause ?? 'unreadable' }),
    protocolChanged: st.protocolChanged,
    metadataChanged: st.metadataChanged,
  };
}
