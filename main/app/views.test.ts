// The contract editor's column check: against a real table (the demo table) and a real CSV source,
// a key that is not a column, a key typed differently and a bad rename each come back with their line.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDemoTable } from './demo-table';
import { checkContractColumns } from './views';

let dir: string;
let table: string;
let csv: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-ccols-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
  csv = join(dir, 'orders.csv');
  writeFileSync(csv, 'order_id,customer,amount,dt\n1,c1,0.7,2026-11-01\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkContractColumns', () => {
  it('passes a contract whose columns exist on both sides', async () => {
    const r = await checkContractColumns('version: 1\nkeys: [order_id]\npartitioning:\n  column: dt\n', table, csv, dir);
    expect(r).toMatchObject({ ok: true, problems: [] });
  });

  it('lists every problem with its line, not only the first', async () => {
    const text = [
      'version: 1',
      'keys:',
      '  - order_id',
      '  - order_no',
      'ordering: created_at',
      'renames:',
      '  client: customer',
      '',
    ].join('\n');
    const r = await checkContractColumns(text, table, csv, dir);
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => p.line)).toEqual([4, 5, 7]);
    expect(r.problems[0].message).toMatch(/Key "order_no" is a column of neither side/);
    expect(r.problems[1].message).toMatch(/Ordering column "created_at"/);
    expect(r.problems[2].message).toMatch(/Rename from "client"/);
  });

  it('a source that cannot be read leaves the text check (the run says why); a YAML error keeps its line', async () => {
    const r = await checkContractColumns('version: 1\nkeys: [order_no]\n', table, join(dir, 'nope.csv'), dir);
    expect(r).toMatchObject({ ok: true, problems: [] });
    const y = await checkContractColumns('version: 1\nkeys: [order_id\n', table, csv, dir);
    expect(y.ok).toBe(false);
    expect(y.problems[0].line).not.toBeNull();
  });
});

describe('key types', () => {
  it('a key typed differently on a typed source is a problem on its line', async () => {
    const { contractColumnProblems } = await import('../views/contract-columns');
    const { parseContract } = await import('../reconcile/contract');
    const text = 'version: 1\nkeys: [id, dt]\n';
    const p = contractColumnProblems(parseContract(text), text, [{ name: 'id', type: 'VARCHAR' }, { name: 'dt', type: 'DATE' }], [{ name: 'id', type: 'BIGINT' }, { name: 'dt', type: 'DATE' }]);
    expect(p).toEqual([{ line: 2, message: expect.stringMatching(/"id" is VARCHAR in the source but BIGINT in the table/) as unknown as string }]);
  });
});

describe('the workbench methods through the service', () => {
  it('validates requests and answers rows, schema, partitions and compare', async () => {
    const { createService } = await import('./service');
    const { validateRequest } = await import('../../shared/api');
    const service = createService({ mode: 'web', userDataDir: join(dir, 'userdata'), cwd: dir });
    expect(() => validateRequest('rows', { path: table, limit: 5000 })).toThrow(/limit/);
    expect(() => validateRequest('rows', { path: table, sort: { column: 'x', direction: 'up' } })).toThrow(/direction/);
    expect(() => validateRequest('compareVersions', { path: table, from: 1 })).toThrow(/"to"/);
    const req = validateRequest('rows', { path: 'orders', version: 3, limit: 10, sort: { column: 'order_id', direction: 'asc' } });
    const page = await service.rows(req, {});
    expect(page.rows.length).toBe(10);
    expect(page.rows[0][0]).toBe('41');
    const h = await service.schemaHistory({ path: 'orders' }, {});
    expect(h.versions[0].changes.map((c) => c.column)).toEqual(['order_id', 'customer', 'amount', 'dt']);
    const ph = await service.partitionHealth({ path: 'orders' }, {});
    expect(ph.versions.length).toBe(4);
    const noKeys = service.compareVersions({ path: 'orders', from: 1, to: 3 }, {});
    await expect(noKeys).rejects.toMatchObject({ code: 'usage', detail: { field: 'keys' } });
    const d = await service.compareVersions({ path: 'orders', from: 1, to: 3, keys: ['order_id'] }, {});
    expect(d.commits.map((c) => c.operation)).toEqual(['DELETE', 'WRITE']);
    expect(d.result.verdict).not.toBe('matches');
  });
});

describe('the run history keeps the whole result', () => {
  it('a reconcile run reopens with its full (masked) result', async () => {
    const { createService } = await import('./service');
    const service = createService({ mode: 'web', userDataDir: join(dir, 'userdata-runs'), cwd: dir });
    const run = await service.reconcile({ source: csv, table, contract: 'version: 1\nkeys: [order_id]\n', level: 'rows' }, {});
    expect(run.runId).not.toBeNull();
    const { run: rec } = await service.getRun({ id: run.runId! }, {});
    const summary = rec.summary as { result?: { verdict: string; findings: unknown[]; partitions: unknown[] } };
    expect(summary.result?.verdict).toBe(run.result.verdict);
    expect(summary.result?.findings.length).toBe(run.result.findings.length);
    expect(summary.result?.partitions.length).toBe(run.result.partitions.length);
  });
});

describe('a schema-level result says it read no rows', () => {
  it('in the terminal, markdown and HTML reports', async () => {
    const { reconcile } = await import('../reconcile/reconcile');
    const { parseContract } = await import('../reconcile/contract');
    const { renderTerminal, renderMarkdown, renderReconcileHtml } = await import('../reconcile/report');
    const r = await reconcile({ source: csv, target: { root: table }, contract: parseContract('version: 1\nkeys: [order_id]\n'), level: 'schema', cwd: dir });
    expect(renderTerminal(r)).toMatch(/rows: +not read \(the schema level compares columns and types only\)/);
    expect(renderTerminal(r)).not.toMatch(/source 0 +target 0/);
    expect(renderMarkdown(r)).toContain('| rows | not read (schema level) |');
    expect(renderReconcileHtml(r)).toContain('not read: the schema level');
  });
});
