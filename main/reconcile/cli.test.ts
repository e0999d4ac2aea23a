// The installed command, run as a child process per case: the exit code is the interface, so
// every run must give the documented one (a test calling the function in-process cannot see a
// crash at process exit). The default run spawns each case once; `npm run verify` repeats each
// LAKEREC_REPEAT=3 times, to catch an exit code that is only sometimes wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';

const repo = resolve(__dirname, '..', '..');
const bin = join(repo, 'main', 'bin', 'lakerec.mjs');
const RUNS = repeatCount(process.env.LAKEREC_REPEAT);

function repeatCount(v: string | undefined): number {
  if (v === undefined || v === '') return 1;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 50) throw new Error(`LAKEREC_REPEAT must be an integer from 1 to 50, got "${v}"`);
  return n;
}
let dir: string;
let lakes: Record<string, BuiltLake> = {};

function lakerec(args: string[], env: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env, LAKEREC_DEBUG: '' }, timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  // dist/ is built by the test run's global setup (main/testing/global-setup.ts).
  dir = mkdtempSync(join(tmpdir(), 'lakerec-cli-rec-'));
  for (const l of await buildSampleLakes({ out: dir, rows: 120, only: ['control', 'double_load'] })) lakes[l.name] = l;
  writeFileSync(join(dir, 'broken.yaml'), 'version: 1\nkeys: [order_id]\npartitioning:\n  column: dt\n  colour: red\n');
  writeFileSync(join(dir, 'nokey.yaml'), readFileSync(lakes.control.contractPath, 'utf8').replace('keys: [order_id]', 'keys: [order_no]'));
  writeFileSync(join(dir, 'nofloat.yaml'), 'version: 1\nkeys: [order_id]\npartitioning: { column: dt }\ntimestamps: { naive_is_utc: true }\n');
  writeFileSync(join(dir, 'garbage.parquet'), 'this is not parquet');
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  lakes = {};
});

interface Case { name: string; args: () => string[]; code: number; stderr?: RegExp; stdout?: RegExp }

const cases: Case[] = [
  { name: 'a clean table: 0', args: () => ['reconcile', lakes.control.sourceParquet, lakes.control.tablePath, '--contract', lakes.control.contractPath], code: 0, stdout: /^verdict: matches/ },
  { name: 'a clean table from CSV: 0', args: () => ['reconcile', lakes.control.sourceCsv, lakes.control.tablePath, '--contract', lakes.control.contractPath, '--level', 'keys'], code: 0, stdout: /^verdict: matches/ },
  { name: 'a double load: 1', args: () => ['reconcile', lakes.double_load.sourceParquet, lakes.double_load.tablePath, '--contract', lakes.double_load.contractPath], code: 1, stdout: /\[x\] double_load: / },
  { name: 'no --contract: 2', args: () => ['reconcile', lakes.control.sourceParquet, lakes.control.tablePath], code: 2, stderr: /--contract FILE is required/ },
  { name: 'a contract file that does not exist: 2', args: () => ['reconcile', lakes.control.sourceParquet, lakes.control.tablePath, '--contract', 'nope.yaml'], code: 2, stderr: /cannot read contract/ },
  { name: 'a malformed contract: 2, with its line', args: () => ['reconcile', lakes.control.sourceParquet, lakes.control.tablePath, '--contract', 'broken.yaml'], code: 2, stderr: /broken\.yaml:5: .*unknown field "colour"/ },
  { name: 'a key column absent: 2', args: () => ['reconcile', lakes.control.sourceParquet, lakes.control.tablePath, '--contract', 'nokey.yaml'], code: 2, stderr: /key column "order_no" is not a column of the source/ },
  { name: 'a float column the contract does not rule on: 2', args: () => ['reconcile', lakes.control.sourceParquet, lakes.control.tablePath, '--contract', 'nofloat.yaml'], code: 2, stderr: /column "amount_float" is a float/ },
  { name: 'an unknown level: 2', args: () => ['reconcile', lakes.control.sourceParquet, lakes.control.tablePath, '--contract', lakes.control.contractPath, '--level', 'deep'], code: 2, stderr: /--level must be one of/ },
  { name: 'a missing source: 3', args: () => ['reconcile', 'nowhere.parquet', lakes.control.tablePath, '--contract', lakes.control.contractPath], code: 3, stderr: /source nowhere\.parquet does not exist/ },
  { name: 'an unreadable source: 3', args: () => ['reconcile', 'garbage.parquet', lakes.control.tablePath, '--contract', lakes.control.contractPath], code: 3, stderr: /cannot read source garbage\.parquet/ },
  // (a folder of its own: the folder named as the table is an output root, so the report beside it is refused first)
  { name: 'a target that is not a Delta table: 3', args: () => { mkdirSync(join(dir, 'plain'), { recursive: true }); return ['reconcile', lakes.control.sourceParquet, join(dir, 'plain'), '--contract', lakes.control.contractPath]; }, code: 3, stderr: /not a Delta table/ },
];

describe(`lakerec reconcile exit codes (real CLI, ${RUNS} run(s) per case)`, () => {
  for (const c of cases) {
    it(c.name, () => {
      for (let i = 0; i < RUNS; i++) {
        const html = join(dir, `r-${i}.html`);
        rmSync(html, { force: true });
        const r = lakerec([...c.args(), '--html', html]);
        expect(r.code, r.err).toBe(c.code);
        if (c.stdout) expect(r.out).toMatch(c.stdout);
        if (c.code >= 2) {
          // one clear line, no stack trace, and no report claiming a verdict
          expect(r.err.trim().split('\n')).toHaveLength(1);
          expect(r.err).toMatch(c.stderr!);
          expect(r.err).not.toMatch(/\n\s+at /);
          expect(existsSync(html)).toBe(false);
          expect(r.out).toBe('');
        } else {
          expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/);
        }
      }
    });
  }

  it('writes markdown (appending to $GITHUB_STEP_SUMMARY), HTML and JSON', () => {
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = lakerec(['reconcile', lakes.double_load.sourceParquet, lakes.double_load.tablePath, '--contract', lakes.double_load.contractPath,
      '--markdown', summary, '--json'], { GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out) as { verdict: string; findings: { mode: string }[] };
    expect(json.verdict).toBe('diverges');
    expect(json.findings.map((f) => f.mode)).toContain('double_load');
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n')).toBe(true);
    expect(md).toContain('`double_load`');
  });

  it('--progress prints each side\'s rows done and total on stderr (one line per quarter off a terminal)', () => {
    const l = lakes.double_load;
    const r = lakerec(['reconcile', l.sourceParquet, l.tablePath, '--contract', l.contractPath, '--progress']);
    expect(r.code).toBe(1);
    const src = l.meta.sourceRows.toLocaleString('en-US');
    const tgt = l.meta.targetRows.toLocaleString('en-US');
    expect(r.err).toContain(`hashing the source: 0 / ${src} rows (0%)`);
    expect(r.err).toContain(`hashing the source: ${src} / ${src} rows (100%)`);
    expect(r.err).toContain(`hashing the target: ${tgt} / ${tgt} rows (100%)`);
    expect(r.out).toMatch(/^verdict: diverges/);
  });

  it('a CI gate with one baseline file: the first run writes it, the next inherits unchanged partitions', () => {
    const b = join(dir, '.lakerec', 'baseline.json');
    const args = ['reconcile', lakes.double_load.sourceParquet, lakes.double_load.tablePath, '--contract', lakes.double_load.contractPath, '--baseline', b, '--write-baseline', b];
    const first = lakerec(args);
    expect(first.code).toBe(1);
    expect(first.out).toMatch(/avoided 0 \(baseline\)/);
    expect(existsSync(b)).toBe(true);
    for (let i = 0; i < RUNS; i++) {
      const next = lakerec(args);
      expect(next.code).toBe(1);
      expect(next.out).toMatch(/\[x\] double_load: /);
      // five unchanged partitions agree and are inherited; the doubled one disagrees and is read
      expect(next.out).toMatch(/target rows read 40, avoided 100 \(baseline\); source rows read 120/);
    }
  });
});
