// The one way in to a table: a location (a folder, file://, s3://, abfss://, az://, gs://) parsed
// once, its store chosen by main/storage, its log listed and parsed by the DeltaTable it returns.
// The table object is the investigation handle: it owns the parsed log (listing, commits,
// checkpoints, snapshots, the one history), so a screen or command that holds it never re-opens
// the table; engine functions take the handle or a snapshot, not a root path.
import { displayLocation, parseLocation, type Location } from '../../shared/location';
import { storageFor, type StorageOptions } from '../storage';
import { DeltaTable, type OpenOptions } from './table';

export interface OpenTableOptions extends OpenOptions {
  /** Unsigned / anonymous requests for a remote location (a public bucket): an explicit choice; default the run's (`--anonymous`). */
  anonymous?: boolean;
  /** The environment the remote clients read (credentials, endpoints); default the run's (the CLI's io.env, storage/settings.ts), else process.env. */
  env?: NodeJS.ProcessEnv;
  cache?: StorageOptions['cache'];
  /** Cancel: a remote table's requests in flight are aborted, new ones refused. */
  signal?: AbortSignal;
}

/** The handle an investigation holds (the parsed log; see above). */
export type TableHandle = DeltaTable;

/** Opens the table at a location. Throws `usage` for a bad location, `not_found`, `not_a_delta_table`, ... */
export async function openTable(location: string | Location, opts: OpenTableOptions = {}): Promise<TableHandle> {
  const loc = typeof location === 'string' ? parseLocation(location) : location;
  const storage = await storageFor(loc, opts);
  return DeltaTable.openStorage(storage, loc, { latestOnly: opts.latestOnly });
}

export { displayLocation };
