// Bisect histories: the real bisect on every sample history that declares what it should find,
// once as the product runs it (a walk under 48 versions, a binary search above) and once forced
// the other way (the walk over every version, the binary search over a short history), counting
// probes and data files read, and whether the answer is still right.
import { bisect } from '../bisect/bisect';
import { EXHAUSTIVE_LIMIT } from '../bisect/search';
import type { BisectResult, PredicateSpec } from '../../shared/bisect';
import { lake } from './lakes';
import { type Experiment, type ExperimentTable, type Figure } from './types';

const HISTORIES = ['double_load', 'null_keys', 'control', 'healed_history', 'vacuumed_history', 'bisect_many_versions'];

function answer(r: BisectResult): string {
  if (r.outcome === 'bad') return `v${r.firstBad}${r.healed ? ' (healed)' : ''}`;
  return r.outcome;
}

export const bisectHistories: Experiment = {
  name: 'bisect_histories',
  async run(ctx) {
    const rows: Figure[][] = [];
    const figures: Record<string, Figure> = {};
    const contradicted: string[] = [];
    for (const name of HISTORIES) {
      const l = await lake(ctx, name);
      for (const e of l.meta.bisect) {
        const spec: PredicateSpec = { predicate: e.predicate, ...(e.keys ? { keys: e.keys } : {}), ...(e.expect !== undefined ? { expect: e.expect } : {}), ...(e.partition ? { partition: e.partition } : {}) };
        const walk = await bisect(l.tablePath, spec, { exhaustiveLimit: Number.MAX_SAFE_INTEGER });
        const binary = await bisect(l.tablePath, spec, { exhaustiveLimit: 0 });
        const product = l.meta.headVersion + 1 < EXHAUSTIVE_LIMIT ? 'walk' : 'binary search';
        const expected = e.firstBadVersion;
        const right = (r: BisectResult) => (e.firstBadRecoverable === false ? r.outcome === 'not_recoverable' : r.firstBad === expected && (e.healedAtVersion == null || r.healed));
        const key = `${name}.${e.predicate}`;
        figures[`${key}.versions`] = l.meta.headVersion + 1;
        figures[`${key}.walk_probes`] = walk.examined;
        figures[`${key}.binary_probes`] = binary.examined;
        figures[`${key}.walk_files_read`] = walk.filesRead;
        figures[`${key}.binary_files_read`] = binary.filesRead;
        figures[`${key}.walk_answer`] = answer(walk);
        figures[`${key}.walk_first_bad`] = walk.firstBad;
        figures[`${key}.walk_recovered_at`] = walk.transitions.find((t) => t.kind === 'recovered')?.to ?? null;
        // The rows of the partition the corruption touched, on each side (the lake's own record).
        const part = l.meta.affectedPartitions[0];
        if (part) {
          figures[`${key}.affected_target_rows`] = l.meta.targetPartitions[part] ?? 0;
          figures[`${key}.affected_source_rows`] = l.meta.sourcePartitions[part] ?? 0;
        }
        figures[`${key}.binary_answer`] = answer(binary);
        figures[`${key}.walk_right`] = right(walk);
        figures[`${key}.binary_right`] = right(binary);
        rows.push([name, e.predicate, l.meta.headVersion + 1, product, e.firstBadRecoverable === false ? `v${expected} (not recoverable)` : expected === null ? 'none' : `v${expected}`, walk.examined, walk.filesRead, answer(walk), binary.examined, binary.filesRead, answer(binary)]);
        if (!right(binary)) contradicted.push(`${name} (${e.predicate}): a binary search answers ${answer(binary)} where the walk answers ${answer(walk)}; ${e.healedAtVersion != null ? 'both ends of a healed history are clean, so bisection has nothing to find' : 'the search assumed a monotone history the log does not have'}.`);
        if (!right(walk)) contradicted.push(`${name} (${e.predicate}): even the walk answers ${answer(walk)}, expected ${expected === null ? 'none' : `v${expected}`}.`);
      }
    }
    const table: ExperimentTable = {
      caption: 'probes and data files read, walk vs binary search',
      columns: ['history', 'predicate', 'versions', 'product runs', 'expected first bad', 'walk probes', 'walk files read', 'walk answer', 'binary probes', 'binary files read', 'binary answer'],
      rows,
    };
    return {
      name: this.name,
      title: 'Bisect histories: the walk and the binary search',
      question: 'How many probes do the walk and the binary search make on the sample histories, and when is the binary search wrong?',
      method: `The real bisect (main/bisect/bisect.ts) on each sample history with the predicate its scenario declares, once forced to walk every version and once forced to a binary search (the product walks histories under ${EXHAUSTIVE_LIMIT} versions). Files read counts data files opened; the per-file cache makes a repeated file free.`,
      lakes: { rows: ctx.rows, seed: ctx.seed },
      figures,
      tables: [table],
      findings: rows.map((r) => `${r[0]} (${r[1]}, ${r[2]} versions): the walk makes ${r[5]} probes and answers ${r[7]}; the binary search makes ${r[8]} and answers ${r[10]}.`),
      contradicted,
    };
  },
};
