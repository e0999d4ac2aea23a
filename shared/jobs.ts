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
