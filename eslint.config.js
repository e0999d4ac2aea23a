// Layering (VS Code style): shared/ runs anywhere, main/ is node, renderer/ is DOM,
// preload/ is only the bridge. A wrong import fails `npm run lint`, and so the build.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';
import layers from './build/eslint-layers.mjs';

// main/'s inner layers, low to high (docs/architecture.md). A file imports its own layer, shared/
// and any layer of a lower tier; never a sibling of its tier, never upwards (build/eslint-layers.mjs).
// Tests (*.test.ts) stand above every layer: a reader test may build its table with the writer and
// run the CLI over it.
export const MAIN_LAYERS = [
  [{ name: 'engine', folders: ['main/engine'] }],
  // The reader (log, checkpoints, replay, snapshot, DVs, scan; the storage seam in main/delta/storage).
  [{ name: 'delta', folders: ['main/delta'] }],
  [{ name: 'writer', folders: ['main/delta/writer'] }],
  // The sample lakes are built with the writer alone: what any pipeline could write.
  [{ name: 'sample-lakes', folders: ['sample-lakes'], allow: ['writer', 'engine'] }],
  [
    { name: 'reconcile', folders: ['main/reconcile'] },
    { name: 'forensics', folders: ['main/forensics'] },
    { name: 'proof', folders: ['main/proof'] },
    { name: 'runs', folders: ['main/runs'] },
    // Lineage verified by perturbation (dbt projects, DuckDB files' views): engine + the Delta reader.
    { name: 'lineage', folders: ['main/lineage'] },
  ],
  // bisect reads file lifetimes from main/forensics/history.ts today; once the file history lives
  // in main/delta (#12) bisect no longer needs forensics, and could sit beside it.
  [
    { name: 'bisect', folders: ['main/bisect'] },
    { name: 'trust', folders: ['main/trust'] },
    { name: 'workbench', folders: ['main/workbench'] },
  ],
  // The incident report: reconcile + forensics + bisect (+ trust) in one file, and the masking.
  [{ name: 'incident', folders: ['main/incident'] }],
  // The two faces: the window's engine side and the CLI.
  [
    { name: 'app', folders: ['main/app'] },
    { name: 'cli', folders: ['main/cli'] },
  ],
  // Tools over the faces: benchmarks, examples, experiments, recordings.
  [
    { name: 'bench', folders: ['main/bench'] },
    { name: 'examples', folders: ['main/examples'] },
    { name: 'experiments', folders: ['main/experiments'] },
    { name: 'recording', folders: ['main/recording'] },
  ],
  // The claims checker (`npm run verify`) reads what the tools measured.
  [{ name: 'receipts', folders: ['main/receipts'] }],
  // Every file here builds to dist/main/<name>.js.
  [{ name: 'entries', folders: ['main/entries'] }],
  [{ name: 'testing', folders: ['main/testing'] }],
];

const repoRoot = dirname(fileURLToPath(import.meta.url));

const nodeBuiltins = [
  'fs', 'path', 'os', 'child_process', 'crypto', 'http', 'https', 'net', 'url', 'stream', 'zlib',
  'worker_threads', 'util', 'events', 'buffer', 'readline', 'process', 'assert', 'tty', 'dns',
];
const nodePatterns = ['node:*', ...nodeBuiltins, ...nodeBuiltins.map((m) => `${m}/*`)];

export default tseslint.config(
  {
    ignores: ['dist/**', '.bench-dist/**', 'out/**', 'node_modules/**', 'e2e/artifacts/**', 'sample-lakes/built/**', 'coverage/**'],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['shared/**/*.ts'],
    ignores: ['shared/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: nodePatterns, message: 'shared/ runs anywhere: no node imports.' },
          { group: ['electron', 'electron/*'], message: 'shared/ runs anywhere: no electron.' },
          { group: ['react', 'react-dom', 'react-dom/*', 'zustand', 'recharts'], message: 'shared/ has no UI.' },
          { group: ['@duckdb/*', 'parquet-wasm', 'parquet-wasm/*'], message: 'shared/ is pure logic: engines live in main/.' },
          { group: ['**/main/**', '**/renderer/**', '**/preload/**', '../main', '../renderer', '../preload'], message: 'shared/ imports only shared/.' },
        ],
      }],
      'no-restricted-globals': ['error', 'window', 'document', 'process', 'Buffer', 'require'],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: nodePatterns, message: 'renderer/ is a sandboxed page: no node imports.' },
          { group: ['electron', 'electron/*'], message: 'renderer/ reaches the engine only through the typed API.' },
          { group: ['**/main/**', '../main', '../../main', '**/preload/**'], message: 'renderer/ never imports main/ or preload/; use shared/api.' },
          { group: ['@duckdb/*'], message: 'renderer/ never touches the engine directly.' },
        ],
      }],
    },
  },
  {
    files: ['preload/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/main/**', '../main', '**/renderer/**', '../renderer'], message: 'preload/ is the bridge: it imports only shared/ and electron.' },
          { group: nodePatterns, message: 'preload/ runs sandboxed: no node imports.' },
          { group: ['@duckdb/*', 'react', 'react-dom'], message: 'preload/ is the bridge, nothing else.' },
        ],
      }],
    },
  },
  {
    files: ['main/**/*.ts', 'sample-lakes/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { layers },
    rules: {
      'layers/imports': ['error', { root: repoRoot, tiers: MAIN_LAYERS, common: ['shared'], covered: ['main', 'sample-lakes'] }],
    },
  },
  {
    files: ['main/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/renderer/**', '../renderer', '../../renderer', 'react', 'react-dom', 'zustand', 'recharts'], message: 'main/ is the engine: no UI imports.' },
        ],
      }],
    },
  },
);
