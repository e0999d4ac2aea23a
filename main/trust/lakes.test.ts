// On the sample lakes: the detection matrix and the mutation score agree (the same contract, the
// same modes, the same first levels), and a reconcile result's rows carry the commit that wrote them
// in JSON, markdown and the incident report.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';
import { reconcile } from '../reconcile/reconcile';
import { runMatrix } from '../reconcile/matrix';
import { renderIncidentHtml } from '../incident/report';
import { runMutation } from './mutate';
import { withProvenance } from './provenance';
import { rowsBehindMarkdown } from './report';

// Modes that need every kind of level between them (log only, data, keys).
const MODES = ['double_load', 'partition_wipe', 'timezone_partition_shift', 'stale_rows', 'schema_drift', 'unicode_normalisation'];
let dir: string;
const lakes: Record<string, BuiltLake> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-trust-lakes-'));
  for (const l of await buildSampleLakes({ out: dir, rows: 600, only: ['control', ...MODES] })) lakes[l.name] = l;
}, 120_000);
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

it('the detection matrix and the mutation score agree on the first level that notices and names each mode', async () => {
  const matrix = await runMatrix(MODES.map((m) => ({
    name: m, title: m, expectedMode: lakes[m].meta.expectedMode, tablePath: lakes[m].tablePath, sourcePath: lakes[m].sourceParquet, contractPath: lakes[m].contractPath,
  })), { rows: 600, seed: null });
  const c = lakes.control;
  const score = await runMutation({ source: c.sourceParquet, table: c.tablePath, contract: c.contractPath, only: MODES });
  const fromMatrix = Object.fromEntries(matrix.scenarios.map((s) => [s.scenario, [s.firstNotices, s.firstNames]]));
  const fromScore = Object.fromEntries(score.mutants.map((m) => [m.corruption, [m.firstNotices, m.firstNames]]));
  expect(fromScore).toEqual(fromMatrix);
}, 240_000);

it('rows behind a finding carry the file, the row and the commit that added the file', async () => {
  const l = lakes.double_load;
  const plain = await reconcile({ source: l.sourceParquet, target: { root: l.tablePath }, contract: l.contractPath });
  const r = await withProvenance(plain, l.tablePath);
  const dup = r.rowDiffs.filter((d) => d.kind === 'duplicate');
  expect(dup.length).toBeGreaterThan(0);
  for (const d of dup) {
    expect(d.targetFile).toMatch(/\.parquet$/);
    expect(d.targetCommit?.operation).toBe('WRITE');
    expect([l.meta.brokenAtVersion, 1, 2, 3, 4, 5, 6]).toContain(d.targetCommit?.version);
    // Both copies, and the copy's commit is the one that broke the table.
    expect(d.targetRows).toHaveLength(2);
    expect(d.targetRows!.map((p) => p.commit?.version)).toContain(l.meta.brokenAtVersion);
  }
  expect(r.findings.find((f) => f.mode === 'double_load')?.evidence.exampleRows.every((d) => !d.targetFile || d.targetCommit)).toBe(true);
  expect(JSON.parse(JSON.stringify(r)).rowDiffs[0].targetCommit.version).toBe(dup[0].targetCommit!.version);
  expect(rowsBehindMarkdown(r.rowDiffs)).toContain(`v${dup[0].targetCommit!.version}`);
  const html = renderIncidentHtml({ reconcile: r, table: l.tablePath, toolVersion: 'test', generatedAt: '2026-12-01T00:00:00Z', bisectNote: 'not run', forensicsNote: 'not run' });
  expect(html).toContain('Rows behind the findings');
  expect(html).toContain(`v${dup[0].targetCommit!.version} `);
}, 60_000);
