// Turning what a user typed or dropped into a table root, with one clear message for each way
// it can be wrong (no folder, a file, not a Delta table, not readable).
import { readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LakerecError } from '../../shared/errors';
import { displayLocation, looksRemote, parseLocation } from '../../shared/location';

/** `~/x`, `file:///x` and relative paths (against the launch folder) to an absolute path. */
export function resolveUserPath(input: string, cwd = process.cwd()): string {
  let p = input.trim();
  // A table in object storage (s3://, abfss://, az://, gs://): the one parser, the one display string.
  if (looksRemote(p)) return displayLocation(parseLocation(p));
  if (p.startsWith('file://')) {
    try {
      p = fileURLToPath(p);
    } catch {
      throw new LakerecError('usage', `"${input}" is not a file URL this machine can open.`, { path: input });
    }
  }
  if (p === '~') p = homedir();
  else if (p.startsWith('~/')) p = join(homedir(), p.slice(2));
  const abs = isAbsolute(p) ? p : resolve(cwd, p);
  // A trailing separator or `.` segments would make the same table two recent entries.
  return resolve(abs);
}

export function ioError(e: unknown, path: string): LakerecError {
  const code = (e as { code?: string } | null)?.code;
  if (code === 'ENOENT') return new LakerecError('not_found', `Nothing exists at ${path}.`, { path });
  if (code === 'EACCES' || code === 'EPERM') {
    return new LakerecError('io_error', `Permission denied: ${path} cannot be read by this user.`, { path });
  }
  if (code === 'ENOTDIR') return new LakerecError('not_a_folder', `${path} is not a folder.`, { path });
  const msg = e instanceof Error ? e.message : String(e);
  return new LakerecError('io_error', `Could not read ${path}: ${msg}`, { path });
}

/** Checks that `root` is a readable folder holding a `_delta_log` folder; returns the log folder. */
export async function assertTableFolder(root: string): Promise<string> {
  // A remote location has no folder to check here: openTable's store lists it and says what is wrong.
  if (looksRemote(root)) return `${root}/_delta_log`;
  let s;
  try {
    s = await stat(root);
  } catch (e) {
    const err = ioError(e, root);
    if (err.code === 'not_found') throw new LakerecError('not_found', `No folder at ${root}.`, { path: root });
    throw err;
  }
  if (!s.isDirectory()) {
    throw new LakerecError('not_a_folder', `${root} is a file, not a folder. Open the folder that holds _delta_log.`, { path: root });
  }
  try {
    await readdir(root);
  } catch (e) {
    throw ioError(e, root);
  }
  const logDir = join(root, '_delta_log');
  let ls;
  try {
    ls = await stat(logDir);
  } catch (e) {
    const err = ioError(e, logDir);
    if (err.code === 'not_found') {
      throw new LakerecError('not_a_delta_table',
        `${root} is a folder but not a Delta table: it has no _delta_log folder.`, { path: root });
    }
    throw err;
  }
  if (!ls.isDirectory()) {
    throw new LakerecError('not_a_delta_table', `${root} is not a Delta table: _delta_log is a file, not a folder.`, { path: root });
  }
  return logDir;
}

// The name a list shows (one definition, beside the contract template that uses it too).
export { tableName } from '../views/contract-template';
