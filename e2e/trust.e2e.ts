// The Trust tab end to end, web mode in Chromium: on a copy of the control sample lake (a clean
// table), a source that cannot be read is an error in words; then the mutation score runs with
// progress per mutant and shows the per-level table; keys and laws are verified. Screenshots of the
// empty, error, running and full states. The table is never written.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, ensureArtifacts, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';
import { copyLake, treeState } from './screens-helpers';

const missing = chromiumSkip('trust');

describe.skipIf(missing !== null)('Trust tab (web mode, Chromium)', () => {
  let dir: string;
  let lakeCopy: string;
  let table: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  let before: string[];
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(ensureArtifacts(), name) });

  beforeAll(async () => {
    ({ dir, lakeCopy, table, before } = copyLake('control', 'lakerec-e2e-trust-'));
    ({ server, browser, page } = await startChromiumSession([table], join(dir, 'user-data'), { page: { viewport: { width: 1360, height: 900 } }, errors, goto: true }));
    await page.locator('[data-testid=tab-trust]').click();
    await page.locator('[data-testid=trust-view]').waitFor();
  });

  afterAll(() => stopChromiumSession(browser, server, dir));

  it('without a source, says what to choose; a source that cannot be read is an error in words', async () => {
    await page.locator('[data-testid=trust-empty]').waitFor();
    expect(await page.textContent('[data-testid=trust-empty]')).toMatch(/source of truth/);
    expect(await page.isDisabled('[data-testid=run-mutation]')).toBe(true);
    await shot('trust-empty.png');
    await page.fill('[data-testid=trust-source-path]', join(lakeCopy, 'source', 'nope.parquet'));
    await page.click('.trust-view .source-form button');
    await page.click('[data-testid=run-mutation]');
    await page.locator('[data-testid=trust-mutation] [data-testid=error-panel]').waitFor({ timeout: 60_000 });
    expect(await page.textContent('[data-testid=trust-mutation] [data-testid=error-panel]')).toMatch(/nope\.parquet/);
    await shot('trust-error.png');
    await page.click('[data-testid=trust-source-clear]');
  });

  it('runs the mutation score with progress per mutant and shows the per-level table', async () => {
    await page.fill('[data-testid=trust-source-path]', join(lakeCopy, 'source', 'orders.parquet'));
    await page.click('.trust-view .source-form button');
    await page.click('[data-testid=run-mutation]');
    await page.locator('[data-testid=trust-progress]').waitFor();
    // The first mutant's row arrives while the run goes on.
    await page.locator('[data-testid=trust-mutants] tr[data-testid^=mutant-]').first().waitFor({ timeout: 60_000 });
    await shot('trust-running.png');
    await page.locator('[data-testid=trust-levels]').waitFor({ timeout: 120_000 });
    expect(await page.locator('[data-testid=trust-levels] tbody tr').count()).toBe(5);
    expect(await page.textContent('[data-testid=trust-level-counts]')).toMatch(/counts/);
    expect(await page.textContent('[data-testid=trust-score]')).toMatch(/score [0-9.]+%: [0-9]+ of 11 mutant\(s\) killed at rows/);
    expect(await page.locator('[data-testid=trust-mutants] tr[data-testid^=mutant-]').count()).toBe(13);
    expect(await page.textContent('[data-testid=mutant-null_keys]')).toMatch(/not applicable/);
    await page.click('[data-testid=run-keys]');
    await page.locator('[data-testid=trust-keys-result]').waitFor({ timeout: 60_000 });
    expect(await page.textContent('[data-testid=trust-keys-result]')).toMatch(/confirmed/);
    await page.click('[data-testid=run-laws]');
    await page.locator('[data-testid=trust-laws-result]').waitFor({ timeout: 60_000 });
    expect(await page.textContent('[data-testid=trust-laws-result]')).toMatch(/row count per dt/);
    await shot('trust-full.png');
    await page.setViewportSize({ width: 1360, height: 2000 });
    await shot('trust-full-tall.png');
    await page.setViewportSize({ width: 1360, height: 900 });
    expect(treeState(table)).toEqual(before);
    expect(errors).toEqual([]);
  }, 180_000);

  it('Cancel stops the run in the engine and leaves no sandbox behind', async () => {
    const sandboxes = () => readdirSync(tmpdir()).filter((n) => n.startsWith('lakerec-mutate-'));
    const already = sandboxes();
    await page.click('[data-testid=run-mutation]');
    await page.locator('[data-testid=trust-progress]').waitFor();
    await page.click('[data-testid=cancel-mutation]');
    await page.locator('[data-testid=trust-mutation] [data-testid=error-panel][data-code=cancelled]').waitFor({ timeout: 60_000 });
    await expect.poll(() => sandboxes().filter((d) => !already.includes(d)), { timeout: 10_000 }).toEqual([]);
    expect(treeState(table)).toEqual(before);
  }, 120_000);

  it('each mutation run is kept in the run history', async () => {
    await page.locator('[data-testid=tab-runs]').click();
    await page.click('[data-testid=runs-filter-mutate]');
    await page.locator('[data-testid=run-row][data-kind=mutate]').first().waitFor({ timeout: 30_000 });
    const statuses = await page.locator('[data-testid=run-row][data-kind=mutate]').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')));
    expect(statuses).toContain('pass');
    expect(statuses).toContain('cancelled');
    await page.locator('[data-testid=run-row][data-kind=mutate][data-status=pass]').first().click();
    await page.locator('[data-testid=run-detail]').waitFor();
    expect(await page.textContent('[data-testid=run-detail]')).toMatch(/score\s*100%/);
    await page.locator('[data-testid=tab-trust]').click();
  }, 60_000);
});
