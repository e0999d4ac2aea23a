// Shared by the e2e files: fixtures (real Delta tables, good and bad), the web-mode server as a
// child process (started and always stopped), and Debian's Chromium through playwright-core.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { writeDemoTable } from '../main/app/demo-table';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');
export const artifacts = join(repoRoot, 'e2e', 'artifacts');
export const CHROMIUM = process.env.LAKEREC_CHROMIUM ?? '/usr/bin/chromium';

export interface Fixtures {
  dir: string;
  table: string;
  copy: string;
  third: string;
  broken: string;
  plain: string;
  file: string;
  userData: string;
}

export async function makeFixtures(): Promise<Fixtures> {
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-e2e-'));
  const table = join(dir, 'orders');
  await writeDemoTable(table);
  const copy = join(dir, 'orders-copy');
  cpSync(table, copy, { recursive: true });
  const third = join(dir, 'orders-third');
  cpSync(table, third, { recursive: true });
  const broken = join(dir, 'broken-log');
  cpSync(table, broken, { recursive: true });
  appendFileSync(join(broken, '_delta_log', '00000000000000000002.json'), '{"add": {"path": "x.parquet",\n');
  const plain = join(dir, 'just-a-folder');
  mkdirSync(plain);
  const file = join(dir, 'notes.txt');
  writeFileSync(file, 'not a table');
  const userData = join(dir, 'user-data');
  return { dir, table, copy, third, broken, plain, file, userData };
}

export interface WebMode {
  child: ChildProcess;
  origin: string;
  pageUrl: string;
  token: string;
  stop(): Promise<void>;
}

/** Starts `node dist/main/web.js ARGS` (or another launcher) and waits for the URL it prints. */
export function startWebMode(args: string[], userData: string, script = join(repoRoot, 'dist', 'main', 'web.js'), env: Record<string, string> = {}): Promise<WebMode & { output: () => string }> {
  const child = spawn(process.execPath, [script, ...args, '--no-open', '--user-data', userData], {
    cwd: repoRoot,
    env: { ...process.env, CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`web mode did not print its URL in 30 s\nstdout: ${out}\nstderr: ${err}`));
    }, 30_000);
    child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      // The banner ends with "Ctrl+C stops."; wait for all of it (it may arrive in pieces).
      const m = /open: (http:\/\/127\.0\.0\.1:\d+)\/#token=([A-Za-z0-9_-]+)[\s\S]*Ctrl\+C stops/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({ child, origin: m[1], token: m[2], pageUrl: `${m[1]}/#token=${m[2]}`, stop, output: () => out });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`web mode exited with ${code}\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

export function chromiumMissing(): string | null {
  return existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set LAKEREC_CHROMIUM)`;
}

export async function launchChromium(): Promise<Browser> {
  // Playwright gives each launch a fresh temporary profile (--user-data-dir) and removes it on close.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const coverageDir = process.env.LAKEREC_E2E_COVERAGE;
  if (coverageDir) collectRendererCoverage(browser, coverageDir);
  return browser;
}

/** The renderer bundle's URL (vite's dist/renderer/assets/index-HASH.js). */
const RENDERER_BUNDLE = /\/assets\/index-[\w-]+\.js$/;
let coverageFiles = 0;

/**
 * `npm run coverage`: every page of this browser records V8's JavaScript coverage (playwright-core's
 * coverage API), and the renderer bundle's part is written to DIR when the page or the browser
 * closes; build/coverage-summary.mjs maps it through the bundle's source map onto the sources.
 */
function collectRendererCoverage(browser: Browser, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const pages: Page[] = [];
  const save = async (page: Page, again = false) => {
    if (page.isClosed() || !pages.includes(page)) return;
    if (!again) pages.splice(pages.indexOf(page), 1);
    const entries = (await page.coverage.stopJSCoverage().catch(() => [])).filter((e) => RENDERER_BUNDLE.test(e.url));
    if (again) await page.coverage.startJSCoverage({ resetOnNavigation: false });
    if (!entries.length) return;
    writeFileSync(join(dir, `e2e-${process.pid}-${++coverageFiles}.json`), JSON.stringify(entries));
    // The bundle's source map beside it: a later build replaces dist/, and the map names the lines.
    for (const e of entries) {
      const name = `${e.url.slice(e.url.lastIndexOf('/') + 1)}.map`;
      const built = join(repoRoot, 'dist', 'renderer', 'assets', name);
      if (!existsSync(join(dir, name)) && existsSync(built)) cpSync(built, join(dir, name));
    }
  };
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (options) => {
    const page = await newPage(options);
    await page.coverage.startJSCoverage({ resetOnNavigation: false });
    pages.push(page);
    const close = page.close.bind(page);
    page.close = async (o) => { await save(page); return close(o); };
    // A new document drops the old one's scripts, and V8's coverage of them: written out first.
    const goto = page.goto.bind(page);
    page.goto = async (url, o) => { await save(page, true); return goto(url, o); };
    return page;
  };
  const close = browser.close.bind(browser);
  browser.close = async (o) => {
    for (const page of [...pages]) await save(page);
    return close(o);
  };
}

/** chromiumMissing(), printing why the file named LABEL is skipped when Chromium is absent. */
export function chromiumSkip(label: string): string | null {
  const missing = chromiumMissing();
  if (missing) process.stdout.write(`e2e ${label}: SKIPPED: ${missing}\n`);
  return missing;
}

export interface ChromiumSession {
  server: WebMode;
  browser: Browser;
  page: Page;
}

export interface ChromiumSessionOptions {
  /** Passed to browser.newPage (viewport, acceptDownloads...). */
  page: Parameters<Browser['newPage']>[0];
  /** Uncaught page errors are pushed here (tests assert it stays empty). */
  errors?: string[];
  /** Navigate to the server's URL (with its token) before returning. */
  goto?: boolean;
  /** Extra environment for the server process. */
  env?: Record<string, string>;
}

/** Web mode with ARGS, then Chromium with one page on it; if a step fails, what started is stopped. */
export async function startChromiumSession(args: string[], userData: string, opts: ChromiumSessionOptions): Promise<ChromiumSession> {
  const server = await startWebMode(args, userData, undefined, opts.env);
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const page = await browser.newPage(opts.page);
    const errors = opts.errors;
    if (errors) page.on('pageerror', (e) => errors.push(e.message));
    if (opts.goto) await page.goto(server.pageUrl);
    return { server, browser, page };
  } catch (e) {
    await stopChromiumSession(browser, server);
    throw e;
  }
}

/** Closes Chromium, stops the server and removes DIR; each part may be absent (a failed setup). */
export async function stopChromiumSession(browser: Browser | undefined, server: WebMode | undefined, dir?: string): Promise<void> {
  await browser?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

export function recentOnDisk(userData: string): string[] {
  const f = join(userData, 'recent-tables.json');
  if (!existsSync(f)) return [];
  return (JSON.parse(readFileSync(f, 'utf8')) as { tables: { path: string }[] }).tables.map((t) => t.path);
}

export function ensureArtifacts(): string {
  mkdirSync(artifacts, { recursive: true });
  return artifacts;
}
