// The demo is what it claims: every step returns its documented exit code and shows its finding,
// the total row count agrees while two partitions do not, and the whole run is fast.
import { expect, it } from 'vitest';
import { LakerecError } from '../shared/errors';
import { runCli } from '../main/cli/main';
import { parseDemoArgs, runDemo } from './demo';

it('runs end to end with real output and passes its own checks', async () => {
  let text = '';
  const r = await runDemo({ cli: runCli, rows: 1200, out: (t) => { text += t; }, err: (t) => { text += t; } });
  expect(r.failures).toEqual([]);
  expect(r.code).toBe(0);
  expect(text).toContain('rows:    source 1,200  target 1,200  partitions 6 (2 disagreeing)');
  expect(text).toMatch(/\[x\] partition_wipe: .*dt=2026-08-10/);
  expect(text).toMatch(/\[x\] double_load: 200 duplicate rows/);
  expect(text).toContain('first bad version: 7');
  expect(text).toContain('v8 partition_emptied');
  expect(text).toMatch(/whole demo: \d+\.\d s wall/);
  // Six commands, each with its exit code.
  expect(text.match(/\[exit \d · /g)).toHaveLength(6);
});

it('refuses arguments it does not know', () => {
  expect(() => parseDemoArgs(['--nope'])).toThrow(LakerecError);
  expect(parseDemoArgs(['--rows', '600'])).toEqual({ keep: null, rows: 600 });
});
