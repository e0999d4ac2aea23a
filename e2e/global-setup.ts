// The e2e runs the built app: build it when the build is missing or older than the sources
// (`npm test` has just built, so this is usually a quick check).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');
const OUTPUTS = ['dist/main/web.js', 'dist/main/electron.js', 'dist/preload/index.cjs', 'dist/renderer/index.html'];

function newest(dir: string): number {
  let t = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'built' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (/\.(ts|tsx|css|html)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

export default function setup(): void {
  const outs = OUTPUTS.map((o) => join(root, o));
  const fresh = outs.every((o) => existsSync(o))
    && Math.min(...outs.map((o) => statSync(o).mtimeMs)) >= Math.max(...['main', 'preload', 'renderer', 'shared'].map((d) => newest(join(root, d))));
  if (fresh) return;
  process.stdout.write('e2e: building the app first (npm run build)\n');
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) throw new Error('npm run build failed');
}
