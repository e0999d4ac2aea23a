// The one atomic commit (PROTOCOL.md, "Commit Protocol"): version N exists once, whole, and only
// the first writer to create it wins. The writer, the proof's log (main/proof/delta-log.ts) and the
// demo table (main/app/demo-table.ts) all commit through commitVersion, over the storage seam's
// `writeIfAbsent` (main/storage, ADR 0008): on a local folder the bytes go to a temporary
// name that is then hard-linked to the final one, which fails when the name exists, so a
// concurrent writer's file is never replaced and no reader sees a partial file.
import { randomUUID } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Action } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { LocalStorage, type Storage } from '../storage';

export function versionFileName(v: number): string {
  return `${String(v).padStart(20, '0')}.json`;
}

/** The store a writer commits to: the table's local folder (which must exist). */
export function tableStorage(root: string): Storage {
  return new LocalStorage(root);
}

/**
 * Replaces `path` atomically (a reader sees the old file or the new one): `_last_checkpoint` only,
 * the one file of a log that is meant to be overwritten. Local folders only (not in the seam yet).
 */
export function replaceFile(path: string, bytes: Uint8Array | string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    writeFileSync(tmp, bytes, { flag: 'wx' });
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** A commit file's text: one JSON action per line. */
export function commitText(actions: Action[]): string {
  return actions.map((a) => JSON.stringify(a)).join('\n') + '\n';
}

/**
 * Writes `actions` as version `version` of the table in `store`, atomically. When the version
 * exists the commit is lost: `conflict()` says how (default: commit_conflict naming the version).
 * Any other failure is io_error. Returns how the commit file is named (its local path).
 */
export async function commitVersion(store: Storage, version: number, actions: Action[], conflict?: () => LakerecError): Promise<string> {
  const path = `_delta_log/${versionFileName(version)}`;
  const shown = store.describe(path);
  let won: boolean;
  try {
    won = await store.writeIfAbsent(path, Buffer.from(commitText(actions)));
  } catch (e) {
    if (e instanceof LakerecError) throw e;
    throw new LakerecError('io_error', `could not write ${shown}: ${(e as Error).message}`, { path: shown });
  }
  if (!won) {
    throw conflict?.() ?? new LakerecError('commit_conflict', `version ${version} was committed by another writer first`, { version });
  }
  return shown;
}
