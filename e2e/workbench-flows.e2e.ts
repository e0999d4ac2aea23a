// The workbench's flows end to end (web mode, Chromium, the real engine): from a finding to a
// filled-in bisect (timeline and compare), compare keyed by the contract beside the table, Runs
// reopening a past run's full result, determinate progress on a long log, and a stopped server
// shown as its own error with Reconnect.
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, repoRoot, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';
import { ensureLakes, LAKES, openByPath, writeLongLog } from './lakes';

const missing = chromiumSkip('workbench-flows');
const SHOTS = join(repoRoot, 'docs', 'screenshots');

describe.skipIf(missing !== null)('workbench flows in Chromium', () => {
  let dir: string;
  let lakeTable: string;
  let longLog: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, name) });

  beforeAll(async () => {
    ensureLakes();
    dir = mkdtempSync(join(tmpdir(), 'lakerec-e2e-flows-'));
    // A copy of the double_load lake: its table and the contract.yaml beside it.
    cpSync(join(LAKES, 'double_load'), join(dir, 'double_load'), { recursive: true });
    lakeTable = join(dir, 'double_load', 'table');
    longLog = join(dir, 'long-log');
    writeLongLog(longLog, 1200);
    ({ server, browser, page } = await startChromiumSession([lakeTable], join(dir, 'user-data'), { page: { viewport: { width: 1440, height: 900 } }, errors }));
  });

  afterAll(() => stopChromiumSession(browser, server, dir));

  it('a timeline finding opens Bisect with the predicate and keys filled in, and the search finds it', async () => {
    await page.goto(server.pageUrl);
    await page.locator('[data-testid=finding-item][data-name=duplicate_batch]').click();
    await page.locator('[data-testid=commit-finding][data-name=duplicate_batch] [data-testid=bisect-this]').click();
    await page.locator('[data-testid=bisect-form]').waitFor();
    expect(await page.inputValue('[data-testid=bisect-predicate]')).toBe('unique-keys');
    expect(await page.inputValue('[data-testid=bisect-keys]')).toBe('order_id'); // from the contract beside the table
    await page.click('[data-testid=bisect-run]');
    await expect.poll(() => page.locator('[data-testid=bisect-headline]').textContent().catch(() => ''), { timeout: 60_000 }).toMatch(/broke at v7|First bad version v7/);
    await shot('bisect-this.png');
    expect(errors).toEqual([]);
  });

  it('Compare keyed by the contract beside the table, and a finding there leads to Bisect too', async () => {
    await page.locator('[data-testid=tab-timeline]').click();
    await page.locator('[data-testid=timeline-row][data-version="7"]').click();
    await page.locator('[data-testid=compare-previous]').click();
    await expect.poll(() => page.inputValue('[data-testid=compare-keys]')).toBe('order_id');
    expect(await page.textContent('[data-testid=compare-view]')).toMatch(/From contract.yaml beside the table: order_id/);
    await page.click('[data-testid=compare-run]');
    await page.locator('[data-testid=compare-result]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid=finding][data-mode=double_load]').count()).toBe(1);
    await page.locator('[data-testid=finding][data-mode=double_load] [data-testid=bisect-this]').click();
    await page.locator('[data-testid=bisect-form]').waitFor();
    expect(await page.inputValue('[data-testid=bisect-predicate]')).toBe('unique-keys');
    expect(await page.inputValue('[data-testid=bisect-keys]')).toBe('order_id');
  });

  it('"Reconcile against this version" sets the target version; Runs reopens a past run in full', async () => {
    await page.locator('[data-testid=tab-timeline]').click();
    await page.locator('[data-testid=timeline-row][data-version="6"]').click();
    await page.locator('[data-testid=reconcile-against]').click();
    await page.locator('[data-testid=reconcile-view]').waitFor();
    expect(await page.inputValue('[data-testid=target-version]')).toBe('6');
    await page.fill('[data-testid=target-version]', '');
    await page.fill('[data-testid=source-path]', join(dir, 'double_load', 'source', 'orders.parquet'));
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=contract-ok]').waitFor();
    // With the source chosen, the contract is checked against both sides' columns: every problem, with its line.
    const good = await page.inputValue('[data-testid=contract-editor]');
    await page.fill('[data-testid=contract-editor]', good.replace('keys: [order_id]', 'keys: [order_id, order_no]').replace('ordering: updated_at', 'ordering: changed_at'));
    const problems = page.locator('[data-testid=contract-problems] li');
    await expect.poll(() => problems.count()).toBe(2);
    const texts = await problems.allTextContents();
    expect(texts[0]).toMatch(/^line \d+ Key "order_no" is a column of neither side/);
    expect(texts[1]).toMatch(/^line \d+ Ordering column "changed_at"/);
    await page.screenshot({ path: join(SHOTS, 'reconcile-contract-columns.png') });
    await page.fill('[data-testid=contract-editor]', good);
    await page.locator('[data-testid=contract-ok]').waitFor();
    // The contract came with the table: it runs only once the user has accepted it.
    await page.click('[data-testid=contract-accept]');
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=verdict]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=tab-runs]').click();
    await page.locator('[data-testid=run-row][data-kind=reconcile]').first().click();
    await page.locator('[data-testid=run-open-full]').click();
    const full = page.locator('[data-testid=run-full-reconcile]');
    await full.waitFor();
    expect(await full.locator('[data-testid=verdict]').getAttribute('data-verdict')).toBe('diverges');
    expect(await full.locator('[data-testid=finding][data-mode=double_load]').count()).toBe(1);
    expect(await full.locator('[data-testid=partition-row]').count()).toBeGreaterThan(0);
    await shot('runs-reopen.png');
    // The bisect run too.
    await page.locator('[data-testid=run-row][data-kind=bisect]').first().click();
    await page.locator('[data-testid=run-open-full]').click();
    expect(await page.textContent('[data-testid=run-full-bisect]')).toMatch(/first bad/);
  });

  it('a job that knows its size shows determinate progress (done of total, elapsed time)', async () => {
    await page.locator('[data-testid=tab-timeline]').click();
    // Watch every progress block the page draws, so a fast job cannot slip between two looks. The
    // log is read once per open table (the Partitions tab then reuses it), so the read that shows
    // its size is the open itself.
    await page.evaluate(`(() => {
      window.__determinate = [];
      const look = () => {
        for (const el of document.querySelectorAll('[data-testid=investigate-loading], [data-testid=partitions-progress]')) {
          const bar = el.querySelector('[role=progressbar][aria-valuenow]');
          if (bar) window.__determinate.push(el.textContent);
        }
      };
      new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    })()`);
    await openByPath(page, longLog);
    const bar = page.locator('[data-testid=investigate-loading] [role=progressbar][aria-valuenow]');
    await bar.waitFor({ timeout: 15_000 }).then(() => shot('determinate-progress.png')).catch(() => {});
    await page.locator('[data-testid=investigate-header] [data-testid=fact-version]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=tab-partitions]').click();
    await page.locator('[data-testid=partitions-at]').waitFor({ timeout: 60_000 });
    const seen = await page.evaluate('window.__determinate') as string[];
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.some((t) => /\d[\d,]* \/ 1,200/.test(t))).toBe(true);
    expect(seen.some((t) => /\d+ s/.test(t))).toBe(true); // elapsed time
  });

  it('a stopped server is its own error, with Reconnect', async () => {
    await server.stop();
    await openByPath(page, lakeTable);
    const panel = page.locator('[data-testid=error-panel][data-code=disconnected]');
    await panel.waitFor();
    expect(await panel.textContent()).toMatch(/Server stopped/);
    expect(await panel.textContent()).not.toMatch(/Cannot read the folder/);
    expect(await page.textContent('[data-testid=error-retry]')).toBe('Reconnect');
    await shot('server-stopped.png');
  });
});
