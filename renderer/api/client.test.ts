import { afterEach, describe, expect, it, vi } from 'vitest';
import { HTTP_CANCEL_PATH, HTTP_EVENTS_PATH, HTTP_JOB_HEADER, type ApiClient } from '../../shared/api';
import { pathFromDrop, type DropData } from '../ui/drop';
import { createHttpClient, takeToken } from './client';
import { parseSseFrames } from './sse';

describe('parseSseFrames', () => {
  it('parses complete frames, skips comments, keeps a partial frame for later', () => {
    const { events, rest } = parseSseFrames(': hello\n\nevent: progress\ndata: {"a":1}\n\nevent: progress\ndata: {"a"');
    expect(events).toEqual([{ event: 'progress', data: '{"a":1}' }]);
    expect(rest).toBe('event: progress\ndata: {"a"');
  });
});

describe('takeToken', () => {
  function fakes(hash: string) {
    const store = new Map<string, string>();
    const replaced: string[] = [];
    const loc = { hash, pathname: '/', search: '' } as Location;
    const storage = { setItem: (k: string, v: string) => store.set(k, v), getItem: (k: string) => store.get(k) ?? null } as unknown as Storage;
    const hist = { replaceState: (_d: unknown, _t: string, url: string) => replaced.push(url) } as unknown as History;
    return { loc, storage, hist, replaced };
  }
  it('takes the token from the fragment and removes it from the address bar', () => {
    const f = fakes('#token=abc_DEF-123');
    expect(takeToken(f.loc, f.storage, f.hist)).toBe('abc_DEF-123');
    expect(f.replaced).toEqual(['/']);
    // A reload (no fragment) keeps this tab's copy.
    const again = { ...f, loc: { hash: '', pathname: '/', search: '' } as Location };
    expect(takeToken(again.loc, f.storage, f.hist)).toBe('abc_DEF-123');
  });
  it('has no token when none was given', () => {
    const f = fakes('');
    expect(takeToken(f.loc, f.storage, f.hist)).toBeNull();
  });
});

describe('pathFromDrop', () => {
  const web: ApiClient = { invoke: () => Promise.reject(new Error('unused')), pathForDroppedFile: () => null, uploadFile: () => Promise.reject(new Error('unused')) };
  const desktop: ApiClient = { ...web, pathForDroppedFile: () => '/data/orders' };
  const drop = (types: Record<string, string>, files: { name: string }[] = []): DropData => ({
    files: files as unknown as ArrayLike<File>,
    types: Object.keys(types),
    getData: (f) => types[f] ?? '',
  });
  it('uses the real path where the transport knows it (Electron)', () => {
    expect(pathFromDrop(drop({}, [{ name: 'orders' }]), desktop)).toEqual({ path: '/data/orders' });
  });
  it('uses a file:// URI or an absolute path carried as text', () => {
    expect(pathFromDrop(drop({ 'text/uri-list': '# c\nfile:///data/t%20x\n' }), web)).toEqual({ path: 'file:///data/t%20x' });
    expect(pathFromDrop(drop({ 'text/plain': '/data/orders' }), web)).toEqual({ path: '/data/orders' });
    expect(pathFromDrop(drop({ 'text/plain': 'hello world' }), web)).toBeNull();
  });
  it('explains when a browser hides where a dropped folder is', () => {
    const r = pathFromDrop(drop({}, [{ name: 'orders' }]), web);
    expect(r && 'error' in r && r.error.message).toContain('"orders"');
  });
});

describe('createHttpClient', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends the cancel of a job aborted while the progress stream is still connecting', async () => {
    let streamUp: (r: Response) => void = () => {};
    const cancels: string[] = [];
    let jobId: string | null = null;
    vi.stubGlobal('fetch', (url: string, init?: RequestInit) => {
      if (url.endsWith(HTTP_EVENTS_PATH)) return new Promise<Response>((r) => { streamUp = r; });
      if (url.endsWith(HTTP_CANCEL_PATH)) {
        cancels.push((JSON.parse(String(init?.body)) as { jobId: string }).jobId);
        return Promise.resolve(new Response('{"ok":true,"value":{"cancelled":false}}'));
      }
      jobId = (init?.headers as Record<string, string>)[HTTP_JOB_HEADER];
      return Promise.resolve(new Response(JSON.stringify({ ok: false, error: { code: 'cancelled', message: 'cancelled' } })));
    });
    const client = createHttpClient('http://127.0.0.1:1', 't');
    const ac = new AbortController();
    const call = client.invoke('runProof', { engines: ['duckdb', 'arrow'] }, { signal: ac.signal, onProgress: () => {} });
    ac.abort();
    streamUp(new Response(new ReadableStream({ start() {} })));
    await expect(call).rejects.toMatchObject({ data: { code: 'cancelled' } });
    expect(jobId).not.toBeNull();
    expect(cancels).toEqual([jobId]);
  });
});
