// `lakerec history TABLE [--json]`: the versions of a table, one line each, from one pass over the log.
import { parseArgs, bool, requirePositional } from '../engine/args';
import { tableArg } from '../engine/location';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import type { CommitWho } from '../delta/history';
import type { UnreadableCause } from '../../shared/forensics';
import { versionSummaries } from '../forensics/summary';
import { partitionerOf } from '../forensics/partitions';
import { whoText } from './forensics';

export interface HistoryRow {
  version: number;
  timestamp: string;
  operation: string | null;
  addedFiles: number;
  removedFiles: number;
  /** Rows added per the adds' stats, minus DV cardinality (null when some add has no stats). */
  addedRows: number | null;
  /** Rows removed: the removed files' rows (the remove's own stats where the add predates the log), a DV delete's deleted rows (null when unknown). */
  removedRows: number | null;
  /** Who wrote it and why (commitInfo's userName, userId, userMetadata, clusterId, job, notebook, engineInfo, txnId). */
  who: CommitWho;
  hasCommitFile: boolean;
  hasCheckpoint: boolean;
  /** A snapshot can be rebuilt from the log that remains. */
  readable: boolean;
  /** All data files of this version's snapshot still exist (null: not readable). */
  dataFilesExist: boolean | null;
  missingDataFiles: number | null;
  reason: string | null;
  /** The kind of why (`version_missing`: a commit missing between two that exist; `history_expired`: log cleanup). */
  unreadableCause: UnreadableCause | null;
}

export async function historyRows(table: DeltaTable): Promise<HistoryRow[]> {
  // The reader's one history (main/delta/history.ts) and the same per-version summary forensics
  // shows: removed rows of files added before the oldest readable version come from the remove
  // actions themselves; a deletion-vector delete counts the rows it deleted.
  const h = await table.history();
  const versions = versionSummaries(h, partitionerOf(h));
  const infos = new Map((await table.versionsWithData()).map((i) => [i.version, i]));
  return h.states.map((st) => {
    const s = versions[st.index];
    const i = infos.get(st.version);
    const readable = st.info.readable && (i?.readable ?? true);
    return {
      version: st.version,
      timestamp: st.change ? new Date(st.change.timestamp).toISOString() : '',
      operation: st.change?.commitInfo?.operation ?? null,
      addedFiles: s.addedFiles,
      removedFiles: s.removedFiles,
      addedRows: s.addedRows,
      removedRows: s.removedRows,
      who: s.who,
      hasCommitFile: st.info.hasCommitFile,
      hasCheckpoint: st.info.hasCheckpoint,
      readable,
      dataFilesExist: readable ? i?.dataFilesExist ?? null : null,
      missingDataFiles: readable ? i?.missingDataFiles ?? null : null,
      reason: readable ? null : st.info.reason ?? i?.reason ?? null,
      unreadableCause: readable ? null : st.info.unreadableCause ?? i?.unreadableCause ?? 'unreadable',
    };
  });
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.history.flags);
  const [tablePath] = requirePositional(p, 1, 'lakerec history TABLE [--json]');
  const table = await openTable(tableArg(io.cwd, tablePath), { allowOutsidePaths: bool(p, 'allow-outside-paths') });
  const rows = await historyRows(table);
  if (bool(p, 'json')) {
    io.out(JSON.stringify({ table: table.root, latestVersion: table.latestVersion, warnings: table.warnings, versions: rows }, null, 2) + '\n');
    return 0;
  }
  const header = ['version', 'timestamp', 'operation', '+files', '-files', '+rows', '-rows', 'checkpoint', 'state', 'who'];
  const lines = rows.map((r) => [
    String(r.version),
    r.timestamp,
    r.operation ?? (r.hasCommitFile ? '?' : '(commit cleaned up)'),
    String(r.addedFiles),
    String(r.removedFiles),
    r.addedRows === null ? '?' : String(r.addedRows),
    r.removedRows === null ? '?' : String(r.removedRows),
    r.hasCheckpoint ? 'yes' : '',
    !r.readable ? `unreadable: ${r.reason ?? 'log incomplete'}` : r.dataFilesExist === false ? `data missing (${r.missingDataFiles} files)` : 'ok',
    whoText(r.who),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  io.out(`${table.root}: ${rows.length} version(s), latest ${table.latestVersion}\n`);
  for (const w of table.warnings) io.out(`note: ${w}\n`);
  io.out(fmt(header) + '\n');
  for (const l of lines) io.out(fmt(l) + '\n');
  return 0;
}
