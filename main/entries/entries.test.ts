// The thin entries (npm run bench, experiments, matrix, demo; the lakerec bin's are main/cli/hostile.test.ts's) refuse a wrong
// command line before any work: one line on stderr and exit 2, nothing written. Run as the
// installed files are (dist/, built by the test run's global setup), each with a short timeout:
// an entry that ignored the mistake and started measuring would overrun it.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const dist = resolve(__dirname, '..', '..', 'dist', 'main');
const scratch = mkdtempSync(join(tmpdir(), 'lakerec-entries-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(entry: string, ...args: string[]): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, [join(dist, entry), ...args], { cwd: scratch, encoding: 'utf8', timeout: 20_000, env: { ...process.env, LAKEREC_DEBUG: '' } });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

const out = join(scratch, 'bench.json');
const cases: Array<[string, string[], RegExp]> = [
  ['bench.js', ['--bogus', '--out', out], /^bench: unknown flag --bogus\n$/],
  ['bench.js', ['--only', 'log-replay,bisekt', '--out', out], /^bench: unknown bench bisekt; one of log-replay, .*\n$/],
  ['bench.js', ['--runs', 'three', '--only', 'demo', '--out', out], /^bench: --runs takes a whole number of at least 1, got "three"\n$/],
  ['bench.js', ['--scale-rows', '1e', '--only', 'reconcile-scale', '--out', out], /^bench: --scale-rows takes a whole number, got "1e"\n$/],
  ['experiments.js', ['--only', 'float_drift,nope'], /^lakerec experiments: unknown experiment nope; one of checksum_algebra, .*\n$/],
  ['matrix.js', ['--rows', 'many'], /^lakerec matrix: --rows takes a whole number of at least 6, got "many"\n$/],
  ['matrix.js', ['--bogus'], /^lakerec matrix: unknown flag --bogus \(usage: npm run matrix -- \[--rows N\] \[--out DIR\]\)\n$/],
  ['demo.js', ['--bogus'], /^lakerec demo: unknown argument --bogus \(usage: npm run demo -- \[--keep DIR\] \[--rows N\]\)\n$/],
];

describe.skipIf(!existsSync(join(dist, 'cli.js')))('a wrong command line to an entry', () => {
  it.each(cases)('%s %j: exit 2 and one line', (entry, args, line) => {
    rmSync(out, { force: true });
    const r = run(entry, ...args);
    expect(r.stderr).toMatch(line);
    expect(r.status).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});

// A bench the entry measures (by default, or only when named) but --only does not name could never be re-measured alone (a merge
// once added reconcile-tables without it): the names --only accepts are exactly the ones measured.
describe('npm run bench --only', () => {
  it('accepts every bench the entry measures, and no other', async () => {
    const { readFileSync } = await import('node:fs');
    const src = readFileSync(resolve(__dirname, 'bench.ts'), 'utf8');
    const listed = JSON.parse((/const BENCHES = (\[[^\]]*\])/.exec(src)?.[1] ?? '[]').replace(/'/g, '"')) as string[];
    const measured = [...new Set([...src.matchAll(/(?:want\(|only\?\.has\()'([a-z-]+)'\)/g)].map((m) => m[1]))];
    expect(measured.length).toBeGreaterThan(10);
    expect([...listed].sort()).toEqual([...measured].sort());
  });
});
