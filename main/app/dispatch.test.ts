import { describe, expect, it } from 'vitest';
import type { ApiHandlers } from '../../shared/api';
import { throwIfCancelled } from '../../shared/jobs';
import { Dispatcher } from './dispatch';

function handlers(over: Partial<ApiHandlers>): ApiHandlers {
  const never = async () => { throw new Error('not used'); };
  return {
    appInfo: never, openTable: never, listVersions: never, recentTables: never, forgetRecent: never, pickFolder: never,
    ...over,
  } as ApiHandlers;
}

describe('Dispatcher', () => {
  it('validates the method and the request before the engine sees them', async () => {
    let reached = false;
    const d = new Dispatcher(handlers({ openTable: async () => { reached = true; throw new Error('no'); } }));
    expect(await d.call('nope', {}, { jobId: null })).toMatchObject({ ok: false, error: { code: 'usage' } });
    expect(await d.call('openTable', { path: '' }, { jobId: null })).toMatchObject({ ok: false, error: { code: 'usage' } });
    expect(await d.call('openTable', { path: '/x', extra: 1 }, { jobId: null })).toMatchObject({ ok: false, error: { code: 'usage' } });
    expect(await d.call('openTable', { path: '/x' }, { jobId: 'bad id!' })).toMatchObject({ ok: false, error: { code: 'usage' } });
    expect(await d.call('__proto__', {}, { jobId: null })).toMatchObject({ ok: false, error: { code: 'usage' } });
    expect(reached).toBe(false);
  });

  it('turns a raw exception into `internal` data, never a throw', async () => {
    const d = new Dispatcher(handlers({ recentTables: async () => { throw new TypeError('boom'); } }));
    // A JavaScript runtime error names what failed, not the engine's internals.
    expect(await d.call('recentTables', {}, { jobId: null })).toEqual({ ok: false, error: { code: 'internal', message: 'unexpected failure (TypeError): the input has a shape this build does not recognise; LAKEREC_DEBUG=1 prints the trace' } });
    const plain = new Dispatcher(handlers({ recentTables: async () => { throw new Error('boom\nsecond line'); } }));
    expect(await plain.call('recentTables', {}, { jobId: null })).toEqual({ ok: false, error: { code: 'internal', message: 'boom' } });
    const duck = new Dispatcher(handlers({ recentTables: async () => { throw new Error('Binder Error: no such column\nLINE 1: SELECT x'); } }));
    expect(await duck.call('recentTables', {}, { jobId: null })).toEqual({ ok: false, error: { code: 'io_error', message: 'DuckDB could not run the query: Binder Error: no such column' } });
  });

  it('cancels a running job, and a job whose cancel arrived first', async () => {
    const d = new Dispatcher(handlers({
      listVersions: async (_r, ctx) => {
        for (;;) {
          throwIfCancelled(ctx);
          await new Promise((r) => setTimeout(r, 5));
        }
      },
    }));
    const p = d.call('listVersions', { path: '/t' }, { jobId: 'job-aaaaaaaa' });
    await new Promise((r) => setTimeout(r, 20));
    expect(d.running).toBe(1);
    expect(d.cancel('job-aaaaaaaa')).toBe(true);
    expect(await p).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(d.running).toBe(0);

    expect(d.cancel('job-bbbbbbbb')).toBe(false);
    expect(await d.call('listVersions', { path: '/t' }, { jobId: 'job-bbbbbbbb' })).toMatchObject({ ok: false, error: { code: 'cancelled' } });
  });
});
