import { existsSync } from 'node:fs';
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
      expect(statuses(r).access).toBe('pass');
      // The result is plain JSON (it crosses IPC and HTTP).
      expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    });
  }
});
