#!/usr/bin/env node
// `npm run security`: Doyensec's electronegativity over what the Electron app is made of, with
// every check enabled and nothing excluded. Scanned: the sources of the main process, preload,
// renderer and the shared contract, the built preload and page that ship, and package.json for
// the Electron version. Any finding, or any file it could not parse, fails. Lines reviewed by
// hand carry `eng-disable CHECK` and their reason in the code; they are listed in the output.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const BUILT = ['dist/main/electron.js', 'dist/preload/index.cjs', 'dist/renderer/index.html'];
if (BUILT.some((f) => !existsSync(join(root, f)))) {
  console.log('security: building first (npm run build)');
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(1);
}

const isTest = (p) => /\.test\.tsx?$|\.e2e\.ts$/.test(p) || /[\\/]built[\\/]/.test(p);
const stage = mkdtempSync(join(tmpdir(), 'lakerec-security-'));
const copy = (rel, filter = () => true) => {
  const from = join(root, rel);
  if (!existsSync(from)) return;
  cpSync(from, join(stage, rel), {
    recursive: true,
    filter: (src) => statSync(src).isDirectory() || (!isTest(src) && filter(src)),
  });
};

// Sources of everything that runs in, or talks to, the Electron window: the whole main process
// (main/**, which is what dist/main bundles), preload, renderer and the shared contract.
copy('main');
copy('preload');
copy('renderer');
copy('shared');
// What ships to the window as built: the sandboxed preload bundle and the page. dist/main is
// main/** bundled; it is scanned as its sources above, because the bundler strips the two
// review annotations (eng-disable) and would report the same reviewed lines again without them.
copy('dist/preload');
copy('dist/renderer', (p) => !p.endsWith('.map'));
// The Electron version is read from package.json (the pinned devDependency).
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
writeFileSync(join(stage, 'package.json'), JSON.stringify({ name: pkg.name, version: pkg.version, main: pkg.main, devDependencies: { electron: pkg.devDependencies.electron } }, null, 2));

/** A scanned file as a repo path (the stage mirrors the repo's layout). */
function shown(file) {
  if (!file || file === 'N/A') return 'N/A';
  const abs = file.startsWith(stage) ? file : join(stage, file);
  const rel = relative(stage, abs);
  return rel.startsWith('..') ? file : rel;
}

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]));
}
const scanned = listFiles(stage).filter((f) => /\.(js|cjs|ts|tsx|html|json)$/.test(f));

// Reviewed items: electronegativity drops a finding whose line carries `eng-disable CHECK`; we
// list every such annotation in the scanned files so a reviewed item is never invisible.
const reviewed = [];
for (const f of scanned) {
  readFileSync(f, 'utf8').split('\n').forEach((l, i) => {
    const m = /eng-disable[ \t]+([A-Z_ \t]+)(.*)/.exec(l);
    if (m) reviewed.push(`${shown(f)}:${i + 1} ${m[1].trim()} ${m[2].replace(/-->\s*$/, '').trim()}`);
  });
}

const run = require('@doyensec/electronegativity');
let result;
try {
  result = await run({
    input: stage,
    output: undefined,
    isSarif: false,
    customScan: [],
    excludeFromScan: [],
    severitySet: undefined,
    confidenceSet: undefined,
    isRelative: true,
    isVerbose: true,
    electronUpgrade: undefined,
    electronVersionOverride: pkg.devDependencies.electron,
    parserPlugins: [],
  }, false);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

const hardErrors = result.errors.filter((e) => !e.tolerable);
console.log(`electronegativity: ${result.globalChecks} global and ${result.atomicChecks} atomic checks over ${scanned.length} files `
  + `(sources of main, preload, renderer, shared; built dist/preload, dist/renderer; Electron ${pkg.devDependencies.electron})`);
for (const i of result.issues) {
  console.log(`  FINDING ${i.id} [${i.severity.name}/${i.confidence.name}${i.manualReview ? ', review' : ''}] ${shown(i.file)}:${i.location.line}:${i.location.column}`);
  console.log(`    ${i.description}`);
}
for (const e of hardErrors) console.log(`  PARSE ERROR ${shown(e.file)}: ${e.message}`);
if (reviewed.length > 0) {
  console.log(`reviewed by hand (annotated in the code with the reason; not counted as findings): ${reviewed.length}`);
  for (const r of reviewed) console.log(`  ${r}`);
}
if (result.issues.length > 0 || hardErrors.length > 0) {
  console.log(`security: ${result.issues.length} finding(s), ${hardErrors.length} unparsed file(s).`);
  process.exit(1);
}
console.log('security: 0 findings.');
