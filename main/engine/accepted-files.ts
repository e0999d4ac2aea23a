// A file that came with a table or a repository (a contract found beside a table, a connection
// file in a repository), from whoever wrote it, is not used until the user accepts it once; the
// acceptance is remembered per real path and content hash (a changed file must be accepted
// again), in the app-data folder. Moved here from main/app/contract-trust.ts so the CLI can keep
// accepted connection files under the same rule (behaviour unchanged).
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { JsonListFile } from './json-list';

export const ACCEPTED_CONTRACTS_FILE = 'accepted-contracts.json';
const MAX_ENTRIES = 500;

interface Entry { path: string; sha256: string; acceptedAt: string }

export function sha256Of(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function realOrResolved(p: string): string {
  try { return realpathSync(p); } catch { return resolve(p); }
}

export class AcceptedContracts {
  private readonly store: JsonListFile<Entry>;
  /** `fileName`: another list under the same rule (the CLI keeps accepted connection files). */
  constructor(userDataDir: string, fileName = ACCEPTED_CONTRACTS_FILE, warn?: (line: string) => void) {
    this.store = new JsonListFile<Entry>({
      file: join(userDataDir, fileName), what: 'the accepted files list', max: MAX_ENTRIES, keep: 'last', mode: 0o600,
      isEntry: (e): e is Entry => typeof (e as Entry | null)?.path === 'string' && typeof (e as Entry | null)?.sha256 === 'string',
      ...(warn ? { warn } : {}),
    });
  }

  isAccepted(path: string, sha256: string): boolean {
    const p = realOrResolved(path);
    return this.store.read().some((e) => e.path === p && e.sha256 === sha256);
  }

  accept(path: string, sha256: string): void {
    const p = realOrResolved(path);
    this.store.update((list) => [...list.filter((e) => !(e.path === p && e.sha256 === sha256)), { path: p, sha256, acceptedAt: new Date().toISOString() }]);
  }
}
