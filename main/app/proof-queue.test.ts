// The window's proof faces: one proof at a time (a second is queued with its position, as
// progress), a CLI proof's lock makes the window's proof wait and say whose; the proof mode read
// and written through the API; the engine list says which engines run here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHandlers } from '../../shared/api';
import type { Progress } from '../../shared/jobs';
import { acquireProofLockOrRefuse } from '../proof/one-at-a-time';
import { readProofSettings } from '../proof/settings';
import { createService } from './service';

let dir: string;
let service: ApiHandlers;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-proof-queue-'));
  service = createService({ mode: 'web', userDataDir: join(dir, 'userdata'), cwd: dir });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('proofs in the window', () => {
  it('a second proof started while one runs is queued, its position shown, and runs after', async () => {
    const first: Progress[] = [];
    const second: Progress[] = [];
    const p1 = service.runProof({ engines: ['duckdb', 'arrow'] }, { progress: (p) => first.push(p) });
    const p2 = service.runProof({ engines: ['arrow', 'duckdb'] }, { progress: (p) => second.push(p) });
    const [r1, r2] = await Promise.all([p1, p2]);
    expect(second[0].phase).toBe('Queued: position 1 (one proof runs at a time)');
    // The second started only after the first ended.
    expect(Date.parse(r2.result.startedAt)).toBeGreaterThanOrEqual(Date.parse(r1.result.finishedAt));
    expect(first.some((p) => p.phase.startsWith('Queued'))).toBe(false);
    expect(r2.runId).toBe(r2.result.id);
  }, 120_000);

  it('a CLI proof holding the lock makes the window\'s proof wait, naming it', async () => {
    const runs = join(dir, 'userdata');
    const cli = acquireProofLockOrRefuse(runs, { id: 'cli-proof-id', startedAt: new Date().toISOString(), engines: ['duckdb', 'duckdb'] });
    const seen: Progress[] = [];
    const p = service.runProof({ engines: ['duckdb', 'arrow'] }, { progress: (x) => seen.push(x) });
    await new Promise((r) => setTimeout(r, 600));
    expect(seen.some((x) => /^Queued: waiting for proof cli-proof-id \(duckdb → duckdb, another lakerec process\)/.test(x.phase))).toBe(true);
    expect(seen.some((x) => x.phase.startsWith('Generate'))).toBe(false);
    cli.release();
    const r = await p;
    expect(r.result.steps.every((s) => s.status === 'done')).toBe(true);
  }, 120_000);

  it('reads and sets the proof mode (kept in settings.json beside the run history)', async () => {
    const s0 = await service.proofSettings({}, {});
    expect(s0.settings).toEqual({ mode: 'generic', dagsterUrl: null });
    expect(s0.file).toBe(join(dir, 'userdata', 'settings.json'));
    expect((await service.setProofMode({ mode: 'all' }, {})).settings.mode).toBe('all');
    expect(readProofSettings(join(dir, 'userdata')).mode).toBe('all');
  });

  it('lists polars among the engines, with whether each runs here', async () => {
    const { engines } = await service.proofEngines({}, {});
    expect(engines.map((e) => e.name)).toEqual(expect.arrayContaining(['duckdb', 'arrow', 'polars', 'py-deltalake', 'spark']));
    expect(engines.find((e) => e.name === 'duckdb')).toMatchObject({ available: true, reason: null });
    const spark = engines.find((e) => e.name === 'spark')!;
    if (!spark.available) expect(spark.reason).toMatch(/^the spark engine .* is not available here: missing /);
  });
});
