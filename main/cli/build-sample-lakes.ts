// `lakerec build-sample-lakes [--out DIR] [--rows N] [--seed S] [--only NAME]... [--json]`: builds
// the corruption scenarios, the demo lake and the many-versions lake (sample-lakes/README.md).
import { resolve, join } from 'node:path';
import { parseArgs, bool, int, str } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { LakerecError } from '../../shared/errors';
import { buildSampleLakes, sampleLakesDir, DEFAULT_ROWS, DEFAULT_SEED } from '../../sample-lakes/build';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS['build-sample-lakes'].flags);
  if (p.positional.length > 0) throw new LakerecError('usage', `unexpected argument "${p.positional[0]}"; usage: lakerec build-sample-lakes [--out DIR] [--rows N] [--seed S]`);
  const outFlag = str(p, 'out');
  const out = outFlag ? resolve(io.cwd, outFlag) : join(sampleLakesDir(), 'built');
  const rows = int(p, 'rows') ?? DEFAULT_ROWS;
  const seed = int(p, 'seed') ?? DEFAULT_SEED;
  const only = p.flags.only as string[] | undefined;
  const json = bool(p, 'json');
  const t0 = performance.now();
  const built = await buildSampleLakes({ out, rows, seed, only, log: json ? undefined : (l) => io.out(l + '\n') });
  const seconds = (performance.now() - t0) / 1000;
  if (json) {
    io.out(JSON.stringify({ out, rows, seed, seconds, lakes: built.map((b) => ({ dir: b.dir, ...b.meta })) }, null, 2) + '\n');
  } else {
    io.out(`built ${built.length} lake(s) from ${rows} clean rows (seed ${seed}) in ${seconds.toFixed(1)} s into ${out}\n`);
  }
  return 0;
}
