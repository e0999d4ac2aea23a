// Schema history, partition health and compare-two-versions over real logs: one written by the
// Delta writer (appends, ADD COLUMNS, a partition overwrite, a delete), one hand-written with
// column mapping (a rename keeps the id and physical name) and type widening.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action, StructType } from '../../shared/delta';
import { partitionsAt } from '../../shared/views';
import { openDuck, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { run as runDiffCli } from '../cli/diff';
import { diffVersions } from './diff';
import { partitionHealth } from './partitions';
import { schemaAt, schemaHistory } from './schema-history';

let dir: string;
let root: string;
let mapped: string;
let duck: Duck;

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'qty', type: 'integer', nullable: true, metadata: { comment: 'units ordered' } },
    { name: 'dt', type: 'date', nullable: false, metadata: {} },
  ],
};
const gen = (lo: number, hi: number, dt: string) => `SELECT i::BIGINT AS id, (i % 5)::INTEGER AS qty, DATE '${dt}' AS dt FROM range(${lo}, ${hi}) t(i)`;

function commit(r: string, v: number, actions: Action[]): void {
  writeFileSync(join(r, '_delta_log', `${String(v).padStart(20, '0')}.json`), actions.map((a) => JSON.stringify(a)).join('\n') + '\n');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-wbhist-'));
  root = join(dir, 'orders');
  duck = await openDuck({ threads: 1 });
  let t = Date.UTC(2026, 0, 1);
  const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck, clock: () => (t += 60_000) });
  await w.append({ sql: `${gen(0, 30, '2026-01-01')} UNION ALL ${gen(30, 50, '2026-01-02')}` }); // v1
  await w.evolveSchema([{ name: 'channel', type: 'string', nullable: true, metadata: {} }]); // v2
  await w.append({ sql: `SELECT i::BIGINT AS id, 1::INTEGER AS qty, DATE '2026-01-03' AS dt, 'web' AS channel FROM range(50, 60) t(i)` }); // v3
  await w.deleteWhere("dt = DATE '2026-01-02'"); // v4: the partition emptied
  await w.append({ sql: `SELECT i::BIGINT AS id, 2::INTEGER AS qty, DATE '2026-01-01' AS dt, 'app' AS channel FROM range(0, 5) t(i)` }); // v5: keys 0..4 twice
  w.close();

  // Column mapping (name mode): a rename keeps the id and the physical name; then int -> long widening.
  mapped = join(dir, 'mapped');
  mkdirSync(join(mapped, '_delta_log'), { recursive: true });
  const f = (name: string, type: string, id: number, phys: string) => ({ name, type, nullable: true, metadata: { 'delta.columnMapping.id': id, 'delta.columnMapping.physicalName': phys } });
  const meta = (fields: object[]) => ({
    metaData: {
      id: 'm1', format: { provider: 'parquet', options: {} }, partitionColumns: [], createdTime: 0,
      configuration: { 'delta.columnMapping.mode': 'name', 'delta.columnMapping.maxColumnId': '3' },
      schemaString: JSON.stringify({ type: 'struct', fields }),
    },
  });
  const info = (op: string, ts: number) => ({ commitInfo: { timestamp: ts, operation: op, operationParameters: {} } });
  commit(mapped, 0, [info('CREATE TABLE', 1000), { protocol: { minReaderVersion: 2, minWriterVersion: 5 } }, meta([f('a', 'integer', 1, 'col-a1'), f('b', 'string', 2, 'col-b2')])]);
  commit(mapped, 1, [info('RENAME COLUMN', 2000), meta([f('alpha', 'integer', 1, 'col-a1'), f('b', 'string', 2, 'col-b2')])]);
  commit(mapped, 2, [info('CHANGE COLUMN', 3000), meta([f('alpha', 'long', 1, 'col-a1'), f('b', 'string', 2, 'col-b2')])]);
  commit(mapped, 3, [info('DROP COLUMNS', 4000), meta([f('alpha', 'long', 1, 'col-a1'), f('c', 'double', 3, 'col-c3')])]);
});

afterAll(() => {
  duck.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('schema at a version and schema history', () => {
  it('reads the columns of any version with their metadata', async () => {
    const v1 = await schemaAt(root, 1);
    expect(v1.fields.map((x) => [x.name, x.type, x.nullable, x.partition])).toEqual([['id', 'long', false, false], ['qty', 'integer', true, false], ['dt', 'date', false, true]]);
    expect(v1.fields[1].description).toBe('units ordered');
    const v3 = await schemaAt(root, 3);
    expect(v3.fields.map((x) => x.name)).toEqual(['id', 'qty', 'dt', 'channel']);
    const m = await schemaAt(mapped, 1);
    expect(m.columnMapping).toBe('name');
    expect(m.fields[0]).toMatchObject({ name: 'alpha', columnMappingId: 1, physicalName: 'col-a1' });
  });

  it('lists what each version added; a column-mapping rename is the same id, widening a retype', async () => {
    const h = await schemaHistory(root);
    expect(h.versions.map((v) => v.version)).toEqual([0, 2]);
    expect(h.versions[1].changes).toEqual([{ kind: 'added', column: 'channel', from: null, to: 'string' }]);
    expect(h.identity).toBe('name');
    const m = await schemaHistory(mapped);
    expect(m.identity).toBe('column_mapping');
    expect(m.versions.map((v) => [v.version, v.operation, v.changes.map((c) => `${c.kind}:${c.column}:${c.from}->${c.to}`)])).toEqual([
      [0, 'CREATE TABLE', ['added:a:null->integer', 'added:b:null->string']],
      [1, 'RENAME COLUMN', ['renamed:alpha:a->alpha']],
      [2, 'CHANGE COLUMN', ['retyped:alpha:integer->long']],
      [3, 'DROP COLUMNS', ['added:c:null->double', 'dropped:b:string->null']],
    ]);
  });
});

describe('partition health', () => {
  it('gives rows, files and bytes per partition at every version, from the log', async () => {
    const h = await partitionHealth(root, { smallFileBytes: 1 << 30 });
    expect(h.partitionColumns).toEqual(['dt']);
    expect(h.versions.map((v) => v.rows)).toEqual([0, 50, 50, 60, 40, 45]);
    const at4 = partitionsAt(h, 4);
    expect(at4.map((p) => [p.partition, p.rows])).toEqual([['dt=2026-01-01', 30], ['dt=2026-01-03', 10]]);
    const emptied = h.versions[4].partitions.find((p) => p.partition === 'dt=2026-01-02');
    expect(emptied).toMatchObject({ rows: 0, files: 0, bytes: 0 });
    expect(partitionsAt(h, 5).find((p) => p.partition === 'dt=2026-01-01')).toMatchObject({ rows: 35, files: 2 });
    // Every file is under 1 GiB; none under 1 byte.
    expect(h.versions[5].smallFiles).toBe(h.versions[5].files);
    expect((await partitionHealth(root, { smallFileBytes: 1 })).versions[5].smallFiles).toBe(0);
    const last = h.versions[5];
    expect(last.bytes).toBe(partitionsAt(h, 5).reduce((n, p) => n + p.bytes, 0));
  });
});

describe('compare two versions', () => {
  it('runs the reconcile engine with v1 as the source, and lists the commits between', async () => {
    const d = await diffVersions(root, { from: 3, to: 5, keys: ['id'] });
    expect(d.keys).toEqual(['id']);
    expect(d.commits.map((c) => [c.version, c.operation])).toEqual([[4, 'DELETE'], [5, 'WRITE']]);
    expect(d.commits[0].operationParameters.predicate).toContain('2026-01-02');
    expect(d.result.source.rows).toBe(60);
    expect(d.result.target.rows).toBe(45);
    expect(d.result.verdict).not.toBe('matches');
    const modes = d.result.findings.map((f) => f.mode);
    expect(modes.length).toBeGreaterThan(0);
    expect(d.result.exitCode).toBe(1);
  });

  it('the CLI prints the commits and what changed; without keys it refuses, naming --keys', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => err.push(s), cwd: dir, env: {} };
    await expect(runDiffCli(['orders', '--from', '1', '--to', '2'], io)).rejects.toThrow(/--keys/);
    const code = await runDiffCli(['orders', '--from', '1', '--to', '2', '--keys', 'id'], io);
    // The same rows, and v2 added a column: a diff says so, and two versions differing is no failure.
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/columns added: channel/);
    expect(out.join('\n')).toMatch(/rows: 0 inserted, 0 deleted, 0 changed, 0 moved \(version 1: 50 rows, version 2: 50 rows\)/);
    expect(out.join('\n')).toMatch(/1 commit in between/);
    expect(out.join('\n')).toMatch(/ADD COLUMNS/);
    expect(out.join('\n')).not.toMatch(/blocking|schema_drift|\[x\]/);
    // --check asks for a check: the versions differ (a column), so exit 1.
    expect(await runDiffCli(['orders', '--from', '1', '--to', '2', '--keys', 'id', '--check'], { ...io, out: () => {} })).toBe(1);
    const json: string[] = [];
    await runDiffCli(['orders', '--from', '3', '--to', '4', '--keys', 'id', '--json'], { ...io, out: (s) => json.push(s) });
    const parsed = JSON.parse(json.join('')) as { from: number; to: number; result: { verdict: string } };
    expect(parsed).toMatchObject({ from: 3, to: 4 });
    expect(parsed.result.verdict).not.toBe('matches');
  });
});

describe('compare a table with float columns', () => {
  it('compares floats exactly (tolerance 0): two versions of one table hold the same bits', async () => {
    const r = join(dir, 'floats');
    const w = await DeltaWriter.create(r, { schema: { type: 'struct', fields: [{ name: 'id', type: 'long', nullable: false, metadata: {} }, { name: 'x', type: 'double', nullable: true, metadata: {} }] }, duck });
    await w.append({ sql: 'SELECT i::BIGINT AS id, i / 3.0 AS x FROM range(10) t(i)' });
    await w.append({ sql: 'SELECT 10::BIGINT AS id, 0.1::DOUBLE AS x' });
    w.close();
    const d = await diffVersions(r, { from: 1, to: 2, keys: ['id'] });
    expect(d.result.source.rows).toBe(10);
    expect(d.result.target.rows).toBe(11);
    expect(d.result.findings.map((f) => f.mode)).toContain('extra_rows');
    // An ordinary append is an inserted row, never "extra_rows ... blocking"; exit 0 without --check.
    expect(d.changes).toMatchObject({ inserted: 1, deleted: 0, changed: 0, moved: 0, identical: false });
    const out: string[] = [];
    const io = { out: (s: string) => out.push(s), err: () => {}, cwd: dir, env: {} };
    expect(await runDiffCli(['floats', '--from', '1', '--to', '2', '--keys', 'id'], io)).toBe(0);
    expect(out.join('\n')).toMatch(/rows: 1 inserted, 0 deleted, 0 changed, 0 moved/);
    expect(out.join('\n')).toMatch(/e\.g\. inserted: id=10/);
    expect(out.join('\n')).not.toMatch(/extra_rows|blocking/);
    expect(await runDiffCli(['floats', '--from', '1', '--to', '1', '--keys', 'id', '--check'], io).catch((e: Error) => e.message)).toMatch(/both 1/);
    expect(await runDiffCli(['floats', '--from', '2', '--to', '1', '--keys', 'id', '--check'], io)).toBe(1);
  });
});
