// The Proof page with polars and the user's own engines, web mode in Chromium: the engine list
// says which engines run here; a polars pair runs its 12 checks; a second proof waits in the
// queue with its position while another holds the one-proof lock; the proof mode is set from
// the page, and its default proofs run from there. Screenshots at 1024, 1400 and 1920 px.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, ensureArtifacts, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';

const missing = chromiumSkip('proof engines');

describe.skipIf(missing !== null)('Proof page: polars, the queue, the mode (web mode, Chromium)', () => {
  let dir: string;
  let userData: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  let polarsHere = false;
  let enginesHere = 0;
  const shot = (p: Page, name: string) => p.screenshot({ path: join(ensureArtifacts(), name), fullPage: true });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lakerec-e2e-proof-engines-'));
    userData = join(dir, 'user-data');
    ({ server, browser, page } = await startChromiumSession([], userData, { page: { viewport: { width: 1400, height: 900 } }, errors, goto: true }));
  });
  afterAll(() => stopChromiumSession(browser, server, dir));

  it('lists polars, and the engines that do not run here as not available', async () => {
    await page.click('[data-testid=tab-proof]');
    await page.locator('[data-testid=proof-empty]').waitFor();
    const options = await page.locator('[data-testid=engine-a] option').evaluateAll((os) => os.map((o) => `${o.getAttribute('value')}:${(o as unknown as { disabled: boolean }).disabled}`));
    // polars runs where its native build is installed (NOTES: npm skips it on Node < 22).
    polarsHere = options.includes('polars:false');
    if (!polarsHere) console.log('polars is not available in this build (its native module did not load): its steps are skipped');
    expect(options.filter((o) => o.startsWith('polars:'))).toHaveLength(1);
    expect(options).toContain('spark:true');
    enginesHere = options.filter((o) => o.endsWith(':false')).length;
    await page.locator('[data-testid=proof-mode]').waitFor();
    expect(await page.inputValue('[data-testid=proof-mode]')).toBe('generic');
    await shot(page, 'proof-engines-empty-1400.png');
  });

  it('runs polars -> duckdb: 12 checks, the map Polars cannot write named, access_d11 a warning', async () => {
    if (!polarsHere) return;
    await page.selectOption('[data-testid=engine-a]', 'polars');
    await page.selectOption('[data-testid=engine-b]', 'duckdb');
    await page.click('[data-testid=run-proof]');
    await page.locator('[data-testid=proof-verdict]').waitFor({ timeout: 120_000 });
    const checks = await page.locator('[data-testid=proof-check]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-check')}:${r.getAttribute('data-status')}`));
    expect(checks).toHaveLength(12);
    expect(checks).toContain('access_d11:warn');
    expect(checks).toContain('schema_match:fail');
    expect(checks).toContain('sandbox_discarded:pass');
    await page.locator('[data-testid=proof-check][data-check=schema_match] summary').click();
    expect(await page.textContent('[data-testid=proof-check][data-check=schema_match]')).toContain('nested type changed: the map became a list of key/value structs');
    await shot(page, 'proof-polars-1400.png');
    await page.setViewportSize({ width: 1920, height: 1000 });
    await shot(page, 'proof-polars-1920.png');
    await page.setViewportSize({ width: 1024, height: 800 });
    await shot(page, 'proof-polars-1024.png');
  });

  it('a proof started while another holds the lock waits; a second page\'s proof is queued with its position', async () => {
    // Another lakerec process's proof holds the lock (this test process stands in for it).
    const lock = join(userData, 'proof.lock');
    // The data folder exists once this server has recorded a run; where polars cannot load here, none has yet.
    mkdirSync(userData, { recursive: true });
    writeFileSync(lock, JSON.stringify({ id: 'e2e-cli-proof', pid: process.pid, startedAt: new Date().toISOString(), engines: ['duckdb', 'arrow'] }));
    const page2 = await browser.newPage({ viewport: { width: 1024, height: 800 } });
    try {
      await page2.goto(server.pageUrl);
      await page2.click('[data-testid=tab-proof]');
      await page2.locator('[data-testid=run-proof]').waitFor();
      await page.selectOption('[data-testid=engine-a]', 'duckdb');
      await page.selectOption('[data-testid=engine-b]', 'arrow');
      await page.click('[data-testid=run-proof]');
      await expect.poll(async () => page.locator('[data-testid=proof-progress]').textContent().catch(() => ''), { timeout: 20_000 }).toMatch(/waiting for proof e2e-cli-proof/);
      await page2.click('[data-testid=run-proof]');
      await expect.poll(async () => page2.locator('[data-testid=proof-progress]').textContent().catch(() => ''), { timeout: 20_000 }).toMatch(/^Queued: position 1 \(one proof runs at a time\)/);
      await shot(page2, 'proof-queued-1024.png');
      await page.setViewportSize({ width: 1400, height: 900 });
      await shot(page, 'proof-waiting-1400.png');
      rmSync(lock, { force: true });
      await page.locator('[data-testid=proof-verdict]').waitFor({ timeout: 120_000 });
      await page2.locator('[data-testid=proof-verdict]').waitFor({ timeout: 120_000 });
    } finally {
      await page2.close();
    }
  });

  it('sets the proof mode from the page', async () => {
    await page.selectOption('[data-testid=proof-mode]', 'all');
    await expect.poll(async () => page.textContent('[data-testid=proof-mode-note]')).toContain('every pair of the engines available here');
    await page.reload();
    await page.click('[data-testid=tab-proof]');
    await expect.poll(async () => page.inputValue('[data-testid=proof-mode]')).toBe('all');
    await page.setViewportSize({ width: 1920, height: 1000 });
    await shot(page, 'proof-engines-mode-1920.png');
    // "all": every pair of the engines available here, one after another.
    const n = Number(/\((\d+)\)/.exec((await page.textContent('[data-testid=run-default-proofs]')) ?? '')?.[1]);
    expect(n).toBe(enginesHere * enginesHere); // every ordered pair: duckdb, arrow (and polars)
    await page.click('[data-testid=run-default-proofs]');
    await expect.poll(async () => page.locator('[data-testid=proof-batch] [data-passed=""]').count(), { timeout: 240_000, interval: 1000 }).toBe(0);
    const verdicts = await page.locator('[data-testid=proof-batch] .pill').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-pair')}:${e.getAttribute('data-passed')}`));
    expect(verdicts).toHaveLength(n);
    expect(verdicts).toContain('duckdb,arrow:true');
    if (polarsHere) expect(verdicts).toContain('polars,duckdb:false');
    await shot(page, 'proof-batch-1920.png');
    await page.setViewportSize({ width: 1024, height: 800 });
    await shot(page, 'proof-engines-empty-1024.png');
    expect(errors).toEqual([]);
  });
});
