// The one job lifecycle: a newer call wins, the older is aborted, progress only from the newest.
import { describe, expect, it, vi } from 'vitest';
import { ApiCallError } from '../../shared/api';
import type { Progress } from '../../shared/jobs';
import { createJob, errorOf } from './job';

function held<T>() {
  let resolve: (v: T) => void = () => {};
  let reject: (e: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

describe('createJob', () => {
  it('lets the newer call win: the older is aborted and its late answer and progress are ignored', async () => {
    const job = createJob();
    const seen: string[] = [];
    const slow = held<string>();
    let slowSignal: AbortSignal | null = null;
    let slowProgress: ((p: Progress) => void) | null = null;
    const first = job.run(({ signal, onProgress }) => { slowSignal = signal; slowProgress = onProgress; return slow.promise; }, {
      progress: (p) => seen.push(`progress ${p.phase}`),
      done: (v) => { seen.push(`done ${v}`); },
      error: (e) => seen.push(`error ${e.code}`),
    });
    const second = job.run(async ({ onProgress }) => { onProgress({ phase: 'b', done: 1, total: 2 }); return 'b'; }, {
      progress: (p) => seen.push(`progress ${p.phase}`),
      done: (v) => { seen.push(`done ${v}`); },
      error: (e) => seen.push(`error ${e.code}`),
    });
    await second;
    expect(slowSignal!.aborted).toBe(true);
    slowProgress!({ phase: 'a', done: 1, total: null });
    slow.resolve('a');
    await first;
    expect(seen).toEqual(['progress b', 'done b']);
  });

  it('cancel wins over an answer that crossed it: the screen says cancelled, not the late result', async () => {
    const job = createJob();
    const seen: string[] = [];
    const answer = held<string>();
    const run = job.run(() => answer.promise, {
      done: (v) => { seen.push(`done ${v}`); },
      error: (e) => seen.push(`error ${e.code}`),
    });
    job.cancel();
    answer.resolve('finished anyway'); // the engine had already answered
    await run;
    expect(seen).toEqual(['error cancelled']);
  });

  it('cancel aborts the call, which still ends through error; drop ignores what it answers', async () => {
    const job = createJob();
    const seen: string[] = [];
    const handlers = { done: (v: string) => { seen.push(`done ${v}`); }, error: (e: { code: string }) => seen.push(`error ${e.code}`) };
    const aborted = (signal: AbortSignal) => new Promise<string>((_, rej) => signal.addEventListener('abort', () => rej(new ApiCallError({ code: 'cancelled', message: 'x' }))));
    const a = job.run(({ signal }) => aborted(signal), handlers);
    job.cancel();
    await a;
    const b = job.run(({ signal }) => aborted(signal), handlers);
    job.drop();
    await b;
    expect(seen).toEqual(['error cancelled']);
  });

  it('reports a failure in done as the error, and any throw as a typed error', async () => {
    const job = createJob();
    const errors: string[] = [];
    await job.run(async () => 1, { done: () => { throw new ApiCallError({ code: 'log_corrupt', message: 'bad' }); }, error: (e) => errors.push(e.code) });
    expect(errors).toEqual(['log_corrupt']);
    expect(errorOf(new Error('boom')).code).toBe('internal');
  });

  it('shows plain progress of one phase at most every 100 ms (the latest wins), a new phase and every progress with data at once, and none after the end', async () => {
    vi.useFakeTimers();
    try {
      const job = createJob<Progress & { data?: { probe: number } }>();
      const seen: string[] = [];
      const gate = held<string>();
      let report: ((p: Progress & { data?: { probe: number } }) => void) | null = null;
      const run = job.run(({ onProgress }) => { report = onProgress; return gate.promise; }, {
        progress: (p) => seen.push(p.data ? `probe ${p.data.probe}` : `read ${p.done}`),
        done: () => { seen.push('done'); },
        error: (e) => seen.push(`error ${e.code}`),
      });
      for (let i = 1; i <= 50; i++) report!({ phase: 'reading log', done: i, total: 100 });
      expect(seen).toEqual(['read 1']); // the first at once, the rest held
      vi.advanceTimersByTime(100);
      expect(seen).toEqual(['read 1', 'read 50']); // only the latest of those
      report!({ phase: 'reading log', done: 60, total: 100 });
      report!({ phase: 'probing', done: 1, total: 2, data: { probe: 7 } }); // flushes the held line first
      report!({ phase: 'probing', done: 2, total: 2, data: { probe: 8 } });
      expect(seen).toEqual(['read 1', 'read 50', 'read 60', 'probe 7', 'probe 8']);
      report!({ phase: 'probing', done: 2, total: 3 }); // held: the same phase, within 100 ms
      report!({ phase: 'replaying', done: 5, total: 9 }); // a new phase: at once
      report!({ phase: 'replaying', done: 6, total: 9 }); // held, then dropped by the end
      gate.resolve('x');
      await run;
      vi.advanceTimersByTime(500);
      expect(seen).toEqual(['read 1', 'read 50', 'read 60', 'probe 7', 'probe 8', 'read 2', 'read 5', 'done']);
    } finally {
      vi.useRealTimers();
    }
  });
});
