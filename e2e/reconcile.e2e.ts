// The Reconcile screen end to end, web mode in Chromium: a copy of the double_load sample lake
// is opened; its source extract is dropped on the window (a File in a DataTransfer: the upload
// route) and then given by path; both name double_load. The contract editor shows a problem on
// its line; a bad source is an error in words; the run is listed in Runs. Nothing is ever
// written into the table.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, ensureArtifacts, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';
import { copyLake, dropFile, treeState } from './screens-helpers';

const missing = chromiumSkip('reconcile');

describe.skipIf(missing !== null)('Reconcile screen (web mode, Chromium)', () => {
  let dir: string;
  let lakeCopy: string;
  let table: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  let before: string[];
  let uploaded = '';
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(ensureArtifacts(), name) });

  beforeAll(async () => {
    ({ dir, lakeCopy, table, before } = copyLake('double_load', 'lakerec-e2e-reconcile-'));
    ({ server, browser, page } = await startChromiumSession([table], join(dir, 'user-data'), { page: { viewport: { width: 1360, height: 900 } }, errors, goto: true }));
    await page.locator('[data-testid=tab-reconcile]').click();
    await page.locator('[data-testid=reconcile-view]').waitFor();
  });

  afterAll(() => stopChromiumSession(browser, server, dir));

  it('loads the lake\'s contract and checks it as it is edited, problems on their line', async () => {
    await page.locator('[data-testid=contract-ok]').waitFor();
    expect(await page.inputValue('[data-testid=contract-editor]')).toContain('keys: [order_id]');
    expect(await page.textContent('[data-testid=contract-panel]')).toContain('double_load/contract.yaml');
    await shot('reconcile-empty.png');
    const good = await page.inputValue('[data-testid=contract-editor]');
    await page.fill('[data-testid=contract-editor]', good.replace('keys: [order_id]', 'keys: [order_id]\nkeyz: 3'));
    const problem = page.locator('[data-testid=contract-problems] li');
    await problem.first().waitFor();
    const line = good.split('\n').findIndex((l) => l.startsWith('keys:')) + 2;
    expect(await problem.first().getAttribute('data-line')).toBe(String(line));
    expect(await problem.first().textContent()).toMatch(/unknown field "keyz"/);
    expect(await page.isDisabled('[data-testid=run-reconcile]')).toBe(true);
    await shot('reconcile-contract-error.png');
    await page.fill('[data-testid=contract-editor]', good);
    await page.locator('[data-testid=contract-ok]').waitFor();
  });

  it('a contract that came with the table is not run until it is accepted once', async () => {
    const banner = page.locator('[data-testid=contract-trust]');
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/came with the table .*double_load\/contract\.yaml.*not run until you accept it/);
    await shot('reconcile-contract-untrusted.png');
    await page.click('[data-testid=contract-accept]');
    await banner.waitFor({ state: 'detached' });
    // remembered in the app-data folder, by path and content hash
    const kept = JSON.parse(readFileSync(join(dir, 'user-data', 'accepted-contracts.json'), 'utf8')) as { path: string; sha256: string }[];
    expect(kept.map((k) => k.path)).toEqual([expect.stringMatching(/double_load[/\\]contract\.yaml$/)]);
  });

  it('a dropped source file (uploaded to the local engine) names double_load', async () => {
    await dropFile(page, '[data-testid=reconcile-view]', 'orders.parquet', readFileSync(join(lakeCopy, 'source', 'orders.parquet')));
    await expect.poll(() => page.textContent('[data-testid=source-chosen]')).toContain('uploaded');
    expect(await page.textContent('[data-testid=source-chosen]')).toContain('orders.parquet');
    uploaded = (await page.getAttribute('[data-testid=source-chosen]', 'title')) ?? '';
    expect(uploaded).toMatch(/lakerec-uploads-[^/\\]+[/\\]u-[^/\\]+[/\\]orders\.parquet$/);
    expect(existsSync(uploaded)).toBe(true);
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=verdict]').waitFor({ timeout: 60_000 });
    expect(await page.getAttribute('[data-testid=verdict]', 'data-verdict')).toBe('diverges');
    const modes = await page.locator('[data-testid=finding]').evaluateAll((els) => els.map((e) => e.getAttribute('data-mode')));
    expect(modes).toContain('double_load');
    const card = page.locator('[data-testid=finding][data-mode=double_load]');
    expect(await card.textContent()).toMatch(/Meaning.*Evidence.*Action/);
    // The partition that was loaded twice is the one marked.
    expect(await page.locator('[data-testid=partition-row][data-state=differs] td').first().textContent()).toBe('dt=2026-08-12');
    expect(await page.textContent('[data-testid=reads]')).toMatch(/Target rows read\s*6,300/);
    expect(await page.locator('[data-testid=row-diff]').count()).toBeGreaterThan(0);
    await shot('reconcile-result.png');
    await page.setViewportSize({ width: 1360, height: 1500 });
    await shot('reconcile-result-full.png');
    await page.setViewportSize({ width: 1360, height: 900 });
    // The upload went to the server's sandbox, never next to the table.
    expect(treeState(table)).toEqual(before);
    expect(readdirSync(lakeCopy).sort()).toEqual(['contract.yaml', 'scenario.json', 'source', 'table']);
  });

  it('the same source by path (typed) names double_load too, at keys level', async () => {
    await page.click('[data-testid=source-chosen] .item-remove');
    await page.fill('[data-testid=source-path]', join(lakeCopy, 'source', 'orders.csv'));
    await page.click('[data-testid=source-use-path]');
    await expect.poll(() => page.textContent('[data-testid=source-chosen]')).toContain('orders.csv');
    await page.click('[data-testid=level-keys]');
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=reconcile-progress]').waitFor({ state: 'detached', timeout: 60_000 });
    await page.locator('[data-testid=verdict]').waitFor();
    expect(await page.textContent('[data-testid=verdict]')).toContain('level keys');
    expect(await page.locator('[data-testid=finding][data-mode=double_load]').count()).toBe(1);
  });

  it('at version 6, before the retried batch, the table matches its source', async () => {
    await page.fill('[data-testid=target-version]', '6');
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=reconcile-progress]').waitFor({ state: 'detached', timeout: 60_000 });
    await page.locator('[data-testid=verdict]').waitFor();
    expect(await page.getAttribute('[data-testid=verdict]', 'data-verdict')).toBe('matches');
    expect(await page.textContent('[data-testid=verdict]')).toContain('@ v6');
    expect(await page.locator('[data-testid=no-findings]').count()).toBe(1);
    // The schema level reads no rows: it says no partition was compared, never that they agree.
    await page.click('[data-testid=level-schema]');
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=reconcile-progress]').waitFor({ state: 'detached', timeout: 60_000 });
    await page.locator('[data-testid=schema-no-rows]').waitFor();
    expect(await page.textContent('[data-testid=no-findings]')).toMatch(/No partition was compared/);
    expect(await page.textContent('[data-testid=no-partitions]')).toMatch(/No partition was compared at the schema level/);
    expect(await page.textContent('[data-testid=reconcile-result]')).not.toMatch(/every partition agrees/);
    await page.click('[data-testid=level-keys]');
    await page.fill('[data-testid=target-version]', '');
  });

  it('a Delta table at a version is a source too (typed as path@version)', async () => {
    await page.click('[data-testid=source-chosen] .item-remove');
    await page.fill('[data-testid=source-path]', `${table}@6`);
    await page.click('[data-testid=source-use-path]');
    await page.click('[data-testid=level-rows]');
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=reconcile-progress]').waitFor({ state: 'detached', timeout: 60_000 });
    await page.locator('[data-testid=verdict]').waitFor();
    expect(await page.textContent('[data-testid=verdict]')).toContain('(delta)');
    expect(await page.locator('[data-testid=finding][data-mode=double_load]').count()).toBe(1);
    await page.click('[data-testid=source-chosen] .item-remove');
    await page.fill('[data-testid=source-path]', join(lakeCopy, 'source', 'orders.csv'));
    await page.click('[data-testid=source-use-path]');
  });

  it('with a baseline, the second run inherits the unchanged partitions and reads no target row', async () => {
    await page.click('[data-testid=level-checksum]');
    await page.check('[data-testid=use-baseline]');
    const readsOf = async () => {
      await page.click('[data-testid=run-reconcile]');
      await page.locator('[data-testid=reconcile-progress]').waitFor({ state: 'detached', timeout: 60_000 });
      await page.locator('[data-testid=verdict]').waitFor();
      return page.textContent('[data-testid=reads]');
    };
    expect(await readsOf()).toMatch(/Target rows read\s*6,300\s*Avoided \(baseline\)\s*0/);
    expect(await readsOf()).toMatch(/Target rows read\s*0\s*Avoided \(baseline\)\s*6,300/);
    expect(await page.getAttribute('[data-testid=verdict]', 'data-verdict')).toBe('diverges');
    await shot('reconcile-baseline.png');
    // The baseline went to the app-data folder, not beside the table.
    expect(readdirSync(join(dir, 'user-data', 'baselines')).length).toBe(1);
    expect(treeState(table)).toEqual(before);
    await page.uncheck('[data-testid=use-baseline]');
    await page.click('[data-testid=level-rows]');
  });

  it('a source file dropped on another screen goes to Reconcile as the source', async () => {
    await page.click('[data-testid=tab-history]');
    await page.locator('[data-testid=reconcile-view]').waitFor({ state: 'detached' });
    await dropFile(page, '[data-testid=app]', 'orders.csv', readFileSync(join(lakeCopy, 'source', 'orders.csv')));
    await page.locator('[data-testid=reconcile-view]').waitFor();
    // The previous source was orders.csv by path: wait for the uploaded one.
    await expect.poll(() => page.textContent('[data-testid=source-chosen]')).toContain('uploaded');
    expect(await page.textContent('[data-testid=source-chosen]')).toContain('orders.csv');
  });

  it('shows the loading state with Cancel, and a cancelled run says so', async () => {
    // Hold the reconcile call in the browser so the loading state is there to see and cancel.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => { release = r; });
    await page.route('**/api/reconcile', async (route) => { await held; await route.continue(); });
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=reconcile-progress]').waitFor();
    await shot('reconcile-loading.png');
    await page.click('[data-testid=cancel-reconcile]');
    release();
    await page.locator('[data-testid=error-panel]').waitFor();
    expect(await page.getAttribute('[data-testid=error-panel]', 'data-code')).toBe('cancelled');
    await page.unroute('**/api/reconcile');
  });

  it('a source that cannot be read is an error in words, not a blank screen', async () => {
    await page.click('[data-testid=source-chosen] .item-remove');
    await page.fill('[data-testid=source-path]', join(dir, 'no-such-extract.parquet'));
    await page.click('[data-testid=source-use-path]');
    await page.click('[data-testid=run-reconcile]');
    const panel = page.locator('[data-testid=error-panel]');
    await panel.waitFor();
    expect(await panel.locator('[data-testid=error-message]').textContent()).toMatch(/no-such-extract\.parquet/);
    expect(['not_found', 'source_unreadable', 'io_error']).toContain(await panel.getAttribute('data-code'));
    await shot('reconcile-error.png');
    // A dropped file of another kind is refused before anything is sent.
    await page.click('[data-testid=source-chosen] .item-remove');
    await dropFile(page, '[data-testid=reconcile-view]', 'notes.txt', Buffer.from('hello'));
    expect(await page.textContent('[data-testid=source-error]')).toMatch(/not a source the workbench reads/);
  });

  it('lists the runs in the run history', async () => {
    await page.click('[data-testid=tab-runs]');
    await page.locator('[data-testid=runs-table]').waitFor();
    const kinds = await page.locator('[data-testid=run-row]').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-kind')}:${r.getAttribute('data-status')}`));
    expect(kinds.filter((k) => k === 'reconcile:fail').length).toBe(5);
    expect(kinds).toContain('reconcile:pass');
    expect(kinds).toContain('reconcile:error');
    expect(kinds).toContain('reconcile:cancelled');
    // A run opens to what it found.
    await page.locator('[data-testid=run-row][data-status=fail]').first().click();
    await expect.poll(() => page.textContent('[data-testid=run-detail]')).toContain('double_load');
    expect(await page.textContent('[data-testid=run-detail]')).toContain('diverges');
    await shot('runs.png');
    expect(treeState(table)).toEqual(before);
    expect(errors).toEqual([]);
  });

  it('web mode deletes the uploaded files when it stops', async () => {
    const sandbox = dirname(dirname(uploaded));
    expect(existsSync(sandbox)).toBe(true);
    await server.stop();
    expect(existsSync(sandbox)).toBe(false);
    expect(treeState(table)).toEqual(before);
  });
});
