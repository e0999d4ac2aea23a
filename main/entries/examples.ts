// `npm run examples`: regenerates docs/examples/ (the double_load incident report, bisect
// reports). `--out DIR` writes elsewhere (verify compares a fresh run with docs/examples/).
import { join, resolve } from 'node:path';
import { toErrorData } from '../../shared/errors';
import { repoRoot } from '../engine/repo';
import { generateExamples } from '../examples/generate';

const argv = process.argv.slice(2);
const i = argv.indexOf('--out');
const out = i >= 0 ? resolve(argv[i + 1] ?? '.') : join(repoRoot(), 'docs', 'examples');
generateExamples(out).then((files) => {
  for (const f of files) process.stdout.write(`wrote ${f}\n`);
  process.exit(0);
}, (e: unknown) => {
  process.stderr.write(`lakerec examples: ${toErrorData(e).message}\n`);
  process.exit(3);
});
