// Unit tests that run the real installed command need dist/ built from the current sources.
// Build once, before any test file starts, when dist is missing or older than the sources:
// a build inside a test file would empty dist/ under the feet of the files running beside it.
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './build-if-stale';

const root = fileURLToPath(new URL('../..', import.meta.url)).replace(/[\\/]$/, '');

export default function setup(): void {
  buildIfStale({
    root,
    outputs: ['dist/main/cli.js', 'dist/preload/index.cjs'],
    sources: ['main', 'preload', 'shared', 'sample-lakes'],
    sourceFile: /\.(ts|tsx)$/,
    script: 'build:node',
    banner: 'tests: building the CLI first (npm run build:node)\n',
  });
}
