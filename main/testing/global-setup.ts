// Unit tests that run the real installed command need dist/ built from the current sources.
// Build once, before any test file starts, when dist is missing or older than the sources:
// a build inside a test file would empty dist/ under the feet of the files running beside it.
// Tests over the bundled sample lakes need them built too (a fresh clone has none), so the
// setup builds them when missing: otherwise those tests would skip in CI and prove nothing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
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
  if (!existsSync(join(root, 'sample-lakes', 'built', 'double_load', 'table', '_delta_log'))) {
    process.stdout.write('tests: building the sample lakes first (lakerec build-sample-lakes)\n');
    const r = spawnSync(process.execPath, [join(root, 'dist', 'main', 'cli.js'), 'build-sample-lakes'], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('building the sample lakes failed (node dist/main/cli.js build-sample-lakes)');
  }
}
