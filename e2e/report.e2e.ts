// "Export incident report" end to end, web mode in Chromium: reconcile the double_load lake with
// customer_id tagged confidential, export, catch the download, and check the file offline: it
// names the table, the versions examined, the timeline, double_load with its evidence, the bisect
// and the culprit commit, the contract, the tool version and when; it makes no request at all
// when opened with the network off; no confidential value is in it. The CLI's --html over the
// same inputs gives the same sections.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, ensureArtifacts, repoRoot, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';
import { copyLake, treeState } from './screens-helpers';

const missing = chromiumSkip('report');

/** Section titles (h2) of a report, in order. */
function sections(html: string): string[] {
  return [...html.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1]);
}

describe.skipIf(missing !== null)('incident report export (web mode, Chromium)', () => {
  let dir: string;
  let lake: string;
  let table: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  let before: string[];
  let html = '';
  let contract = '';
  const reportFile = () => join(ensureArtifacts(), 'incident-report.html');

  beforeAll(async () => {
    ({ dir, lakeCopy: lake, table, before } = copyLake('double_load', 'lakerec-e2e-report-'));
    contract = readFileSync(join(lake, 'contract.yaml'), 'utf8').replace('customer_id: { sensitivity: internal', 'customer_id: { sensitivity: confidential');
    ({ server, browser, page } = await startChromiumSession([table], join(dir, 'user-data'), { page: { viewport: { width: 1360, height: 900 }, acceptDownloads: true } }));
  });

  afterAll(() => stopChromiumSession(browser, server, dir));

  it('exports one HTML file from the result (a download in web mode)', async () => {
    await page.goto(server.pageUrl);
    await page.locator('[data-testid=tab-reconcile]').click();
    await page.locator('[data-testid=contract-ok]').waitFor();
    await page.fill('[data-testid=contract-editor]', contract);
    await page.locator('[data-testid=contract-ok]').waitFor();
    await page.fill('[data-testid=source-path]', join(lake, 'source', 'orders.parquet'));
    await page.click('[data-testid=source-use-path]');
    await page.click('[data-testid=run-reconcile]');
    await page.locator('[data-testid=verdict]').waitFor({ timeout: 60_000 });
    // The window shows the example rows masked too.
    expect(await page.textContent('[data-testid=reconcile-result]')).toContain('(masked: confidential)');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.click('[data-testid=export-report]')]);
    expect(download.suggestedFilename()).toMatch(/^lakerec-incident-double_load-\d{8}T\d{6}Z\.html$/);
    await download.saveAs(reportFile());
    await page.locator('[data-testid=report-done]').waitFor();
    await page.screenshot({ path: join(ensureArtifacts(), 'report-exported.png') });
    html = readFileSync(reportFile(), 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
  });

  it('holds the table, versions, timeline, findings with evidence, bisect, culprit, contract, version and time', () => {
    expect(html).toContain(table);
    expect(sections(html)).toEqual(['Incident', 'Reconcile', 'Findings', 'Partitions', 'Example rows', 'Rows behind the findings', 'Data laws', 'Timeline excerpt', 'Bisect', 'How it was compared', 'Contract used']);
    // Each duplicated row with the commit that added its file; the retried day breaks the row-count law.
    expect(html).toMatch(/<td>duplicate<\/td><td>order_id=\d+<\/td><td>[^<]+\.parquet<\/td><td>\d+<\/td><td>v\d+ [^<]*WRITE by lakerec/);
    expect(html).toMatch(/row count per dt<\/td><td><strong>no<\/strong><\/td><td>5 of 6<\/td><td>2026-08-12: 900 -&gt; 1800/);
    expect(html).toMatch(/Versions examined<\/th><td>v0 to v7 \(8 versions in the log\)/);
    expect(html).toMatch(/<code>double_load<\/code> 900 duplicate rows/);
    expect(html).toMatch(/Evidence<\/b> \(level rows\): duplicate rows 900/);
    expect(html).toContain('dt=2026-08-12');
    expect(html).toMatch(/Predicate <code>unique-keys, keys order_id<\/code>/);
    // The bisect's one headline (bisectHeadline), the same line the CLI prints first and the banner shows.
    expect(html).toMatch(/<b>broke at v7 \(WRITE\); last good v6; the latest version \(v7\) fails<\/b>/);
    expect(html).toMatch(/Culprit commit<\/th><td>v7 WRITE at 2026-/);
    expect(html).toContain('keys: [order_id]');
    expect(html).toMatch(/lakerec 0\.1\.0 \(DuckDB v?\d/);
    expect(html).toMatch(/Made by<\/th><td>[^<]*20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d/);
  });

  it('is self-contained: no script, no external src/href, no request when opened offline', async () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/url\(\s*["']?https?:/i);
    expect(html).not.toMatch(/@import/i);
    const context = await browser.newContext({ offline: true, viewport: { width: 1100, height: 900 } });
    const requests: string[] = [];
    context.on('request', (r) => requests.push(r.url()));
    const p = await context.newPage();
    const url = pathToFileURL(reportFile()).href;
    await p.goto(url);
    expect(await p.locator('svg').count()).toBeGreaterThanOrEqual(2);
    expect(await p.textContent('h1')).toContain('lakerec incident report: double_load/table, diverges');
    await p.screenshot({ path: join(ensureArtifacts(), 'report.png') });
    await p.screenshot({ path: join(ensureArtifacts(), 'report-full.png'), fullPage: true });
    await context.close();
    expect(requests.filter((r) => r !== url)).toEqual([]);
  });

  it('masks the confidential column in every example row', () => {
    expect(html).toContain('(masked: confidential)');
    expect(html).toContain('Values of <code>customer_id</code> are masked');
    // The customer ids of the duplicated rows, read from the source extract, appear nowhere as a cell.
    const csv = readFileSync(join(lake, 'source', 'orders.csv'), 'utf8').split('\n');
    const head = csv[0].split(',');
    const ci = head.indexOf('customer_id');
    const oi = head.indexOf('order_id');
    const shown = [...html.matchAll(/order_id=(\d+)/g)].map((m) => m[1]);
    expect(shown.length).toBeGreaterThan(0);
    for (const line of csv.slice(1)) {
      const cells = line.split(',');
      if (shown.includes(cells[oi])) expect(html).not.toContain(`<td>${cells[ci]}</td>`);
    }
    expect(treeState(table)).toEqual(before);
  });

  it('the CLI\'s --html over the same inputs has the same sections (the same code)', () => {
    const contractFile = join(dir, 'contract.yaml');
    writeFileSync(contractFile, contract);
    const out = join(dir, 'cli.html');
    const r = spawnSync(process.execPath, [join(repoRoot, 'dist', 'main', 'cli.js'), 'reconcile', join(lake, 'source', 'orders.parquet'), table, '--contract', contractFile, '--html', out], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(1);
    const cli = readFileSync(out, 'utf8');
    expect(sections(cli)).toEqual(sections(html));
    // Apart from when it was made and how long it took, the findings and the bisect are the same text.
    const findings = (h: string) => /<section id="findings">[\s\S]*?<\/section>/.exec(h)?.[0];
    const bisect = (h: string) => /<section id="bisect">[\s\S]*?<\/section>/.exec(h)?.[0];
    expect(findings(cli)).toBe(findings(html));
    expect(bisect(cli)).toBe(bisect(html));
    // Every report the CLI writes masks the confidential column: the JSON too.
    const json = spawnSync(process.execPath, [join(repoRoot, 'dist', 'main', 'cli.js'), 'reconcile', join(lake, 'source', 'orders.parquet'), table, '--contract', contractFile, '--json'], { encoding: 'utf8' });
    const rows = (JSON.parse(json.stdout) as { rowDiffs: { source: Record<string, string> | null }[] }).rowDiffs;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) if (r.source) expect(r.source.customer_id).toMatch(/^\(masked: confidential\)/);
  });
});
