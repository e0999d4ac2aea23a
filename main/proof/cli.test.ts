// The CLI faces of the proof: `lakerec fingerprint` prints exact integers, `lakerec proof` exits 1
// on a failing check; in-process and through the real installed command.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main';
import { listRuns } from '../runs/store';
import { arrowEngine } from './engines/arrow';
import { fingerprintArrow } from './fingerprint';
import { generateTable } from './generate';

const repo = resolve(__dirname, '..', '..');
let dir: string;
let dataDir: string;
const g = generateTable();
const expected = fingerprintArrow(g.arrow);

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd: dir, env: { LAKEREC_DATA_DIR: dataDir, ...env } });
  return { code, out, err };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-proof-cli-'));
  dataDir = join(dir, 'appdata');
  await arrowEngine.write(join(dir, 'gen'), g.arrow);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lakerec fingerprint', () => {
  it('prints the ods fingerprint v1 with exact integers', async () => {
    const r = await cli(['fingerprint', 'gen']);
    expect(r.code, r.err).toBe(0);
    const big = expected.columns.find((c) => c.name === 'big')!;
    // The sums exceed 2^64: only exact integer arithmetic prints them right.
    expect(BigInt(big.hash!)).toBeGreaterThan(2n ** 64n);
    expect(r.out).toMatch(new RegExp(`^big\\s+hash\\s+nulls=${big.nulls}\\s+hash=${big.hash}$`, 'm'));
    expect(r.out).toMatch(/^ratio\s+float\s+nulls=\d+\s+nan=1\s+posinf=1\s+neginf=1/m);
    expect(r.out).toContain(`rows ${g.rows.length}\n`);
  });

  it('--json holds the same figures as the TypeScript computation (hashes as exact digit strings)', async () => {
    const r = await cli(['fingerprint', 'gen', '--json', '--version', '0']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { fingerprint: string; version: number; rows: number; columns: unknown[] };
    expect(j.fingerprint).toBe('ods-fingerprint-v1');
    expect(j.version).toBe(0);
    expect(j.rows).toBe(expected.rows);
    expect(j.columns).toEqual(expected.columns);
  });

  it('--check computes the figures a second way and says they agree', async () => {
    const r = await cli(['fingerprint', 'gen', '--check']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('checked: TypeScript over Arrow gives the same figures');
    const j = JSON.parse((await cli(['fingerprint', 'gen', '--check', '--json'])).out) as { checked: boolean; differences: string[] };
    expect(j).toMatchObject({ checked: true, differences: [] });
  });

  it('--sql prints the SQL per dialect', async () => {
    const spark = await cli(['fingerprint', 'gen', '--sql', 'spark', '--version', '0']);
    expect(spark.code).toBe(0);
    expect(spark.out).toMatch(/^-- written to the spec, not yet run against this engine/);
    expect(spark.out).toContain('VERSION AS OF 0');
    expect((await cli(['fingerprint', 'gen', '--sql', 'duckdb'])).out).toContain('delta_scan(');
    expect((await cli(['fingerprint', 'gen', '--sql', 'snowflake'])).out).toContain('TO_NUMBER(SUBSTR(MD5(');
  });

  it('exits 2 on a wrong invocation and 3 on a missing table', async () => {
    expect((await cli(['fingerprint', 'gen', '--sql', 'oracle'])).code).toBe(2);
    expect((await cli(['fingerprint'])).code).toBe(2);
    const missing = await cli(['fingerprint', 'nowhere']);
    expect(missing.code).toBe(3);
    expect(missing.err).toMatch(/^lakerec fingerprint: not found: /);
  });
});

describe('lakerec proof', () => {
  it('passes duckdb,arrow with exit 0, writes the HTML report, records the run', async () => {
    const r = await cli(['proof', '--engines', 'duckdb,arrow', '--html', 'proof.html']);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('the proof passed');
    expect(r.out).toMatch(/PASS {2}fingerprints_match/);
    const html = readFileSync(join(dir, 'proof.html'), 'utf8');
    expect(html).toContain('The proof passed.');
    for (const email of g.rows.map((row) => row[8]).filter((e): e is string => typeof e === 'string' && e.length >= 4)) {
      expect(html).not.toContain(email);
    }
    const runs = await listRuns(dataDir, { kind: 'proof' });
    expect(runs[0]).toMatchObject({ kind: 'proof', status: 'pass', title: 'duckdb -> arrow' });
  });

  it('exits 1 when a check fails (a lossy test double, enabled for tests only)', async () => {
    const r = await cli(['proof', '--engines', 'lossy-nan,duckdb', '--json'], { LAKEREC_PROOF_TEST_ENGINES: '1' });
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out) as { passed: boolean; checks: { name: string; status: string }[] };
    expect(j.passed).toBe(false);
    expect(j.checks.filter((c) => c.status === 'fail').map((c) => c.name)).toEqual(['fingerprints_match', 'rows_identical']);
  });

  it('exits 2 on a wrong invocation; test doubles are unknown without the test switch', async () => {
    expect((await cli(['proof', '--engines', 'duckdb'])).code).toBe(2);
    expect((await cli(['proof', '--proofs', 'sometimes'])).code).toBe(2);
    const r = await cli(['proof', '--engines', 'lossy-nan,duckdb']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown engine "lossy-nan"; the engines are duckdb, arrow/);
  });
});

describe('the installed command', () => {
  const entry = join(repo, 'dist', 'main', 'cli.js');
  beforeAll(() => {
    // Build when the dist is absent or predates this usage line (in cli.js or one of its chunks:
    // looking in cli.js alone rebuilt dist/main on every run, emptying it under the other files).
    const bundled = (d: string): string[] => (existsSync(d) ? readdirSync(d).filter((f) => f.endsWith('.js')).map((f) => join(d, f)) : []);
    const built = existsSync(entry) && [...bundled(join(repo, 'dist', 'main')), ...bundled(join(repo, 'dist', 'main', 'chunks'))]
      .some((f) => readFileSync(f, 'utf8').includes('[--json] [--check] [--sql'));
    if (!built) {
      const b = spawnSync('npm', ['run', 'build:node'], { cwd: repo, encoding: 'utf8' });
      if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
    }
  }, 300_000);

  it('prints exact integers and returns the documented exit codes', () => {
    const env = { ...process.env, LAKEREC_DATA_DIR: dataDir, LAKEREC_PROOF_TEST_ENGINES: '1' };
    const run = (args: string[]) => spawnSync(process.execPath, [join(repo, 'main', 'bin', 'lakerec.mjs'), ...args], { cwd: dir, encoding: 'utf8', env });
    const fp = run(['fingerprint', 'gen']);
    expect(fp.status, fp.stderr).toBe(0);
    expect(fp.stdout).toContain(`hash=${expected.columns.find((c) => c.name === 'big')!.hash}`);
    const ok = run(['proof', '--engines', 'arrow,duckdb']);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(run(['proof', '--engines', 'lossy-decimal,arrow']).status).toBe(1);
    expect(run(['proof', '--engines', 'duckdb,spark']).status).toBe(2);
  }, 120_000);
});
