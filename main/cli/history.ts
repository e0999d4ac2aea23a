// `lakerec history TABLE [--json]`: the versions of a table, one line each, from one pass over the log.
import { parseArgs, bool, requirePositional } from '../engine/args';
import type { CliIO } from './io';
import { resolve } from 'node:path';
import type { AddFile, RemoveFile } from '../../shared/delta';
import { DeltaTable } from '../delta/table';
import { numRecordsFromStats, numRecordsOfAdd } from '../delta/replay';
import { canonicalisePath } from '../delta/paths';

export interface HistoryRow {
  version: number;
  timestamp: string;
  operation: string | null;
  addedFiles: number;
  removedFiles: number;
  /** Rows added per the adds' stats, minus DV cardinality (null when some add has no stats). */
  addedRows: number | null;
  /** Rows removed: the removes' stats, else the rows of the add each cancels (null when unknown). */
  removedRows: number | null;
  hasCommitFile: boolean;
  hasCheckpoint: boolean;
  /** A snapshot can be rebuilt from the log that remains. */
  readable: boolean;
  /** All data files of this version's snapshot still exist (null: not readable). */
  dataFilesExist: boolean | null;
  missingDataFiles: number | null;
  reason: string | null;
}

function sumRows<T extends AddFile | RemoveFile>(actions: T[], rowsOf: (a: T) => number | null): number | null {
  let total = 0;
  for (const a of actions) {
    const n = rowsOf(a);
    if (n === null) return null;
    total += n;
  }
  return total;
}

/** Rows an add contributes: numRecords minus its deletion vector's cardinality. */
function addRows(a: AddFile): number | null {
  const n = numRecordsOfAdd(a);
  return n === null ? null : n - (a.deletionVector?.cardinality ?? 0);
}

function removeRows(r: RemoveFile): number | null {
  const n = numRecordsFromStats(r.stats);
  return n === null ? null : n - (r.deletionVector?.cardinality ?? 0);
}

export async function historyRows(table: DeltaTable): Promise<HistoryRow[]> {
  const changes = await table.changes();
  const byVersion = new Map(changes.map((c) => [c.version, c]));
  const infos = await table.versionsWithData();
  // Removes rarely carry stats: their rows are those of the add they cancel, remembered in the
  // same pass (unknown when that add predates the oldest commit left in the log).
  const rowsByPath = new Map<string, number | null>();
  const key = (p: string): string => canonicalisePath(p, table.root).key;
  const removedRowsOf = new Map<number, number | null>();
  for (const c of changes) {
    removedRowsOf.set(c.version, sumRows(c.removes, (r) => removeRows(r) ?? rowsByPath.get(key(r.path)) ?? null));
    for (const r of c.removes) rowsByPath.delete(key(r.path));
    for (const a of c.adds) rowsByPath.set(key(a.path), addRows(a));
  }
  return infos.map((i) => {
    const c = byVersion.get(i.version);
    return {
      version: i.version,
      timestamp: c ? new Date(c.timestamp).toISOString() : '',
      operation: c?.commitInfo?.operation ?? null,
      addedFiles: c?.adds.length ?? 0,
      removedFiles: c?.removes.length ?? 0,
      addedRows: c ? sumRows(c.adds, addRows) : null,
      removedRows: c ? removedRowsOf.get(c.version) ?? null : null,
      hasCommitFile: i.hasCommitFile,
      hasCheckpoint: i.hasCheckpoint,
      readable: i.readable,
      dataFilesExist: i.dataFilesExist ?? null,
      missingDataFiles: i.missingDataFiles ?? null,
      reason: i.reason ?? null,
    };
  });
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, { json: 'boolean', 'allow-outside-paths': 'boolean' });
  const [tablePath] = requirePositional(p, 1, 'lakerec history TABLE [--json]');
  const table = await DeltaTable.open(resolve(io.cwd, tablePath), { allowOutsidePaths: bool(p, 'allow-outside-paths') });
  const rows = await historyRows(table);
  if (bool(p, 'json')) {
    io.out(JSON.stringify({ table: table.root, latestVersion: table.latestVersion, warnings: table.warnings, versions: rows }, null, 2) + '\n');
    return 0;
  }
  const header = ['version', 'timestamp', 'operation', '+files', '-files', '+rows', '-rows', 'checkpoint', 'state'];
  const lines = rows.map((r) => [
    String(r.version),
    r.timestamp,
    r.operation ?? (r.hasCommitFile ? '?' : '(commit cleaned up)'),
    String(r.addedFiles),
    String(r.removedFiles),
    r.addedRows === null ? '?' : String(r.addedRows),
    r.removedRows === null ? '?' : String(r.removedRows),
    r.hasCheckpoint ? 'yes' : '',
    !r.readable ? 'log unreadable' : r.dataFilesExist === false ? `data missing (${r.missingDataFiles} files)` : 'ok',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  io.out(`${table.root}: ${rows.length} version(s), latest ${table.latestVersion}\n`);
  for (const w of table.warnings) io.out(`note: ${w}\n`);
  io.out(fmt(header) + '\n');
  for (const l of lines) io.out(fmt(l) + '\n');
  return 0;
}
