// The workbench never writes into a table, not even where the user names a file: every output
// path (--out, --write-baseline, --html, --markdown, the window's report export) is resolved to
// its real location and refused when that lies under any table root the command reads.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { looksRemote } from '../../shared/location';

/** The real location of `p`: its own real path if it exists (a symlink is followed), else its parent's plus its name. */
export function realOutputPath(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    // Missing: resolve the nearest existing ancestor, then append the rest.
    let dir = dirname(abs);
    const rest = [basename(abs)];
    for (;;) {
      try {
        return resolve(realpathSync(dir), ...rest.reverse());
      } catch {
        const up = dirname(dir);
        if (up === dir) return abs;
        rest.push(basename(dir));
        dir = up;
      }
    }
  }
}

function under(child: string, root: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Throws `usage` (exit 2) when the output `path` (flag `what`, e.g. "--out") would land inside
 * one of `tableRoots`; returns the absolute path to write.
 */
export function assertOutsideTables(path: string, tableRoots: readonly string[], what: string): string {
  // Outputs are local only: lakerec never writes to a remote location (a report, a baseline, a copy).
  if (looksRemote(path)) {
    throw new LakerecError('usage', `${what} names a remote location (${path.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*).*$/, '$1/…')}): lakerec never writes to remote storage; give a path on this machine`);
  }
  const abs = resolve(path);
  const real = realOutputPath(abs);
  for (const root of tableRoots) {
    if (looksRemote(root)) continue;
    const rootAbs = resolve(root);
    const rootReal = realOutputPath(rootAbs);
    if (under(real, rootReal) || under(abs, rootAbs)) {
      throw new LakerecError('usage', `${what} ${abs} is inside the table ${rootAbs}: lakerec never writes into a table; choose a path outside it`, { path: abs });
    }
  }
  return abs;
}
