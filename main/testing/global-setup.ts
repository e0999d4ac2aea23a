// Unit tests that run the real installed command need dist/ built from the current sources.
// Build once, before any test file starts, when dist is missing or older than the sources:
// a build inside a test file would empty dist/ under the feet of the files running beside it.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url)).replace(/[\\/]$/, '');
const OUTPUTS = ['dist/main/cli.js', 'dist/preload/index.cjs'];

function newest(dir: string): number {
  let t = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'built' || e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (/\.(ts|tsx)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

export default function setup(): void {
  const outs = OUTPUTS.map((o) => join(root, o));
  const fresh = outs.every((o) => existsSync(o))
    && Math.min(...outs.map((o) => statSync(o).mtimeMs)) >= Math.max(...['main', 'preload', 'shared', 'sample-lakes'].map((d) => newest(join(root, d))));
  if (fresh) return;
  process.stdout.write('tests: building the CLI first (npm run build:node)\n');
  const r = spawnSync('npm', ['run', 'build:node'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build:node failed');
}
