// The real Electron app through Playwright's `_electron`, where Electron's binary exists (npm
// does not download it here: see ADR 0007). Same slice as web mode: open a table, see versions,
// and check the window's hardening from inside the page.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureArtifacts, makeFixtures, recentOnDisk, repoRoot, type Fixtures } from './helpers';

function electronBinary(): string | null {
  const dir = join(repoRoot, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = join(dir, 'dist', readFileSync(pathFile, 'utf8'));
  return existsSync(bin) ? bin : null;
}

function hasXvfbRun(): boolean {
  return spawnSync('sh', ['-c', 'command -v xvfb-run'], { encoding: 'utf8' }).status === 0;
}

const bin = electronBinary();
const needsDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
const skipReason = !bin
  ? "Electron's binary is not installed (node_modules/electron/path.txt is missing: its download is blocked here)"
  : needsDisplay && !hasXvfbRun()
    ? 'no display for an Electron window (DISPLAY unset and xvfb-run not installed)'
    : null;
if (skipReason) process.stdout.write(`e2e Electron: SKIPPED: ${skipReason}\n`);

describe.skipIf(skipReason !== null)('the Electron app', () => {
  let fx: Fixtures;
  let app: ElectronApplication;
  let page: Page;

  beforeAll(async () => {
    fx = await makeFixtures();
    // The app folder, as `npm start` launches it (package.json "main" is dist/main/electron.js).
    const args = [repoRoot, fx.table];
    const env = { ...process.env, LAKEREC_USER_DATA: fx.userData } as Record<string, string>;
    app = needsDisplay
      ? await _electron.launch({ executablePath: 'xvfb-run', args: ['-a', bin!, ...args], env })
      : await _electron.launch({ executablePath: bin!, args, env });
    page = await app.firstWindow();
  });

  afterAll(async () => {
    await app?.close();
    if (fx) rmSync(fx.dir, { recursive: true, force: true });
  });

  it('opens the table given on the command line and lists its versions', async () => {
    await page.locator('[data-testid=tab-history]').click();
    await page.locator('[data-testid=version-row]').first().waitFor();
    const versions = await page.locator('[data-testid=version-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-version')));
    expect(versions).toEqual(['3', '2', '1', '0']);
    expect(await page.textContent('[data-testid=mode-badge]')).toContain('desktop');
    await page.screenshot({ path: join(ensureArtifacts(), 'electron-versions.png') });
    expect(recentOnDisk(fx.userData)).toEqual([fx.table]);
  });

  it('runs the page sandboxed: no Node, only the typed bridge; our own scheme, a CSP', async () => {
    // Runs in the page (a string: this file is type-checked without the DOM library).
    const probe = await page.evaluate(`({
      require: typeof globalThis.require,
      process: typeof globalThis.process,
      bridge: Object.keys(window.lakerec).sort(),
      url: location.href,
      csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
    })`) as { require: string; process: string; bridge: string[]; url: string; csp: string };
    expect(probe.require).toBe('undefined');
    expect(probe.process).toBe('undefined');
    expect(probe.bridge).toEqual(['cancel', 'invoke', 'onProgress', 'pathForFile']);
    expect(probe.url.startsWith('lakerec://app/')).toBe(true);
    expect(probe.csp).toContain("default-src 'none'");
  });

  it('shows a broken log as a message in the window', async () => {
    await page.fill('[data-testid=path-input]', fx.broken);
    await page.click('[data-testid=open-button]');
    await page.locator('[data-testid=error-panel][data-code=log_corrupt]').waitFor();
  });

  it('refuses to navigate away or open windows', async () => {
    const before = page.url();
    await page.evaluate(`window.open('https://example.com'); location.href = 'https://example.com';`).catch(() => {});
    await new Promise((r) => setTimeout(r, 500));
    expect(app.windows()).toHaveLength(1);
    expect(page.url()).toBe(before);
  });
});
