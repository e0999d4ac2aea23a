// The Trust tab's handlers on the control sample lake: paths resolved against the launch folder,
// a source pinned to a version, the latest results kept per table for the incident report, and
// a mutation run kept in the run history (and its failure too).
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTrustHandlers, TrustResults } from './trust';
import { listRuns } from '../runs/store';

const lakes = resolve(__dirname, '..', '..', 'sample-lakes', 'built');
const control = join(lakes, 'control');
const contract = readFileSync(join(control, 'contract.yaml'), 'utf8');
const runsDir = mkdtempSync(join(tmpdir(), 'lakerec-trust-app-'));
afterAll(() => rmSync(runsDir, { recursive: true, force: true }));

describe('the latest Trust results per table', () => {
  it('patched per table, at most four tables, the oldest dropped', () => {
    const r = new TrustResults();
    r.put('/a', { keys: { k: 1 } as never });
    r.put('/a', { laws: { l: 1 } as never });
    expect(r.get('/a')).toEqual({ keys: { k: 1 }, laws: { l: 1 } });
    for (const t of ['/b', '/c', '/d', '/e']) r.put(t, {});
    expect(r.get('/a')).toBeNull();
    expect(r.get('/e')).toEqual({});
  });
});

describe('the Trust handlers', () => {
  const results = new TrustResults();
  const logged: string[] = [];
  const h = createTrustHandlers({ runsDir, cwd: lakes, results, log: (l) => logged.push(l) });

  it('keys and laws on the control lake, paths relative to the launch folder; each kept for the report', async () => {
    const req = { table: 'control/table', source: 'control/source/orders.parquet', contract };
    const keys = await h.verifyKeys(req, {});
    expect(keys.summary.keysFailed).toBe(0);
    const laws = await h.checkLaws({ ...req, version: 6 }, {});
    expect(laws).toBeDefined();
    const kept = results.get(join(control, 'table'));
    expect(kept?.keys).toBe(keys);
    expect(kept?.laws).toBe(laws);
  });

  it('a table that is not one is refused before any work', async () => {
    await expect(h.verifyKeys({ table: 'control/source', source: 'control/source/orders.parquet', contract }, {})).rejects.toMatchObject({ code: 'not_a_delta_table' });
  });

  it('a mutation run: its mutants reported as they finish, the run recorded; a failed one recorded as an error', async () => {
    const seen: string[] = [];
    const r = await h.mutationScore({ table: join(control, 'table'), source: join(control, 'source', 'orders.parquet'), contract, only: ['double_load'], levels: ['counts'], seed: 1 }, {
      progress: (p) => { if ((p as { data?: unknown }).data) seen.push(p.message ?? ''); },
    });
    expect(seen).toEqual(['double_load']);
    expect(r.result.mutants.map((m) => [m.corruption, m.status])).toEqual([['double_load', 'run']]);
    expect(r.runId).not.toBeNull();
    await expect(h.mutationScore({ table: join(control, 'table'), source: join(control, 'source', 'orders.parquet'), contract, only: ['gremlins'] }, {})).rejects.toMatchObject({ code: 'usage' });
    const runs = await listRuns(runsDir);
    expect(runs.map((x) => [x.kind, x.status]).sort()).toEqual([['mutate', 'error'], ['mutate', r.result.overall.survived > 0 ? 'survivors' : 'pass']].sort());
    expect(runs[0].title).toBe('control/table: mutation score');
    expect(logged).toEqual([]);
  });

  it('a run history that cannot be written is said in the log, and the score still comes back', async () => {
    const blocked = join(control, 'contract.yaml', 'runs'); // under a file: cannot be made
    const log: string[] = [];
    const h2 = createTrustHandlers({ runsDir: blocked, cwd: lakes, log: (l) => log.push(l) });
    const r = await h2.mutationScore({ table: join(control, 'table'), source: `${join(control, 'table')}@3`, contract, only: ['double_load'], levels: ['schema'] }, {});
    expect(r.runId).toBeNull();
    expect(log[0]).toMatch(/^the run was not recorded in the run history: /);
  });
});
