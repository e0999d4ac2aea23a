// Temp folders the engine makes (DuckDB spill, web uploads) carry the pid of the process that made
// them: `lakerec-<kind>-<pid>-XXXXXX`. A crash cannot remove its own folders, so every start
// removes those of processes that are gone (ours only: same owner; a live pid is never touched).
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type TempKind = 'duck' | 'uploads' | 'cache';

const STALE = /^lakerec-(duck|uploads|cache)-(\d+)-[A-Za-z0-9]{6}$/;
/** Folders of versions before the pid was in the name: stale once a day old. */
const LEGACY = /^lakerec-(duck|uploads)-[A-Za-z0-9]{6}$/;
const LEGACY_AGE_MS = 24 * 3600 * 1000;

const live = new Set<string>();
let hooked = false;

/**
 * A fresh 0700 temp folder for `kind`, named with this process's pid. It is removed at process
 * exit if its owner has not removed it (a job still running when SIGTERM arrived).
 */
export function makeTempDir(kind: TempKind, parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, `lakerec-${kind}-${process.pid}-`));
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => { for (const d of live) rmSync(d, { recursive: true, force: true }); });
  }
  return dir;
}

/** Removes a folder made by makeTempDir (and forgets it). */
export function removeTempDir(dir: string): void {
  live.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the pid exists (another user's process); only ESRCH means it is gone.
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Removes the lakerec temp folders of processes that no longer run; returns what was removed. */
export function removeStaleTempDirs(parent = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return removed;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  for (const name of names) {
    const m = STALE.exec(name);
    const legacy = !m && LEGACY.test(name);
    if (!m && !legacy) continue;
    const p = join(parent, name);
    try {
      const st = lstatSync(p);
      if (!st.isDirectory() || (uid !== null && st.uid !== uid)) continue;
      if (m && alive(Number(m[2]))) continue;
      if (legacy && Date.now() - st.mtimeMs < LEGACY_AGE_MS) continue;
      rmSync(p, { recursive: true, force: true });
      removed.push(p);
    } catch {
      // raced with another start, or not ours to remove
    }
  }
  return removed;
}
