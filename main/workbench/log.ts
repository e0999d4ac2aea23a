// The one place the workbench's log-only views (schema history, partition health) read the log's
// file history. Today: DeltaTable.changes() plus a snapshot where the log starts at a checkpoint.
// When the one file-history model of main/delta lands, point this function at it.
import type { JobContext } from '../../shared/jobs';
import { DeltaTable } from '../delta/table';
import type { Snapshot, VersionChange } from '../delta/types';

export interface LogHistory {
  table: DeltaTable;
  changes: VersionChange[];
  /** The snapshot at a version known only from a checkpoint (its commit cleaned up): the state the history starts from. */
  checkpointState(version: number): Promise<Snapshot>;
}

export async function readLogHistory(root: string, ctx?: JobContext): Promise<LogHistory> {
  const table = await DeltaTable.open(root);
  const changes = await table.changes({}, ctx);
  return { table, changes, checkpointState: (version) => table.snapshot({ version }, ctx) };
}
