// The two sides of a pushed reconcile, as the CLI and the window open them: a local side (a Delta
// table or Parquet, read by the DuckDB connector with the same pushed SQL) or a side in the
// warehouse a named connection reaches; and the connections found, by name and kind only.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { sqlString } from '../engine/duck';
import { openTable } from '../delta/open';
import type { Contract } from '../reconcile/contract';
import { AcceptedContracts, sha256Of } from '../engine/accepted-files';
import { connectionFiles, findConnection, type WarehouseConnection } from './connections';
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

/** The connections found in the connection files, each with whether its file still needs the user's trust; files that cannot be read are problems, one line each. */
export function listConnections(where: { env: Record<string, string | undefined>; cwd: string }, settings?: string): { connections: { connection: WarehouseConnection; needsTrust: boolean }[]; problems: string[] } {
  const trusted = acceptedConnections(where.env);
  const connections: { connection: WarehouseConnection; needsTrust: boolean }[] = [];
  const problems: string[] = [];
  for (const { file, read } of connectionFiles({ env: where.env, cwd: where.cwd, settings: settings ?? null })) {
    if (!existsSync(file) || statSync(file).size > 1024 * 1024) continue;
    try {
      const text = readFileSync(file, 'utf8');
      for (const c of read(text, file)) connections.push({ connection: c, needsTrust: c.origin.needsTrust && !trusted.isAccepted(file, sha256Of(text)) });
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  return { connections, problems };
}
