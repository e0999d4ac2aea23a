// The transport-neutral call path: validate the method name and the request against
// shared/api.ts, run the handler with a JobContext (progress + cancellation), and turn every
// outcome into an ApiResult. IPC and HTTP are thin wrappers around `call` and `cancel`.
import {
  apiSpec, isApiMethod, isJobId, validateRequest, type ApiHandlers, type ApiMethod, type ApiResult,
  type ProgressEvent,
} from '../../shared/api';
import { LakerecError, toErrorData } from '../../shared/errors';
import type { JobContext } from '../../shared/jobs';

export interface CallOptions {
  jobId: string | null;
  onProgress?: (e: ProgressEvent) => void;
}

/** What a transport needs of the engine: the Dispatcher itself, or an EngineHost in front of an engine process. */
export interface CallDispatcher {
  call(method: unknown, request: unknown, opts: CallOptions): Promise<ApiResult<unknown>>;
  cancel(jobId: string): boolean;
}

export class Dispatcher implements CallDispatcher {
  private readonly jobs = new Map<string, AbortController>();
  /** Cancels that arrived before their call (a fast click on Cancel); kept briefly. */
  private readonly early = new Map<string, number>();

  constructor(private readonly handlers: ApiHandlers, private readonly log: (line: string) => void = () => {}) {}

  async call(method: unknown, request: unknown, opts: CallOptions): Promise<ApiResult<unknown>> {
    try {
      if (!isApiMethod(method)) {
        throw new LakerecError('usage', `Unknown API method "${String(method).slice(0, 80)}".`);
      }
      const req = validateRequest(method, request);
      const jobId = opts.jobId;
      if (jobId !== null && !isJobId(jobId)) throw new LakerecError('usage', 'Bad job id.');
      const controller = new AbortController();
      const ctx: JobContext = { signal: controller.signal };
      if (jobId !== null && apiSpec[method].job) {
        if (this.jobs.has(jobId)) throw new LakerecError('usage', `Job ${jobId} is already running.`);
        this.jobs.set(jobId, controller);
        if (this.early.delete(jobId)) controller.abort();
        if (opts.onProgress) {
          const emit = opts.onProgress;
          ctx.progress = (progress) => emit({ jobId, method, progress });
        }
      }
      try {
        const value = await this.invoke(method, req, ctx);
        return { ok: true, value };
      } finally {
        if (jobId !== null) this.jobs.delete(jobId);
      }
    } catch (e) {
      const error = toErrorData(e);
      if (error.code === 'internal') this.log(`internal error in ${String(method)}: ${e instanceof Error ? e.stack : String(e)}`);
      return { ok: false, error };
    }
  }

  /** Fires the job's AbortSignal; true when the job was running. */
  cancel(jobId: string): boolean {
    if (!isJobId(jobId)) return false;
    const c = this.jobs.get(jobId);
    if (c) {
      c.abort();
      return true;
    }
    const now = Date.now();
    for (const [id, t] of this.early) if (now - t > 60_000) this.early.delete(id);
    this.early.set(jobId, now);
    return false;
  }

  /** Jobs still running (for tests and shutdown). */
  get running(): number {
    return this.jobs.size;
  }

  private invoke<M extends ApiMethod>(method: M, req: unknown, ctx: JobContext): Promise<unknown> {
    const handler = this.handlers[method] as (r: unknown, c: JobContext) => Promise<unknown>;
    return handler(req, ctx);
  }
}
