// The visual bisect end to end (web mode, Debian's Chromium, the real server and engine): the
// strip colours in from the probe events, the culprit is named and opens in the timeline; a
// healed history, a vacuumed one, a binary search, Cancel, and a refused predicate.
import { mkdtempSync, rmSync } from 'node:fs';
import { HandLog, add, commitInfo, metaData, protocol } from '../main/testing/handlog';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Browser, ElectronApplication, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, ensureArtifacts, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';
import { electronSkipReason, ensureLakes, lake, launchElectron, openByPath } from './lakes';

const missing = chromiumSkip('bisect');

describe.skipIf(missing !== null)('bisect in Chromium', () => {
  let dir: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(ensureArtifacts(), name) });
  const cells = (): Promise<string[]> =>
    page.locator('[data-testid=strip-cell]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-version')}:${e.getAttribute('data-state')}`));
  const result = () => page.locator('[data-testid=bisect-result]');

  async function runBisect(path: string, predicate: string, fill: Record<string, string>): Promise<void> {
    await openByPath(page, path);
    await page.locator('[data-testid=tab-bisect]').click();
    // The screen must show the table just opened before running.
    await page.locator(`[data-testid=bisect][data-path="${path}"] [data-testid=bisect-form]`).waitFor();
    await page.selectOption('[data-testid=bisect-predicate]', predicate);
    for (const [k, v] of Object.entries(fill)) await page.fill(`[data-testid=bisect-${k}]`, v);
    await page.click('[data-testid=bisect-run]');
  }

  beforeAll(async () => {
    ensureLakes();
    dir = mkdtempSync(join(tmpdir(), 'lakerec-e2e-bisect-'));
    ({ server, browser, page } = await startChromiumSession([], join(dir, 'user-data'), { page: { viewport: { width: 1440, height: 900 } }, errors, goto: true }));
  });

  afterAll(() => stopChromiumSession(browser, server, dir));

  it('bisects the double load: cells colour LIVE from the probe events, the culprit v7 is drawn and opens in the timeline', async () => {
    // Hold the job's answer after the engine finished: the cells must already have their colours
    // from the progress events, while the job is still running in the window.
    let release: () => void = () => {};
    const held = new Promise<void>((r) => { release = r; });
    const hold = async (route: Route) => {
      const res = await route.fetch();
      await held;
      await route.fulfill({ response: res }).catch(() => {});
    };
    await page.route('**/api/bisect', hold, { times: 1 });
    await runBisect(lake('double_load'), 'unique-keys', { keys: 'order_id' });
    await expect.poll(async () => (await cells()).filter((c) => !c.endsWith(':none')).length, { timeout: 20_000 }).toBe(8);
    expect(await page.getAttribute('[data-testid=bisect-status]', 'data-status')).toBe('running');
    expect(await result().count()).toBe(0);
    await shot('bisect-running.png');
    release();
    await result().waitFor();
    await page.unroute('**/api/bisect', hold);
    expect(await result().getAttribute('data-outcome')).toBe('bad');
    expect(await result().getAttribute('data-first-bad')).toBe('7');
    expect(await page.textContent('[data-testid=bisect-headline]')).toBe('broke at v7 (WRITE); last good v6; the latest version (v7) fails');
    expect(await cells()).toEqual(['0:good', '1:good', '2:good', '3:good', '4:good', '5:good', '6:good', '7:bad']);
    expect(await page.locator('[data-testid=strip-cell].culprit').getAttribute('data-version')).toBe('7');
    expect(await page.locator('[data-testid=probe-item]').count()).toBe(8);
    expect(await page.textContent('[data-testid=bisect-culprit]')).toMatch(/v7.*WRITE.*\+900/);
    await shot('bisect-double-load.png');
    // The culprit opens in the investigation view.
    await page.click('[data-testid=open-culprit]');
    await page.locator('[data-testid=commit-detail][data-version="7"]').waitFor();
    expect(await page.getAttribute('[data-testid=tab-timeline]', 'aria-selected')).toBe('true');
    expect(await page.locator('[data-testid=commit-finding][data-name=duplicate_batch]').count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it('draws a healed history: broke at v7, recovered at v8', async () => {
    await runBisect(lake('healed_history'), 'unique-keys', { keys: 'order_id' });
    await result().waitFor();
    expect(await result().getAttribute('data-first-bad')).toBe('7');
    expect(await page.textContent('[data-testid=bisect-headline]')).toMatch(/^healed: broke at v7 .*, recovered at v8; the latest version \(v8\) passes again$/);
    expect(await page.locator('[data-testid=bisect-healed]').count()).toBe(1);
    const c = await cells();
    expect(c.slice(6)).toEqual(['6:good', '7:bad', '8:good']);
    await shot('bisect-healed.png');
  });

  it('a predicate that is not monotone: the banner and the strip say the same, no culprit, no "healed"', async () => {
    // dt=a appears at v1 with 5 rows (bad against 10) and holds 10 from v2 on (good)
    const root = join(dir, 'rising');
    new HandLog(root)
      .commit(0, [protocol(), metaData(), commitInfo(0, 'CREATE TABLE')])
      .commit(1, [commitInfo(1, 'WRITE'), add('dt=a/1.parquet', 5, { dt: 'a' })])
      .commit(2, [commitInfo(2, 'WRITE'), add('dt=a/2.parquet', 5, { dt: 'a' })])
      .commit(3, [commitInfo(3, 'WRITE'), add('dt=b/3.parquet', 5, { dt: 'b' })]);
    await runBisect(root, 'row-count', { expect: '10', partition: 'dt=a' });
    await result().waitFor();
    expect(await result().getAttribute('data-outcome')).toBe('not_monotone');
    expect(await page.textContent('[data-testid=bisect-headline]')).toBe('not monotone: the predicate fails at the oldest version (v1) and passes at the latest (v3); no version can be named as the culprit');
    expect(await page.locator('[data-testid=bisect-not-monotone]').count()).toBe(1);
    expect(await page.locator('[data-testid=bisect-healed]').count()).toBe(0);
    expect(await page.locator('[data-testid=bisect-culprit]').count()).toBe(0);
    expect(await page.locator('[data-testid=strip-cell].culprit').count()).toBe(0);
    // The strip: before the partition existed, then bad, then good up to the latest.
    expect(await cells()).toEqual(['0:before_partition', '1:bad', '2:good', '3:good']);
    // One count of the versions examined: the banner, the result and the probe list agree.
    expect(await page.locator('[data-testid=probe-item]').count()).toBe(4);
    expect(await page.textContent('[data-testid=bisect-status]')).toBe('examined 4 version(s) (exhaustive): 3 evaluated, 1 before the partition existed');
    expect(await page.textContent('[data-testid=bisect-examined]')).toBe('4 of 4 version(s): 3 evaluated, 1 before the partition existed');
    // The form's examples are this table's: 15 rows at the latest version, its newest partition.
    expect(await page.getAttribute('[data-testid=bisect-expect]', 'placeholder')).toBe('15');
    expect(await page.getAttribute('[data-testid=bisect-partition]', 'placeholder')).toBe('dt=b');
    await shot('bisect-not-monotone.png');
    await page.fill('[data-testid=bisect-partition]', ''); // the form keeps its fields for the next run
  });

  it('draws vacuumed history as unreadable and says the first bad version is not recoverable', async () => {
    await runBisect(lake('vacuumed_history'), 'unique-keys', { keys: 'order_id' });
    await result().waitFor();
    expect(await result().getAttribute('data-outcome')).toBe('not_recoverable');
    expect(await page.textContent('[data-testid=bisect-not-recoverable]')).toMatch(/not recoverable/);
    const c = await cells();
    expect(c.slice(0, 8).every((x) => x.endsWith(':unreadable'))).toBe(true);
    expect(c[8]).toBe('8:bad');
    await shot('bisect-vacuumed.png');
  });

  it('binary-searches 61 versions: a few probes, the rest not evaluated, culprit v42', async () => {
    await runBisect(lake('bisect_many_versions'), 'unique-keys', { keys: 'order_id' });
    await result().waitFor();
    expect(await result().getAttribute('data-first-bad')).toBe('42');
    const c = await cells();
    expect(c.length).toBe(61);
    const probed = c.filter((x) => !x.endsWith(':none'));
    expect(probed.length).toBeLessThan(15);
    expect(c[42]).toBe('42:bad');
    expect(c[41]).toBe('41:good');
    expect(await result().textContent()).toContain('binary search');
    expect(await result().textContent()).toContain('assumed, not checked');
    await shot('bisect-binary-search.png');
  });

  it('cancels a running bisect in the engine', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((r) => { release = r; });
    await page.route('**/api/bisect', async (route) => {
      await held;
      await route.continue();
    });
    await runBisect(lake('double_load'), 'unique-keys', { keys: 'order_id' });
    await page.click('[data-testid=bisect-cancel]');
    await new Promise((r) => setTimeout(r, 300)); // the cancel reaches the server first
    release();
    await page.locator('[data-testid=error-panel][data-code=cancelled]').waitFor();
    await page.unroute('**/api/bisect');
  });

  it('shows a refused predicate and a missing key as typed errors in words', async () => {
    await runBisect(lake('double_load'), 'matches-source', { source: join(lake('double_load'), '..', 'source', 'orders.parquet') });
    const refused = page.locator('[data-testid=error-panel][data-code=predicate_refused]');
    await refused.waitFor();
    expect(await refused.locator('[data-testid=error-message]').textContent()).toMatch(/partition/);
    await shot('bisect-refused.png');
    await page.selectOption('[data-testid=bisect-predicate]', 'unique-keys');
    await page.fill('[data-testid=bisect-keys]', 'no_such_column');
    await page.click('[data-testid=bisect-run]');
    const bad = page.locator('[data-testid=error-panel]');
    await bad.waitFor();
    expect(await bad.locator('[data-testid=error-message]').textContent()).toMatch(/no_such_column/);
    expect(errors).toEqual([]);
  });
});

const noElectron = electronSkipReason();
if (noElectron) process.stdout.write(`e2e bisect (Electron): SKIPPED: ${noElectron}\n`);

describe.skipIf(noElectron !== null)('bisect and timeline in the Electron app', () => {
  let dir: string;
  let app: ElectronApplication;
  let page: Page;

  beforeAll(async () => {
    ensureLakes();
    dir = mkdtempSync(join(tmpdir(), 'lakerec-e2e-bisect-electron-'));
    app = await launchElectron(lake('double_load'), join(dir, 'user-data'));
    page = await app.firstWindow();
  });

  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the retried batch in the timeline, bisects to it over IPC progress, and opens the culprit', async () => {
    await page.locator('[data-testid=finding-item][data-name=duplicate_batch][data-version="7"]').click();
    await page.locator('[data-testid=commit-detail][data-version="7"]').waitFor();
    await page.locator('[data-testid=tab-bisect]').click();
    await page.fill('[data-testid=bisect-keys]', 'order_id');
    await page.click('[data-testid=bisect-run]');
    const result = page.locator('[data-testid=bisect-result]');
    await result.waitFor();
    expect(await result.getAttribute('data-first-bad')).toBe('7');
    expect(await page.locator('[data-testid=probe-item]').count()).toBe(8);
    await page.screenshot({ path: join(ensureArtifacts(), 'electron-bisect.png') });
    await page.click('[data-testid=open-culprit]');
    await page.locator('[data-testid=commit-detail][data-version="7"]').waitFor();
  });
});
