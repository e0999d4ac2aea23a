// The incident report over a real sample lake: reconcile double_load, compose (forensics + a
// bisect), render; the file names the mode, the culprit commit and the contract, is offline, and
// masks confidential columns.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconcileResult } from '../../shared/reconcile';
import { parseContract } from '../reconcile/contract';
import { reconcile } from '../reconcile/reconcile';
import { listRuns } from '../runs/store';
import { maskReconcileResult, sensitivityOf } from './mask';
import { composeIncident, renderIncidentHtml } from './report';
import { checkContract, createScreenHandlers } from '../app/screens';
import { createService } from '../app/service';

const lake = resolve(__dirname, '..', '..', 'sample-lakes', 'built', 'double_load');
const built = existsSync(join(lake, 'table', '_delta_log'));
if (!built) process.stdout.write('report.test: SKIPPED: sample lakes not built (npm run sample-lakes)\n');

/** Every src/href value in the document, and whether any script tag exists. */
function externalRefs(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)\s*=\s*["']?([^"'\s>]+)/gi)].map((m) => m[1]).filter((u) => !u.startsWith('#'));
}

describe.skipIf(!built)('incident report', () => {
  const contractText = built ? readFileSync(join(lake, 'contract.yaml'), 'utf8') : '';
  // The same contract with customer_id confidential: its values must never reach a report.
  const confidential = contractText.replace('customer_id: { sensitivity: internal', 'customer_id: { sensitivity: confidential');
  let result: ReconcileResult;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lakerec-report-test-'));
    result = await reconcile({ source: join(lake, 'source', 'orders.parquet'), target: { root: join(lake, 'table') }, contract: parseContract(confidential), level: 'rows' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the mode, the culprit commit, the timeline and the contract, offline', async () => {
    expect(confidential).not.toBe(contractText);
    const input = await composeIncident({ result, table: join(lake, 'table'), source: join(lake, 'source', 'orders.parquet'), contractText: confidential, toolVersion: '0.1.0', now: new Date('2026-11-29T12:00:00Z') });
    expect(input.bisect?.firstBad).toBe(7);
    const html = renderIncidentHtml(input);
    expect(html).toContain('double_load');
    expect(html).toMatch(/Culprit commit<\/th><td>v7 /);
    expect(html).toContain('Timeline excerpt');
    expect(html).toContain('Contract used');
    expect(html).toContain('lakerec 0.1.0');
    expect(html).toContain('2026-11-29T12:00:00.000Z');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script/i);
    expect(externalRefs(html)).toEqual([]);
    // Masked: example rows exist, but no customer_id value of them appears.
    const rows = result.findings.flatMap((f) => f.evidence.exampleRows);
    expect(rows.length).toBeGreaterThan(0);
    expect(html).toContain('(masked: confidential)');
    for (const r of rows) {
      const v = r.target?.customer_id ?? r.source?.customer_id;
      if (v) expect(html).not.toMatch(new RegExp(`<td>${v}</td>`));
    }
    // Same inputs, same file.
    expect(renderIncidentHtml(input)).toBe(html);
  });

  it('masks confidential values in every example row and key', () => {
    const masked = maskReconcileResult(result, sensitivityOf(result));
    for (const f of masked.findings) for (const r of f.evidence.exampleRows) {
      for (const side of [r.source, r.target]) if (side?.customer_id) expect(side.customer_id).toMatch(/^\(masked: confidential\)/);
      expect(r.source?.order_id ?? r.target?.order_id).not.toMatch(/masked/);
    }
  });

  it('service: contract problems carry their line; reconcile is recorded; export gives the same report', async () => {
    expect(checkContract('version: 1\nkeys: [order_id]\nbogus: 1\n')).toMatchObject({ ok: false, problems: [{ line: 3 }] });
    expect(checkContract(contractText)).toMatchObject({ ok: true, summary: { keys: ['order_id'] } });
    const h = createScreenHandlers({ runsDir: dir, cwd: dir, toolVersion: '0.1.0' });
    const ctx = {};
    const c = await h.defaultContract({ path: join(lake, 'table') }, ctx);
    expect(c).toMatchObject({ origin: 'file', path: join(lake, 'contract.yaml') });
    const run = await h.reconcile({ source: join(lake, 'source', 'orders.csv'), table: join(lake, 'table'), contract: confidential, level: 'rows' }, ctx);
    expect(run.result.findings.map((f) => f.mode)).toContain('double_load');
    expect(JSON.stringify(run.result)).toContain('(masked: confidential)');
    const report = await h.exportReport({ resultId: run.resultId, save: false }, ctx);
    expect(report.sections).toEqual(expect.arrayContaining(['Incident', 'Findings', 'Timeline excerpt', 'Bisect', 'Contract used']));
    expect(report.fileName).toMatch(/^lakerec-incident-double_load-\d{8}T\d{6}Z\.html$/);
    await expect(h.exportReport({ resultId: 'no-such-result', save: false }, ctx)).rejects.toThrow(/no longer kept/);
    await expect(h.reconcile({ source: join(dir, 'nope.parquet'), table: join(lake, 'table'), contract: contractText, level: 'rows' }, ctx)).rejects.toThrow();
    const runs = (await h.listRuns({}, ctx)).runs;
    expect(runs.map((r) => [r.kind, r.status])).toEqual(expect.arrayContaining([['reconcile', 'fail'], ['reconcile', 'error']]));
    expect((await listRuns(dir)).length).toBe(2);
  }, 60_000);

  it('service: a bisect from the window is kept in the run history too', async () => {
    const runsDir = join(dir, 'svc-runs');
    const svc = createService({ mode: 'web', userDataDir: join(dir, 'svc-user'), runsDir });
    const r = await svc.bisect({ path: join(lake, 'table'), predicate: 'unique-keys', keys: ['order_id'] }, {});
    expect(r.firstBad).toBe(7);
    const runs = (await svc.listRuns({ kind: 'bisect' }, {})).runs;
    expect(runs.map((x) => [x.status, x.title])).toEqual([['found', 'double_load/table: unique-keys (order_id) → first bad v7']]);
  }, 60_000);

  it('a partition that was bad before it was loaded: the culprit is the break into today\'s state, not v0', async () => {
    const wipe = resolve(__dirname, '..', '..', 'sample-lakes', 'built', 'partition_wipe');
    if (!existsSync(join(wipe, 'table', '_delta_log'))) return;
    const r = await reconcile({ source: join(wipe, 'source', 'orders.parquet'), target: { root: join(wipe, 'table') }, contract: join(wipe, 'contract.yaml'), level: 'rows' });
    const input = await composeIncident({ result: r, table: join(wipe, 'table'), source: join(wipe, 'source', 'orders.parquet'), toolVersion: '0.1.0' });
    // v0-v6 predate the partition: not bad; the culprit is the commit that broke it
    expect(input.bisect?.firstBad).toBe(7);
    const html = renderIncidentHtml(input);
    expect(html).toMatch(/Culprit commit<\/th><td>v7 WRITE at /);
    expect(html).toContain(`<b>${input.bisect?.headline}</b>`);
    expect(input.bisect?.headline).toMatch(/^broke at v7/);
  }, 60_000);
});
