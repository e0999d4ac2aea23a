import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProof } from './run';
import type { ProofResult, ProofStep } from '../../shared/proof';

function statuses(r: ProofResult): Record<string, string> {
  return Object.fromEntries(r.checks.map((c) => [c.name, c.status]));
}

function failed(r: ProofResult): string[] {
  return r.checks.filter((c) => c.status === 'fail').map((c) => c.name).sort();
}

describe('round-trip proof: every pair passes', () => {
  for (const [a, b] of [['duckdb', 'arrow'], ['arrow', 'duckdb'], ['duckdb', 'duckdb'], ['arrow', 'arrow']] as const) {
    it(`${a} -> ${b}`, async () => {
      const seen: ProofStep[] = [];
      const r = await runProof({ engines: [a, b], ctx: { onStep: (s) => seen.push(s) } });
      if (!r.passed) console.log(JSON.stringify(r.checks.filter((c) => c.status !== 'pass'), null, 2));
      expect(failed(r)).toEqual([]);
      expect(r.checks).toHaveLength(12);
      expect(r.steps.map((s) => s.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
      expect(seen.filter((s) => s.status === 'running').map((s) => s.id)).toEqual(['generate', 'a_write', 'b_read', 'b_write', 'a_read']);
      expect(existsSync(r.sandbox)).toBe(false);
      // access_d11 is the seed's gap: a warning that never passes until table access control exists.
      expect(statuses(r).access_d11).toBe('warn');
      // The result is plain JSON (it crosses IPC and HTTP).
      expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    });
  }
});

describe('the sandbox', () => {
  it('is mode 0700 while the proof runs, and gone afterwards', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'lakerec-proof-mode-'));
    let mode: number | null = null;
    let path = '';
    const r = await runProof({
      engines: ['arrow', 'duckdb'], tmpRoot: parent,
      ctx: {
        onStep: (s) => {
          if (s.id !== 'b_write' || s.status !== 'running') return;
          const [d] = readdirSync(parent);
          path = join(parent, d);
          mode = statSync(path).mode & 0o777;
        },
      },
    });
    rmSync(parent, { recursive: true, force: true });
    expect(path).toBe(r.sandbox);
    if (process.platform !== 'win32') expect(mode).toBe(0o700);
    expect(existsSync(r.sandbox)).toBe(false);
    expect(r.checks.find((c) => c.name === 'access_d11')!.evidence.join('\n')).toMatch(/sandbox mode 0700/);
    expect(r.checks.find((c) => c.name === 'sandbox_discarded')!.status).toBe('pass');
  });

  it('is deleted when the proof is cancelled', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'lakerec-proof-cancel-'));
    const ac = new AbortController();
    await expect(runProof({
      engines: ['duckdb', 'arrow'], tmpRoot: parent,
      ctx: { signal: ac.signal, onStep: (s) => { if (s.id === 'a_write' && s.status === 'done') ac.abort(); } },
    })).rejects.toThrow(/cancelled/);
    expect(readdirSync(parent)).toEqual([]);
    rmSync(parent, { recursive: true, force: true });
    expect(existsSync(parent)).toBe(false);
  });
});
