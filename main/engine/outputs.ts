// The one way lakerec writes a file. Every output (a report, a baseline, a snapshot, the window's
// export, the app's own state files) goes through writeOutput / writeOutputWith, and every temp
// folder through tempdirs.ts, which asks guardOutputPath first. The lint rule `lakerec/no-fs-write`
// (eslint.config.js) fails any other module that imports an fs write API.
//
// The guard resolves the path to its real location (symlinks followed, dangling ones too; `..`
// collapsed; a missing tail appended to its nearest existing ancestor) and refuses it when it lies
//  - under a root it was given (setOutputRoots: the tables and sources of the command line; the
//    window passes the tables it opened per call), compared both as written and as resolved; or
//  - inside any Delta table at all: an ancestor folder holding `_delta_log`, whoever named it.
// It then writes atomically: a temp file in the same real folder, renamed over the target. A rename
// replaces the directory entry, never the file's bytes, so an existing output that is a hard link
// to a table file leaves that file untouched.
import { closeSync, existsSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { looksRemote } from '../../shared/location';

/** The most symlinks followed while resolving one path (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/**
 * The real location of `p`: every existing component resolved (symlinks followed, dangling ones
 * too), the missing tail appended as written.
 */
export function realOutputPath(p: string): string {
  const abs = resolve(p);
  let cur = parse(abs).root;
  let pending = abs.slice(cur.length).split(sep).filter(Boolean);
  let links = 0;
  while (pending.length) {
    const name = pending.shift() as string;
    const next = join(cur, name);
    let st;
    try {
      st = lstatSync(next);
    } catch {
      // Missing: the rest cannot be a symlink yet; it is created as written.
      return resolve(next, ...pending);
    }
    if (st.isSymbolicLink()) {
      if (++links > MAX_LINKS) throw new LakerecError('usage', `${p}: too many symbolic links`, { path: p });
      const to = resolve(cur, readlinkSync(next));
      cur = parse(to).root;
      pending = [...to.slice(cur.length).split(sep).filter(Boolean), ...pending];
      continue;
    }
    cur = next;
  }
  return cur;
}

function under(child: string, root: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

/** The Delta table (a folder holding `_delta_log`) that `real` lies in, or null. */
export function enclosingTable(real: string): string | null {
  for (let d = real; ; d = dirname(d)) {
    if (basename(d) === '_delta_log') return dirname(d);
    try {
      if (statSync(join(d, '_delta_log')).isDirectory()) return d;
    } catch {
      // no log here
    }
    if (dirname(d) === d) return null;
  }
}

let roots: string[] = [];

/** The tables and sources this command reads: no output may land under them (the CLI's dispatcher sets them). */
export function setOutputRoots(list: readonly string[]): void {
  roots = list.map((r) => resolve(r));
}

function refuse(what: string, abs: string, root: string): never {
  throw new LakerecError('usage', `${what} ${abs} is inside the table ${root}: lakerec never writes into a table; choose a path outside it`, { path: abs });
}

/**
 * Throws `usage` (exit 2) when the output `path` (named to the user as `what`, e.g. "--out")
 * would land inside a table or a root; returns its real location, the path to write.
 */
export function guardOutputPath(path: string, what: string, extraRoots: readonly string[] = []): string {
  if (path.includes('\0')) throw new LakerecError('usage', `${what}: a path cannot hold a NUL byte`);
  // Outputs are local only: lakerec never writes to a remote location (a report, a baseline, a copy).
  if (looksRemote(path)) {
    throw new LakerecError('usage', `${what} names a remote location (${path.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*).*$/, '$1/…')}): lakerec never writes to remote storage; give a path on this machine`);
  }
  const abs = resolve(path);
  const real = realOutputPath(abs);
  for (const root of [...roots, ...extraRoots]) {
    if (looksRemote(root)) continue;
    const rootAbs = resolve(root);
    if (under(abs, rootAbs) || under(real, realOutputPath(rootAbs))) refuse(what, abs, rootAbs);
  }
  const table = enclosingTable(real) ?? enclosingTable(abs);
  if (table !== null) refuse(what, abs, table);
  return real;
}

export interface OutputOptions {
  /** How the user named the output ("--html", "the report"): the refusal and errors say it. */
  what: string;
  /** Roots beyond the process's own (a reconcile's target and source). */
  roots?: readonly string[];
  /** Keep the current content and add to it (a CI step summary), still written atomically. */
  append?: boolean;
  /** File mode of a new file (default 0o644 less the umask). */
  mode?: number;
  /**
   * Create the file only if it does not exist (a lock): the complete content appears at once
   * (link of the written temp file), or the call fails with code EEXIST and nothing changes.
   */
  exclusive?: boolean;
}

function tempBeside(real: string): string {
  return join(dirname(real), `.${basename(real)}.lakerec-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
}

function ioError(what: string, path: string, e: unknown): LakerecError {
  if (e instanceof LakerecError) return e;
  return new LakerecError('io_error', `cannot write ${what} ${path}: ${(e as Error).message}`, { path });
}

/** Re-checks the folder just before the rename: a folder swapped for a link since is refused. */
function recheck(real: string, what: string, extraRoots: readonly string[]): void {
  if (guardOutputPath(real, what, extraRoots) !== real) {
    throw new LakerecError('usage', `${what} ${real} changed while it was written (a folder was replaced by a link); nothing written`, { path: real });
  }
}

/** Writes `data` to `path` through the guard, atomically. Returns the real path written. */
export function writeOutput(path: string, data: string | Uint8Array, o: OutputOptions): string {
  const extra = o.roots ?? [];
  const real = guardOutputPath(path, o.what, extra);
  const tmp = tempBeside(real);
  try {
    mkdirSync(dirname(real), { recursive: true });
    const before = o.append && existsSync(real) ? readFileSync(real) : null;
    const fd = openSync(tmp, 'wx', o.mode ?? 0o644);
    try {
      if (before) writeSync(fd, before);
      if (typeof data === 'string') writeSync(fd, data, null, 'utf8');
      else writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    recheck(real, o.what, extra);
    if (o.exclusive) {
      linkSync(tmp, real);
      rmSync(tmp, { force: true });
    } else {
      renameSync(tmp, real);
    }
    return real;
  } catch (e) {
    rmSync(tmp, { force: true });
    if (o.exclusive && (e as NodeJS.ErrnoException).code === 'EEXIST') throw e;
    throw ioError(o.what, path, e);
  }
}

/** Removes a file lakerec wrote for itself (a lock, a state file), through the same guard. */
export function removeOwnFile(path: string, what: string): void {
  rmSync(guardOutputPath(path, what), { force: true });
}

/**
 * For a writer that must write the file itself (DuckDB's COPY ... TO): `produce` gets a temp path
 * beside the real target and writes there; the guard then renames it into place.
 */
export async function writeOutputWith(path: string, o: Omit<OutputOptions, 'append'>, produce: (tmpPath: string, realPath: string) => Promise<void>): Promise<string> {
  const extra = o.roots ?? [];
  const real = guardOutputPath(path, o.what, extra);
  const tmp = tempBeside(real);
  try {
    mkdirSync(dirname(real), { recursive: true });
    await produce(tmp, real);
    recheck(real, o.what, extra);
    renameSync(tmp, real);
    return real;
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw ioError(o.what, path, e);
  }
}

/** A folder lakerec keeps its own state in (the run history, the app data): guarded, then made. */
export function ensureOutputDir(dir: string, what: string, mode = 0o700): string {
  const real = guardOutputPath(dir, what);
  mkdirSync(real, { recursive: true, mode });
  return real;
}
