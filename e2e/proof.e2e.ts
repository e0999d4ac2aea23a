// The Proof page end to end, web mode in Chromium: pick two engines, watch the five steps arrive
// with their fingerprints, see the twelve checks; Cancel stops a run; both runs are in Runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, ensureArtifacts, launchChromium, startWebMode, type WebMode } from './helpers';

const missing = chromiumMissing();
if (missing) process.stdout.write(`e2e proof: SKIPPED: ${missing}\n`);

describe.skipIf(missing !== null)('Proof page (web mode, Chromium)', () => {
  let dir: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(ensureArtifacts(), name) });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lakerec-e2e-proof-'));
    server = await startWebMode([], join(dir, 'user-data'));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.pageUrl);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('needs no table: lists the engines and the checks before a run', async () => {
    await page.click('[data-testid=tab-proof]');
    await page.locator('[data-testid=proof-empty]').waitFor();
    const engines = await page.locator('[data-testid=engine-a] option').allTextContents();
    expect(engines).toEqual(expect.arrayContaining(['duckdb', 'arrow']));
    expect(await page.locator('[data-testid=proof-empty] li').count()).toBe(12);
    await shot('proof-empty.png');
  });

  it('runs duckdb -> arrow: every step with its fingerprint, then the checks', async () => {
    await page.selectOption('[data-testid=engine-a]', 'duckdb');
    await page.selectOption('[data-testid=engine-b]', 'arrow');
    await page.click('[data-testid=run-proof]');
    // Steps arrive while the job runs (progress data), before the result.
    await page.locator('[data-testid=proof-step][data-step=generate][data-status=done]').waitFor({ timeout: 60_000 });
    if (await page.locator('[data-testid=proof-progress]').count()) await shot('proof-running.png');
    await page.locator('[data-testid=proof-verdict]').waitFor({ timeout: 120_000 });
    const steps = await page.locator('[data-testid=proof-step]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-step')}:${r.getAttribute('data-status')}`));
    expect(steps).toEqual(['generate:done', 'a_write:done', 'b_read:done', 'b_write:done', 'a_read:done']);
    for (const fp of await page.locator('[data-testid=proof-step] .fp').allTextContents()) expect(fp).toMatch(/\d+ rows · \d+ cols/);
    const checks = await page.locator('[data-testid=proof-check]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-check')}:${r.getAttribute('data-status')}`));
    expect(checks).toHaveLength(12);
    expect(checks).toContain('rows_identical:pass');
    expect(checks).toContain('profile_no_leak:pass');
    expect(checks).toContain('access:pass');
    expect(await page.getAttribute('[data-testid=proof-verdict]', 'data-passed')).toBe('true');
    await shot('proof.png');
  });

  it('Cancel stops a running proof and says so', async () => {
    await page.click('[data-testid=run-proof]');
    await page.locator('[data-testid=cancel-proof]').click();
    const panel = page.locator('[data-testid=error-panel]');
    await panel.waitFor({ timeout: 60_000 });
    expect(await panel.getAttribute('data-code')).toBe('cancelled');
  });

  it('both runs are in the run history', async () => {
    await page.click('[data-testid=tab-runs]');
    await page.locator('[data-testid=runs-table]').waitFor();
    await expect.poll(async () => page.locator('[data-testid=run-row]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-kind')}:${r.getAttribute('data-status')}`).sort()))
      .toEqual(['proof:cancelled', 'proof:pass']);
    await page.locator('[data-testid=run-row][data-status=pass]').click();
    await expect.poll(async () => page.locator('[data-testid=run-detail] li').count()).toBe(12);
    expect(await page.textContent('[data-testid=run-detail]')).toContain('rows_identical');
    await page.click('[data-testid=runs-filter-reconcile]');
    await page.locator('[data-testid=runs-empty]').waitFor();
    await shot('runs-empty.png');
    expect(errors).toEqual([]);
  });
});
