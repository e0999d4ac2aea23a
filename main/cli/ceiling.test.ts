// The CLI's job ceiling, through the installed bin: past the resident-memory ceiling a command
// prints one line naming the ceiling and its knob, exits 3, and leaves no temp folder behind.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repo = resolve(__dirname, '..', '..');
const bin = join(repo, 'main', 'bin', 'lakerec.mjs');
const lake = join(repo, 'sample-lakes', 'built', 'bisect_many_versions');
let tmp: string;

beforeAll(() => { tmp = mkdtempSync(join(tmpdir(), 'lakerec-cli-ceiling-')); });
afterAll(() => { if (tmp) rmSync(tmp, { recursive: true, force: true }); });

it('a command past the memory ceiling: one line, exit 3, no temp folder left', (t) => {
  if (!existsSync(join(lake, 'table', '_delta_log'))) t.skip();
  // A ceiling below what node and DuckDB need to start: the first sample after the start trips it.
  const r = spawnSync(process.execPath, [bin, 'reconcile', join(lake, 'source'), join(lake, 'table'), '--contract', join(lake, 'contract.yaml')], {
    encoding: 'utf8', timeout: 120_000, env: { ...process.env, TMPDIR: tmp, LAKEREC_ENGINE_RSS_MB: '64', LAKEREC_DATA_DIR: join(tmp, 'data'), LAKEREC_DEBUG: '' },
  });
  expect(r.status).toBe(3);
  expect(r.stderr).toMatch(/^lakerec reconcile: limit exceeded: The job used \d+ MiB of memory, over the engine's ceiling of 64 MiB \(LAKEREC_ENGINE_RSS_MB\), and was ended\.[^\n]*\n$/);
  expect(readdirSync(tmp).filter((n) => n.startsWith('lakerec-'))).toEqual([]);
});
