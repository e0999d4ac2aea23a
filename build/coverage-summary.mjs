// Per-folder line and branch coverage from Vitest's coverage/coverage-summary.json, written to
// docs/experiments/coverage.json (the README quotes it; `npm run verify` ties the quote to it).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = process.cwd();
const summary = JSON.parse(readFileSync(join(root, 'coverage', 'coverage-summary.json'), 'utf8'));
const folders = {};
const parts = {};
const add = (map, key, s) => {
  const f = (map[key] ??= { lines: { total: 0, covered: 0 }, branches: { total: 0, covered: 0 }, files: 0 });
  f.files++;
  for (const k of ['lines', 'branches']) { f[k].total += s[k].total; f[k].covered += s[k].covered; }
};
for (const [file, s] of Object.entries(summary)) {
  if (file === 'total') continue;
  const segs = relative(root, file).split('/');
  add(folders, segs[0], s);
  // Second level (main/delta, renderer/bisect), so the README can say where a folder falls short.
  if (segs.length > 2) add(parts, `${segs[0]}/${segs[1]}`, s);
}
const pct = (x) => (x.total === 0 ? 100 : Math.round((1000 * x.covered) / x.total) / 10);
const out = { about: 'npm run coverage: V8 line and branch coverage of the unit suite, per source folder (percent).', folders: {} };
for (const [name, f] of Object.entries(folders).sort()) {
  out.folders[name] = { lines: pct(f.lines), branches: pct(f.branches), files: f.files, linesTotal: f.lines.total, branchesTotal: f.branches.total };
}
out.parts = {};
for (const [name, f] of Object.entries(parts).sort()) {
  out.parts[name] = { lines: pct(f.lines), branches: pct(f.branches), files: f.files, linesTotal: f.lines.total };
}
writeFileSync(join(root, 'docs', 'experiments', 'coverage.json'), JSON.stringify(out, null, 2) + '\n');
for (const [name, f] of Object.entries(out.folders)) process.stdout.write(`${name}: ${f.lines}% lines, ${f.branches}% branches (${f.files} files)\n`);
