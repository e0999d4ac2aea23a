// `npm run matrix`: builds the scenario lakes in a temp folder, reconciles each at all five
// levels, and writes docs/experiments/detection_matrix.json and docs/detection-matrix.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { toErrorData } from '../../shared/errors';
import { buildSampleLakes, DEFAULT_ROWS, DEFAULT_SEED } from '../../sample-lakes/build';
import { SCENARIOS } from '../../sample-lakes/scenarios';
import { matrixMarkdown, runMatrix, writeMatrix } from '../reconcile/matrix';

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const rowsArg = args.indexOf('--rows');
  const rows = rowsArg >= 0 ? Number(args[rowsArg + 1]) : DEFAULT_ROWS;
  // --out DIR: write the JSON and the page there and leave docs/ alone (verify re-measures into a scratch folder).
  const outArg = args.indexOf('--out');
  const outDir = outArg >= 0 ? resolve(args[outArg + 1] ?? '.') : null;
  const root = resolve(process.cwd());
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-matrix-'));
  try {
    process.stderr.write(`building ${SCENARIOS.length} scenario lakes (${rows} rows) in ${dir}\n`);
    const lakes = await buildSampleLakes({ out: dir, rows, seed: DEFAULT_SEED, only: SCENARIOS.map((s) => s.name) });
    const m = await runMatrix(lakes.map((l) => ({
      name: l.name, title: l.meta.title, expectedMode: l.meta.expectedMode, tablePath: l.tablePath, sourcePath: l.sourceParquet, contractPath: l.contractPath,
    })), { rows, seed: DEFAULT_SEED }, { progress: (p) => process.stderr.write(`  ${p.message ?? ''}\n`) });
    if (outDir) writeMatrix(m, join(outDir, 'detection_matrix.json'), join(outDir, 'detection-matrix.md'));
    else writeMatrix(m, join(root, 'docs', 'experiments', 'detection_matrix.json'), join(root, 'docs', 'detection-matrix.md'));
    process.stdout.write(matrixMarkdown(m));
    const silentBroken = m.scenarios.some((r) => r.silentAsExpected === false);
    return silentBroken ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then((code) => process.exit(code), (e: unknown) => {
  process.stderr.write(`lakerec matrix: ${toErrorData(e).message}\n`);
  process.exit(3);
});
