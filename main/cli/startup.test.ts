// A counts-level run's fixed costs stay cut: the built CLI loads none of the window's packages,
// Ajv, or the modules only deeper levels and other flags need; LAKEREC_PROFILE=1 prints each
// phase's start (the counts bench reads these lines).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DeltaTable } from '../delta/table';
import { repoRoot } from '../engine/repo';
import { runCli } from './main';

const lake = join(repoRoot(), 'sample-lakes', 'built', 'double_load');
const args = ['reconcile', join(lake, 'source', 'orders.parquet'), join(lake, 'table'), '--contract', join(lake, 'contract.yaml'), '--level', 'counts'];

describe('a counts-level run', () => {
  it('prints its phases in order under LAKEREC_PROFILE=1', async () => {
    const err: string[] = [];
    const code = await runCli(args, { out: () => {}, err: (t) => err.push(t), cwd: process.cwd(), env: { LAKEREC_PROFILE: '1' } });
    expect(code).toBe(1);
    const phases = [...err.join('').matchAll(/^\[lakerec\] phase (.+) at (\d+) ms$/gm)].map((m) => ({ phase: m[1], at: Number(m[2]) }));
    expect(phases.map((p) => p.phase)).toEqual(['cli ready', 'reading the target log', 'opening the source', 'counting source rows', 'report', 'render', 'done']);
    for (let i = 1; i < phases.length; i++) expect(phases[i].at).toBeGreaterThanOrEqual(phases[i - 1].at);
  });

  it('reads the target log once, at counts level and at rows level with example rows', async () => {
    for (const level of ['counts', 'rows']) {
      const spy = vi.spyOn(DeltaTable, 'openStorage');
      const out: string[] = [];
      try {
        const code = await runCli([...args.slice(0, -1), level], { out: (t) => out.push(t), err: () => {}, cwd: process.cwd(), env: {} });
        expect(code).toBe(1);
        expect(spy).toHaveBeenCalledTimes(1);
      } finally {
        spy.mockRestore();
      }
      // At rows level the example rows carry their commit: the provenance came from the same table.
      if (level === 'rows') expect(out.join('')).toMatch(/v\d+/);
    }
  });

  const cli = join(repoRoot(), 'dist', 'main', 'cli.js');
  it.skipIf(!existsSync(cli))('loads no module it does not use (the built CLI, every module it resolves)', () => {
    const hook = 'data:text/javascript,' + encodeURIComponent(`import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent('export async function resolve(s, c, n) { const r = await n(s, c); process.stderr.write("[resolved] " + r.url + "\\\\n"); return r; }'));`);
    const p = spawnSync(process.execPath, ['--import', hook, join(repoRoot(), 'main', 'bin', 'lakerec.mjs'), ...args], { encoding: 'utf8' });
    expect(p.status).toBe(1);
    const urls = [...p.stderr.matchAll(/^\[resolved\] (.+)$/gm)].map((m) => m[1]);
    expect(urls.some((u) => u.includes('/dist/main/chunks/log-levels-'))).toBe(true);
    const unwanted = urls.filter((u) => /node_modules\/(react|react-dom|recharts|zustand|apache-arrow|parquet-wasm|ajv)\/|\/chunks\/(laws|why|investigate|bisect|forensics)-/.test(u));
    expect(unwanted).toEqual([]);
  });
});
