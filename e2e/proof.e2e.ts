// The Proof page end to end, web mode in Chromium: pick two engines, watch the five steps arrive
// with their fingerprints, see the twelve checks; Cancel stops a run; both runs are in Runs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, ensureArtifacts, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';

const missing = chromiumSkip('proof');

describe.skipIf(missing !== null)('Proof page (web mode, Chromium)', () => {
  let dir: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(ensureArtifacts(), name) });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lakerec-e2e-proof-'));
    // The lossy test doubles are offered only with this (as in the CLI): a proof that must fail.
    ({ server, browser, page } = await startChromiumSession([], join(dir, 'user-data'), {
      page: { viewport: { width: 1360, height: 900 } }, errors, goto: true, env: { LAKEREC_PROOF_TEST_ENGINES: '1' },
    }));
  });

  afterAll(() => stopChromiumSession(browser, server, dir));

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
    for (const fp of await page.locator('[data-testid=proof-step] .fp').allTextContents()) expect(fp).toMatch(/\d+ rows · \d+ cols · #[0-9a-f]{8}/);
    const checks = await page.locator('[data-testid=proof-check]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-check')}:${r.getAttribute('data-status')}`));
    expect(checks).toHaveLength(12);
    expect(checks).toContain('rows_identical:pass');
    expect(checks).toContain('profile_no_leak:pass');
    expect(checks).toContain('access_d11:warn');
    expect(await page.getAttribute('[data-testid=proof-verdict]', 'data-passed')).toBe('true');
    await shot('proof.png');
  });

  it('an engine that loses data fails its checks, shown in red with the differing step', async () => {
    await page.selectOption('[data-testid=engine-b]', 'lossy-nan');
    await page.click('[data-testid=run-proof]');
    await page.locator('[data-testid=proof-verdict]').waitFor({ timeout: 120_000 });
    expect(await page.getAttribute('[data-testid=proof-verdict]', 'data-passed')).toBe('false');
    const failed = await page.locator('[data-testid=proof-check][data-status=fail]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-check')));
    expect(failed).toContain('fingerprints_match');
    // The marks of the steps before the loss equal the generated data's; after it they differ.
    const marks = await page.locator('[data-testid=proof-step] .fp').evaluateAll((cells) => cells.map((c) => /#([0-9a-f]{8})/.exec(c.textContent ?? '')?.[1]));
    expect(marks[1]).toBe(marks[0]);
    expect(marks[4]).not.toBe(marks[0]);
    // The step where the data changed says how it differs from the generated data.
    const differing = page.locator('[data-testid=proof-step].step-differs');
    expect(await differing.count()).toBeGreaterThan(0);
    expect(await differing.first().locator('.step-note').textContent()).toMatch(/nan|null/i);
    await shot('proof-failed.png');
    await page.selectOption('[data-testid=engine-b]', 'arrow');
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
      .toEqual(['proof:cancelled', 'proof:fail', 'proof:pass']);
    await page.locator('[data-testid=run-row][data-status=pass]').click();
    await expect.poll(async () => page.locator('[data-testid=run-detail] li').count()).toBe(12);
    expect(await page.textContent('[data-testid=run-detail]')).toContain('rows_identical');
    await page.click('[data-testid=runs-filter-reconcile]');
    await page.locator('[data-testid=runs-empty]').waitFor();
    await shot('runs-empty.png');
    expect(errors).toEqual([]);
  });
});
