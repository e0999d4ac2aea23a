// verify ties the coverage figures to the current tree: a source folder without a figure fails.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRepo } from './check';
import { coverageTreeProblems, sourceFolders } from './coverage-tree';

// `npm run coverage` measures the figures with this check off (its own unit run); these cases turn it back on.
const measuring = process.env.LAKEREC_COVERAGE_MEASURING === '1';
delete process.env.LAKEREC_COVERAGE_MEASURING;
const dir = mkdtempSync(join(tmpdir(), 'lakerec-coverage-tree-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tree(files: string[], figures: string[]): string {
  const root = mkdtempSync(join(dir, 't-'));
  for (const f of files) { mkdirSync(join(root, f, '..'), { recursive: true }); writeFileSync(join(root, f), 'export {};\n'); }
  mkdirSync(join(root, 'docs', 'experiments'), { recursive: true });
  const entry = { lines: 50, branches: 50, files: 1, linesTotal: 10 };
  const folders = Object.fromEntries(figures.filter((f) => !f.includes('/')).map((f) => [f, entry]));
  const parts = Object.fromEntries(figures.filter((f) => f.includes('/')).map((f) => [f, entry]));
  writeFileSync(join(root, 'docs', 'experiments', 'coverage.json'), JSON.stringify({ folders, parts }));
  writeFileSync(join(root, 'docs', 'receipts.json'), JSON.stringify({ claims: [] }));
  writeFileSync(join(root, 'package.json'), '{}');
  return root;
}

describe('coverage figures tied to the tree', () => {
  it('lists each covered root and each subfolder holding source (tests, main/testing and empty folders are not source)', () => {
    const root = tree(['main/a/x.ts', 'main/b/x.test.ts', 'main/testing/kit.ts', 'renderer/tab/View.tsx', 'shared/s.ts'], []);
    expect(sourceFolders(root)).toEqual(['main', 'main/a', 'renderer', 'renderer/tab', 'shared']);
  });

  it('passes when every folder has a figure; a new folder without one fails, and so does a figure for a folder gone', () => {
    const files = ['main/a/x.ts', 'renderer/tab/View.tsx', 'shared/s.ts'];
    expect(coverageTreeProblems(tree(files, ['main', 'main/a', 'renderer', 'renderer/tab', 'shared']))).toEqual([]);
    const added = coverageTreeProblems(tree([...files, 'main/trust/trust.ts'], ['main', 'main/a', 'renderer', 'renderer/tab', 'shared']));
    expect(added.map((p) => p.message).join('\n')).toMatch(/no coverage figure for main\/trust/);
    const gone = coverageTreeProblems(tree(files, ['main', 'main/a', 'main/old', 'renderer', 'renderer/tab', 'shared']));
    expect(gone.map((p) => p.message).join('\n')).toMatch(/no longer exist: main\/old/);
  });

  it('is part of the receipts check verify runs, and this repository\'s figures cover its tree', () => {
    const root = tree(['main/a/x.ts', 'main/trust/t.ts'], ['main', 'main/a']);
    expect(checkRepo(root, {}).problems.map((p) => p.message).join('\n')).toMatch(/no coverage figure for main\/trust/);
    // The committed figures, while npm run coverage is not in the middle of measuring them again.
    const repo = resolve(__dirname, '..', '..');
    if (!measuring) expect(coverageTreeProblems(repo)).toEqual([]);
  });
});
