import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['main/**/*.test.ts', 'shared/**/*.test.ts', 'renderer/**/*.test.ts', 'renderer/**/*.test.tsx', 'sample-lakes/**/*.test.ts', 'preload/**/*.test.ts'],
    globalSetup: ['main/testing/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
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
