// Build dist/ when one of its outputs is missing or older than the newest source. Shared by the
// unit tests' and the e2e's global setups, which need different parts built.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface BuildCheck {
  root: string;
  /** Built files, relative to root. */
  outputs: string[];
  /** Source folders, relative to root. */
  sources: string[];
  /** Source files whose change calls for a build (test files never do). */
  sourceFile: RegExp;
  /** The npm script that builds the outputs. */
  script: string;
  /** Printed before building. */
  banner: string;
}

function newest(dir: string, sourceFile: RegExp): number {
  let t = 0;
  if (!existsSync(dir)) return 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'built' || e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p, sourceFile));
    else if (sourceFile.test(e.name) && !/\.test\.tsx?$/.test(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

export function buildIfStale(c: BuildCheck): void {
  const outs = c.outputs.map((o) => join(c.root, o));
  const fresh = outs.every((o) => existsSync(o))
    && Math.min(...outs.map((o) => statSync(o).mtimeMs)) >= Math.max(...c.sources.map((d) => newest(join(c.root, d), c.sourceFile)));
  if (fresh) return;
  process.stdout.write(c.banner);
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', c.script], { cwd: c.root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) throw new Error(`npm run ${c.script} failed`);
}
