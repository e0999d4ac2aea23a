// Every scenario lake, reconciled at the deepest level: the named finding is the scenario's, and
// the two that must stay silent do. Lakes are built small (600 rows) in a temp folder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';
import { SCENARIOS } from '../../sample-lakes/scenarios';
import { reconcile } from './reconcile';
import { matrixMarkdown, runMatrix } from './matrix';

let dir: string;
let lakes: BuiltLake[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-rec-scen-'));
  lakes = await buildSampleLakes({ out: dir, rows: 600, only: SCENARIOS.map((s) => s.name) });
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('scenario lakes at level rows', () => {
  for (const spec of SCENARIOS) {
    it(`${spec.name}: ${spec.expectedMode ?? 'silent'}`, async () => {
      const lake = lakes.find((l) => l.name === spec.name)!;
      const r = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract: lake.contractPath, level: 'rows' });
      const modes = r.findings.map((f) => f.mode);
      if (spec.expectedMode === null) {
        expect({ modes, unnamed: r.unnamed, verdict: r.verdict }).toEqual({ modes: [], unnamed: [], verdict: 'matches' });
        expect(r.exitCode).toBe(0);
      } else {
        expect(modes).toContain(spec.expectedMode);
        expect(r.verdict).toBe('diverges');
        expect(r.exitCode).toBe(1);
      }
      console.log(spec.name, '->', JSON.stringify(r.findings.map((f) => `${f.mode}: ${f.summary}`)), JSON.stringify(r.unnamed));
    });
  }
});

describe('the same findings from the CSV extract with the fast digest (the default) as from Parquet with md5', () => {
  for (const spec of SCENARIOS) {
    it(spec.name, async () => {
      const lake = lakes.find((l) => l.name === spec.name)!;
      const base = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract: lake.contractPath, level: 'keys', digest: 'md5' });
      const csv = await reconcile({ source: lake.sourceCsv, target: { root: lake.tablePath }, contract: lake.contractPath, level: 'keys', digest: 'fast' });
      expect(csv.findings.map((f) => f.mode)).toEqual(base.findings.map((f) => f.mode));
      expect(csv.unnamed).toEqual(base.unnamed);
      expect(csv.digest).toMatch(/^duckdb-hash-v2@v\d/);
      expect(base.digest).toBe('md5-canonical-v1');
    });
  }
});

describe('detection matrix', () => {
  it('names every corruption at some level, keeps the silent ones silent, and never names schema/counts from data', async () => {
    const m = await runMatrix(lakes.map((l) => ({
      name: l.name, title: l.meta.title, expectedMode: l.meta.expectedMode, tablePath: l.tablePath, sourcePath: l.sourceParquet, contractPath: l.contractPath,
    })), { rows: 600, seed: null });
    for (const r of m.scenarios) {
      if (r.expectedMode === null) expect({ s: r.scenario, silent: r.silentAsExpected }).toEqual({ s: r.scenario, silent: true });
      else expect({ s: r.scenario, named: r.firstNames !== null }).toEqual({ s: r.scenario, named: true });
      for (const c of r.cells.filter((x) => x.level === 'schema' || x.level === 'counts')) expect(c.targetRowsRead).toBe(0);
    }
    expect(m.summary.named).toBe(m.summary.corruptions);
    expect(matrixMarkdown(m)).toContain('| double load | double_load |');
  }, 240_000);
});

describe('rows level: which columns, on which rows', () => {
  it('content divergence is the sku column, with example rows that show both values', async () => {
    const lake = lakes.find((l) => l.name === 'content_divergence')!;
    const r = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract: lake.contractPath, level: 'rows' });
    expect(r.columnDiffs.map((c) => c.column)).toEqual(['sku']);
    const ex = r.rowDiffs.find((d) => d.kind === 'changed')!;
    expect(ex.columns).toEqual(['sku']);
    expect(ex.target!.sku).toBe(ex.source!.sku!.toUpperCase());
    expect(ex.targetFile).toMatch(/\.parquet$/);
  });

  it('stale rows differ in the amounts and updated_at, and the target is the older version', async () => {
    const lake = lakes.find((l) => l.name === 'stale_rows')!;
    const r = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract: lake.contractPath, level: 'rows' });
    expect(r.columnDiffs.map((c) => c.column).sort()).toEqual(['amount', 'updated_at']);
    const f = r.findings.find((x) => x.mode === 'stale_rows')!;
    expect(f.evidence.exampleRows.length).toBeGreaterThan(0);
    for (const ex of f.evidence.exampleRows) expect(ex.target!.updated_at! < ex.source!.updated_at!).toBe(true);
  });

  it('keys level names without example values; rows level shows them', async () => {
    const lake = lakes.find((l) => l.name === 'double_load')!;
    const keys = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract: lake.contractPath, level: 'keys' });
    expect(keys.rowDiffs).toEqual([]);
    expect(keys.keyDiff!.duplicatedInTarget).toBe(100);
    const rowsLvl = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract: lake.contractPath, level: 'rows' });
    expect(rowsLvl.rowDiffs.length).toBeGreaterThan(0);
  });
});

describe('timezone partition shift evidence', () => {
  it('the moved rows hold a dt the contract would not derive from their own ts', async () => {
    const lake = lakes.find((l) => l.name === 'timezone_partition_shift')!;
    const r = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract: lake.contractPath, level: 'keys' });
    const f = r.findings.find((x) => x.mode === 'timezone_partition_shift')!;
    const moved = f.evidence.counts['moved rows'];
    expect(moved).toBe(lake.meta.facts.movedRows);
    expect(f.evidence.notes.join('\n')).toContain(`${moved} of ${moved} moved rows hold a dt that is not the contract's`);
  });
});
