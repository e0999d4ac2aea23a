// The two sides of a pushed reconcile, as the CLI and the window open them: a local side (a Delta
// table or Parquet, read by the DuckDB connector with the same pushed SQL) or a side in the
// warehouse a named connection reaches; and the connections found, by name and kind only.
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { sqlString } from '../engine/duck';
import { openTable } from '../delta/open';
import type { Contract } from '../reconcile/contract';
import { AcceptedContracts } from '../engine/accepted-files';
import { findConnection, type WarehouseConnection } from './connections';
import { DuckdbConnector, type DuckdbTable, type DuckdbView } from './duckdb-connector';
import { remoteConnector } from './remote';
import type { WarehouseSide } from './reconcile';

/** Where the accepted connection files are remembered (path and content hash), as accepted contracts are. */
export function acceptedConnections(env: Record<string, string | undefined>): AcceptedContracts {
  return new AcceptedContracts(env.LAKEREC_CONFIG_DIR ?? join(env.HOME ?? homedir(), '.config', 'lakerec'), 'accepted-connection-files.json');
}

/** The named connection, from the settings file (or the user's own connection files), trusted as the CLI trusts it. */
export function connectionNamed(name: string, where: { env: Record<string, string | undefined>; cwd: string }, settings?: string): WarehouseConnection {
  return findConnection(name, { env: where.env, cwd: where.cwd, settings: settings ?? null, trusted: acceptedConnections(where.env) });
}

/** A local side: a Delta table (path[@version]) or a Parquet file or folder, read through the DuckDB connector. */
export async function localSide(path: string, cwd: string, contract: Contract, viewName: string): Promise<WarehouseSide> {
  const m = /^(.*)@(\d+)$/.exec(path);
  const root = resolve(cwd, m ? m[1] : path);
  if (existsSync(join(root, '_delta_log'))) {
    const table = await openTable(root);
    const snapshot = await table.snapshot(m ? { version: Number(m[2]) } : {});
    const t: DuckdbTable = { name: viewName, snapshot, root: table.root, allowOutsidePaths: table.allowOutsidePaths };
    const connector = await DuckdbConnector.open('local', [t]);
    return { connector, relation: `"${viewName}"`, label: `${root} v${snapshot.version} (local files, DuckDB)` };
  }
  if (!existsSync(root)) throw new LakerecError('not_found', `nothing at ${root}`);
  const isDir = statSync(root).isDirectory();
  if (!isDir && !/\.parquet$/i.test(root)) throw new LakerecError('usage', `${root}: a pushed reconcile reads a local side as a Delta table or Parquet; reconcile a CSV or JSON source without --warehouse`);
  const glob = isDir ? join(root, '**', '*.parquet') : root;
  const view: DuckdbView = { name: viewName, sql: `SELECT * FROM read_parquet(${sqlString(glob)})`, ...(contract.partitioning?.expression ? { derive: { column: contract.partitioning.column, expression: contract.partitioning.expression } } : {}) };
  const connector = await DuckdbConnector.open('local', [], isDir ? { extraDirs: [root], views: [view] } : { extraFiles: [root], views: [view] });
  return { connector, relation: `"${viewName}"`, label: `${root} (local Parquet, DuckDB)` };
}

/** A side computed where the named connection lives (a `type: duckdb` connection: the local files, by the same pushed SQL). */
export async function warehouseSide(name: string, relation: string, where: { env: Record<string, string | undefined>; cwd: string }, contract: Contract, viewName: string, settings?: string): Promise<WarehouseSide> {
  const c = connectionNamed(name, where, settings);
  if (c.kind === 'duckdb') return localSide(relation, where.cwd, contract, viewName);
  return { connector: remoteConnector(c), relation, label: `${relation} on ${c.kind} ${c.name}` };
}
