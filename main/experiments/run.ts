// Runs the experiments and writes each docs/experiments/NAME.json and docs/experiments.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checksumAlgebra } from './checksum-algebra';
import { aggregatesAgree, floatDrift, orderDependence } from './floats';
import { costPerLevel } from './cost';
import { bisectHistories } from './bisect-histories';
import { EXPERIMENT_NAMES, experimentsMarkdown, loadExperimentResults } from './markdown';
import type { Experiment, ExperimentContext, ExperimentResult } from './types';

export const EXPERIMENTS: Experiment[] = [checksumAlgebra, floatDrift, orderDependence, aggregatesAgree, costPerLevel, bisectHistories];

export async function runExperiments(ctx: ExperimentContext, only?: string[]): Promise<ExperimentResult[]> {
  const out: ExperimentResult[] = [];
  for (const e of EXPERIMENTS) {
    if (only && !only.includes(e.name)) continue;
    ctx.log(`experiment ${e.name}`);
    out.push(await e.run(ctx));
  }
  return out;
}

/** Writes the JSON of each result into `dir` and renders the page from every JSON there. */
export function writeExperiments(results: ExperimentResult[], dir: string, mdPath: string | null, root: string): void {
  mkdirSync(dir, { recursive: true });
  for (const r of results) writeFileSync(join(dir, `${r.name}.json`), JSON.stringify(r, null, 2) + '\n');
  if (mdPath) writeFileSync(mdPath, experimentsMarkdown(loadExperimentResults(root, dir)));
}

export { EXPERIMENT_NAMES };

/**
 * What verify compares between a fresh run and the committed JSON: every figure, except those
 * only a full run measures when the fresh run was quick. CPU times are never compared.
 */
export function compareFigures(committed: ExperimentResult, fresh: ExperimentResult): string[] {
  const diffs: string[] = [];
  const skip = new Set(committed.fullOnly ?? []);
  for (const [k, v] of Object.entries(committed.figures)) {
    if (!(k in fresh.figures)) {
      if (!skip.has(k)) diffs.push(`${committed.name}.${k}: published ${JSON.stringify(v)}, not measured any more`);
      continue;
    }
    if (fresh.figures[k] !== v) diffs.push(`${committed.name}.${k}: published ${JSON.stringify(v)}, measured ${JSON.stringify(fresh.figures[k])}`);
  }
  for (const k of Object.keys(fresh.figures)) if (!(k in committed.figures)) diffs.push(`${committed.name}.${k}: measured ${JSON.stringify(fresh.figures[k])}, not published`);
  return diffs;
}
