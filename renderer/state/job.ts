// The one job lifecycle every store uses: a newer call wins (the older one is aborted in the
// engine and its late answers are ignored), progress while it runs, then done or error.
import type { StoreApi } from 'zustand/vanilla';
import { ApiCallError, type ApiClient } from '../../shared/api';
import { toErrorData, type LakerecErrorData } from '../../shared/errors';
import { progressGate, type Progress } from '../../shared/jobs';

/** What a screen shows for a job: not started, running, finished, failed. */
export type JobStatus = 'idle' | 'running' | 'done' | 'error';

/** Any failure as the typed error the screens show. */
export function errorOf(e: unknown): LakerecErrorData {
  return e instanceof ApiCallError ? e.data : toErrorData(e);
}

/** What the work of one call gets: the signal to pass to `invoke`, and whether it is still the newest. */
export interface JobRun<P extends Progress = Progress> {
  readonly signal: AbortSignal;
  /** False once a newer call started or the job was dropped: the work must not write state. */
  current(): boolean;
  /** Pass to `invoke` as `onProgress`: forwards to `progress` while this call is the newest. */
  onProgress(p: P): void;
}

export interface JobHandlers<T, P extends Progress = Progress> {
  progress?(p: P): void;
  /** The newest call's result (awaited: a failure in it is reported through `error`). */
  done(value: T): void | Promise<void>;
  error(e: LakerecErrorData): void;
}

/** `P`: the progress the call reports (a method's `JobProgress<M>` carries its `data`). */
export interface Job<P extends Progress = Progress> {
  /** Start a call: aborts the previous one; handlers run only while this call is the newest. */
  run<T>(work: (run: JobRun<P>) => Promise<T>, handlers: JobHandlers<T, P>): Promise<void>;
  /** Abort the running call in the engine; it ends through `error` (code `cancelled`). */
  cancel(): void;
  /** Abort the running call and ignore whatever it still answers. */
  drop(): void;
}

/** The shortest time between two plain progress lines on screen (ms). */
const PROGRESS_MS = 100;

export function createJob<P extends Progress = Progress>(): Job<P> {
  let seq = 0;
  let controller: AbortController | null = null;
  return {
    async run(work, handlers) {
      controller?.abort();
      const mine = ++seq;
      const ac = new AbortController();
      controller = ac;
      const current = (): boolean => mine === seq;
      // Plain progress lines at most every PROGRESS_MS, the latest winning; bisect's probes (data) all pass.
      const gate = progressGate<P>((p) => { if (current()) handlers.progress?.(p); }, PROGRESS_MS);
      const onProgress = (p: P): void => {
        if (current()) gate.push(p);
      };
      const settle = (): void => gate.close();
      try {
        const value = await work({ signal: ac.signal, current, onProgress });
        settle();
        if (!current()) return;
        // Cancel was pressed and the answer crossed it on the way: the screen says cancelled, as asked.
        if (ac.signal.aborted) throw new ApiCallError({ code: 'cancelled', message: 'The job was cancelled.' });
        await handlers.done(value);
      } catch (e) {
        settle();
        if (!current()) return;
        handlers.error(errorOf(e));
      } finally {
        if (current()) controller = null;
      }
    },
    cancel() {
      controller?.abort();
    },
    drop() {
      controller?.abort();
      controller = null;
      seq++;
    },
  };
}

/** One store per client (per window), made on first use: every screen's store is made this way. */
export function perClient<S>(create: (client: ApiClient) => StoreApi<S>): (client: ApiClient) => StoreApi<S> {
  const stores = new WeakMap<ApiClient, StoreApi<S>>();
  return (client) => {
    let s = stores.get(client);
    if (!s) {
      s = create(client);
      stores.set(client, s);
    }
    return s;
  };
}
