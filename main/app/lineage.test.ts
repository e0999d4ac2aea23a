// The Lineage tab's engine side: a project attached per table (kept in the app-data folder), the
// model that writes the table found by the setting, by its configured location, or by the table's
// name; a path that is no project refused before it is kept; the verification as a job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLineageHandlers, LINEAGE_PROJECTS_FILE } from './lineage';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-app-lineage-'));
  const files: Record<string, string> = {
    'proj/dbt_project.yml': "name: 'p'\n",
    'proj/seeds/raw.csv': 'id,a\n1,10\n2,20\n3,30\n',
    'proj/models/orders.sql': "select id, a * 2 as a2 from {{ ref('raw') }}",
    'proj/models/placed.sql': "select id from {{ ref('orders') }} where a2 > 20",
    'proj/models/schema.yml': 'version: 2\nmodels:\n  - name: placed\n    config: { location: "../lake/placed_table" }\n',
  };
  for (const [p, t] of Object.entries(files)) { mkdirSync(join(dir, p, '..'), { recursive: true }); writeFileSync(join(dir, p), t); }
  for (const t of ['lake/orders', 'lake/placed_table', 'lake/other']) mkdirSync(join(dir, t, '_delta_log'), { recursive: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a dbt project attached to a table', () => {
  it('finds the model by name, by configured location, or by the setting; keeps the setting per table', async () => {
    const h = createLineageHandlers({ userDataDir: join(dir, 'user'), cwd: dir });
    const ctx = {};
    expect(await h.lineageAttachment({ table: join(dir, 'lake/orders') }, ctx)).toMatchObject({ project: null, tableModel: null });
    const byName = await h.attachLineage({ table: join(dir, 'lake/orders'), project: join(dir, 'proj'), model: null }, ctx);
    expect(byName).toMatchObject({ tableModel: 'orders', foundBy: 'name', problem: null, models: ['orders', 'placed'] });
    const byLocation = await h.attachLineage({ table: join(dir, 'lake/placed_table'), project: join(dir, 'proj'), model: null }, ctx);
    expect(byLocation).toMatchObject({ tableModel: 'placed', foundBy: 'location' });
    const none = await h.attachLineage({ table: join(dir, 'lake/other'), project: join(dir, 'proj'), model: null }, ctx);
    expect(none.tableModel).toBeNull();
    expect(none.problem).toMatch(/no model of the project writes this table/);
    const set = await h.attachLineage({ table: join(dir, 'lake/other'), project: join(dir, 'proj'), model: 'placed' }, ctx);
    expect(set).toMatchObject({ tableModel: 'placed', foundBy: 'setting' });
    // kept on disk, read again by a new handler set
    expect(JSON.parse(readFileSync(join(dir, 'user', LINEAGE_PROJECTS_FILE), 'utf8'))).toHaveLength(3);
    const again = createLineageHandlers({ userDataDir: join(dir, 'user'), cwd: dir });
    expect(await again.lineageAttachment({ table: join(dir, 'lake/other') }, ctx)).toMatchObject({ tableModel: 'placed' });
    // detached
    expect(await again.attachLineage({ table: join(dir, 'lake/other'), project: null, model: null }, ctx)).toMatchObject({ project: null });
  });

  it('refuses a path that is no project and a model the project lacks, before keeping them', async () => {
    const h = createLineageHandlers({ userDataDir: join(dir, 'user2'), cwd: dir });
    await expect(h.attachLineage({ table: join(dir, 'lake/orders'), project: join(dir, 'nowhere'), model: null }, {})).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.attachLineage({ table: join(dir, 'lake/orders'), project: join(dir, 'proj'), model: 'nope' }, {})).rejects.toMatchObject({ code: 'usage' });
    expect(await h.lineageAttachment({ table: join(dir, 'lake/orders') }, {})).toMatchObject({ project: null });
  });

  it('verifies the attached project as a job with progress; none attached is a usage error', async () => {
    const h = createLineageHandlers({ userDataDir: join(dir, 'user3'), cwd: dir });
    await expect(h.verifyLineage({ table: join(dir, 'lake/orders') }, {})).rejects.toMatchObject({ code: 'usage' });
    await h.attachLineage({ table: join(dir, 'lake/orders'), project: join(dir, 'proj'), model: null }, {});
    const phases: string[] = [];
    const run = await h.verifyLineage({ table: join(dir, 'lake/orders'), seed: 3 }, { progress: (p) => phases.push(p.phase) });
    expect(run.attachment.tableModel).toBe('orders');
    expect(run.result.seed).toBe(3);
    expect(run.result.totals).toMatchObject({ models: 2, claimed: 3, confirmed: 3, unexplained: 0 });
    expect(phases).toContain('verifying orders');
  }, 60_000);
});
