// One proof at a time: the lock file (refusal with the running proof's id, stale locks
// replaced), the window's queue (positions, order, cancel), the proof mode setting, and the CLI
// faces of all three.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main';
import { getRun, listRuns } from '../runs/store';
import { acquireProofLockOrRefuse, currentProofLock, PROOF_LOCK_FILE, ProofQueue, tryAcquireProofLock } from './one-at-a-time';
import { proofsForMode, readProofSettings, writeProofSettings } from './settings';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-proof-lock-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], dataDir: string, env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd: dir, env: { LAKEREC_DATA_DIR: dataDir, ...env } });
  return { code, out, err };
}

describe('the proof lock', () => {
  it('refuses a second proof with the running proof\'s id, and is free again on release', () => {
    const d = join(dir, 'l1');
    const held = acquireProofLockOrRefuse(d, { id: 'proof-1', startedAt: '2026-12-01T00:00:00Z', engines: ['duckdb', 'arrow'] });
    expect(currentProofLock(d)).toMatchObject({ id: 'proof-1', pid: process.pid });
    expect(() => acquireProofLockOrRefuse(d, { id: 'proof-2', startedAt: 'x', engines: ['arrow', 'duckdb'] }))
      .toThrow(/^a proof is already running: proof-1 \(duckdb -> arrow, pid \d+, started 2026-12-01T00:00:00Z\)/);
    held.release();
    expect(existsSync(join(d, PROOF_LOCK_FILE))).toBe(false);
    acquireProofLockOrRefuse(d, { id: 'proof-2', startedAt: 'x', engines: ['arrow', 'duckdb'] }).release();
  });

  it('replaces a stale lock (its process is gone) and an unreadable one', async () => {
    const d = join(dir, 'l2');
    // A real process that has ended: its pid is not alive any more.
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    acquireProofLockOrRefuse(d, { id: 'x', startedAt: 'x', engines: ['a', 'b'] }).release();
    writeFileSync(join(d, PROOF_LOCK_FILE), JSON.stringify({ id: 'crashed', pid, startedAt: '2026-01-01T00:00:00Z', engines: ['duckdb', 'arrow'] }));
    expect(currentProofLock(d)).toBeNull();
    const held = tryAcquireProofLock(d, { id: 'fresh', startedAt: 'now', engines: ['duckdb', 'arrow'] });
    expect('info' in held && held.info.id).toBe('fresh');
    if ('release' in held) held.release();
    writeFileSync(join(d, PROOF_LOCK_FILE), 'not json');
    const again = acquireProofLockOrRefuse(d, { id: 'fresh2', startedAt: 'now', engines: ['duckdb', 'arrow'] });
    expect(JSON.parse(readFileSync(join(d, PROOF_LOCK_FILE), 'utf8')).id).toBe('fresh2');
    again.release();
  });
});

describe('the window\'s queue', () => {
  it('runs proofs one at a time in order, telling each waiting proof its position', async () => {
    const q = new ProofQueue(join(dir, 'q1'), 20);
    const order: string[] = [];
    const positions: Record<string, number[]> = { b: [], c: [] };
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const a = q.run({ id: 'a', startedAt: 'x', engines: ['duckdb', 'arrow'] }, async () => { order.push('a start'); await gate; order.push('a end'); });
    await new Promise((r) => setTimeout(r, 10));
    const b = q.run({ id: 'b', startedAt: 'x', engines: ['duckdb', 'arrow'] }, async () => { order.push('b'); }, { queued: (p) => positions.b.push(p) });
    const c = q.run({ id: 'c', startedAt: 'x', engines: ['duckdb', 'arrow'] }, async () => { order.push('c'); }, { queued: (p) => positions.c.push(p) });
    expect(q.length).toBe(2);
    expect(positions.b.at(-1)).toBe(1);
    expect(positions.c.at(-1)).toBe(2);
    release();
    await Promise.all([a, b, c]);
    expect(order).toEqual(['a start', 'a end', 'b', 'c']);
    // c moved up to first when b started.
    expect(positions.c).toContain(1);
  });

  it('a queued proof can be cancelled before it starts', async () => {
    const q = new ProofQueue(join(dir, 'q2'), 20);
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const a = q.run({ id: 'a', startedAt: 'x', engines: ['duckdb', 'arrow'] }, () => gate);
    const ac = new AbortController();
    const b = q.run({ id: 'b', startedAt: 'x', engines: ['duckdb', 'arrow'] }, async () => 'ran', { signal: ac.signal });
    ac.abort();
    await expect(b).rejects.toThrow(/cancelled before it started/);
    release();
    await a;
  });

  it('waits while another process holds the lock, saying whose proof it waits for', async () => {
    const d = join(dir, 'q3');
    const other = acquireProofLockOrRefuse(d, { id: 'cli-proof', startedAt: 'x', engines: ['arrow', 'duckdb'] });
    const q = new ProofQueue(d, 20);
    const seen: (string | null)[] = [];
    const p = q.run({ id: 'win', startedAt: 'x', engines: ['duckdb', 'arrow'] }, async () => 'done', { queued: (_pos, by) => seen.push(by?.id ?? null) });
    await new Promise((r) => setTimeout(r, 80));
    expect(seen).toContain('cli-proof');
    other.release();
    await expect(p).resolves.toBe('done');
  });
});

describe('the proof mode setting (generic / off / all)', () => {
  it('reads and writes settings.json, keeping other keys; refuses a bad mode in one line', () => {
    const d = join(dir, 's1');
    expect(readProofSettings(d)).toEqual({ mode: 'generic', dagsterUrl: null });
    writeProofSettings(d, { mode: 'all', dagsterUrl: 'http://127.0.0.1:3000/graphql' });
    expect(readProofSettings(d)).toEqual({ mode: 'all', dagsterUrl: 'http://127.0.0.1:3000/graphql' });
    const doc = JSON.parse(readFileSync(join(d, 'settings.json'), 'utf8'));
    writeFileSync(join(d, 'settings.json'), JSON.stringify({ ...doc, other: 1, proof: { mode: 'sometimes' } }));
    expect(() => readProofSettings(d)).toThrow(/the proof mode is "sometimes"; it must be one of generic, off, all/);
    expect(() => writeProofSettings(d, { mode: 'off', dagsterUrl: 'http://user:pw@host/graphql' })).toThrow(/must not hold credentials/);
    writeProofSettings(d, { mode: 'off', dagsterUrl: null });
    expect(JSON.parse(readFileSync(join(d, 'settings.json'), 'utf8')).other).toBe(1);
  });

  it('generic runs the default pair, off none, all every ordered pair', () => {
    expect(proofsForMode('generic', ['duckdb', 'arrow', 'polars'])).toEqual([['duckdb', 'arrow']]);
    expect(proofsForMode('off', ['duckdb', 'arrow'])).toEqual([]);
    expect(proofsForMode('all', ['duckdb', 'arrow'])).toEqual([['duckdb', 'duckdb'], ['duckdb', 'arrow'], ['arrow', 'duckdb'], ['arrow', 'arrow']]);
  });
});

describe('lakerec proof: one at a time, the mode, the record', () => {
  it('is refused with the running proof\'s id (exit 2) while one runs', async () => {
    const d = join(dir, 'c1');
    const held = acquireProofLockOrRefuse(d, { id: 'the-running-one', startedAt: '2026-12-01T10:00:00Z', engines: ['arrow', 'duckdb'] });
    const r = await cli(['proof', '--engines', 'duckdb,arrow'], d);
    held.release();
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^lakerec proof: usage: a proof is already running: the-running-one \(arrow -> duckdb/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it('--proofs off runs nothing and says so; settings.json mode off likewise; --proofs bad is exit 2', async () => {
    const d = join(dir, 'c2');
    const off = await cli(['proof', '--proofs', 'off'], d);
    expect(off.code).toBe(0);
    expect(off.err).toMatch(/no proof was run: the proof mode is off; --engines A,B runs one/);
    writeProofSettings(d, { mode: 'off', dagsterUrl: null });
    expect((await cli(['proof'], d)).err).toMatch(/the proof mode is off \(settings\.json in /);
    expect((await cli(['proof', '--proofs', 'sometimes'], d)).code).toBe(2);
  });

  it('generic (the default) runs the default pair; --json prints the record the run history keeps, under the proof\'s id', async () => {
    const d = join(dir, 'c3');
    const r = await cli(['proof', '--json'], d);
    const rec = JSON.parse(r.out) as { id: string; table: unknown; engines: string[]; checks: { name: string; status: string; evidence: string[] }[]; steps: { fingerprint: unknown }[] };
    expect(rec.engines).toEqual(['duckdb', 'arrow']);
    expect(rec.table).toEqual({ kind: 'generated', seed: 20261129, rows: 40 });
    expect(rec.checks).toHaveLength(12);
    expect(rec.checks.every((c) => typeof c.status === 'string' && Array.isArray(c.evidence))).toBe(true);
    expect(rec.steps.every((s) => s.fingerprint !== null)).toBe(true);
    expect(r.code).toBe(0);
    const stored = await getRun(d, rec.id);
    expect(stored?.summary).toEqual(rec);
    // The lock is gone when the proof ends.
    expect(existsSync(join(d, PROOF_LOCK_FILE))).toBe(false);
  }, 60_000);

  it('all runs every pair of the engines available here, one at a time, each recorded', async () => {
    const d = join(dir, 'c4');
    const r = await cli(['proof', '--proofs', 'all', '--json'], d);
    const recs = JSON.parse(r.out) as { id: string; engines: string[] }[];
    const names = [...new Set(recs.flatMap((x) => x.engines))];
    expect(recs).toHaveLength(names.length * names.length);
    expect(names).toEqual(expect.arrayContaining(['duckdb', 'arrow']));
    const runs = await listRuns(d, { kind: 'proof' });
    expect(new Set(runs.map((x) => x.id))).toEqual(new Set(recs.map((x) => x.id)));
  }, 180_000);
});
