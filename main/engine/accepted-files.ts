// A file that came with a table or a repository (a contract found beside a table, a connection
// file in a repository), from whoever wrote it, is not used until the user accepts it once; the
// acceptance is remembered per real path and content hash (a changed file must be accepted
// again), in the app-data folder. Moved here from main/app/contract-trust.ts so the CLI can keep
// accepted connection files under the same rule (behaviour unchanged).
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { ensureOutputDir, writeOutput } from './outputs';
import { dirname, join, resolve } from 'node:path';

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
  private readonly file: string;
  /** `fileName`: another list under the same rule (the CLI keeps accepted connection files). */
  constructor(userDataDir: string, fileName = ACCEPTED_CONTRACTS_FILE) {
    this.file = join(userDataDir, fileName);
  }

  private read(): Entry[] {
    try {
      const v: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      return Array.isArray(v) ? v.filter((e): e is Entry => typeof e?.path === 'string' && typeof e?.sha256 === 'string') : [];
    } catch {
      return [];
    }
  }

  isAccepted(path: string, sha256: string): boolean {
    const p = realOrResolved(path);
    return this.read().some((e) => e.path === p && e.sha256 === sha256);
  }

  accept(path: string, sha256: string): void {
    const p = realOrResolved(path);
    const kept = this.read().filter((e) => !(e.path === p && e.sha256 === sha256));
    kept.push({ path: p, sha256, acceptedAt: new Date().toISOString() });
    ensureOutputDir(dirname(this.file), 'the accepted files list folder');
    writeOutput(this.file, JSON.stringify(kept.slice(-MAX_ENTRIES), null, 1), { what: 'the accepted files list', mode: 0o600 });
  }
}
