// `lakerec contract init` writes the template the window proposes (one template), and under a
// minimal contract the schema finding names the key that decides a naive-vs-zoned timestamp.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StructType } from '../../shared/delta';
import { createScreenHandlers } from '../app/screens';
import { DeltaWriter } from '../writer';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { runCli } from './main';

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'order_id', type: 'long', nullable: false, metadata: {} },
    { name: 'ts', type: 'timestamp', nullable: true, metadata: {} },
    { name: 'dt', type: 'date', nullable: true, metadata: {} },
  ],
};
const rows = `SELECT i::BIGINT AS order_id, TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_hours(i) AS ts, DATE '2026-08-10' + (i // 24)::INTEGER AS dt FROM range(0, 48) r(i)`;

let dir: string;
let duck: Duck;
let lake: string;
let table: string;
let source: string;

const cli = async (...argv: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s), cwd: lake, env: {} });
  return { code, out: out.join(''), err: err.join('') };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-contract-init-'));
  duck = await openDuck({ threads: 1 });
  lake = join(dir, 'orders');
  mkdirSync(lake);
  table = join(lake, 'table');
  const w = await DeltaWriter.create(table, { schema, partitionColumns: ['dt'], duck });
  try { await w.append({ sql: rows }); } finally { w.close(); }
  // The source's timestamps are naive (UTC wall clock), as a CSV export's are.
  source = join(lake, 'orders.parquet');
  await duck.conn.run(`COPY (SELECT * REPLACE (CAST(ts AT TIME ZONE 'UTC' AS TIMESTAMP) AS ts) FROM (${rows})) TO ${sqlString(source)} (FORMAT parquet)`);
});

afterAll(() => {
  duck?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('lakerec contract init', () => {
  it('prints and writes the template the window proposes; never into the table, never over a file', async () => {
    const window = await createScreenHandlers({ runsDir: join(dir, 'runs'), cwd: lake, toolVersion: '0.1.0' }).defaultContract({ path: table }, {});
    expect(window.origin).toBe('template');
    const printed = await cli('contract', 'init', 'orders.parquet', 'table');
    expect(printed.code).toBe(0);
    expect(printed.out).toBe(window.text);
    expect(printed.out).toContain('naive_is_utc: true');
    const wrote = await cli('contract', 'init', 'orders.parquet', 'table', '--out', 'contract.yaml');
    expect(wrote.code).toBe(0);
    expect(readFileSync(join(lake, 'contract.yaml'), 'utf8')).toBe(window.text);
    expect((await cli('contract', 'init', 'orders.parquet', 'table', '--out', 'contract.yaml')).code).toBe(2);
    expect((await cli('contract', 'init', 'orders.parquet', 'table', '--out', 'table/contract.yaml')).code).toBe(2);
    expect(existsSync(join(table, 'contract.yaml'))).toBe(false);
    expect((await cli('contract', 'init', 'nope.parquet', 'table')).code).toBe(3);
    expect((await cli('contract', 'bogus')).code).toBe(2);

    // The template's verdict on this lake, and the minimal contract's, naming the key that decides it.
    const ok = await cli('reconcile', 'orders.parquet', 'table', '--contract', 'contract.yaml', '--level', 'rows');
    expect(ok.out).toMatch(/^verdict: matches/);
    rmSync(join(lake, 'contract.yaml'));
    const minimal = join(dir, 'minimal.yaml');
    writeFileSync(minimal, 'version: 1\nkeys: [order_id]\n');
    const strict = await cli('reconcile', 'orders.parquet', 'table', '--contract', minimal, '--level', 'schema', '--json');
    const r = JSON.parse(strict.out) as { verdict: string; findings: { mode: string; summary: string; evidence: { notes: string[] } }[] };
    expect(r.verdict).toBe('diverges');
    const drift = r.findings.find((f) => f.mode === 'schema_drift')!;
    expect(drift.summary).toMatch(/ts is TIMESTAMP in the source and TIMESTAMP WITH TIME ZONE in the target \(the contract's timestamps\.naive_is_utc is false\)/);
    expect(drift.evidence.notes.join('\n')).toMatch(/decided by the contract key timestamps\.naive_is_utc/);
  }, 60_000);
});
