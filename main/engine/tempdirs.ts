// Every temp folder lakerec makes (DuckDB spill, web uploads, mutation and proof sandboxes, the
// writer's and the memory store's scratch) comes from makeTempDir and carries one name:
//   lakerec-<kind>-<pid>-<start>-XXXXXX
// with the pid and the start time of the process that made it (the start tells a pid the system
// gave again to another process). The folder is removed by its owner at the end of the job, at
// exit and on SIGINT/SIGTERM; a crash (SIGKILL, the OOM killer, a power cut) cannot, so every start
// (the CLI, the engine process, the web server) removes the folders of processes that are gone:
// ours only (same owner), never a live process's. The lint rule in build/eslint-fs-writes.mjs
// refuses mkdtemp anywhere else in the product, so no folder escapes this cleanup.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { guardOutputPath } from './outputs';

export const TEMP_KINDS = ['duck', 'uploads', 'mutate', 'proof', 'mem', 'rows', 'cp', 'cache'] as const;
export type TempKind = (typeof TEMP_KINDS)[number];

const KIND = `(${TEMP_KINDS.join('|')})`;
const NAMED = new RegExp(`^lakerec-${KIND}-(\\d+)-([ke][0-9a-z]+)-[A-Za-z0-9]{6}$`);
/** Round two's names: the pid, no start time. */
const PID_ONLY = new RegExp(`^lakerec-${KIND}-(\\d+)-[A-Za-z0-9]{6}$`);
/** Names before the pid was in them: stale once a day old. */
const LEGACY = new RegExp(`^lakerec-${KIND}-[A-Za-z0-9]{6}$`);
const LEGACY_AGE_MS = 24 * 3600 * 1000;

/** A process's start time as the kernel counts it (clock ticks since boot), where /proc has it. */
function procStart(pid: number | 'self'): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state is field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[22 - 3]);
    return Number.isFinite(ticks) ? 'k' + ticks.toString(36) : null;
  } catch {
    return null;
  }
}

let ownStart: string | null = null;
/** This process's start token: the kernel's ticks (k...), else the wall-clock start in ms (e...). */
export function startToken(): string {
  ownStart ??= procStart('self') ?? 'e' + Math.round(Date.now() - process.uptime() * 1000).toString(36);
  return ownStart;
}

const live = new Set<string>();
let hooked = false;
function removeLive(): void {
  for (const d of live) {
    try { rmSync(d, { recursive: true, force: true }); } catch { /* best effort at exit */ }
  }
  live.clear();
}
function onSignal(sig: NodeJS.Signals): void {
  removeLive();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  // Nobody else handles the signal: its default action (exit) happens now that the folders are gone.
  if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
}

/**
 * A fresh 0700 temp folder for `kind`, named with this process's pid and start time. Refused
 * (usage) when the temp folder itself lies inside a table (TMPDIR pointed into one). Removed at
 * exit or on SIGINT/SIGTERM if its owner has not removed it.
 */
export function makeTempDir(kind: TempKind, parent = tmpdir()): string {
  guardOutputPath(join(parent, `lakerec-${kind}`), 'the temp folder');
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, `lakerec-${kind}-${process.pid}-${startToken()}-`));
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', removeLive);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return dir;
}

/** Removes a folder made by makeTempDir (and forgets it). */
export function removeTempDir(dir: string): void {
  live.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Does the process that named a folder `pid`/`start` still run? (A reused pid does not count.) */
function alive(pid: number, start: string | null): boolean {
  if (pid === process.pid) return start === null || start === startToken();
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: the pid exists (another user's process); only ESRCH means it is gone.
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (start !== null && start.startsWith('k')) {
    const now = procStart(pid);
    if (now !== null && now !== start) return false;
  }
  return true;
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
    const m = NAMED.exec(name) ?? PID_ONLY.exec(name);
    const legacy = !m && LEGACY.test(name);
    if (!m && !legacy) continue;
    const p = join(parent, name);
    try {
      const st = lstatSync(p);
      if (!st.isDirectory() || (uid !== null && st.uid !== uid)) continue;
      if (m && alive(Number(m[2]), m[3] ?? null)) continue;
      if (legacy && Date.now() - st.mtimeMs < LEGACY_AGE_MS) continue;
      rmSync(p, { recursive: true, force: true });
      removed.push(p);
    } catch {
      // raced with another start, or not ours to remove
    }
  }
  return removed;
}
