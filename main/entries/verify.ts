// `npm run verify`: lint, typecheck, the unit tests, the CLI exit-code tests repeated, then every
// measurement re-made into a scratch folder (the detection matrix, the experiments, the
// benchmarks' cheap figures, the example reports), compared with what docs/ publishes, and every
// number README.md and docs/**.md state checked: a measured claim that agrees with the fresh
// metric, or explicitly not a measurement (docs/receipts.json; main/receipts/check.ts).
//
//   npm run verify                    everything
//   npm run verify -- --claims-only   only re-check the docs against the committed measurements
//   npm run verify -- --no-tests      re-measure and check, without lint, typecheck and the tests
//   npm run verify -- --figures       after a build: only what catches a stale figure without the
//                                     benchmarks (experiments --quick, the example reports, the
//                                     claims); .ci/run runs it after the tests
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatViolation } from '../../shared/receipts';
import { collectMetrics } from '../receipts/metrics';
import { checkRepo, formatUntied } from '../receipts/check';
import { repoRoot } from '../engine/repo';
import { compareMatrices } from '../receipts/fresh';
import { compareFigures } from '../experiments/run';
import { loadExperimentResults } from '../experiments/markdown';
import { compareExamples } from '../examples/generate';

const root = repoRoot();
const say = (s: string): void => { process.stdout.write(s + '\n'); };

function step(name: string, cmd: string, args: string[], env: Record<string, string> = {}): void {
  say(`\n== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    say(`verify: ${name} failed (exit ${r.status})`);
    process.exit(1);
  }
}

const claimsOnly = process.argv.includes('--claims-only');
const noTests = process.argv.includes('--no-tests');
const figuresOnly = process.argv.includes('--figures');
// Fresh figures go to a scratch folder: verify re-measures, it does not rewrite what docs/ publishes.
const scratch = mkdtempSync(join(tmpdir(), 'lakerec-verify-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const failures: string[] = [];
let opts: Parameters<typeof collectMetrics>[1] = {};
if (figuresOnly && !claimsOnly) {
  // The built output is the one the tests just ran (npm test builds first): no build, no
  // benchmarks, no detection matrix; the published bench and matrix figures stand as committed.
  if (!existsSync(join(root, 'dist', 'main', 'experiments.js'))) {
    say('verify --figures: dist/main is not built (npm run build:node first)');
    process.exit(2);
  }
  step('experiments (quick: no 1M-row lake)', 'node', ['dist/main/experiments.js', '--quick', '--out', join(scratch, 'experiments')]);
  step('example reports', 'node', ['dist/main/examples.js', '--out', join(scratch, 'examples')]);
  opts = { experimentsDir: join(scratch, 'experiments') };
  say('\n== the published experiments and examples against the fresh ones');
  failures.push(...compareExperiments(root, opts.experimentsDir!));
  failures.push(...compareExamples(join(root, 'docs', 'examples'), join(scratch, 'examples')));
} else if (!claimsOnly) {
  if (!noTests) {
    step('lint', 'npm', ['run', '--silent', 'lint']);
    step('typecheck', 'npm', ['run', '--silent', 'typecheck']);
  }
  step('build', 'npm', ['run', '--silent', 'build']);
  if (!noTests) {
    step('unit tests', 'npx', ['vitest', 'run']);
    // The default run spawns each exit-code case once; here three times (an exit code that is
    // only sometimes wrong is the interface broken).
    step('CLI exit codes, repeated', 'npx', ['vitest', 'run', 'main/reconcile/cli.test.ts'], { LAKEREC_REPEAT: '3' });
  }
  step('detection matrix', 'node', ['dist/main/matrix.js', '--out', join(scratch, 'matrix')]);
  step('experiments (quick: no 1M-row lake)', 'node', ['dist/main/experiments.js', '--quick', '--out', join(scratch, 'experiments')]);
  step('benchmarks (cheap figures)', 'node', ['dist/main/bench.js', '--quick', '--runs', '1', '--out', join(scratch, 'bench.json')]);
  step('example reports', 'node', ['dist/main/examples.js', '--out', join(scratch, 'examples')]);
  opts = { benchPath: join(scratch, 'bench.json'), matrixPath: join(scratch, 'matrix', 'detection_matrix.json'), experimentsDir: join(scratch, 'experiments') };

  say('\n== the published measurements against the fresh ones');
  const committedMatrix = join(root, 'docs', 'experiments', 'detection_matrix.json');
  if (existsSync(committedMatrix)) failures.push(...compareMatrices(JSON.parse(readFileSync(committedMatrix, 'utf8')), JSON.parse(readFileSync(opts.matrixPath!, 'utf8'))));
  failures.push(...compareExperiments(root, opts.experimentsDir!));
  failures.push(...compareExamples(join(root, 'docs', 'examples'), join(scratch, 'examples')));
}

/** Every published experiment against its fresh run in `freshDir`. */
function compareExperiments(repo: string, freshDir: string): string[] {
  const out: string[] = [];
  const fresh = new Map(loadExperimentResults(repo, freshDir).map((r) => [r.name, r]));
  for (const c of loadExperimentResults(repo)) {
    const f = fresh.get(c.name);
    if (!f) out.push(`experiment ${c.name}: published, but not re-measured`);
    else out.push(...compareFigures(c, f));
  }
  return out;
}

const metrics = collectMetrics(root, opts);
say(`\n== receipts: ${Object.keys(metrics).length} metrics measured`);
const rep = checkRepo(root, metrics);
for (const v of rep.violations) failures.push(formatViolation(v));
for (const n of rep.untied) failures.push(formatUntied(n));
for (const p of rep.problems) failures.push(`${p.line === null ? p.file : `${p.file}:${p.line}`}: ${p.message}`);
if (failures.length) {
  for (const f of failures) say(`  FAIL ${f}`);
  say(`verify: ${failures.length} problem(s); ${rep.numbers} number(s) in ${rep.documents.length} document(s), ${rep.claims} measured claim(s)`);
  process.exit(1);
}
say(`verify: every one of ${rep.numbers} number(s) in ${rep.documents.length} document(s) is accounted for; ${rep.claims} measured claim(s) match the measurements`);
process.exit(0);
