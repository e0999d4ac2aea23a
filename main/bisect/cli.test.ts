// The CLI faces of bisect and forensics: output as the seed prints it, and the fixed exit codes,
// in-process and through the real installed command.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { TinyLake, type Row } from '../testing/forensics-tables';
import { runCli } from '../cli/main';

const repo = resolve(__dirname, '..', '..');
const days = ['2026-08-06', '2026-08-07', '2026-08-08', '2026-08-09', '2026-08-10', '2026-08-11'];
const rowsFor = (dt: string, start: number, n: number): Row[] => Array.from({ length: n }, (_, i) => ({ order_id: start + i, amount: (start + i) % 97, dt }));

let dir: string;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd: dir, env: {} });
  return { code, out, err };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-bisect-cli-'));
  const cols = [{ name: 'order_id', type: 'long' as const }, { name: 'amount', type: 'long' as const }, { name: 'dt', type: 'date' as const }];
  const lake = await TinyLake.create(join(dir, 'orders'), cols, ['dt']);
  for (let d = 0; d < 5; d++) await lake.append([rowsFor(days[d], d * 1000, 900)]);
  await lake.append([rowsFor(days[4], 4000, 900)]); // v6: the v5 batch again
  lake.close();
  const clean = await TinyLake.create(join(dir, 'clean'), cols, ['dt']);
  for (let d = 0; d < 3; d++) await clean.append([rowsFor(days[d], d * 1000, 10)]);
  clean.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lakerec bisect / forensics (in-process)', () => {
  it('prints the seed\'s four lines and exits 1 on a bad version', async () => {
    const r = await cli(['bisect', 'orders', '--predicate', 'unique-keys', '--keys', 'order_id']);
    expect(r.code).toBe(1);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('first bad version: 6');
    expect(lines[1]).toMatch(/^culprit: {11}version 6 · WRITE · 2026-08-17T19:47:\d\dZ · \{"mode": "Append"\} · \+1 file\(s\)\/900 row\(s\)$/);
    expect(lines[2]).toBe('last good:         5');
    expect(lines[3]).toBe('examined:          7 version(s) (exhaustive)');
    expect(lines[4]).toBe('partitions:        dt=2026-08-10');
    expect(r.out).toMatch(/not counted as duplicates/);
  });

  it('exits 0 on a clean table, 2 on a refused predicate, 3 on a missing table', async () => {
    expect((await cli(['bisect', 'clean', '--predicate', 'unique-keys', '--keys', 'order_id'])).code).toBe(0);
    const refused = await cli(['bisect', 'orders', '--predicate', 'matches-source', '--source', 'x.csv']);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/predicate refused: matches-source needs --partition/);
    expect((await cli(['bisect', 'orders', '--predicate', 'sorted'])).code).toBe(2);
    expect((await cli(['bisect', 'orders'])).code).toBe(2);
    expect((await cli(['bisect', 'nowhere', '--predicate', 'no-null-keys', '--keys', 'order_id'])).code).toBe(3);
  });

  it('--json carries the result and the probes', async () => {
    const r = await cli(['bisect', 'orders', '--predicate', 'no-null-keys', '--keys', 'order_id', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { outcome: string; filesRead: number; probes: unknown[] };
    expect(j).toMatchObject({ outcome: 'clean', filesRead: 0 });
    expect(j.probes).toHaveLength(7);
  });

  it('forensics prints the table and what is worth a second look', async () => {
    const r = await cli(['forensics', 'orders', '--partition-by', 'dt']);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe(' ver  when                  operation         +files  -files     +rows     -rows  partitions');
    expect(r.out).toMatch(/\n {3}6 {2}2026-08-17T19:47:\d\dZ {2}WRITE {18}1 {7}0 {7}900 {9}0 {2}dt=2026-08-10\n/);
    expect(r.out).toContain('worth a second look:\n  v6 duplicate_batch: append of 1 file(s)/900 row(s) repeats the row counts and stats of v5');
    const wide = await cli(['forensics', 'orders', '--wide']);
    expect(wide.out).toMatch(/\n {3}6 .*\n {8}params \{"mode":"Append"\} · \+[\d.]+ (B|KiB)\/-0 B · writer lakerec-testkit\/0 · isolation Serializable · table 5400\n {8}row\(s\) in 6 file\(s\) · no checkpoint\n/);
    const one = await cli(['forensics', 'orders', '--version', '6']);
    expect(one.code).toBe(0);
    expect(one.out.split('\n')[0]).toMatch(/^version 6 · WRITE · 2026-08-17T19:47:\d\dZ · \{"mode":"Append"\}$/);
    expect(one.out).toContain('\npartition      +files  -files     +rows     -rows\ndt=2026-08-10       1       0       900         0\n');
    expect(one.out).toContain('worth a second look:\n  v6 duplicate_batch');
    expect((await cli(['forensics', 'orders', '--version', '60'])).code).toBe(3);
    const j = JSON.parse((await cli(['forensics', 'orders', '--json'])).out) as { heuristics: { name: string; evidence: Record<string, unknown> }[] };
    expect(j.heuristics[0]).toMatchObject({ name: 'duplicate_batch', evidence: { earlierVersions: [5] } });
  });
});

describe('the installed command', () => {
  const entry = join(repo, 'dist', 'main', 'cli.js');
  beforeAll(() => {
    // Build when the dist is absent or predates these commands (the command table is in cli.js or a chunk).
    const bundled = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => join(dir, f)) : []);
    const built = existsSync(entry) && [...bundled(join(repo, 'dist', 'main')), ...bundled(join(repo, 'dist', 'main', 'chunks'))]
      .some((f) => readFileSync(f, 'utf8').includes('lakerec bisect TABLE'));
    if (!built) {
      const b = spawnSync('npm', ['run', 'build:node'], { cwd: repo, encoding: 'utf8' });
      if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
    }
  }, 300_000);

  it('returns the documented exit codes, every time', () => {
    // The package's bin entry, as `npx lakerec` runs it, in a separate process (its exit is the interface).
    const run = (args: string[]) => spawnSync(process.execPath, [join(repo, 'main', 'bin', 'lakerec.mjs'), ...args], { cwd: dir, encoding: 'utf8' });
    for (let i = 0; i < 2; i++) {
      const bad = run(['bisect', 'orders', '--predicate', 'unique-keys', '--keys', 'order_id']);
      expect(bad.status, bad.stderr).toBe(1);
      expect(bad.stdout.split('\n')[0]).toBe('first bad version: 6');
      expect(run(['bisect', 'clean', '--predicate', 'no-null-keys', '--keys', 'order_id']).status).toBe(0);
      expect(run(['bisect', 'orders', '--predicate', 'matches-source', '--source', 'x.csv']).status).toBe(2);
    }
    expect(run(['forensics', 'orders']).status).toBe(0);
  });
});
