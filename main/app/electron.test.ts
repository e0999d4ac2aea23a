// The Electron main process's wiring, run against a recording stand-in for the `electron` module
// (Electron's binary cannot be downloaded here; e2e/electron.e2e.ts runs the real app where it
// can). What is checked is ours: the window's hardening options, the scheme and its CSP, the IPC
// allow-list and sender check, navigation/new-window/permission refusals. The service behind IPC
// is the real one, on a real table.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiMethods, IPC_CANCEL, ipcChannel, type ApiResult } from '../../shared/api';
import { writeDemoTable } from './demo-table';

type Fn = (...args: never[]) => unknown;

const rec = vi.hoisted(() => ({
  appEvents: new Map<string, Fn>(),
  ipc: new Map<string, Fn>(),
  privileged: [] as unknown[],
  protocolHandler: null as null | ((req: Request) => Promise<Response>),
  windows: [] as { options: Record<string, unknown>; url: string | null; webContents: object }[],
  permission: null as null | Fn,
  beforeRequest: null as null | { filter: { urls: string[] }; fn: Fn },
  userData: '',
  sandboxEnabled: false,
}));

vi.mock('electron', () => {
  class BrowserWindow {
    webContents = { id: 1, isDestroyed: () => false, send: () => {} };
    constructor(options: Record<string, unknown>) {
      rec.windows.push({ options, url: null, webContents: this.webContents });
    }
    once() {}
    on() {}
    show() {}
    isMinimized() { return false; }
    async loadURL(url: string) { rec.windows[rec.windows.length - 1].url = url; }
  }
  return {
    app: {
      isPackaged: false,
      setName: () => {},
      setPath: (name: string, value: string) => { if (name === 'userData') rec.userData = value; },
      getPath: (name: string) => (name === 'appData' ? join(tmpdir(), 'appData') : rec.userData),
      requestSingleInstanceLock: () => true,
      enableSandbox: () => { rec.sandboxEnabled = true; },
      on: (event: string, fn: Fn) => { rec.appEvents.set(event, fn); },
      whenReady: () => Promise.resolve(),
      quit: () => {},
    },
    BrowserWindow,
    dialog: { showOpenDialog: async () => ({ canceled: true, filePaths: [] }) },
    ipcMain: { handle: (channel: string, fn: Fn) => { rec.ipc.set(channel, fn); } },
    protocol: {
      registerSchemesAsPrivileged: (s: unknown[]) => { rec.privileged.push(...s); },
      handle: (_scheme: string, fn: (req: Request) => Promise<Response>) => { rec.protocolHandler = fn; },
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (fn: Fn) => { rec.permission = fn; },
        setPermissionCheckHandler: () => {},
        setDevicePermissionHandler: () => {},
        webRequest: {
          onBeforeRequest: (filter: { urls: string[] }, fn: Fn) => { rec.beforeRequest = { filter, fn }; },
          onHeadersReceived: () => {},
        },
      },
    },
  };
});

let dir: string;
let table: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-electron-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
  process.env.LAKEREC_USER_DATA = join(dir, 'user-data');
  const appRoot = join(dir, 'app');
  mkdirSync(join(appRoot, 'dist', 'renderer', 'assets'), { recursive: true });
  writeFileSync(join(appRoot, 'dist', 'renderer', 'index.html'), '<!doctype html><title>x</title>');
  writeFileSync(join(appRoot, 'dist', 'renderer', 'assets', 'app.js'), 'export {};');
  writeFileSync(join(dir, 'secret.txt'), 'not for the page');
  const { runElectronApp } = await import('./electron');
  runElectronApp({ appRoot, argv: [table] });
  await vi.waitFor(() => expect(rec.windows[0]?.url).toBeTruthy());
});

afterAll(() => {
  delete process.env.LAKEREC_USER_DATA;
  rmSync(dir, { recursive: true, force: true });
});

function ownEvent(url = 'lakerec://app/index.html') {
  return { sender: rec.windows[0].webContents, senderFrame: { url } };
}

describe('Electron main process', () => {
  it('keeps its app data in the folder given (else <appData>/lakerec)', () => {
    expect(rec.userData).toBe(join(dir, 'user-data'));
  });

  it('opens one hardened window on its private scheme', () => {
    expect(rec.sandboxEnabled).toBe(true);
    expect(rec.privileged).toEqual([{ scheme: 'lakerec', privileges: expect.objectContaining({ standard: true, secure: true, corsEnabled: false }) }]);
    const w = rec.windows[0];
    expect(w.url).toBe('lakerec://app/index.html');
    expect(w.options.webPreferences).toMatchObject({
      contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false, webSecurity: true, allowRunningInsecureContent: false,
      webviewTag: false, navigateOnDragDrop: false, disableBlinkFeatures: 'Auxclick',
      preload: join(dir, 'app', 'dist', 'preload', 'index.cjs'),
    });
  });

  it('serves only the built renderer, with the CSP', async () => {
    const get = (url: string) => rec.protocolHandler!(new Request(url));
    const page = await get('lakerec://app/index.html');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'none'");
    expect((await get('lakerec://app/assets/app.js')).headers.get('content-type')).toContain('javascript');
    expect((await get('lakerec://app/..%2F..%2Fsecret.txt')).status).toBe(404);
    expect((await get('lakerec://other/index.html')).status).toBe(404);
  });

  it('answers the API on one allow-listed channel per method, only for its own page', async () => {
    expect([...rec.ipc.keys()].sort()).toEqual([...apiMethods.map(ipcChannel), IPC_CANCEL].sort());
    const listVersions = rec.ipc.get(ipcChannel('listVersions'))! as (e: unknown, p: unknown) => Promise<ApiResult<{ versions: { version: number }[] }>>;
    const ok = await listVersions(ownEvent(), { request: { path: table }, jobId: 'job-electron-1' });
    expect(ok.ok && ok.value.versions.map((v) => v.version)).toEqual([3, 2, 1, 0]);
    const foreignFrame = await listVersions(ownEvent('https://example.com/'), { request: { path: table }, jobId: null });
    expect(foreignFrame).toMatchObject({ ok: false, error: { code: 'usage' } });
    const foreignSender = await listVersions({ sender: {}, senderFrame: { url: 'lakerec://app/index.html' } }, { request: { path: table } });
    expect(foreignSender).toMatchObject({ ok: false });
    const bad = await listVersions(ownEvent(), { request: { path: 7 } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'usage' } });
    const appInfo = rec.ipc.get(ipcChannel('appInfo'))! as (e: unknown, p: unknown) => Promise<ApiResult<{ mode: string; initialTable: string; canPickFolder: boolean }>>;
    expect(await appInfo(ownEvent(), { request: {} })).toMatchObject({ ok: true, value: { mode: 'electron', initialTable: table, canPickFolder: true, canPickSource: true, canSaveFiles: true } });
  });

  it('refuses navigation, redirects, new windows, webviews, permissions and remote requests', () => {
    const handlers = new Map<string, Fn>();
    let openHandler: Fn | null = null;
    const contents = {
      on: (event: string, fn: Fn) => { handlers.set(event, fn); },
      setWindowOpenHandler: (fn: Fn) => { openHandler = fn; },
    };
    (rec.appEvents.get('web-contents-created') as (e: unknown, c: unknown) => void)({}, contents);
    for (const event of ['will-navigate', 'will-redirect', 'will-attach-webview']) {
      const e = { preventDefault: vi.fn() };
      (handlers.get(event) as (e: unknown) => void)(e);
      expect(e.preventDefault).toHaveBeenCalled();
    }
    expect((openHandler as unknown as () => unknown)()).toEqual({ action: 'deny' });
    const answer = vi.fn();
    (rec.permission as unknown as (wc: unknown, p: string, cb: (ok: boolean) => void) => void)({}, 'media', answer);
    expect(answer).toHaveBeenCalledWith(false);
    expect(rec.beforeRequest!.filter.urls).toEqual(expect.arrayContaining(['http://*/*', 'https://*/*']));
    const cancel = vi.fn();
    (rec.beforeRequest!.fn as unknown as (d: unknown, cb: (r: unknown) => void) => void)({}, cancel);
    expect(cancel).toHaveBeenCalledWith({ cancel: true });
  });
});
