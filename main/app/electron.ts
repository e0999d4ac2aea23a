// The Electron main process: one hardened window that loads the built renderer from a private
// `lakerec://app/` scheme, and IPC handlers generated from shared/api.ts that call the same
// service web mode serves.
//
// Hardening, each line on purpose:
// - webPreferences: contextIsolation, sandbox, no nodeIntegration (anywhere), webSecurity,
//   no webview, no insecure content; preload is the only bridge (contextBridge).
// - CSP on every response of our scheme (header) and in index.html (meta).
// - No remote content: every http(s)/ws request from any page is cancelled.
// - Navigation, redirects, new windows and <webview> attachment are refused; permission
//   requests and checks are denied.
// - IPC: only the channels of shared/api.ts, only from our own page, requests validated.
import {
  app, BrowserWindow, dialog, ipcMain, protocol, session, utilityProcess, type IpcMainInvokeEvent, type UtilityProcess, type WebContents,
} from 'electron';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import {
  apiMethods, IPC_CANCEL, IPC_PROGRESS, ipcChannel, isJobId, type ProgressEvent,
} from '../../shared/api';
import { ELECTRON_CSP } from './csp';
import { EngineHost, engineMemoryMb, type EngineSpawner } from './engine-host';
import type { DialogKind, EngineConfig, EngineToHost, HostToEngine } from './engine-protocol';
import { defaultSample, resolveSamples } from './samples';
import { runHistoryDir } from './screens';

const SCHEME = 'lakerec';
const APP_HOST = 'app';
const APP_ORIGIN = `${SCHEME}://${APP_HOST}`;

export interface ElectronAppOptions {
  /** The repository (or packaged app) root: holds dist/ and sample-lakes/. */
  appRoot: string;
  /** Arguments after the script: a folder to open, if any. */
  argv: string[];
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

// Must run before `ready`: our scheme behaves like https (secure context, same-origin rules).
// supportFetchAPI lets Chromium's module loader fetch the bundle's ES modules from the scheme (the
// page itself still cannot fetch: CSP connect-src 'none'); corsEnabled stays off so no other
// origin could ever read from it.
protocol.registerSchemesAsPrivileged([
  { scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: false } },
]);

function isOwnPage(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${SCHEME}:` && u.host === APP_HOST;
  } catch {
    return false;
  }
}

function hardenSession(rendererDir: string): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
  // No remote content, ever: the window's only origin is lakerec://app.
  ses.webRequest.onBeforeRequest({ urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] }, (_details, callback) => {
    callback({ cancel: true });
  });
  // The policy is written out here (not imported) so a static scanner can read and judge it;
  // csp.test.ts checks that it is exactly ELECTRON_CSP. 'self' is lakerec://app, which serves
  // only our own built bundle (no JSONP, no user uploads): reviewed, see ADR 0006.
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { // eng-disable CSP_GLOBAL_CHECK (reviewed: 'self' = our bundle only)
        ...details.responseHeaders,
        'Content-Security-Policy': ["default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-src 'none'; worker-src 'none'; connect-src 'none'; frame-ancestors 'none'"],
      },
    });
  });

  const root = resolve(rendererDir);
  protocol.handle(SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST || request.method !== 'GET') return new Response('not found', { status: 404 });
    let rel = decodeURIComponent(url.pathname);
    if (rel === '/' || rel === '') rel = '/index.html';
    const file = normalize(join(root, rel));
    if (!file.startsWith(root + sep)) return new Response('not found', { status: 404 });
    try {
      const body = await readFile(file);
      return new Response(body, {
        status: 200,
        headers: {
          'Content-Type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
          'Content-Security-Policy': ELECTRON_CSP,
          'X-Content-Type-Options': 'nosniff',
          'Cache-Control': 'no-store',
        },
      });
    } catch {
      return new Response('not found', { status: 404 });
    }
  });
}

function lockDownContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/** The window's engine processes: Electron utility processes running dist/main/engine-worker.js. */
export function utilitySpawner(entry: string, config: EngineConfig, memoryMb: number, log: (line: string) => void): EngineSpawner {
  return (lane) => {
    const child: UtilityProcess = utilityProcess.fork(entry, [], {
      env: { ...process.env, LAKEREC_ENGINE_CONFIG: JSON.stringify(config) },
      execArgv: [`--max-old-space-size=${memoryMb}`],
      stdio: 'pipe',
      serviceName: `lakerec engine (${lane})`,
    });
    let fatal: string | null = null;
    child.stderr?.on('data', (b: Buffer) => { for (const line of b.toString('utf8').split('\n')) if (line.trim()) log(`engine: ${line}`); });
    return {
      send: (msg: HostToEngine) => { try { child.postMessage(msg); } catch { /* exited */ } },
      onMessage: (fn) => { child.on('message', (m: unknown) => fn(m as EngineToHost)); },
      onExit: (fn) => {
        // 'error' (FatalError: V8 out of memory, ...) comes before 'exit'.
        child.on('error', (type: string, location: string) => { fatal = `${type} at ${location}`; });
        child.on('exit', (code: number) => fn(fatal ? (/heap|memory/i.test(fatal) ? `out of memory: over its ${memoryMb} MB heap ceiling` : fatal) : `exit code ${code}`));
      },
      kill: () => { child.kill(); },
    };
  };
}

export function runElectronApp(opts: ElectronAppOptions): void {
  const distDir = join(opts.appRoot, 'dist');
  const rendererDir = join(distDir, 'renderer');
  const preload = join(distDir, 'preload', 'index.cjs');
  // The user's app-data folder is <appData>/lakerec however Electron was launched (a script path
  // would otherwise make it <appData>/Electron); tests and portable installs may point elsewhere.
  app.setName('lakerec');
  app.setPath('userData', process.env.LAKEREC_USER_DATA ? resolve(process.env.LAKEREC_USER_DATA) : join(app.getPath('appData'), 'lakerec'));
  const initialTable = opts.argv.find((a) => !a.startsWith('-')) ?? null;

  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  app.enableSandbox();

  let win: BrowserWindow | null = null;

  app.on('web-contents-created', (_event, contents) => lockDownContents(contents));
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.on('window-all-closed', () => app.quit());

  void app.whenReady().then(async () => {
    hardenSession(rendererDir);

    const userDataDir = app.getPath('userData');
    // `--sample` (what `npm start` passes without a folder): open a bundled sample lake.
    const wantSample = opts.argv.includes('--sample');
    // Packaged, the sample lakes are an extra resource outside app.asar (DuckDB reads them).
    const lakesRoot = app.isPackaged ? process.resourcesPath : opts.appRoot;
    const sampleTables = await resolveSamples(lakesRoot, userDataDir, wantSample);
    // The engine runs in an Electron utility process (engine-host.ts): a hostile table can fail
    // a job but cannot freeze or kill the window. The dialogs stay here and answer by message.
    const log = (line: string) => process.stderr.write(line + '\n');
    const memoryMb = engineMemoryMb();
    const dialogs: Record<DialogKind, (defaultName?: string) => Promise<string | null>> = {
      pickFolder: async () => {
        const options = { title: 'Open a Delta table folder', properties: ['openDirectory' as const] };
        const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
        return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0];
      },
      pickSource: async () => {
        const options = {
          title: 'Choose the source of truth',
          properties: ['openFile' as const],
          filters: [{ name: 'Parquet, CSV, JSON lines', extensions: ['parquet', 'csv', 'tsv', 'json', 'jsonl', 'ndjson'] }],
        };
        const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
        return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0];
      },
      // The engine checks the chosen path against the tables and writes the file itself.
      saveFile: async (defaultName) => {
        const options = { title: 'Save the incident report', defaultPath: defaultName, filters: [{ name: 'HTML', extensions: ['html'] }] };
        const r = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
        return r.canceled || !r.filePath ? null : r.filePath;
      },
    };
    const dispatcher = new EngineHost({
      spawn: utilitySpawner(join(distDir, 'main', 'engine-worker.js'), {
        mode: 'electron', userDataDir, dialogs: true,
        runsDir: runHistoryDir(process.env.LAKEREC_USER_DATA ? userDataDir : null),
        initialTable: initialTable ?? (wantSample ? defaultSample(sampleTables)?.path ?? null : null),
        sampleTables, cwd: process.cwd(),
      }, memoryMb, log),
      memoryMb, log,
      dialog: (kind, defaultName) => dialogs[kind](defaultName),
    });
    app.on('will-quit', () => dispatcher.close());

    const fromOwnPage = (event: IpcMainInvokeEvent): boolean =>
      win !== null && event.sender === win.webContents && isOwnPage(event.senderFrame?.url ?? '');

    for (const method of apiMethods) {
      ipcMain.handle(ipcChannel(method), async (event, payload: unknown) => {
        if (!fromOwnPage(event)) return { ok: false, error: { code: 'usage', message: 'Refused: IPC from a page that is not the workbench.' } };
        const p = (typeof payload === 'object' && payload !== null ? payload : {}) as { request?: unknown; jobId?: unknown };
        const jobId = isJobId(p.jobId) ? p.jobId : null;
        const sender = event.sender;
        return dispatcher.call(method, p.request, {
          jobId,
          onProgress: (e: ProgressEvent) => {
            if (!sender.isDestroyed()) sender.send(IPC_PROGRESS, e);
          },
        });
      });
    }
    ipcMain.handle(IPC_CANCEL, (event, jobId: unknown) => {
      if (!fromOwnPage(event) || !isJobId(jobId)) return false;
      return dispatcher.cancel(jobId);
    });

    win = new BrowserWindow({
      width: 1280,
      height: 800,
      minWidth: 880,
      minHeight: 520,
      title: 'lakerec',
      show: false,
      backgroundColor: '#f6f7f9',
      webPreferences: {
        // The preload is reviewed: it exposes four functions (invoke on allow-listed channels,
        // cancel, onProgress, pathForFile) and never ipcRenderer itself. See preload/index.ts.
        preload, // eng-disable PRELOAD_JS_CHECK (reviewed)
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        experimentalFeatures: false,
        webviewTag: false,
        navigateOnDragDrop: false,
        spellcheck: false,
        // Middle-click must not open anything either (setWindowOpenHandler denies it too).
        disableBlinkFeatures: 'Auxclick',
      },
    });
    win.once('ready-to-show', () => win?.show());
    win.on('closed', () => {
      win = null;
    });
    await win.loadURL(`${APP_ORIGIN}/index.html`);
  });
}
