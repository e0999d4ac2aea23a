// The renderer's one way to reach the engine. It picks the transport once at start-up:
// Electron's preload bridge (`window.lakerec`) when present, else HTTP + a server-sent event
// stream to the web-mode server that served this page. Everything above this file sees only
// ApiClient (shared/api.ts) and cannot tell the two apart.
import {
  ApiCallError, HTTP_API_PREFIX, HTTP_CANCEL_PATH, HTTP_EVENTS_PATH, HTTP_JOB_HEADER, HTTP_UPLOAD_PATH, type UploadableFile,
  type ApiClient, type ApiMethod, type ApiRequest, type ApiResponse, type ApiResult, type InvokeOptions,
  type LakerecBridge, type ProgressEvent,
} from '../../shared/api';
import { isLakerecErrorData, type LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import { parseSseFrames } from './sse';

declare global {
  interface Window {
    lakerec?: LakerecBridge;
  }
}

function newJobId(): string {
  return crypto.randomUUID();
}

function unwrap<T>(result: ApiResult<unknown>): T {
  if (result.ok) return result.value as T;
  throw new ApiCallError(result.error);
}

/** Listeners of running jobs, keyed by job id; both transports route progress through it. */
class ProgressRouter {
  private readonly listeners = new Map<string, (p: Progress) => void>();
  add(jobId: string, f: (p: Progress) => void): void {
    this.listeners.set(jobId, f);
  }
  remove(jobId: string): void {
    this.listeners.delete(jobId);
  }
  deliver(e: ProgressEvent): void {
    this.listeners.get(e.jobId)?.(e.progress);
  }
}

export function createIpcClient(bridge: LakerecBridge): ApiClient {
  const router = new ProgressRouter();
  bridge.onProgress((e) => router.deliver(e));
  return {
    async invoke<M extends ApiMethod>(method: M, request: ApiRequest<M>, opts?: InvokeOptions): Promise<ApiResponse<M>> {
      const jobId = newJobId();
      if (opts?.onProgress) router.add(jobId, opts.onProgress);
      const onAbort = () => void bridge.cancel(jobId);
      opts?.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        if (opts?.signal?.aborted) onAbort();
        return unwrap<ApiResponse<M>>(await bridge.invoke(method, request, jobId));
      } finally {
        router.remove(jobId);
        opts?.signal?.removeEventListener('abort', onAbort);
      }
    },
    pathForDroppedFile(file: object): string | null {
      try {
        return bridge.pathForFile(file) || null;
      } catch {
        return null;
      }
    },
    uploadFile(): Promise<{ path: string }> {
      // The desktop app reads a dropped file where it is (pathForDroppedFile): nothing is copied.
      return Promise.reject(new ApiCallError({ code: 'usage', message: 'The desktop app reads files in place: drop the file, or choose it with the file dialog.' }));
    },
  };
}

const TOKEN_KEY = 'lakerec.token';

/** The launch token from `#token=...` (then removed from the address bar), else this tab's copy. */
export function takeToken(loc: Location, store: Storage, hist: History): string | null {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(loc.hash);
  if (m) {
    store.setItem(TOKEN_KEY, m[1]);
    hist.replaceState(null, '', loc.pathname + loc.search);
    return m[1];
  }
  return store.getItem(TOKEN_KEY);
}

async function readResult(res: Response): Promise<ApiResult<unknown>> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return { ok: false, error: { code: 'internal', message: `The workbench server answered HTTP ${res.status} without a result.` } };
  }
  const b = body as { ok?: unknown; value?: unknown; error?: unknown };
  if (b.ok === true) return { ok: true, value: b.value };
  const error: LakerecErrorData = isLakerecErrorData(b.error)
    ? b.error
    : { code: 'internal', message: `The workbench server answered HTTP ${res.status}.` };
  return { ok: false, error };
}

export function createHttpClient(base: string, token: string | null): ApiClient {
  const router = new ProgressRouter();
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  let stream: Promise<void> | null = null;

  // One long-lived progress stream (fetch, not EventSource, so the token stays in a header).
  const connect = (): Promise<void> => {
    if (stream) return stream;
    stream = new Promise<void>((ready) => {
      void (async () => {
        try {
          const res = await fetch(`${base}${HTTP_EVENTS_PATH}`, { headers: auth, cache: 'no-store' });
          ready();
          if (!res.ok || !res.body) throw new Error(`event stream HTTP ${res.status}`);
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buffer = '';
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buffer += value;
            const { events, rest } = parseSseFrames(buffer);
            buffer = rest;
            for (const ev of events) if (ev.event === 'progress') router.deliver(JSON.parse(ev.data) as ProgressEvent);
          }
        } catch {
          ready();
        }
        // Dropped: the next job reconnects.
        stream = null;
      })();
    });
    return stream;
  };

  return {
    async invoke<M extends ApiMethod>(method: M, request: ApiRequest<M>, opts?: InvokeOptions): Promise<ApiResponse<M>> {
      const jobId = newJobId();
      if (opts?.onProgress) {
        router.add(jobId, opts.onProgress);
        await connect();
      }
      const onAbort = () => {
        void fetch(`${base}${HTTP_CANCEL_PATH}`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ jobId }),
        }).catch(() => {});
      };
      opts?.signal?.addEventListener('abort', onAbort, { once: true });
      // Aborted while the progress stream was connecting: the listener came too late to hear it.
      if (opts?.signal?.aborted) onAbort();
      try {
        let res: Response;
        try {
          res = await fetch(`${base}${HTTP_API_PREFIX}${method}`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json', [HTTP_JOB_HEADER]: jobId },
            body: JSON.stringify(request ?? {}),
            cache: 'no-store',
          });
        } catch {
          throw new ApiCallError({ code: 'disconnected', message: 'The workbench server is not answering: it was stopped, or the connection dropped. Nothing was read or changed.' });
        }
        return unwrap<ApiResponse<M>>(await readResult(res));
      } finally {
        router.remove(jobId);
        opts?.signal?.removeEventListener('abort', onAbort);
      }
    },
    pathForDroppedFile(): string | null {
      // A browser never reveals where a dropped folder lives.
      return null;
    },
    async uploadFile(file: UploadableFile, opts?: { signal?: AbortSignal }): Promise<{ path: string }> {
      let res: Response;
      try {
        res = await fetch(`${base}${HTTP_UPLOAD_PATH}?name=${encodeURIComponent(file.name)}`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/octet-stream' },
          body: file as unknown as Blob,
          cache: 'no-store',
          signal: opts?.signal,
        });
      } catch {
        if (opts?.signal?.aborted) throw new ApiCallError({ code: 'cancelled', message: 'The upload was cancelled.' });
        throw new ApiCallError({ code: 'disconnected', message: 'The workbench server is not answering: it was stopped, or the connection dropped. The file was not sent.' });
      }
      return unwrap<{ path: string }>(await readResult(res));
    },
  };
}

/** The client for this page. */
export function createClient(): ApiClient {
  if (window.lakerec) return createIpcClient(window.lakerec);
  return createHttpClient(window.location.origin, takeToken(window.location, window.sessionStorage, window.history));
}
