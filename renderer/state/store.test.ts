// The store's flow over a scripted ApiClient (the real transports are covered by the e2e).
import { describe, expect, it } from 'vitest';
import { NO_WHO } from '../../shared/forensics';
import { ApiCallError, type ApiClient, type ApiMethod, type ApiRequest, type ApiResponse, type InvokeOptions } from '../../shared/api';
import { createWindowStore } from './store';

type Script = Partial<{ [M in ApiMethod]: (req: ApiRequest<M>, opts?: InvokeOptions) => Promise<ApiResponse<M>> }>;

function client(script: Script): ApiClient & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    invoke<M extends ApiMethod>(method: M, request: ApiRequest<M>, opts?: InvokeOptions): Promise<ApiResponse<M>> {
      calls.push(method);
      const f = script[method] as ((r: ApiRequest<M>, o?: InvokeOptions) => Promise<ApiResponse<M>>) | undefined;
      if (!f) return Promise.reject(new ApiCallError({ code: 'internal', message: `unscripted ${method}` }));
      return f(request, opts);
    },
    pathForDroppedFile: () => null,
    uploadFile: () => Promise.reject(new ApiCallError({ code: 'usage', message: 'no uploads here' })),
  };
}

const summary = (path: string) => ({
  path, name: path.split('/').pop()!, latestVersion: 1, oldestCommitVersion: 0, commitCount: 2, lastCommitAt: 0,
  partitionColumns: [], tableName: null, minReaderVersion: 1, minWriterVersion: 2,
});
const head = (path: string, n = 2) => ({ path, name: path.split('/').pop()!, latestVersion: n - 1, commitCount: n, versions: [row(n - 1)] });
const row = (version: number) => ({ version, timestamp: 0, operation: 'WRITE', operationParameters: {}, writer: null, who: NO_WHO, addedFiles: 1, removedFiles: 0 });

describe('workbench store', () => {
  it('boots and opens the initial table: its header and the log read, no second list of the versions (the History tab picks the timeline\'s)', async () => {
    const c = client({
      appInfo: async () => ({ version: '0.1.0', mode: 'web', canPickFolder: false, canResolveDroppedFiles: false, canPickSource: false, canSaveFiles: false, initialTable: '/t/a', sampleTables: [] }),
      recentTables: async () => ({ tables: [] }),
      historyHead: async ({ path }) => ({ head: head(path) }),
      openTable: async ({ path }, opts) => {
        opts?.onProgress?.({ phase: 'reading log', done: 1, total: 2 });
        return { table: summary(path), recent: [{ path, name: 'a', openedAt: 1 }] };
      },
    });
    const store = createWindowStore(c);
    await store.getState().boot();
    const s = store.getState();
    expect(c.calls).toEqual(['appInfo', 'recentTables', 'historyHead', 'openTable']);
    expect(s.table).toMatchObject({ path: '/t/a', status: 'ready', progress: null, error: null, summary: { path: '/t/a', commitCount: 2 } });
    expect(s.recent.map((r) => r.path)).toEqual(['/t/a']);
  });

  it('a Cancel while the first page is read ends the open there: the log read (which remembers the table) is never asked for', async () => {
    let releaseHead: () => void = () => {};
    const c = client({
      // historyHead is not a job the engine can stop: it answers after the Cancel.
      historyHead: async ({ path }) => { await new Promise<void>((r) => { releaseHead = r; }); return { head: head(path) }; },
      openTable: async ({ path }) => ({ table: summary(path), recent: [{ path, name: 'a', openedAt: 1 }] }),
    });
    const store = createWindowStore(c);
    const opening = store.getState().openTable('/t/a');
    await new Promise((r) => setTimeout(r, 0));
    store.getState().cancelOpen();
    releaseHead();
    await opening;
    expect(c.calls).toEqual(['historyHead']);
    expect(store.getState().table).toMatchObject({ status: 'error', error: { code: 'cancelled' } });
    expect(store.getState().recent).toEqual([]);
  });

  it('shows a typed error, and a newer open wins over a slower older one', async () => {
    let releaseSlow: () => void = () => {};
    const c = client({
      historyHead: async ({ path }) => ({ head: head(path) }),
      openTable: async ({ path }) => {
        if (path === '/slow') await new Promise<void>((r) => { releaseSlow = r; });
        if (path === '/bad') throw new ApiCallError({ code: 'log_corrupt', message: 'broken' });
        return { table: summary(path), recent: [] };
      },
    });
    const store = createWindowStore(c);
    await store.getState().openTable('/bad');
    expect(store.getState().table).toMatchObject({ status: 'error', error: { code: 'log_corrupt', message: 'broken' } });

    const slow = store.getState().openTable('/slow');
    await store.getState().openTable('/fast');
    releaseSlow();
    await slow;
    expect(store.getState().table).toMatchObject({ path: '/fast', status: 'ready' });
  });

  it('paints the first page of the history before the whole log is read, its bar determinate from the listing', async () => {
    let releaseOpen: () => void = () => {};
    const c = client({
      historyHead: async ({ path }) => ({ head: head(path, 10_000) }),
      openTable: async ({ path }) => {
        await new Promise<void>((r) => { releaseOpen = r; });
        return { table: summary(path), recent: [] };
      },
    });
    const store = createWindowStore(c);
    const opening = store.getState().openTable('/t/long');
    await new Promise((r) => setTimeout(r, 10));
    // The first page is in, the open is still reading: loading, with the log's size known.
    expect(store.getState().table).toMatchObject({ status: 'loading', summary: null, head: { commitCount: 10_000 }, progress: { done: 1, total: 10_000 } });
    releaseOpen();
    await opening;
    expect(store.getState().table).toMatchObject({ status: 'ready', head: { commitCount: 10_000 }, summary: { path: '/t/long' } });
  });

  it('asks for a path instead of calling the engine with an empty one', async () => {
    const c = client({});
    const store = createWindowStore(c);
    await store.getState().openTable('   ');
    expect(c.calls).toEqual([]);
    expect(store.getState().notice?.code).toBe('usage');
  });
});
