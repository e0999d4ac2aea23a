// The coverage figures belong to the tree they were measured on: every source folder (main/X,
// renderer/X, shared and its subfolders, each holding code the coverage run includes) has a figure
// in docs/experiments/coverage.json, and every figure there names a folder that still exists. A
// folder added since the last `npm run coverage` fails verify until the figures are measured again.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The top-level folders the coverage run includes (vitest.config.ts coverage.include). */
export const COVERED_ROOTS = ['main', 'renderer', 'shared'] as const;
/** Folders the coverage run leaves out (vitest.config.ts coverage.exclude). */
const EXCLUDED = new Set(['main/testing']);
const SOURCE = /\.tsx?$/;
const NOT_SOURCE = /\.(test|e2e)\.tsx?$|\.d\.ts$/;

function hasSource(dir: string): boolean {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) { if (hasSource(join(dir, e.name))) return true; } else if (SOURCE.test(e.name) && !NOT_SOURCE.test(e.name)) return true;
  }
  return false;
}

/** The folders that must have a coverage figure: each covered root, and each of its subfolders holding source. */
export function sourceFolders(root: string): string[] {
  const out: string[] = [];
  for (const top of COVERED_ROOTS) {
    const dir = join(root, top);
    if (!existsSync(dir) || !hasSource(dir)) continue;
    out.push(top);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const name = `${top}/${e.name}`;
      if (e.isDirectory() && !EXCLUDED.has(name) && hasSource(join(dir, e.name))) out.push(name);
    }
  }
  return out.sort();
}

/** What is wrong between the tree and coverage.json: folders without a figure, figures without a folder. */
export function coverageTreeProblems(root: string): { file: string; line: null; message: string }[] {
  // `npm run coverage` is measuring the figures this checks: its own unit run does not fail on them.
  if (process.env.LAKEREC_COVERAGE_MEASURING === '1') return [];
  const file = 'docs/experiments/coverage.json';
  // The documents alone, without the project (a scratch copy of docs/): no tree to hold them to.
  if (!existsSync(join(root, 'package.json'))) return [];
  const folders = sourceFolders(root);
  if (!folders.length) return [];
  const p = join(root, file);
  if (!existsSync(p)) return [{ file, line: null, message: 'missing: run npm run coverage' }];
  const cov = JSON.parse(readFileSync(p, 'utf8')) as { folders?: Record<string, unknown>; parts?: Record<string, unknown> };
  const have = new Set([...Object.keys(cov.folders ?? {}), ...Object.keys(cov.parts ?? {})]);
  const out: { file: string; line: null; message: string }[] = [];
  const missing = folders.filter((f) => !have.has(f));
  if (missing.length) out.push({ file, line: null, message: `no coverage figure for ${missing.join(', ')}: the figures predate these folders; run npm run coverage` });
  const gone = [...have].filter((f) => !folders.includes(f) && COVERED_ROOTS.some((r) => f === r || f.startsWith(`${r}/`)) && !existsSync(join(root, f)));
  if (gone.length) out.push({ file, line: null, message: `coverage figures for folders that no longer exist: ${gone.join(', ')}; run npm run coverage` });
  return out;
}
