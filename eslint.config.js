// Layering (VS Code style): shared/ runs anywhere, main/ is node, renderer/ is DOM,
// preload/ is only the bridge. A wrong import fails `npm run lint`, and so the build.
import tseslint from 'typescript-eslint';

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
