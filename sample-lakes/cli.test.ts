// `lakerec build-sample-lakes` through the CLI dispatcher: builds, reports, and refuses bad flags
// with exit 2 and one line.
import { afterAll, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../main/cli/main';

const dir = mkdtempSync(join(tmpdir(), 'lakerec-lakes-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd: dir, env: {} });
  return { code, out, err };
}

it('builds the named lakes into --out (relative to the working folder)', async () => {
  const r = await cli(['build-sample-lakes', '--out', 'lakes', '--rows', '60', '--seed', '3', '--only', 'control', '--only', 'double_load']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/^control\s+v6\s+\(silent\)$/m);
  expect(r.out).toMatch(/^double_load\s+v7\s+double_load$/m);
  expect(r.out).toMatch(/built 2 lake\(s\) from 60 clean rows \(seed 3\)/);
  const meta = JSON.parse(readFileSync(join(dir, 'lakes', 'double_load', 'scenario.json'), 'utf8')) as { targetRows: number; seed: number };
  expect(meta).toMatchObject({ targetRows: 70, seed: 3 });
  expect(existsSync(join(dir, 'lakes', 'control', 'table', '_delta_log', '00000000000000000006.json'))).toBe(true);
});

it('prints JSON with --json', async () => {
  const r = await cli(['build-sample-lakes', '--out', 'json', '--rows', '12', '--only', 'null_keys', '--json']);
  expect(r.code).toBe(0);
  const j = JSON.parse(r.out) as { lakes: { name: string; expectedMode: string; brokenAtVersion: number }[] };
  expect(j.lakes).toEqual([expect.objectContaining({ name: 'null_keys', expectedMode: 'null_keys', brokenAtVersion: 7 })]);
});

it('refuses bad flags with exit 2 and one line', async () => {
  for (const argv of [['--rows', 'many'], ['--rows', '2'], ['--only', 'nope'], ['--bogus'], ['extra-arg']]) {
    const r = await cli(['build-sample-lakes', '--out', 'bad', ...argv]);
    expect(r.code, argv.join(' ')).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/^lakerec build-sample-lakes: usage: /);
  }
});

it('never replaces a folder that is not a sample lake', async () => {
  mkdirSync(join(dir, 'mine', 'control'), { recursive: true });
  writeFileSync(join(dir, 'mine', 'control', 'precious.txt'), 'keep me');
  const r = await cli(['build-sample-lakes', '--out', 'mine', '--rows', '12', '--only', 'control']);
  expect(r.code).toBe(2);
  expect(r.err).toMatch(/is not a sample lake/);
  expect(readFileSync(join(dir, 'mine', 'control', 'precious.txt'), 'utf8')).toBe('keep me');
});
