// `npm run matrix`: builds the scenario lakes in a temp folder, reconciles each at all five
// levels, and writes docs/experiments/detection_matrix.json and docs/detection-matrix.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LakerecError, toErrorData } from '../../shared/errors';
import { buildSampleLakes, DEFAULT_ROWS, DEFAULT_SEED } from '../../sample-lakes/build';
import { SCENARIOS } from '../../sample-lakes/scenarios';
import { matrixMarkdown, runMatrix, writeMatrix } from '../reconcile/matrix';

const USAGE = 'usage: npm run matrix -- [--rows N] [--out DIR]';

/** The command line, or a usage error (exit 2): an unknown flag is refused, not ignored. */
function parse(args: string[]): { rows: number; outDir: string | null } {
  let rows = DEFAULT_ROWS;
  // --out DIR: write the JSON and the page there and leave docs/ alone (verify re-measures into a scratch folder).
  let outDir: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const f = args[i];
    if (f === '--rows') {
      const v = args[++i] ?? '';
      if (!/^\d+$/.test(v) || Number(v) < 6) throw new LakerecError('usage', `--rows takes a whole number of at least 6, got "${v}"`);
      rows = Number(v);
    } else if (f === '--out') {
      const v = args[++i];
      if (v === undefined) throw new LakerecError('usage', `--out needs a folder (${USAGE})`);
      outDir = resolve(v);
    } else throw new LakerecError('usage', `unknown flag ${f} (${USAGE})`);
  }
  return { rows, outDir };
}

async function main(): Promise<number> {
  const { rows, outDir } = parse(process.argv.slice(2));
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
  const d = toErrorData(e);
  process.stderr.write(`lakerec matrix: ${d.message}\n`);
  process.exit(d.code === 'usage' ? 2 : 3);
});
