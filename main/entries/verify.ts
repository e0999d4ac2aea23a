// `npm run verify`: lint, typecheck, the unit tests, the detection matrix and the benchmarks'
// cheap figures, then every number README.md and docs/*.md quote (docs/receipts.json) checked
// against what was just measured. A stale number fails with file, line, claimed and measured.
//
//   npm run verify                 everything
//   npm run verify -- --claims-only   only re-check the docs against the last measurements
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatViolation } from '../../shared/receipts';
import { collectMetrics } from '../receipts/metrics';
import { checkRepo } from '../receipts/check';
import { repoRoot } from '../engine/repo';

const root = repoRoot();
const say = (s: string): void => { process.stdout.write(s + '\n'); };

function step(name: string, cmd: string, args: string[]): void {
  say(`\n== ${name}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    say(`verify: ${name} failed (exit ${r.status})`);
    process.exit(1);
  }
}

const claimsOnly = process.argv.includes('--claims-only');
// Fresh figures go to a scratch file: verify re-measures, it does not rewrite the published bench.json.
const scratch = mkdtempSync(join(tmpdir(), 'lakerec-verify-'));
const benchPath = claimsOnly ? undefined : join(scratch, 'bench.json');
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
if (!claimsOnly) {
  step('lint', 'npm', ['run', '--silent', 'lint']);
  step('typecheck', 'npm', ['run', '--silent', 'typecheck']);
  step('build', 'npm', ['run', '--silent', 'build']);
  step('unit tests', 'npx', ['vitest', 'run']);
  step('detection matrix', 'node', ['dist/main/matrix.js']);
  step('benchmarks (cheap figures)', 'node', ['dist/main/bench.js', '--quick', '--runs', '1', '--out', benchPath ?? '']);
}

const metrics = collectMetrics(root, { benchPath });
say(`\n== receipts: ${Object.keys(metrics).length} metrics measured`);
const { claims, violations } = checkRepo(root, metrics);
if (violations.length) {
  for (const v of violations) say(`  FAIL ${formatViolation(v)}`);
  say(`verify: ${violations.length} of ${claims} claim(s) are not true any more`);
  process.exit(1);
}
say(`verify: all ${claims} quoted figures match the measurements`);
process.exit(0);
