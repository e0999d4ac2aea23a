// The window opens a table in object storage: the Open panel's URL field beside the folder path,
// a real S3 server (s3rver on a loopback free port, started here) behind it, the table's timeline
// shown and the location kept in the recent list; a location that is not a table is one message.
// Screenshots at 1024, 1400 and 1920 px: empty, opened, error.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, ensureArtifacts, makeFixtures, recentOnDisk, startChromiumSession, stopChromiumSession, type Fixtures, type WebMode } from './helpers';
import { s3Env, s3Putter, startS3rver, uploadFolder, type RunningServer } from '../main/testing/object-servers';

const missing = chromiumSkip('remote');

describe.skipIf(missing !== null)('opening a table in object storage from the window', () => {
  let fx: Fixtures;
  let s3: RunningServer;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  let userData: string;
  const errors: string[] = [];
  const loc = 's3://lake/orders';

  beforeAll(async () => {
    fx = await makeFixtures();
    s3 = await startS3rver(['lake']);
    await uploadFolder(fx.table, 'orders', await s3Putter(s3.endpoint, 'lake'));
    userData = mkdtempSync(join(tmpdir(), 'lakerec-e2e-remote-'));
    ({ server, browser, page } = await startChromiumSession([], userData, { page: { viewport: { width: 1400, height: 900 } }, errors, goto: true, env: s3Env(s3.endpoint) as Record<string, string> }));
  }, 120_000);

  afterAll(async () => {
    await stopChromiumSession(browser, server, userData);
    await s3?.close();
  });

  const shots = async (name: string): Promise<void> => {
    const dir = ensureArtifacts();
    for (const width of [1024, 1400, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(dir, `remote-${name}-${width}.png`) });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  };

  it('shows the URL field beside the folder path, empty', async () => {
    await page.locator('[data-testid=url-input]').waitFor();
    expect(await page.locator('[data-testid=open-url-button]').isDisabled()).toBe(true);
    await shots('empty');
  });

  it('opens s3://… and shows its versions; the location is kept in the recent tables', async () => {
    await page.fill('[data-testid=url-input]', loc);
    await page.click('[data-testid=open-url-button]');
    await page.locator('[data-testid=timeline-row]').first().waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid=timeline-row]').count()).toBeGreaterThan(1);
    await expect.poll(() => recentOnDisk(userData)).toContain(loc);
    expect(await page.locator('[data-testid=recent-list]').textContent()).toContain(loc);
    await shots('opened');
    expect(errors).toEqual([]);
  }, 90_000);

  it('a location that holds no table is one message, not a blank screen', async () => {
    await page.fill('[data-testid=url-input]', 's3://lake/nothing-here');
    await page.click('[data-testid=open-url-button]');
    await page.locator('[data-testid=error-panel]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid=error-message]').textContent()).toMatch(/s3:\/\/lake\/nothing-here has no _delta_log/);
    await shots('error');
  }, 90_000);
});
