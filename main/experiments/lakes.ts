// The sample lakes the experiments run on, built once per run with the product's builder.
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';
import type { ExperimentContext } from './types';

const cache = new Map<string, Promise<BuiltLake>>();

export function lake(ctx: ExperimentContext, name: string): Promise<BuiltLake> {
  const key = `${ctx.dir}|${ctx.rows}|${ctx.seed}|${name}`;
  let p = cache.get(key);
  if (!p) {
    p = buildSampleLakes({ out: ctx.dir, rows: ctx.rows, seed: ctx.seed, only: [name] }).then((l) => l[0]);
    cache.set(key, p);
  }
  return p;
}

export function cpu(): () => number {
  const t0 = process.cpuUsage();
  return () => {
    const d = process.cpuUsage(t0);
    return Math.round((d.user + d.system) / 1000);
  };
}
