// Per-folder line and branch coverage, written to docs/experiments/coverage.json (the README
// quotes it; `npm run verify` ties the quote to it, and the folders to the tree).
//
// Two runs are merged: the unit suite's (Vitest's V8 coverage, coverage/coverage-final.json) and
// the e2e suite's renderer coverage (V8 coverage of the renderer bundle in Chromium, written to
// coverage-e2e/ by the e2e helpers, mapped here through the bundle's source map onto the source
// lines). A line is one the unit run counts (a statement starts on it); it is covered when either
// run executed it. Branches are the unit run's alone (the bundle's branches are not the source's).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = process.cwd();
const unit = JSON.parse(readFileSync(join(root, 'coverage', 'coverage-final.json'), 'utf8'));

// --- the e2e run: covered source lines, per absolute source path -----------------------------
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Map([...B64].map((c, i) => [c, i]));

/** Source-map v3 mappings decoded: [generated line, generated column, source index, original line] per segment. */
function* segments(mappings) {
  let src = 0;
  let line = 0;
  let genLine = 0;
  for (const l of mappings.split(';')) {
    let genCol = 0;
    for (const seg of l.split(',')) {
      if (!seg) continue;
      const fields = [];
      let value = 0;
      let shift = 0;
      for (const c of seg) {
        const d = B64_VALUE.get(c);
        value += (d & 31) << shift;
        if (d & 32) shift += 5;
        else { fields.push(value & 1 ? -(value >>> 1) : value >>> 1); value = 0; shift = 0; }
      }
      genCol += fields[0];
      if (fields.length >= 4) {
        src += fields[1];
        line += fields[2];
        yield [genLine, genCol, src, line];
      }
    }
    genLine++;
  }
}

/** The execution count at each offset of `source`: V8's block ranges, innermost wins. */
function countsOf(source, functions) {
  const counts = new Int32Array(source.length);
  const ranges = functions.flatMap((f) => f.ranges).sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
  for (const r of ranges) counts.fill(r.count, r.startOffset, Math.min(r.endOffset, source.length));
  return counts;
}

const e2eLines = new Map();
const e2eDir = join(root, 'coverage-e2e');
let e2eFiles = 0;
let skipped = 0;
const maps = new Map();
if (existsSync(e2eDir)) {
  for (const f of readdirSync(e2eDir).filter((x) => x.endsWith('.json'))) {
    for (const entry of JSON.parse(readFileSync(join(e2eDir, f), 'utf8'))) {
      const name = entry.url.slice(entry.url.lastIndexOf('/') + 1);
      const bundle = join(root, 'dist', 'renderer', 'assets', name);
      // The map the e2e helpers kept beside the coverage (dist/ may have been rebuilt since), else the built one.
      const mapFile = [join(e2eDir, `${name}.map`), `${bundle}.map`].find((m) => existsSync(m));
      if (!mapFile || !entry.source) { skipped++; continue; }
      let map = maps.get(mapFile);
      if (!map) { map = JSON.parse(readFileSync(mapFile, 'utf8')); maps.set(mapFile, map); }
      const counts = countsOf(entry.source, entry.functions);
      const lineStart = [0];
      for (let i = 0; i < entry.source.length; i++) if (entry.source.charCodeAt(i) === 10) lineStart.push(i + 1);
      const base = resolve(dirname(bundle), map.sourceRoot ?? '');
      const paths = map.sources.map((s) => resolve(base, s));
      for (const [gl, gc, si, ol] of segments(map.mappings)) {
        const at = (lineStart[gl] ?? Infinity) + gc;
        if (!(at < counts.length) || counts[at] <= 0) continue;
        let set = e2eLines.get(paths[si]);
        if (!set) { set = new Set(); e2eLines.set(paths[si], set); }
        set.add(ol + 1);
      }
      e2eFiles++;
    }
  }
}

// --- merged, per file, then per folder ---------------------------------------------------------
const folders = {};
const parts = {};
const blank = () => ({ lines: { total: 0, covered: 0 }, unitLines: { total: 0, covered: 0 }, branches: { total: 0, covered: 0 }, files: 0 });
const add = (map, key, s) => {
  const f = (map[key] ??= blank());
  f.files++;
  for (const k of ['lines', 'unitLines', 'branches']) { f[k].total += s[k].total; f[k].covered += s[k].covered; }
};
for (const [file, fc] of Object.entries(unit)) {
  // Lines: where a statement starts (istanbul's line coverage), covered by either run.
  const hits = new Map();
  for (const [id, loc] of Object.entries(fc.statementMap)) {
    const l = loc.start.line;
    hits.set(l, Math.max(hits.get(l) ?? 0, fc.s[id]));
  }
  const e2e = e2eLines.get(file) ?? new Set();
  const s = blank();
  for (const [l, n] of hits) {
    s.lines.total++; s.unitLines.total++;
    if (n > 0) s.unitLines.covered++;
    if (n > 0 || e2e.has(l)) s.lines.covered++;
  }
  for (const counts of Object.values(fc.b)) {
    s.branches.total += counts.length;
    s.branches.covered += counts.filter((n) => n > 0).length;
  }
  const segs = relative(root, file).split('/');
  add(folders, segs[0], s);
  // Second level (main/delta, renderer/bisect), so the README can say where a folder falls short.
  if (segs.length > 2) add(parts, `${segs[0]}/${segs[1]}`, s);
}
const pct = (x) => (x.total === 0 ? 100 : Math.round((1000 * x.covered) / x.total) / 10);
const row = (f) => ({ lines: pct(f.lines), unitLines: pct(f.unitLines), branches: pct(f.branches), files: f.files, linesTotal: f.lines.total, branchesTotal: f.branches.total });
const out = {
  about: 'npm run coverage: V8 coverage per source folder (percent). lines: the unit suite and the e2e suite (the renderer bundle in Chromium, mapped to the sources) together; unitLines: the unit suite alone; branches: the unit suite alone.',
  e2eCoverageFiles: e2eFiles,
  e2eCoverageSkipped: skipped,
  folders: {},
  parts: {},
};
for (const [name, f] of Object.entries(folders).sort()) out.folders[name] = row(f);
for (const [name, f] of Object.entries(parts).sort()) out.parts[name] = row(f);
writeFileSync(join(root, 'docs', 'experiments', 'coverage.json'), JSON.stringify(out, null, 2) + '\n');
process.stdout.write(`coverage: ${e2eFiles} e2e coverage record(s) of the renderer bundle merged${skipped ? `, ${skipped} skipped (their bundle's source map is gone)` : ''}\n`);
for (const [name, f] of Object.entries({ ...out.folders, ...out.parts })) process.stdout.write(`${name}: ${f.lines}% lines (${f.unitLines}% by the unit suite alone), ${f.branches}% branches (${f.files} files)\n`);
