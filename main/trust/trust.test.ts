// Trust in the checks on real tables built with the writer: the mutation score (a contract without
// partitioning misses the partition modes and the checked suggestion names them; the user's table
// is byte-for-byte unchanged and the sandbox is gone, also on cancel), keys with the file and commit
// of a repeat, a dangling relationship value (masked when confidential), a conservation law broken
// on one day, a table with no partitions and a composite key, and the CLI's bad-input exits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer/writer';
import { parseContract } from '../reconcile/contract';
import { runCli } from '../cli/main';
import { runMutation } from './mutate';
import { verifyKeys } from './keys';
import { checkLaws } from './laws';
import { lockTable, SANDBOX_PREFIX } from './sandbox';
import { listRuns } from '../runs/store';

const f = (name: string, type: string, nullable = true): StructType['fields'][number] => ({ name, type, nullable, metadata: {} });
const DAYS = ['2026-05-01', '2026-05-02', '2026-05-03'];
// An events table unlike the orders table: string key, integer revision, a timestamp the day comes from.
const events = (d: string, k: number) => `SELECT 'e' || ${k} || '-' || i AS event_id, CAST(i % 7 AS BIGINT) AS account_id,
  CAST(i * 3 + ${k} AS BIGINT) AS qty, CAST(i AS DOUBLE) / 4 AS score, ['Zoë', 'Crème', 'plain'][1 + i % 3] AS label,
  CAST(TIMESTAMP '${d} 00:00:00' + INTERVAL (i * 1700 + 11) SECOND AS TIMESTAMPTZ) AS "at", CAST(i AS BIGINT) AS rev, DATE '${d}' AS day
  FROM range(40) t(i)`;
const eventsSchema: StructType = { type: 'struct', fields: [f('event_id', 'string', false), f('account_id', 'long'), f('qty', 'long'), f('score', 'double'), f('label', 'string'), f('at', 'timestamp'), f('rev', 'long'), f('day', 'date')] };

let dir: string;
let duck: Duck;
const p = (...x: string[]) => join(dir, ...x);

function hashTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out[full.slice(root.length)] = createHash('sha256').update(readFileSync(full)).digest('hex') + ':' + statSync(full).mtimeMs;
    }
  };
  walk(root);
  return out;
}
// This process's sandboxes (their names hold the pid): another test file's run may make its own meanwhile.
const sandboxes = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`${SANDBOX_PREFIX}${process.pid}-`));

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd: dir, env: { LAKEREC_DATA_DIR: p('data') } });
  return { code, out, err };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-trust-'));
  duck = await openDuck({ threads: 2 });
  const w = await DeltaWriter.create(p('events'), { schema: eventsSchema, partitionColumns: ['day'], duck });
  for (const [k, d] of DAYS.entries()) await w.append({ sql: events(d, k) });
  w.close();
  await duck.conn.run(`COPY (${DAYS.map((d, k) => events(d, k)).join(' UNION ALL ')}) TO '${p('events.parquet')}' (FORMAT parquet)`);
  writeFileSync(p('nopart.yaml'), 'version: 1\nname: events\nkeys: [event_id]\ncolumns:\n  score: { float: { tolerance: 1.0e-9 } }\nordering: rev\n');
  writeFileSync(p('full.yaml'), `version: 1\nname: events\nkeys: [event_id]\npartitioning:\n  column: day\n  expression: 'date(\"at\" AT TIME ZONE ''UTC'')'\ncolumns:\n  score: { float: { tolerance: 1.0e-9 } }\nordering: rev\n`);

  // No partitions, a composite key (region, seq), a confidential customer reference.
  const flat = await DeltaWriter.create(p('flat'), {
    schema: { type: 'struct', fields: [f('region', 'string', false), f('seq', 'integer', false), f('customer_id', 'long'), f('amount', 'decimal(10,2)'), f('sold_on', 'date')] }, duck,
  });
  const flatRows = `SELECT ['north', 'south'][1 + i % 2] AS region, CAST(i // 2 AS INTEGER) AS seq, CAST(100 + i % 5 AS BIGINT) AS customer_id,
    CAST(i * 1.25 AS DECIMAL(10,2)) AS amount, DATE '2026-06-01' + CAST(i % 3 AS INTEGER) AS sold_on FROM range(30) t(i)`;
  await flat.append({ sql: flatRows });
  // One more row referring to a customer that does not exist (a dangling value), and one repeat of (north, 0) in its own file.
  await flat.append({ sql: `SELECT 'north' AS region, CAST(900 AS INTEGER) AS seq, CAST(999 AS BIGINT) AS customer_id, CAST(1.00 AS DECIMAL(10,2)) AS amount, DATE '2026-06-02' AS sold_on` });
  flat.close();
  await duck.conn.run(`COPY (${flatRows} UNION ALL SELECT 'north', 900, 999, 1.00, DATE '2026-06-02') TO '${p('flat.parquet')}' (FORMAT parquet)`);
  await duck.conn.run(`COPY (SELECT CAST(100 + i AS BIGINT) AS id, 'c' || i AS name FROM range(5) t(i)) TO '${p('customers.parquet')}' (FORMAT parquet)`);
  writeFileSync(p('flat.yaml'), 'version: 1\nname: sales\nkeys: [region, seq]\nrelationships:\n  - column: customer_id\n    references: { path: customers.parquet, column: id }\nlaws:\n  day: sold_on\n  measures: [amount]\n');
}, 120_000);

afterAll(() => {
  duck?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mutation score', () => {
  it('a contract with no partitioning misses the partition modes; the checked suggestion names them; the table is untouched and the sandbox gone', async () => {
    const before = hashTree(p('events'));
    const sandboxesBefore = sandboxes();
    const only = ['partition_wipe', 'timezone_partition_shift', 'double_load'];
    const r = await runMutation({ source: p('events.parquet'), table: p('events'), contract: p('nopart.yaml'), only, levels: ['schema', 'counts', 'checksum', 'keys'] });
    expect(hashTree(p('events'))).toEqual(before);
    // No sandbox of this run is left (another process's may come and go meanwhile).
    expect(sandboxes().filter((d) => !sandboxesBefore.includes(d))).toEqual([]);
    expect(r.sandbox).toMatchObject({ filesReferenced: 3, removed: true });
    expect(existsSync(r.sandbox.dir)).toBe(false);
    const byName = Object.fromEntries(r.mutants.map((m) => [m.corruption, m]));
    for (const m of ['partition_wipe', 'timezone_partition_shift']) {
      expect(byName[m].status, m).toBe('run');
      expect(byName[m].firstNames, m).toBeNull();
      const s = byName[m].suggestions.find((x) => x.change.startsWith('add partitioning'));
      expect(s?.yaml, m).toContain('column: day');
      expect(s?.checked?.names, m).toBe(true);
    }
    expect(byName.double_load.firstNames).not.toBeNull();
    expect(r.overall.namedScore).toBeCloseTo(1 / 3);
    // Apply the suggestion: both are named now.
    const suggested = byName.timezone_partition_shift.suggestions[0].yaml;
    writeFileSync(p('suggested.yaml'), readFileSync(p('nopart.yaml'), 'utf8') + suggested + '\n');
    const again = await runMutation({ source: p('events.parquet'), table: p('events'), contract: p('suggested.yaml'), only, levels: ['schema', 'counts', 'checksum', 'keys'] });
    expect(again.mutants.map((m) => [m.corruption, m.firstNames !== null])).toEqual(['double_load', 'partition_wipe', 'timezone_partition_shift'].map((m) => [m, true]));
    expect(again.overall.namedScore).toBe(1);
  }, 120_000);

  it('is repeatable with a seed; cancel leaves nothing behind and frees the table', async () => {
    const a = await runMutation({ source: p('events.parquet'), table: p('events'), contract: p('full.yaml'), only: ['missing_rows'], levels: ['counts'], seed: 5 });
    const b = await runMutation({ source: p('events.parquet'), table: p('events'), contract: p('full.yaml'), only: ['missing_rows'], levels: ['counts'], seed: 5 });
    expect(a.mutants[0].note).toBe(b.mutants[0].note);
    expect(a.mutants[0].rows).toBeGreaterThan(0);
    const before = sandboxes();
    const ac = new AbortController();
    const run = runMutation({ source: p('events.parquet'), table: p('events'), contract: p('full.yaml'), levels: ['counts'], ctx: { signal: ac.signal }, onMutant: () => ac.abort() });
    await expect(run).rejects.toMatchObject({ code: 'cancelled' });
    expect(sandboxes().filter((d) => !before.includes(d))).toEqual([]);
    // The lock is released: the next run starts.
    const c = await runMutation({ source: p('events.parquet'), table: p('events'), contract: p('full.yaml'), only: ['extra_rows'], levels: ['counts'] });
    expect(c.mutants[0].firstNames).toBe('counts');
  }, 120_000);

  it('carries the user\'s deletion vectors into the sandbox: the unmutated sandbox still matches the source', async () => {
    const w = await DeltaWriter.create(p('dv'), { schema: eventsSchema, partitionColumns: ['day'], duck, configuration: { 'delta.enableDeletionVectors': 'true' } });
    for (const [k, d] of DAYS.entries()) await w.append({ sql: events(d, k) });
    await w.deleteWhere('account_id = 3');
    w.close();
    expect(readdirSync(p('dv')).some((n) => n.startsWith('deletion_vector_'))).toBe(true);
    await duck.conn.run(`COPY (SELECT * FROM (${DAYS.map((d, k) => events(d, k)).join(' UNION ALL ')}) WHERE account_id <> 3) TO '${p('dv.parquet')}' (FORMAT parquet)`);
    const before = hashTree(p('dv'));
    const r = await runMutation({ source: p('dv.parquet'), table: p('dv'), contract: p('full.yaml'), only: ['missing_rows', 'double_load'], levels: ['counts', 'checksum'] });
    expect(r.baseline.map((b) => b.verdict)).toEqual(['matches', 'matches']);
    // The DELETE lands as a new DV on the user's file (re-added in the sandbox): named from the log.
    // The retried batch repeats rows, not the original file's stats (it has a DV): named from the data.
    expect(r.mutants.map((m) => [m.corruption, m.firstNotices, m.firstNames])).toEqual([['double_load', 'counts', 'checksum'], ['missing_rows', 'counts', 'counts']]);
    expect(hashTree(p('dv'))).toEqual(before);
  }, 60_000);

  it('a table with no partitions and a composite key: partition modes not applicable, with the reason', async () => {
    const r = await runMutation({ source: p('flat.parquet'), table: p('flat'), contract: p('flat.yaml'), only: ['partition_wipe', 'timezone_partition_shift', 'extra_rows', 'missing_rows'], levels: ['counts', 'keys'] });
    const byName = Object.fromEntries(r.mutants.map((m) => [m.corruption, m]));
    expect(byName.partition_wipe).toMatchObject({ status: 'not_applicable', note: expect.stringMatching(/not partitioned/) });
    expect(byName.timezone_partition_shift.status).toBe('not_applicable');
    expect(byName.missing_rows.firstNotices).toBe('counts');
    expect(r.overall.notApplicable).toBe(2);
  }, 120_000);
});

describe('keys and relationships', () => {
  it('a composite key repeating in one file is reported with that file and its commit; the dangling customer is named', async () => {
    // Append a repeat of (north, 0) in its own commit.
    const w = await DeltaWriter.open(p('flat'), { duck });
    const v = (await w.append({ sql: `SELECT 'north' AS region, CAST(0 AS INTEGER) AS seq, CAST(100 AS BIGINT) AS customer_id, CAST(0 AS DECIMAL(10,2)) AS amount, DATE '2026-06-01' AS sold_on` })).version;
    w.close();
    const r = await verifyKeys({ table: p('flat'), contract: p('flat.yaml'), source: p('flat.parquet'), cwd: dir });
    const t = r.keys.find((k) => k.side === 'table')!;
    expect(t).toMatchObject({ status: 'failed', repeatedKeys: 1, extraRows: 1, nullRows: 0 });
    expect(t.examples[0].key).toBe('region=north, seq=0');
    const where = t.examples[0].where;
    expect(where).toHaveLength(2);
    expect(where.map((x) => x.commit?.version).sort()).toEqual([1, v]);
    expect(where.find((x) => x.commit?.version === v)?.commit?.operation).toBe('WRITE');
    expect(r.keys.find((k) => k.side === 'source')?.status).toBe('confirmed');
    const rel = r.relationships[0];
    expect(rel).toMatchObject({ status: 'failed', danglingValues: 1, danglingRows: 1, examples: ['999'], observed: 'many_to_one', referencedKey: { status: 'confirmed' } });
    // A key repeated inside one file (a batch with the row twice): that file, both rows, its commit.
    const w2 = await DeltaWriter.open(p('flat'), { duck });
    const v2 = (await w2.append({ sql: `SELECT 'south' AS region, CAST(777 AS INTEGER) AS seq, CAST(101 AS BIGINT) AS customer_id, CAST(2 AS DECIMAL(10,2)) AS amount, DATE '2026-06-03' AS sold_on FROM range(2)` })).version;
    w2.close();
    const one = await verifyKeys({ table: p('flat'), contract: p('flat.yaml'), cwd: dir });
    const same = one.keys[0].examples.find((e) => e.key === 'region=south, seq=777')!;
    expect(same.rows).toBe(2);
    expect(new Set(same.where.map((x) => x.file)).size).toBe(1);
    expect(same.where.map((x) => x.row)).toEqual([0, 1]);
    expect(same.where.every((x) => x.commit?.version === v2 && x.commit.operation === 'WRITE')).toBe(true);
    // A relationship to a Delta table is checked the same way.
    const cw = await DeltaWriter.create(p('customers-delta'), { schema: { type: 'struct', fields: [f('id', 'long'), f('name', 'string')] }, duck });
    await cw.append({ sql: `SELECT CAST(100 + i AS BIGINT) AS id, 'c' || i AS name FROM range(5) t(i)` });
    cw.close();
    writeFileSync(p('flat-delta.yaml'), 'version: 1\nname: sales\nkeys: [region, seq]\nrelationships:\n  - column: customer_id\n    references: { path: customers-delta, column: id }\n');
    const viaDelta = await verifyKeys({ table: p('flat'), contract: p('flat-delta.yaml'), cwd: dir });
    expect(viaDelta.relationships[0]).toMatchObject({ status: 'failed', danglingValues: 1, examples: ['999'], referencedKey: { status: 'confirmed', rows: 5 } });
    // Masked when the column is confidential.
    writeFileSync(p('flat-conf.yaml'), readFileSync(p('flat.yaml'), 'utf8') + 'tags:\n  customer_id: { sensitivity: confidential }\n');
    const m = await verifyKeys({ table: p('flat'), contract: p('flat-conf.yaml'), cwd: dir });
    expect(m.relationships[0].examples).toEqual(['(masked: confidential)']);
    // The value appears nowhere as a value (a commit timestamp may hold the digits 999 by chance).
    expect(JSON.stringify(m)).not.toMatch(/(?<![\d.])999(?![\d.])/);
  }, 60_000);

  it('infers candidate keys when there is no contract: a single column, and a pair when no column alone is unique', async () => {
    const r = await verifyKeys({ table: p('events') });
    expect(r.candidates?.map((c) => c.columns.join('+'))).toContain('event_id');
    const pair = await DeltaWriter.create(p('pairs'), { schema: { type: 'struct', fields: [f('a', 'integer'), f('b', 'integer'), f('v', 'double')] }, duck });
    await pair.append({ sql: 'SELECT CAST(i // 4 AS INTEGER) AS a, CAST(i % 4 AS INTEGER) AS b, CAST(1 AS DOUBLE) AS v FROM range(40) t(i)' });
    pair.close();
    const q = await verifyKeys({ table: p('pairs') });
    expect(q.candidates?.map((c) => c.columns.join('+'))).toEqual(['a+b']);
  }, 60_000);
});

describe('data laws', () => {
  it('a conservation law broken on one day names that day and by how much', async () => {
    const ok = await checkLaws({ source: p('events.parquet'), table: p('events'), contract: p('full.yaml'), cwd: dir });
    expect(ok.summary.broken).toBe(0);
    expect(ok.laws.map((l) => l.law)).toEqual(['row count per day', 'sum(qty) per day', 'sum(score) per day']);
    expect(ok.laws.filter((l) => l.measure).every((l) => l.proposed)).toBe(true);
    // One day's qty changed on one row (an UPDATE): the count holds, the sum breaks on that day only.
    await duck.conn.run(`COPY (SELECT * REPLACE (CASE WHEN event_id = 'e1-3' THEN qty + 7 ELSE qty END AS qty) FROM (${DAYS.map((d, k) => events(d, k)).join(' UNION ALL ')})) TO '${p('events-bad.parquet')}' (FORMAT parquet)`);
    const bad = await checkLaws({ source: p('events-bad.parquet'), table: p('events'), contract: p('full.yaml'), cwd: dir });
    const qty = bad.laws.find((l) => l.measure === 'qty')!;
    expect(qty).toMatchObject({ holds: false, failedDays: 1 });
    expect(qty.failures).toEqual([{ day: '2026-05-02', source: expect.any(String), target: expect.any(String), difference: '-7' }]);
    expect(bad.laws.find((l) => l.kind === 'row_count')?.holds).toBe(true);
  }, 60_000);

  it('a table with no partitions: laws per the contract\'s day column', async () => {
    const r = await checkLaws({ source: p('flat.parquet'), table: p('flat'), contract: p('flat.yaml'), cwd: dir });
    expect(r.day.column).toBe('sold_on');
    expect(r.laws.map((l) => l.law)).toEqual(['row count per sold_on', 'sum(amount) per sold_on']);
    expect(r.laws[0].proposed).toBe(false);
  }, 60_000);
});

describe('contract fields and bad input', () => {
  it('relationships and laws are validated with their line', () => {
    expect(() => parseContract('version: 1\nkeys: [a]\nrelationships:\n  - column: c\n    references: { table: x, column: id }\n', 'c.yaml')).toThrow(/c\.yaml:5: .*unknown field "table"/);
    expect(() => parseContract('version: 1\nkeys: [a]\nlaws:\n  measures: [m]\n  tolerance: -1\n', 'c.yaml')).toThrow(/c\.yaml:5:/);
    const c = parseContract('version: 1\nkeys: [a]\nrelationships:\n  - column: c\n    references: { path: x, column: id }\n    cardinality: one_to_one\nlaws: { day: d }\n');
    expect(c.relationships).toEqual([{ column: 'c', references: { path: 'x', column: 'id' }, cardinality: 'one_to_one' }]);
    expect(c.laws).toEqual({ day: 'd', measures: null, tolerance: null });
  });

  it('the CLI run: JSON and an HTML report, kept in the run history; one run at a time per table', async () => {
    const r = await cli(['mutate', 'events.parquet', 'events', '--contract', 'full.yaml', '--only', 'extra_rows,missing_rows', '--levels', 'counts', '--json', '--html', 'out/mutation.html']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { mutants: { corruption: string; firstNames: string | null }[]; perLevel: { level: string; score: number }[] };
    expect(j.mutants.map((m) => [m.corruption, m.firstNames])).toEqual([['missing_rows', 'counts'], ['extra_rows', 'counts']]);
    expect(j.perLevel.map((l) => l.level)).toEqual(['schema', 'counts']);
    expect(r.err).toMatch(/\[1\/2\] missing_rows: named at counts/);
    expect(readFileSync(p('out', 'mutation.html'), 'utf8')).toMatch(/Mutation score/);
    const runs = await listRuns(p('data'), { kind: 'mutate' });
    expect(runs.length).toBeGreaterThan(0);
    expect(runs[0].title).toContain('events');
    const release = lockTable(p('events'));
    try {
      const busy = await cli(['mutate', 'events.parquet', 'events', '--contract', 'full.yaml', '--only', 'extra_rows', '--levels', 'counts']);
      expect(busy.code).toBe(2);
      expect(busy.err).toMatch(/already in progress/);
    } finally {
      release();
    }
  }, 60_000);

  it('exit 3 on a table that cannot be read, exit 2 on a contract with no key, one line each', async () => {
    const missing = await cli(['mutate', 'events.parquet', 'nope', '--contract', 'full.yaml']);
    expect(missing.code).toBe(3);
    expect(missing.err.trim().split('\n')).toHaveLength(1);
    writeFileSync(p('nokeys.yaml'), 'version: 1\nname: x\n');
    const nokey = await cli(['mutate', 'events.parquet', 'events', '--contract', 'nokeys.yaml']);
    expect(nokey.code).toBe(2);
    expect(nokey.err).toMatch(/keys/);
    expect(nokey.err.trim().split('\n')).toHaveLength(1);
    const keys = await cli(['keys', 'nope']);
    expect(keys.code).toBe(3);
    const laws = await cli(['laws', 'missing.parquet', 'events', '--contract', 'full.yaml']);
    expect(laws.code).toBe(3);
    expect(laws.err.trim().split('\n')).toHaveLength(1);
  }, 60_000);
});
