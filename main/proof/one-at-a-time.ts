// One proof at a time, across processes (the window and any CLI) and within one (the window).
//
// Across processes: a lock file `proof.lock` in the user's app-data folder (beside runs.duckdb)
// holds the running proof's id, pid and start time. It is created exclusively ('wx'); a lock
// whose pid is no longer alive is stale (a crashed or killed proof) and is replaced. The CLI is
// refused with the running proof's id (exit 2); the window waits for it.
// Within the window's process: a FIFO queue, each waiting proof told its position.
import { readFileSync, existsSync } from 'node:fs';
import { ensureOutputDir, removeOwnFile, writeOutput } from '../engine/outputs';
import { join } from 'node:path';
import { LakerecError } from '../../shared/errors';

export const PROOF_LOCK_FILE = 'proof.lock';

export interface ProofLockInfo {
  id: string;
  pid: number;
  startedAt: string;
  engines: [string, string];
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** The lock's holder, or null when there is none or it is stale (its process is gone, or the file is unreadable). */
export function currentProofLock(dir: string): ProofLockInfo | null {
  const path = join(dir, PROOF_LOCK_FILE);
  if (!existsSync(path)) return null;
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as ProofLockInfo;
    if (typeof info.id !== 'string' || typeof info.pid !== 'number' || typeof info.startedAt !== 'string') return null;
    return alive(info.pid) ? info : null;
  } catch {
    return null;
  }
}

export interface HeldLock {
  info: ProofLockInfo;
  release(): void;
}

/** Takes the lock or returns the running proof's holder. Replaces a stale lock. */
export function tryAcquireProofLock(dir: string, want: Omit<ProofLockInfo, 'pid'>): HeldLock | { heldBy: ProofLockInfo } {
  ensureOutputDir(dir, 'the proof lock folder');
  const path = join(dir, PROOF_LOCK_FILE);
  const info: ProofLockInfo = { ...want, pid: process.pid };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeOutput(path, JSON.stringify(info), { what: 'the proof lock', mode: 0o600, exclusive: true });
      return {
        info,
        release() {
          // Only our own lock is removed (a stale-lock takeover may have replaced it).
          try { if ((JSON.parse(readFileSync(path, 'utf8')) as ProofLockInfo).id === info.id) removeOwnFile(path, 'the proof lock'); } catch { /* gone already */ }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = currentProofLock(dir);
      if (holder) return { heldBy: holder };
      removeOwnFile(path, 'the proof lock'); // stale: its process is gone
    }
  }
  throw new LakerecError('io_error', `the proof lock ${path} could not be taken`);
}

/** The CLI's rule: take the lock, or refuse with the running proof's id (exit 2). */
export function acquireProofLockOrRefuse(dir: string, want: Omit<ProofLockInfo, 'pid'>): HeldLock {
  const r = tryAcquireProofLock(dir, want);
  if ('heldBy' in r) {
    const h = r.heldBy;
    throw new LakerecError('usage', `a proof is already running: ${h.id} (${h.engines.join(' -> ')}, pid ${h.pid}, started ${h.startedAt}); lakerec runs one proof at a time, try again when it ends`, { runningProof: h.id });
  }
  return r;
}

export interface QueueEvents {
  /** Called while waiting: 1 = next. `blockedBy` names a proof of another process holding the lock. */
  queued?(position: number, blockedBy: ProofLockInfo | null): void;
  signal?: AbortSignal;
}

/**
 * The window's queue: proofs run one after another, in the order they were started; a waiting
 * proof hears its position whenever it changes. The lock file is taken for each proof too, so a
 * CLI proof blocks the window's (which waits, polling) and the window's blocks the CLI's (refused).
 */
export class ProofQueue {
  private waiting: { wake: () => void; events: QueueEvents }[] = [];
  private running = false;

  constructor(private readonly lockDir: string, private readonly pollMs = 250) {}

  /** How many proofs wait (not counting the running one). */
  get length(): number { return this.waiting.length; }

  async run<T>(want: Omit<ProofLockInfo, 'pid'>, body: () => Promise<T>, events: QueueEvents = {}): Promise<T> {
    if (this.running || this.waiting.length) {
      await new Promise<void>((resolve, reject) => {
        const me = { wake: resolve, events };
        this.waiting.push(me);
        this.announce();
        events.signal?.addEventListener('abort', () => {
          const i = this.waiting.indexOf(me);
          if (i >= 0) { this.waiting.splice(i, 1); this.announce(); reject(new LakerecError('cancelled', 'the queued proof was cancelled before it started')); }
        }, { once: true });
      });
    }
    this.running = true;
    try {
      let lock = tryAcquireProofLock(this.lockDir, want);
      while ('heldBy' in lock) {
        events.queued?.(1, lock.heldBy);
        if (events.signal?.aborted) throw new LakerecError('cancelled', 'the queued proof was cancelled before it started');
        await new Promise((r) => setTimeout(r, this.pollMs));
        lock = tryAcquireProofLock(this.lockDir, want);
      }
      try { return await body(); } finally { lock.release(); }
    } finally {
      this.running = false;
      const next = this.waiting.shift();
      this.announce();
      next?.wake();
    }
  }

  private announce(): void {
    this.waiting.forEach((w, i) => w.events.queued?.(i + 1, null));
  }
}
