// The first paint of a long table (issue #25 item 17), end to end in Chromium over web mode: the
// window paints the header and the first page of the history (the listing and the newest commits,
// historyHead) before the whole log is read, with a determinate bar for the rest, and says
// "loading" for what only the whole log can tell. The whole log's read (/api/openTable) is held
// in the page so the loading state stays on screen to be checked; then the full state. The History
// screen is photographed in both states at 1024, 1400 and 1920 px.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_PAGE_VERSIONS } from '../shared/api';
import { chromiumSkip, ensureArtifacts, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';
import { openByPath, writeLongLog } from './lakes';

const missing = chromiumSkip('first-paint');
const VERSIONS = 2_000;
const WIDTHS = [1024, 1400, 1920];

describe.skipIf(missing !== null)('first paint of a long table in Chromium', () => {
  let dir: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  let long: string;
  const errors: string[] = [];
  const shots = async (state: string) => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await new Promise((r) => setTimeout(r, 150));
      await page.screenshot({ path: join(ensureArtifacts(), `history-${state}-${width}.png`) });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lakerec-e2e-first-paint-'));
    long = join(dir, 'long_log');
    writeLongLog(long, VERSIONS);
    ({ server, browser, page } = await startChromiumSession([], join(dir, 'user-data'), { page: { viewport: { width: 1400, height: 900 } }, errors, goto: true }));
  }, 120_000);

  afterAll(() => stopChromiumSession(browser, server, dir));

  it('paints the header and the newest versions before the log is read, says "loading" for the rest, then the whole history', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => { release = r; });
    await page.route('**/api/openTable', async (route) => { await held; await route.continue(); });
    await page.locator('[data-testid=path-input]').waitFor();
    await page.click('[data-testid=tab-history]');
    await openByPath(page, long);

    // The loading state: the first page, from the listing and the newest commits alone.
    const first = page.locator('[data-testid=screen-history] [data-testid=first-page]');
    await first.waitFor();
    expect(await first.locator('[data-testid=version-row]').count()).toBe(FIRST_PAGE_VERSIONS);
    expect(await first.locator('[data-testid=version-row]').first().getAttribute('data-version')).toBe(String(VERSIONS - 1));
    expect(await page.textContent('[data-testid=first-page-count]')).toBe(`the newest ${FIRST_PAGE_VERSIONS} of ${VERSIONS.toLocaleString('en-US')} versions`);
    // Every fact is known or says it is loading: no 0 for what is not yet read.
    const facts = page.locator('[data-testid=table-facts][data-from=head]');
    expect(await facts.locator('dd').allTextContents()).toEqual([String(VERSIONS - 1), String(VERSIONS), expect.stringMatching(/ago$/), 'loading', 'loading']);
    // The rest of the log: a determinate bar, its size from the listing.
    const loading = page.locator('[data-testid=screen-history] [data-testid=loading]');
    expect(await loading.locator('.job-phase').textContent()).toBe(`reading log ${FIRST_PAGE_VERSIONS} / ${VERSIONS.toLocaleString('en-US')}`);
    expect(await loading.locator('[role=progressbar]').getAttribute('aria-valuenow')).toBe(String(Math.round((100 * FIRST_PAGE_VERSIONS) / VERSIONS)));
    await shots('loading');

    // The Timeline tab shows the same first page while it waits.
    await page.click('[data-testid=tab-timeline]');
    await page.locator('[data-testid=screen-timeline] [data-testid=first-page] [data-testid=version-row]').first().waitFor();

    // The full state: the whole log read, every version listed.
    release();
    await page.locator('[data-testid=screen-timeline] [data-testid=commit-detail]').waitFor({ timeout: 120_000 });
    await page.click('[data-testid=tab-history]');
    await page.locator('[data-testid=version-count]').waitFor({ timeout: 120_000 });
    expect(await page.textContent('[data-testid=version-count]')).toBe(`${VERSIONS} versions`);
    expect(await page.locator('[data-testid=first-page]').count()).toBe(0);
    expect(await page.locator('[data-testid=table-facts]').getAttribute('data-from')).toBeNull();
    await shots('full');
    expect(errors).toEqual([]);
  }, 180_000);
});
