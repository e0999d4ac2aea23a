// The Reconcile screen's connection picker end to end, web mode in Chromium: the engine lists the
// connections of a settings file (names and kinds only reach the page), a run with both sides
// pushed to a `type: duckdb` connection (DuckDB executes the pushed SQL over the lake's files)
// names the same modes in the same words as the local run, a run against a Trino connection that
// never answers shows its progress and is cancelled, and one against a closed port is an error in
// one line without the password. Screenshots at 1024, 1400 and 1920 px in each state.
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, ensureArtifacts, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';
import { copyLake, treeState } from './screens-helpers';

const missing = chromiumSkip('warehouse picker');
const PASSWORD = 'pw-e2e-5c4b3a29';
const WIDTHS = [1024, 1400, 1920];

describe.skipIf(missing !== null)('Reconcile screen: a side pushed to a warehouse connection (web mode, Chromium)', () => {
  let dir: string;
  let lakeCopy: string;
  let table: string;
  let before: string[];
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  let silent: Server;
  const sockets = new Set<Socket>();
  const errors: string[] = [];
  let localSaid: string[] = [];

  const shots = async (state: string, scrollTo?: string) => {
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w, height: 1000 });
      if (scrollTo) await page.locator(scrollTo).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ensureArtifacts(), `warehouse-${state}-${w}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1400, height: 1000 });
  };
  const said = () => page.locator('[data-testid=finding]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-mode')}: ${e.querySelector('.finding-summary')?.textContent ?? ''}`));

  beforeAll(async () => {
    ({ dir, lakeCopy, table, before } = copyLake('double_load', 'lakerec-e2e-warehouse-'));
    silent = createServer((s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const silentPort = (silent.address() as { port: number }).port;
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const closedPort = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const settings = join(dir, 'settings.yaml');
    writeFileSync(settings, [
      'connections:',
      '  here: { type: duckdb }',
      `  quiet: { type: trino, host: 127.0.0.1, port: ${silentPort}, http_scheme: http, user: ana, password: "${PASSWORD}" }`,
      `  gone: { type: trino, host: 127.0.0.1, port: ${closedPort}, http_scheme: http, user: ana, password: "${PASSWORD}" }`,
      '',
    ].join('\n'));
    ({ server, browser, page } = await startChromiumSession([table], join(dir, 'user-data'), {
      page: { viewport: { width: 1400, height: 1000 } }, errors, goto: true,
      env: { LAKEREC_SETTINGS: settings, LAKEREC_CONFIG_DIR: join(dir, 'cfg'), HOME: join(dir, 'home') },
    }));
    await page.locator('[data-testid=tab-reconcile]').click();
    await page.locator('[data-testid=reconcile-view]').waitFor();
    const banner = page.locator('[data-testid=contract-trust]');
    await banner.waitFor();
    await page.click('[data-testid=contract-accept]');
    await banner.waitFor({ state: 'detached' });
    await page.fill('[data-testid=source-path]', join(lakeCopy, 'source', 'orders.parquet'));
    await page.click('[data-testid=source-use-path]');
    await page.locator('[data-testid=contract-ok]').waitFor();
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => (silent ? silent.close(() => r()) : r()));
    await stopChromiumSession(browser, server, dir);
  });

  it('lists the connections by name and kind only; nothing is chosen at first', async () => {
    const options = await page.locator('[data-testid=warehouse-connection] option').allTextContents();
    expect(options).toEqual(['this machine (local engine)', 'here (duckdb)', 'quiet (trino)', 'gone (trino)']);
    const html = await page.content();
    expect(html).not.toContain(PASSWORD);
    expect(html).not.toContain('127.0.0.1:');
    expect(await page.inputValue('[data-testid=warehouse-connection]')).toBe('');
    await shots('empty');
  });

  it('the local run first, at rows level: double_load', async () => {
    await page.click('[data-testid=level-rows]');
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=verdict]').waitFor({ timeout: 60_000 });
    localSaid = await said();
    expect(localSaid.some((s) => s.startsWith('double_load: '))).toBe(true);
    expect(await page.locator('[data-testid=pushed-ran]').count()).toBe(0);
  });

  it('both sides pushed to the duckdb connection: the same modes in the same words, and what ran where', async () => {
    await page.selectOption('[data-testid=warehouse-connection]', 'here');
    await page.click('[data-testid=warehouse-side-both]');
    expect(await page.isDisabled('[data-testid=use-baseline]')).toBe(true);
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=pushed-ran]').waitFor({ timeout: 60_000 });
    expect(await page.getAttribute('[data-testid=verdict]', 'data-verdict')).toBe('diverges');
    expect(await said()).toEqual(localSaid);
    expect(await page.textContent('[data-testid=verdict]')).toMatch(/computed on duckdb/);
    const ran = await page.locator('[data-testid=pushed-ran] tbody tr').allTextContents();
    expect(ran.length).toBeGreaterThan(4);
    expect(ran.some((r) => /^rows[0-9a-f]{16}duckdb/.test(r))).toBe(true);
    expect(await page.textContent('[data-testid=pushed-not-examined]')).toContain("the target's Delta log is not read");
    expect(await page.textContent('[data-testid=partition-row][data-state=differs] td')).toBe('dt=2026-08-12');
    await shots('full');
    await shots('full-ran', '[data-testid=pushed-not-examined]');
  });

  it('a warehouse that never answers: determinate progress, then Cancel', async () => {
    await page.selectOption('[data-testid=warehouse-connection]', 'quiet');
    await page.click('[data-testid=warehouse-side-target]');
    await page.fill('[data-testid=warehouse-target-relation]', 'delta.sales.orders');
    await page.click('[data-testid=run-reconcile]');
    const progress = page.locator('[data-testid=reconcile-progress]');
    await progress.waitFor();
    await expect.poll(() => progress.textContent(), { timeout: 20_000 }).toMatch(/schema/);
    await shots('loading');
    await page.click('[data-testid=cancel-reconcile]');
    await progress.waitFor({ state: 'detached', timeout: 20_000 });
  });

  it('a warehouse that cannot be reached: one line, no password', async () => {
    await page.selectOption('[data-testid=warehouse-connection]', 'gone');
    await page.click('[data-testid=run-reconcile]');
    const msg = page.locator('[data-testid=error-message]');
    await msg.waitFor({ timeout: 30_000 });
    const text = (await msg.textContent()) ?? '';
    expect(text).toMatch(/trino gone: .*(ECONNREFUSED|could not connect|the query failed)/);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain('\n');
    expect(await page.textContent('[data-testid=error-panel] h2')).toBe('The warehouse could not run the query');
    await shots('error');
    // Nothing was written into the table.
    expect(treeState(table)).toEqual(before);
    expect(errors).toEqual([]);
  });
});
