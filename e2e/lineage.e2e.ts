// The Lineage tab end to end, web mode in Chromium: on a copy of the control sample lake, a dbt
// project written here is attached to the table (a path that is no project is an error in words),
// the model that writes the table is found by the table's name, the lineage is verified with
// progress, the graph, the totals (the CLI's) and a column's verified input columns followed
// across models are shown, and the commit panel links to the model. Screenshots of the empty,
// loading, error and full states at 1024, 1400 and 1920 px (the commit panel's link at 1400). Neither the table nor the project is written.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumSkip, ensureArtifacts, startChromiumSession, stopChromiumSession, type WebMode } from './helpers';
import { copyLake, treeState } from './screens-helpers';
import { verifyLineage } from '../main/lineage/verify';

const missing = chromiumSkip('lineage');
const WIDTHS = [1024, 1400, 1920];

function writeProject(root: string): void {
  const orders = ['id,customer_id,amount,status,ordered_at', ...Array.from({ length: 3000 }, (_, i) => `${i + 1},${(i % 97) + 1},${(i * 37) % 9000 + 50},${['placed', 'shipped', 'returned', 'completed'][i % 4]},2026-0${(i % 9) + 1}-${String((i % 27) + 1).padStart(2, '0')}`)];
  const customers = ['id,first_name,last_name', ...Array.from({ length: 97 }, (_, i) => `${i + 1},first${i + 1},L${i % 26}`)];
  const files: Record<string, string> = {
    'dbt_project.yml': "name: 'shop'\nconfig-version: 2\n",
    'seeds/raw_orders.csv': orders.join('\n') + '\n',
    'seeds/raw_customers.csv': customers.join('\n') + '\n',
    'macros/cents.sql': "{% macro to_dollars(c) %}{{ return(adapter.dispatch('to_dollars')(c)) }}{% endmacro %}{% macro default__to_dollars(c) %}({{ c }} / 100.0){% endmacro %}",
    'models/staging/stg_orders.sql': "select id as order_id, customer_id, {{ to_dollars('amount') }} as amount, status, cast(ordered_at as date) as ordered_at from {{ ref('raw_orders') }}",
    'models/staging/stg_customers.sql': "select id as customer_id, first_name, last_name from {{ ref('raw_customers') }}",
    'models/customer_orders.sql': `select customer_id, count(order_id) as orders, sum(amount) as total, min(ordered_at) as first_order
from {{ ref('stg_orders') }} where status <> 'returned' group by 1`,
    'models/control.sql': `with c as (select * from {{ ref('stg_customers') }}), o as (select * from {{ ref('customer_orders') }})
select c.customer_id, c.first_name || ' ' || c.last_name as name, coalesce(o.orders, 0) as orders, o.total, o.first_order,
  row_number() over (order by o.total desc nulls last, c.customer_id) as rank
from c left join o using (customer_id)`,
    'models/two_statements.sql': 'select 1 as x; select 2 as y',
  };
  for (const [p, t] of Object.entries(files)) { mkdirSync(dirname(join(root, p)), { recursive: true }); writeFileSync(join(root, p), t); }
}

describe.skipIf(missing !== null)('Lineage tab (web mode, Chromium)', () => {
  let dir: string;
  let table: string;
  let project: string;
  let server: WebMode;
  let browser: Browser;
  let page: Page;
  let before: string[];
  let projectBefore: string[];
  const errors: string[] = [];
  const shotAt = async (name: string, widths = WIDTHS) => {
    for (const w of widths) {
      await page.setViewportSize({ width: w, height: 900 });
      await page.screenshot({ path: join(ensureArtifacts(), `${name}-${w}.png`) });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
  };

  beforeAll(async () => {
    ({ dir, table, before } = copyLake('control', 'lakerec-e2e-lineage-'));
    project = join(dir, 'shop');
    writeProject(project);
    projectBefore = treeState(project);
    ({ server, browser, page } = await startChromiumSession([table], join(dir, 'user-data'), { page: { viewport: { width: 1400, height: 900 } }, errors, goto: true }));
    await page.locator('[data-testid=tab-lineage]').click();
    await page.locator('[data-testid=lineage-view]').waitFor();
  });

  afterAll(() => stopChromiumSession(browser, server, dir));

  it('with no project attached, says what to attach; a path that is no project is an error in words', async () => {
    await page.locator('[data-testid=lineage-empty]').waitFor();
    expect(await page.textContent('[data-testid=lineage-empty]')).toMatch(/Attach the dbt project/);
    await shotAt('lineage-empty');
    await page.fill('[data-testid=lineage-project-path]', join(dir, 'nowhere'));
    await page.click('[data-testid=lineage-attach-submit]');
    await page.locator('[data-testid=error-panel]').waitFor();
    expect(await page.textContent('[data-testid=error-panel]')).toMatch(/no such project/);
    await shotAt('lineage-error');
  });

  it('attaches the project, finds the model by the table\'s name, verifies with progress, and shows the CLI\'s numbers', async () => {
    await page.fill('[data-testid=lineage-project-path]', project);
    await page.click('[data-testid=lineage-attach-submit]');
    await page.locator('[data-testid=lineage-verify]').waitFor();
    expect(await page.textContent('[data-testid=lineage-found-by]')).toMatch(/table's name/);
    expect(await page.inputValue('[data-testid=lineage-model-select]')).toBe('control');
    // The loading state at each width: one run per width, the screenshot while it runs.
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w, height: 900 });
      await page.click('[data-testid=lineage-verify]');
      await page.locator('[data-testid=lineage-progress]').waitFor();
      await page.screenshot({ path: join(ensureArtifacts(), `lineage-loading-${w}.png`) });
      await page.locator('[data-testid=lineage-totals]').waitFor({ timeout: 120_000 });
    }
    await page.setViewportSize({ width: 1400, height: 900 });
    const cli = await verifyLineage({ project });
    const totals = await page.textContent('[data-testid=lineage-totals]');
    expect(totals).toContain(`${cli.totals.models} models`);
    expect(totals).toContain(`${cli.totals.claimed} claimed column edges`);
    expect(totals).toContain(`${cli.totals.confirmed} confirmed`);
    expect(await page.textContent('[data-testid=lineage-unexplained]')).toContain(`${cli.totals.unexplained} unexplained`);
    // The graph holds every model and its inputs; the skipped model says why.
    for (const n of ['raw_orders', 'stg_orders', 'customer_orders', 'control', 'two_statements']) await page.locator(`[data-testid=lineage-node-${n}]`).waitFor();
    expect(await page.textContent('[data-testid=lineage-model-two_statements]')).toMatch(/2 statements/);
    // A chosen column's verified input columns, followed across models, each verdict the CLI's.
    await page.click('[data-testid=lineage-col-total]');
    const detail = await page.textContent('[data-testid=lineage-column-detail]');
    expect(detail).toMatch(/customer_orders\.total/);
    expect(detail).toMatch(/stg_orders\.amount/);
    expect(detail).toMatch(/raw_orders\.amount/);
    const control = cli.models.find((m) => m.name === 'control')!;
    const orders = control.edges.find((e) => e.output === 'orders' && e.column === 'orders')!;
    await page.click('[data-testid=lineage-col-orders]');
    const first = page.locator('[data-testid=lineage-edge] [data-verdict]').first();
    expect(await first.getAttribute('data-verdict')).toBe(orders.verdict);
    await shotAt('lineage-full');
    await page.click('[data-testid=lineage-col-rank]');
    await page.setViewportSize({ width: 1400, height: 1600 });
    await page.screenshot({ path: join(ensureArtifacts(), 'lineage-full-tall.png') });
    await page.setViewportSize({ width: 1400, height: 900 });
  }, 180_000);

  it('the commit panel names the model that writes the table and opens its lineage', async () => {
    await page.locator('[data-testid=tab-timeline]').click();
    await page.locator('[data-testid=commit-lineage]').waitFor({ timeout: 30_000 }).catch(async () => {
      // no commit selected yet: pick the newest version in the list
      await page.locator('[data-testid^=version-row], .version-row, [data-version]').first().click();
      await page.locator('[data-testid=commit-lineage]').waitFor();
    });
    expect(await page.textContent('[data-testid=commit-lineage]')).toMatch(/Written by the dbt model control/);
    await page.screenshot({ path: join(ensureArtifacts(), 'lineage-commit-link-1400.png') });
    await page.click('[data-testid=commit-lineage-open]');
    await page.locator('[data-testid=lineage-view]').waitFor();
    expect(treeState(table)).toEqual(before);
    expect(treeState(project)).toEqual(projectBefore);
    expect(errors).toEqual([]);
  }, 60_000);
});
