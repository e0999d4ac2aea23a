// Layering (VS Code style): shared/ runs anywhere, main/ is node, renderer/ is DOM,
// preload/ is only the bridge. A wrong import fails `npm run lint`, and so the build.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';
import layers from './build/eslint-layers.mjs';
import { FS_DEV_TOOLS, FS_WRITERS, FS_WRITES, fsRestrictions } from './build/eslint-fs-writes.mjs';
import { FS_ALLOWED, FS_FREE_LAYERS, fsRestriction } from './build/storage-boundary.mjs';

// main/'s inner layers, low to high (docs/architecture.md). A file imports its own layer, shared/
// and any layer of a lower tier; never a sibling of its tier, never upwards (build/eslint-layers.mjs).
// Tests (*.test.ts) stand above every layer: a reader test may build its table with the writer and
// run the CLI over it.
export const MAIN_LAYERS = [
  [{ name: 'engine', folders: ['main/engine'] }],
  // Where a table's bytes come from (ADR 0009): the Storage interface and its local, memory, S3,
  // Azure and GCS stores, below the reader; nothing above reaches a store except through it.
  [{ name: 'storage', folders: ['main/storage'] }],
  // The reader (log, checkpoints, replay, snapshot, DVs, scan), reading only through main/storage.
  [{ name: 'delta', folders: ['main/delta'] }],
  [{ name: 'writer', folders: ['main/writer'] }],
  // The sample lakes are built with the writer alone: what any pipeline could write.
  [{ name: 'sample-lakes', folders: ['sample-lakes'], allow: ['writer', 'engine'] }],
  // The log read as an incident record, below reconcile: the counts level explains a partition that
  // lost rows with forensics' own partition-removal record (main/forensics/removals.ts).
  [{ name: 'forensics', folders: ['main/forensics'] }],
  [
    { name: 'reconcile', folders: ['main/reconcile'] },
    { name: 'proof', folders: ['main/proof'] },
    { name: 'runs', folders: ['main/runs'] },
    // Lineage verified by perturbation (dbt projects, DuckDB files' views): engine + the Delta reader.
    { name: 'lineage', folders: ['main/lineage'] },
  ],
  // Above reconcile: bisect's matches-source predicate and trust's mutants run the reconcile; bisect
  // reads file lifetimes from the reader's one history (main/delta/history.ts) and names its culprit
  // with forensics' per-version summary (main/forensics/summary.ts).
  [
    { name: 'bisect', folders: ['main/bisect'] },
    { name: 'trust', folders: ['main/trust'] },
    // The window's table views: rows, schema history, compare, partitions, the contract template.
    { name: 'views', folders: ['main/views'] },
    // Pushed work: the same levels as SQL for a warehouse, its connectors (issue #22).
    { name: 'warehouse', folders: ['main/warehouse'] },
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

// renderer/'s layers (the same rule as main/'s): the code every screen builds on (the API client,
// the stores, the UI pieces, the app's navigation and loading gate, the stylesheets), then the
// screens, one folder per tab, siblings of one tier: a tab imports the shared code and its own
// folder, never another tab (what two tabs use moves down into the shared folders). On top, the
// shell that puts every tab in one window (App.tsx) and the page's entry (main.tsx).
export const RENDERER_TABS = ['history', 'timeline', 'compare', 'data', 'bisect', 'reconcile', 'partitions', 'schema', 'trust', 'proof', 'runs', 'lineage', 'open'];
export const RENDERER_LAYERS = [
  [{ name: 'renderer shared code', folders: ['renderer/api', 'renderer/state', 'renderer/ui', 'renderer/app', 'renderer/styles'] }],
  RENDERER_TABS.map((t) => ({ name: `the ${t} tab`, folders: [`renderer/${t}`] })),
  [{ name: 'the window shell', folders: ['renderer/app/App.tsx', 'renderer/main.tsx'] }],
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
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    plugins: { layers },
    rules: {
      'layers/imports': ['error', { root: repoRoot, tiers: RENDERER_LAYERS, common: ['shared'], covered: ['renderer'] }],
    },
  },
  {
    // No circle of imports anywhere (build/import-graph.mjs reads the graph with TypeScript's parser).
    files: ['main/**/*.ts', 'shared/**/*.ts', 'renderer/**/*.ts', 'renderer/**/*.tsx', 'preload/**/*.ts', 'sample-lakes/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    plugins: { layers },
    rules: {
      'layers/no-cycle': ['error', { root: repoRoot }],
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
  // One output guard (build/eslint-fs-writes.mjs): fs writes only in the allow-listed modules,
  // and temp folders only through makeTempDir (one naming scheme, one cleanup) in the product.
  {
    files: ['main/**/*.ts'],
    ignores: ['**/*.test.ts', ...FS_WRITERS, ...FS_DEV_TOOLS],
    rules: {
      'no-restricted-syntax': ['error', ...fsRestrictions(FS_WRITES, 'lakerec writes files only through main/engine/outputs.ts (writeOutput) and temp folders through main/engine/tempdirs.ts (makeTempDir): docs/security.md')],
    },
  },
  {
    files: FS_WRITERS.filter((f) => f !== 'main/engine/tempdirs.ts'),
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...fsRestrictions(['mkdtemp', 'mkdtempSync'], 'every temp folder comes from makeTempDir (main/engine/tempdirs.ts): one name with the owner pid and start time, one cleanup')],
    },
  },
  // The storage boundary (build/storage-boundary.mjs, ADR 0009): no node:fs in the investigating
  // layers except the named allow list. The UI patterns above are repeated (a later block's rule
  // replaces an earlier one's).
  {
    files: FS_FREE_LAYERS.map((d) => `${d}/**/*.ts`),
    ignores: ['**/*.test.ts', ...Object.keys(FS_ALLOWED)],
    rules: {
      'no-restricted-imports': ['error', {
        ...fsRestriction,
        patterns: [
          { group: ['**/renderer/**', '../renderer', '../../renderer', 'react', 'react-dom', 'zustand', 'recharts'], message: 'main/ is the engine: no UI imports.' },
        ],
      }],
    },
  },
);
