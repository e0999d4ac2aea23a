// The one atomic commit (PROTOCOL.md, "Commit Protocol"): version N exists once, whole, and only
// the first writer to create it wins. The writer, the proof's log (main/proof/delta-log.ts) and the
// demo table (main/app/demo-table.ts) all commit through commitVersion.
//
// The primitive is writeIfAbsent: the bytes go to a temporary name and are then hard-linked to the
// final name, which fails when the name exists, so a concurrent writer's file is never replaced
// and no reader sees a partial file. It is the writer's half of the storage seam's
// `writeIfAbsent` (main/delta/storage, ADR 0008); once that seam is on main this file calls it.
import { randomUUID } from 'node:crypto';
import { closeSync, linkSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Action } from '../../../shared/delta';
import { LakerecError } from '../../../shared/errors';

export function versionFileName(v: number): string {
  return `${String(v).padStart(20, '0')}.json`;
}

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

/**
 * Creates `path` with `bytes` only if nothing is there: true when written, false when the name
 * was taken (by another writer). Never replaces an existing file.
 */
export function writeIfAbsent(path: string, bytes: Uint8Array | string): boolean {
  const tmp = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  writeFileSync(tmp, bytes, { flag: 'wx' });
  try {
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if (errno(e) === 'EEXIST') return false;
    // File systems without hard links: exclusive create (the existence check is atomic, the
    // content is written after it).
    if (['EPERM', 'ENOTSUP', 'ENOSYS', 'EXDEV'].includes(errno(e) ?? '')) return createExclusive(path, bytes);
    throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
}

function createExclusive(path: string, bytes: Uint8Array | string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (e) {
    if (errno(e) === 'EEXIST') return false;
    throw e;
  }
  try {
    const b = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    let off = 0;
    while (off < b.length) off += writeSync(fd, b, off, b.length - off);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Replaces `path` atomically (a reader sees the old file or the new one): `_last_checkpoint` only. */
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
 * Writes `actions` as version `version` of the table whose log is `logDir`, atomically. When the
 * version exists the commit is lost: `conflict()` says how (default: commit_conflict naming the
 * version). Any other failure is io_error. Returns the commit file's path.
 */
export function commitVersion(logDir: string, version: number, actions: Action[], conflict?: () => LakerecError): string {
  const final = join(logDir, versionFileName(version));
  let won: boolean;
  try {
    won = writeIfAbsent(final, commitText(actions));
  } catch (e) {
    throw new LakerecError('io_error', `could not write ${final}: ${(e as Error).message}`, { path: final });
  }
  if (!won) {
    throw conflict?.() ?? new LakerecError('commit_conflict', `version ${version} was committed by another writer first`, { version });
  }
  return final;
}
