// Long jobs report progress and can be cancelled, the same way in the engine, the CLI, IPC and
// web mode. Engine functions take an optional JobContext; the transports map it to events.
import { LakerecError } from './errors';

export interface Progress {
  /** What is happening, in words a user reads ("replaying log", "hashing target"). */
  phase: string;
  done: number;
  /** null when the total is not known yet. */
  total: number | null;
  message?: string;
}

export interface JobContext {
  signal?: AbortSignal;
  progress?: (p: Progress) => void;
}

/** Throws `cancelled` if the job's signal has fired. Call between units of work. */
export function throwIfCancelled(ctx: JobContext | undefined): void {
  if (ctx?.signal?.aborted) throw new LakerecError('cancelled', 'The job was cancelled.');
}

export function report(ctx: JobContext | undefined, p: Progress): void {
  ctx?.progress?.(p);
}

/** A progress stream that shows at most one plain line every `ms`. */
export interface ProgressGate<P> {
  push(p: P): void;
  /** The job ended: whatever is held is dropped (its answer says the rest). */
  close(): void;
}

/**
 * Coalesce a job's progress: a plain line (no `data`) of the same phase is passed at most every
 * `ms`, the latest winning (a log read reports one per commit: 10,000 messages, each crossing a
 * process and a socket and re-rendering the page, took CPU from the read itself); the first line
 * of a new phase, the last line (done = total) and every line with `data` (bisect's probes: each
 * one counts) pass at once, in order.
 */
export function progressGate<P>(show: (p: P) => void, ms: number, progressOf: (p: P) => Progress = (p) => p as Progress): ProgressGate<P> {
  // Every runtime shared/ runs in has timers; shared/ is type-checked without DOM or node types.
  const timers = globalThis as unknown as { setTimeout(f: () => void, ms: number): unknown; clearTimeout(t: unknown): void };
  let shownAt = -Infinity;
  let shownPhase: string | null = null;
  let held: P | null = null;
  let timer: unknown = null;
  const pass = (p: P): void => {
    shownAt = Date.now();
    shownPhase = progressOf(p).phase;
    show(p);
  };
  const flush = (): void => {
    if (timer) timers.clearTimeout(timer);
    timer = null;
    const p = held;
    held = null;
    if (p) pass(p);
  };
  return {
    push(p) {
      const pr = progressOf(p) as Progress & { data?: unknown };
      if (pr.data !== undefined || (pr.total !== null && pr.done >= pr.total) || pr.phase !== shownPhase) {
        flush();
        pass(p);
        return;
      }
      const wait = shownAt + ms - Date.now();
      if (wait <= 0) {
        // Due: shown now, whatever was held (older) dropped. A busy engine never runs the timer.
        if (timer) timers.clearTimeout(timer);
        timer = null;
        held = null;
        pass(p);
        return;
      }
      held = p;
      if (!timer) timer = timers.setTimeout(flush, Math.max(0, wait));
    },
    close() {
      if (timer) timers.clearTimeout(timer);
      timer = null;
      held = null;
    },
  };
}
