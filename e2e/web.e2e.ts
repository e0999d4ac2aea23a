// Web mode end to end: the real server (node dist/main/web.js) and the real renderer in Debian's
// Chromium. Opens a table, sees its versions, hits every bad-input path, and checks the token.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumSkip, ensureArtifacts, makeFixtures, recentOnDisk, startChromiumSession, stopChromiumSession, type Fixtures, type WebMode,
} from './helpers';

const missing = chromiumSkip('web mode');

describe.skipIf(missing !== null)('web mode in Chromium', () => {
  let fx: Fixtures;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(ensureArtifacts(), name) });

  beforeAll(async () => {
    fx = await makeFixtures();
    ({ server, browser, page } = await startChromiumSession([fx.table], fx.userData, { page: { viewport: { width: 1280, height: 760 } }, errors }));
  });

  afterAll(() => stopChromiumSession(browser, server, fx?.dir));

  async function versions(): Promise<string[]> {
    // The timeline is the first tab; the plain versions list is the History tab.
    await page.locator('[data-testid=tab-history]').click();
    await page.locator('[data-testid=version-row]').first().waitFor();
    return page.locator('[data-testid=version-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-version') ?? ''));
  }

  async function openByPath(path: string): Promise<void> {
    await page.fill('[data-testid=path-input]', path);
    await page.click('[data-testid=open-button]');
  }

  it('opens the table named at launch and lists its versions', async () => {
    await page.goto(server.pageUrl);
    expect(await versions()).toEqual(['3', '2', '1', '0']);
    const ops = await page.locator('[data-testid=version-row] .op').allTextContents();
    expect(ops).toEqual(['WRITE', 'DELETE', 'WRITE', 'CREATE TABLE AS SELECT']);
    await expect.poll(() => page.textContent('[data-testid=table-name]')).toBe('orders');
    expect(await page.textContent('[data-testid=mode-badge]')).toContain('web mode');
    expect(await page.textContent('[data-testid=version-count]')).toBe('4 versions');
    // The token left the address bar as soon as the page read it.
    expect(page.url()).toBe(`${server.origin}/`);
    await shot('web-versions.png');
    expect(recentOnDisk(fx.userData)).toEqual([fx.table]);
    expect(await page.locator('[data-testid=recent-list] li').count()).toBe(1);
  });

  it('shows a clear message for each kind of bad folder, never a blank screen', async () => {
    const cases: [string, string, RegExp][] = [
      [fx.broken, 'log_corrupt', /00000000000000000002\.json line \d+ is not valid JSON/],
      [fx.file, 'not_a_folder', /is a file, not a folder/],
      [fx.plain, 'not_a_delta_table', /no _delta_log folder/],
      [join(fx.dir, 'no-such-folder'), 'not_found', /No folder at/],
    ];
    for (const [path, code, message] of cases) {
      await openByPath(path);
      const panel = page.locator(`[data-testid=error-panel][data-code=${code}]`);
      await panel.waitFor();
      expect(await panel.locator('[data-testid=error-message]').textContent()).toMatch(message);
      if (code === 'log_corrupt') {
        expect(await panel.locator('h2').textContent()).toBe("The table's log is broken");
        await shot('web-error.png');
      }
    }
    // Bad folders are not remembered.
    expect(recentOnDisk(fx.userData)).toEqual([fx.table]);
    // Close the error: the empty state, with its drop target.
    await page.getByRole('button', { name: 'Close' }).click();
    await page.locator('[data-testid=empty-state]').waitFor();
    await shot('web-empty.png');
  });

  it('opens a folder dropped on the window (a drag carrying its file:// URI)', async () => {
    // Runs in the page (a string: this file is type-checked without the DOM library).
    await page.evaluate(`(() => {
      const dt = new DataTransfer();
      dt.setData('text/uri-list', ${JSON.stringify(`file://${fx.copy}`)});
      const target = document.querySelector('[data-testid=app]');
      for (const type of ['dragenter', 'dragover', 'drop']) {
        target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    })()`);
    await expect.poll(() => page.textContent('[data-testid=table-name]')).toBe('orders-copy');
    expect(await versions()).toEqual(['3', '2', '1', '0']);
    expect(recentOnDisk(fx.userData)).toEqual([fx.copy, fx.table]);
  });

  it('cancels a long open from the window, through the server', async () => {
    // Hold the open's first request (historyHead) in the browser so the Cancel button is there to press; the
    // cancel itself goes to the real server, which answers the held call with `cancelled`.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => { release = r; });
    await page.route('**/api/historyHead', async (route) => {
      await held;
      await route.continue();
    });
    await openByPath(fx.table);
    await page.locator('[data-testid=loading]').waitFor();
    await shot('web-loading.png');
    await page.click('[data-testid=cancel-button]');
    await new Promise((r) => setTimeout(r, 300)); // the cancel reaches the server first
    release();
    await page.locator('[data-testid=error-panel][data-code=cancelled]').waitFor();
    await page.unroute('**/api/historyHead');
    // A cancelled open is not remembered: the recent list is the drop's.
    expect(recentOnDisk(fx.userData)).toEqual([fx.copy, fx.table]);
  });

  it('remembers recent tables across a reload, and opens one with a click', async () => {
    await page.reload();
    // The server was started with the table as its initial one: the reloaded window opens it again,
    // and that open puts it first. Read the list once that open is done, not while it runs.
    await expect.poll(() => page.textContent('[data-testid=table-name]')).toBe('orders');
    await page.locator('[data-testid=table-facts]').waitFor();
    await expect.poll(() => recentOnDisk(fx.userData)).toEqual([fx.table, fx.copy]);
    await expect.poll(() => page.locator('[data-testid=recent-list] .item-name').allTextContents()).toEqual(['orders', 'orders-copy']);
    await page.locator('[data-testid=recent-list] .item-name', { hasText: 'orders-copy' }).click();
    await expect.poll(() => page.textContent('[data-testid=table-name]')).toBe('orders-copy');
    expect(await versions()).toEqual(['3', '2', '1', '0']);
  });

  it('refuses API calls without the token or from another origin, and reads nothing', async () => {
    const before = recentOnDisk(fx.userData);
    const body = JSON.stringify({ path: fx.third });
    const noToken = await fetch(`${server.origin}/api/openTable`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toMatchObject({ ok: false, error: { code: 'usage' } });
    const otherOrigin = await fetch(`${server.origin}/api/openTable`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}`, origin: 'http://attacker.example' },
      body,
    });
    expect(otherOrigin.status).toBe(403);
    expect(recentOnDisk(fx.userData)).toEqual(before);
    // The same typed error the window shows, as data: 200 with the code in a header (a browser
    // logs every 4xx as a console error; this is an expected answer, not a failed request).
    const bad = await fetch(`${server.origin}/api/openTable`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
      body: JSON.stringify({ path: fx.broken }),
    });
    expect(bad.status).toBe(200);
    expect(bad.headers.get('x-lakerec-error')).toBe('log_corrupt');
    expect(await bad.json()).toMatchObject({ ok: false, error: { code: 'log_corrupt' } });
  });

  it('a page opened without the token says why instead of going blank', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(`${server.origin}/`);
    const panel = p.locator('[data-testid=error-panel]');
    await panel.waitFor();
    expect(await panel.textContent()).toMatch(/token/i);
    await ctx.close();
    expect(errors).toEqual([]);
  });
});
