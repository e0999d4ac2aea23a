// The job ceiling in the window's and web mode's engine, for real (the built engine-worker.js,
// forked): memory outside the V8 heap past the resident-memory ceiling, the issue's
// `repeat(s, 2000000000)` filter, a grid query DuckDB cannot interrupt and a filter that grows
// strings beyond what the check can bound: each job fails with one clear line, fast, and the
// next call is answered.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResult } from '../../shared/api';
import { writeDemoTable } from './demo-table';
import { EngineHost, forkSpawner } from './engine-host';

const entry = resolve(__dirname, '..', '..', 'dist', 'main', 'engine-worker.js');
let dir: string;
let table: string;
const hosts: EngineHost[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-engine-ceiling-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
}, 60_000);

afterAll(() => {
  for (const h of hosts) h.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function host(extra: { rssCeilingMb?: number; interactiveLimitMs?: number } = {}): EngineHost {
  const h = new EngineHost({
    spawn: forkSpawner(entry, { mode: 'web', userDataDir: join(dir, 'userdata'), testFaults: true, ...(extra.rssCeilingMb ? { rssCeilingMb: extra.rssCeilingMb } : {}) }, 256),
    memoryMb: 256, cancelGraceMs: 400, ...(extra.interactiveLimitMs ? { interactiveLimitMs: extra.interactiveLimitMs } : {}),
  });
  hosts.push(h);
  return h;
}

const call = (h: EngineHost, method: string, request: unknown) => h.call(method, request, { jobId: `j-${Math.random().toString(36).slice(2)}` }) as Promise<ApiResult<{ rows?: unknown[] }>>;

async function timed<T>(p: Promise<T>): Promise<{ r: T; ms: number }> {
  const t0 = Date.now();
  const r = await p;
  return { r, ms: Date.now() - t0 };
}

describe('the engine job ceiling', () => {
  it('memory outside the heap past the ceiling: the job fails with one line naming the ceiling; the next call is answered', async () => {
    const h = host({ rssCeilingMb: 400 });
    expect((await call(h, 'listVersions', { path: table })).ok).toBe(true);
    const { r, ms } = await timed(call(h, 'listVersions', { path: '/lakerec-test-fault/rss' }));
    expect(r).toMatchObject({ ok: false, error: { code: 'limit_exceeded' } });
    if (!r.ok) {
      expect(r.error.message).toMatch(/^The job used \d+ MiB of memory, over the engine's ceiling of 400 MiB \(LAKEREC_ENGINE_RSS_MB\), and was ended\./);
      expect(r.error.message).not.toMatch(/\n/);
    }
    expect(ms).toBeLessThan(20_000);
    expect((await call(h, 'listVersions', { path: table })).ok).toBe(true);
  }, 60_000);

  it("the issue's filter, length(repeat(s, 2000000000)) > 0, is refused at once; the grid keeps working", async () => {
    const h = host();
    const { r, ms } = await timed(call(h, 'rows', { path: table, where: 'length(repeat(customer, 2000000000)) > 0' }));
    expect(r).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/^The filter may not make an unbounded string: repeat\(\)/) } });
    expect(ms).toBeLessThan(10_000);
    const next = await call(h, 'rows', { path: table, limit: 3 });
    expect(next.ok && next.value.rows?.length).toBe(3);
  }, 60_000);

  it('a grid query DuckDB cannot interrupt is ended at its time limit with one line; the grid keeps working', async () => {
    const h = host({ interactiveLimitMs: 5000 });
    expect((await call(h, 'rows', { path: table, limit: 1 })).ok).toBe(true);
    // 10^8 steps a row inside one vector of rows: no interrupt is seen before it ends.
    const { r, ms } = await timed(call(h, 'rows', { path: table, where: "levenshtein(lpad(customer, 10000, 'x'), rpad(customer, 10000, 'y')) >= 0" }));
    expect(r).toMatchObject({ ok: false, error: { code: 'limit_exceeded', message: expect.stringMatching(/^The query ran past its time limit of 5 s and could not be interrupted/) } });
    expect(ms).toBeLessThan(15_000);
    const next = await call(h, 'rows', { path: table, limit: 3 });
    expect(next.ok && next.value.rows?.length).toBe(3);
  }, 60_000);

  it('a filter whose strings grow past what the check can bound fails cleanly under the ceiling; the grid keeps working', async () => {
    const h = host({ rssCeilingMb: 800, interactiveLimitMs: 20_000 });
    const big = 'x'.repeat(1000);
    const { r, ms } = await timed(call(h, 'rows', { path: table, where: `length(regexp_replace(regexp_replace(regexp_replace(customer, '.', '${big}', 'g'), '.', '${big}', 'g'), '.', '${big}', 'g')) > 0` }));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(['limit_exceeded', 'usage']).toContain(r.error.code);
      expect(r.error.message).not.toMatch(/\n/);
    }
    // (about 20 s on this shared 2-core machine: the strings grow by a few hundred MB a second)
    expect(ms).toBeLessThan(45_000);
    const next = await call(h, 'rows', { path: table, limit: 3 });
    expect(next.ok && next.value.rows?.length).toBe(3);
  }, 90_000);
});
