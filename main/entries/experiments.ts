// `npm run experiments`: the seed's experiments reproduced on the sample lakes, each writing
// docs/experiments/NAME.json; docs/experiments.md is rendered from those files.
//
//   npm run experiments                 all, including the 1M-row lake (a few minutes)
//   npm run experiments -- --quick      without the 1M-row lake
//   npm run experiments -- --only float_drift,order_dependence
//   npm run experiments -- --out DIR    write the JSON into DIR and leave docs/ alone (verify)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toErrorData } from '../../shared/errors';
import { DEFAULT_ROWS, DEFAULT_SEED } from '../../sample-lakes/build';
import { repoRoot } from '../engine/repo';
import { EXPERIMENT_NAMES, runExperiments, writeExperiments } from '../experiments/run';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let quick = false;
  let only: string[] | undefined;
  let out: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    if (f === '--quick') quick = true;
    else if (f === '--only') only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (f === '--out') out = argv[++i] ?? null;
    else { process.stderr.write(`lakerec experiments: unknown flag ${f}\n`); return 2; }
  }
  const unknown = (only ?? []).filter((n) => !(EXPERIMENT_NAMES as readonly string[]).includes(n));
  if (unknown.length) { process.stderr.write(`lakerec experiments: unknown experiment ${unknown.join(', ')}; one of ${EXPERIMENT_NAMES.join(', ')}\n`); return 2; }
  const root = repoRoot();
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-experiments-'));
  try {
    const results = await runExperiments({ dir, rows: DEFAULT_ROWS, seed: DEFAULT_SEED, full: !quick, log: (l) => process.stderr.write(l + '\n') }, only);
    if (out) writeExperiments(results, out, null, root);
    else writeExperiments(results, join(root, 'docs', 'experiments'), join(root, 'docs', 'experiments.md'), root);
    for (const r of results) {
      process.stdout.write(`\n== ${r.title}\n`);
      if (r.printed) process.stdout.write(r.printed + '\n');
      for (const f of r.findings) process.stdout.write(`  ${f}\n`);
      for (const c of r.contradicted) process.stdout.write(`  contradicted: ${c}\n`);
    }
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (e: unknown) => {
  process.stderr.write(`lakerec experiments: ${toErrorData(e).message}\n`);
  process.exit(3);
});
