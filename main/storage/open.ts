// The one way from a location to a store: a parsed Location picks the local folder or the object
// store for its kind. Everything above main/storage asks for a table by location (delta/open.ts
// openTable), never for a store by class.
import type { Location } from '../../shared/location';
import { LocalStorage } from './local';
import { ObjectStorage, type ObjectClient } from './object';
import { readLimits, type ReadLimits } from './limits';
import type { Storage } from './storage';
import type { BlobCache } from './cache';
import { storeSettings } from './settings';

export interface StorageOptions {
  allowOutsidePaths?: boolean;
  limits?: Partial<ReadLimits>;
  /** Unsigned / anonymous requests for this remote location (a public bucket): an explicit choice. */
  anonymous?: boolean;
  /** The environment the clients read; default the run's (storage/settings.ts). */
  env?: NodeJS.ProcessEnv;
  cache?: BlobCache;
  /** Cancels the store's requests (a remote table's transfers stop with the job). */
  signal?: AbortSignal;
}

/** The store for a location. Throws `not_found` / `not_a_folder` for a local folder that is not one. */
export async function storageFor(loc: Location, opts: StorageOptions = {}): Promise<Storage> {
  // The run's settings (the CLI's io.env and --anonymous) unless the caller gave its own.
  const run = storeSettings();
  const env = opts.env ?? run.env;
  const anonymous = opts.anonymous ?? run.anonymous;
  const limits = { ...readLimits({}, env), ...opts.limits };
  if (loc.kind === 'local') return new LocalStorage(loc.path, { allowOutsidePaths: opts.allowOutsidePaths, limits });
  let client: ObjectClient;
  // Each SDK is loaded only when a location of its kind is opened (a local open pays for none).
  if (loc.kind === 's3') {
    const { S3ObjectClient } = await import('./s3');
    client = new S3ObjectClient(loc, { anonymous, env });
  } else if (loc.kind === 'azure') {
    const { AzureObjectClient } = await import('./azure');
    client = new AzureObjectClient(loc, { anonymous, env });
  } else {
    const { GcsObjectClient } = await import('./gcs');
    client = new GcsObjectClient(loc, { anonymous, env });
  }
  return new ObjectStorage(loc, client, { allowOutsidePaths: opts.allowOutsidePaths, limits, cache: opts.cache, signal: opts.signal });
}
