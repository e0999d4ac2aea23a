// Lineage benchmark (a figure, not a test): `lakerec lineage` on the reference project
// (../shared/lineage/jaffle_shop) beside the time DuckDB takes to build the project's models once
// (its seeds loaded, each model's SQL run as CREATE TABLE AS, in dependency order), measured in the
// same run. The goal: under 10 s on this machine.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDuck, sqlIdent, sqlString } from '../engine/duck';
import { repoRoot } from '../engine/repo';
import { loadDbtProject } from '../lineage/dbt';
import { Relation, renderModel } from '../lineage/jinja';
import { verifyLineage } from '../lineage/verify';

export interface LineageBenchFigures {
  project: string;
  /** Why nothing was measured (the reference project is absent), else null. */
  skipped: string | null;
  models: number | null;
  claimed: number | null;
  confirmed: number | null;
  notExercised: number | null;
  viaJoinsAndFilters: number | null;
  unexplained: number | null;
  /** Median wall seconds of one verification (in process, after a warm-up). */
  oursSeconds: number | null;
  /** Median wall seconds for DuckDB to load the seeds and build every model once. */
  duckdbBuildSeconds: number | null;
  ratio: number | null;
  runs: number;
}

const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); const m = Math.floor(s.length / 2); return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

export function referenceProject(): string {
  return resolve(repoRoot(), '..', 'shared', 'lineage', 'jaffle_shop');
}

/** DuckDB building the project's models once: seeds by read_csv, then each model by CREATE TABLE AS. */
async function buildOnce(root: string): Promise<number> {
  const p = loadDbtProject(root);
  const names = new Set([...p.models.map((m) => m.name), ...p.seeds.map((s) => s.name)]);
  const sql = new Map(p.models.map((m) => [m.name, renderModel({
    name: p.name, vars: p.vars, macros: p.macros,
    ref: (n) => (names.has(n) ? new Relation(null, n) : null), source: () => null, columnsOf: () => null,
  }, m.name, m.raw)]));
  const duck = await openDuck({ threads: 1 });
  try {
    const t0 = performance.now();
    for (const s of p.seeds) await duck.conn.run(`CREATE TABLE ${sqlIdent(s.name)} AS SELECT * FROM read_csv(${sqlString(s.path)}, header = true)`);
    const done = new Set(p.seeds.map((s) => s.name));
    while (done.size < names.size) {
      const next = p.models.find((m) => !done.has(m.name) && sql.get(m.name)!.refs.every((r) => done.has(r)));
      if (!next) throw new Error('the reference project has a cycle');
      await duck.conn.run(`CREATE TABLE ${sqlIdent(next.name)} AS ${sql.get(next.name)!.sql}`);
      done.add(next.name);
    }
    return (performance.now() - t0) / 1000;
  } finally { duck.close(); }
}

export async function benchLineage(opts: { runs?: number; project?: string } = {}): Promise<LineageBenchFigures> {
  const project = opts.project ?? referenceProject();
  const runs = opts.runs ?? 3;
  const none = { models: null, claimed: null, confirmed: null, notExercised: null, viaJoinsAndFilters: null, unexplained: null, oursSeconds: null, duckdbBuildSeconds: null, ratio: null, runs };
  if (!existsSync(join(project, 'dbt_project.yml'))) return { project, skipped: `the reference project is absent (${project})`, ...none };
  await verifyLineage({ project }); // warm-up: module loading and DuckDB's first start
  await buildOnce(project);
  const ours: number[] = [];
  const base: number[] = [];
  let last: Awaited<ReturnType<typeof verifyLineage>> | null = null;
  for (let i = 0; i < runs; i++) {
    base.push(await buildOnce(project));
    const t0 = performance.now();
    last = await verifyLineage({ project });
    ours.push((performance.now() - t0) / 1000);
  }
  const o = median(ours);
  const b = median(base);
  return {
    project, skipped: null, runs,
    models: last!.totals.models, claimed: last!.totals.claimed, confirmed: last!.totals.confirmed, notExercised: last!.totals.notExercised,
    viaJoinsAndFilters: last!.totals.viaJoinsAndFilters, unexplained: last!.totals.unexplained,
    oursSeconds: r3(o), duckdbBuildSeconds: r3(b), ratio: Math.round((o / b) * 10) / 10,
  };
}

export function formatLineageFigures(f: LineageBenchFigures): string {
  if (f.skipped) return `lineage: skipped: ${f.skipped}`;
  return `lineage, reference project: ${f.models} models, ${f.claimed} claimed edges, ${f.confirmed} confirmed, ${f.unexplained} unexplained; `
    + `lakerec lineage ${f.oursSeconds} s (goal < 10 s), DuckDB building the models once ${f.duckdbBuildSeconds} s, ratio ${f.ratio}x (median of ${f.runs})`;
}
