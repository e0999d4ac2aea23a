import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder up from this file (or cwd) with package.json and main/. */
export function repoRoot(): string {
  const starts = [dirname(fileURLToPath(import.meta.url)), process.cwd()];
  for (const start of starts) {
    let dir = resolve(start);
    for (let i = 0; i < 8; i++) {
      if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'main'))) return dir;
      const up = resolve(dir, '..');
      if (up === dir) break;
      dir = up;
    }
  }
  return process.cwd();
}
