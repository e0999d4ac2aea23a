import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The unit files' order for the pool: the slowest first, so the workers finish together (each
// worker takes the next file when it is free: slowest-first keeps the last file short). Vitest
// orders by the durations it cached in node_modules/.vite on an earlier run; a fresh clone has no
// cache and orders by file size, which left the remote corpus (few lines, the longest file) to
// the end. The files listed are the slowest of a full run on the 2-core build machine, slowest
// first; they go before every other file whatever the cache says.
const SLOWEST_FIRST = [
  'main/storage/remote.test.ts',
  'main/warehouse/executor.test.ts',
  'main/cli/hostile.test.ts',
  'main/app/engine-ceiling.test.ts',
  'main/reconcile/scenarios.test.ts',
  'main/warehouse/grammar.test.ts',
  'main/reconcile/float-sum.test.ts',
  'main/delta/history.test.ts',
  'main/reconcile/cli.test.ts',
  'main/proof/cli.test.ts',
  'main/warehouse/cli.test.ts',
];

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const rel = f.moduleId.slice(this.ctx.config.root.length).replace(/\\/g, '/').replace(/^\//, '');
      const i = SLOWEST_FIRST.indexOf(rel);
      return i < 0 ? SLOWEST_FIRST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep the base order.
    return [...base].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['main/**/*.test.ts', 'shared/**/*.test.ts', 'renderer/**/*.test.ts', 'renderer/**/*.test.tsx', 'sample-lakes/**/*.test.ts', 'preload/**/*.test.ts'],
    globalSetup: ['main/testing/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine, where the files
    // then ran one after another while much of their time goes waiting on child processes (the
    // CLI, the engine worker, Azurite). Two workers keep both cores busy; the slowest files start
    // first so the two finish together (SlowestFirst, above).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: SlowestFirst },
    reporters: ['default'],
    // `npm run coverage`: V8 coverage of the three source folders; build/coverage-summary.mjs
    // merges it (coverage-final.json) with the e2e suite's renderer coverage and writes per-folder
    // figures (docs/experiments/coverage.json, README).
    coverage: {
      provider: 'v8',
      include: ['main/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.tsx'],
      exclude: ['**/*.test.ts', '**/*.test.tsx', '**/*.d.ts', 'main/testing/**'],
      reporter: ['json', 'json-summary', 'text-summary'],
      reportsDirectory: 'coverage',
      // A failing test still leaves its figures (npm run coverage stops there and says which failed).
      reportOnFailure: true,
    },
  },
});
