// The Data tab's engine: a page of a version's rows over a real table (DVs applied, partition
// columns, masking), and the WHERE box refusing everything that is not one expression over the
// snapshot's columns: a filter must never be a way to read another file.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { META_SENSITIVITY } from '../../shared/sensitivity';
import { openDuck, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { checkWhere } from './where';
import { lockToFolder, RowsService } from './rows';

let dir: string;
let root: string;
let duck: Duck;
const rows = new RowsService();

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'name', type: 'string', nullable: true, metadata: {} },
    { name: 'email', type: 'string', nullable: true, metadata: { [META_SENSITIVITY]: 'confidential' } },
    { name: 'dt', type: 'date', nullable: false, metadata: {} },
  ],
};

const gen = (lo: number, hi: number, dt: string) =>
  `SELECT i::BIGINT AS id, 'n' || (i % 7) AS name, 'u' || i || '@x.org' AS email, DATE '${dt}' AS dt FROM range(${lo}, ${hi}) t(i)`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-rows-'));
  root = join(dir, 'people');
  duck = await openDuck({ threads: 1 });
  const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck, configuration: { 'delta.enableDeletionVectors': 'true' } });
  await w.append({ sql: `${gen(0, 30, '2026-01-01')} UNION ALL ${gen(30, 50, '2026-01-02')}` }); // v1
  await w.deleteWhere('id % 10 = 0'); // v2: a DV on both files
  await w.append({ sql: gen(50, 55, '2026-01-03') }); // v3
  writeFileSync(join(dir, 'secret.csv'), 'a,b\nTOPSECRET,1\n');
});

afterAll(() => {
  rows.close();
  duck.close();
  rmSync(dir, { recursive: true, force: true });
});

async function refused(text: string): Promise<string> {
  try {
    await checkWhere(duck.conn, text, 'v', { names: ['id', 'name', 'email', 'dt'], forbidden: new Set(['email']) });
  } catch (e) {
    expect(e).toBeInstanceOf(LakerecError);
    expect((e as LakerecError).code).toBe('usage');
    return (e as LakerecError).message;
  }
  throw new Error(`accepted: ${text}`);
}

describe('the WHERE box', () => {
  it('accepts one expression over the columns with scalar functions, and renders it itself', async () => {
    const c = await checkWhere(duck.conn, "lower(name) LIKE 'n%' AND id BETWEEN 3 AND 9 OR dt = DATE '2026-01-02' AND id IN (1, 2) AND name IS NOT NULL", 'v', { names: ['id', 'name', 'dt'] });
    expect(c.columns.sort()).toEqual(['dt', 'id', 'name']);
    expect(c.sql).toMatch(/^SELECT \* FROM v WHERE /);
    expect(c.sql).toContain('lower("name")');
  });

  it('refuses table and file functions: read_csv, read_parquet, glob, read_text', async () => {
    expect(await refused("id IN (SELECT 1 FROM read_csv('/etc/passwd'))")).toMatch(/subquery/);
    expect(await refused("EXISTS (SELECT * FROM read_csv('/etc/passwd'))")).toMatch(/subquery/);
    expect(await refused("(SELECT count(*) FROM glob('/etc/*')) > 0")).toMatch(/subquery/);
    expect(await refused("read_text('/etc/passwd') IS NOT NULL")).toMatch(/read_text\(\)/);
    expect(await refused("length(read_blob('/etc/passwd')) > 0")).toMatch(/read_blob\(\)/);
    expect(await refused("getenv('HOME') = ''")).toMatch(/getenv\(\)/);
    expect(await refused("sniff_csv('/etc/passwd') IS NULL")).toMatch(/sniff_csv\(\)/);
    expect(await refused("len(list_transform([1], x -> x + 1)) = 1")).toMatch(/lambda|list_transform/);
    expect(await refused("current_setting('allowed_directories') <> ''")).toMatch(/current_setting\(\)/);
    expect(await refused("id = 1 UNION SELECT * FROM read_parquet('/x.parquet')")).toMatch(/one boolean expression|parse/);
  });

  it('refuses a second statement, closing the parenthesis, clauses and comments that hide them', async () => {
    expect(await refused('1=1; DROP TABLE x')).toMatch(/";"/);
    expect(await refused('1=1) ORDER BY (id')).toMatch(/clauses|parse/);
    expect(await refused('1=1) LIMIT (1')).toMatch(/clauses|parse/);
    // A trailing comment cannot swallow the closing parenthesis; what runs is DuckDB's rendering, without it.
    const commented = await checkWhere(duck.conn, 'id = 1 -- ) OR 1=1', 'v', { names: ['id'] });
    expect(commented.sql).not.toContain('--');
    expect(commented.sql).not.toMatch(/OR/);
    expect(await refused('id = $1')).toMatch(/parameter/);
    expect(await refused('count(*) > 1')).toMatch(/count_star\(\)/);
    expect(await refused('sum(id) > 1')).toMatch(/sum\(\)/);
    expect(await refused('row_number() OVER () = 1')).toMatch(/window/);
    expect(await refused('main.lower(name) = \'a\'')).toMatch(/qualified/);
  });

  it('refuses unknown and confidential columns, and text that does not parse', async () => {
    expect(await refused('nope = 1')).toMatch(/column "nope"/);
    expect(await refused("email = 'u1@x.org'")).toMatch(/confidential/);
    expect(await refused('id ==')).toMatch(/parse|==/);
    expect(await refused('id = ')).toMatch(/parse/);
    expect(await refused('')).toMatch(/empty/);
    expect(await refused('x'.repeat(5000))).toMatch(/longer/);
  });
});

describe('the grid\'s DuckDB is locked to the table folder', () => {
  it('reads the table\'s files, refuses any other file, and cannot be unlocked', async () => {
    const d = await openDuck({ threads: 1 });
    try {
      await lockToFolder(d, [root]);
      const { openTable } = await import('../delta/open');
      const t = await openTable(root);
      const f = t.storage.describe((await t.snapshot()).files[0].path);
      const n = await d.conn.runAndReadAll(`SELECT count(*) FROM read_parquet('${f.replace(/'/g, "''")}')`);
      expect(Number(n.getRows()[0][0])).toBeGreaterThan(0);
      await expect(d.conn.run(`SELECT * FROM read_csv('${join(dir, 'secret.csv')}')`)).rejects.toThrow(/Permission|disabled/);
      await expect(d.conn.run("SELECT * FROM read_csv('/etc/passwd')")).rejects.toThrow(/Permission|disabled/);
      await expect(d.conn.run('SET enable_external_access = true')).rejects.toThrow();
      await expect(d.conn.run("SET allowed_directories = ['/']")).rejects.toThrow();
    } finally {
      d.close();
    }
  });
});

describe('rows of a version', () => {
  it('pages the snapshot with DVs applied and partition columns, masking confidential columns', async () => {
    const p = await rows.page(root, { path: root, version: 2, limit: 100 });
    expect(p.totalRows).toBe(45);
    expect(p.matchingRows).toBe(45);
    expect(p.rows.length).toBe(45);
    expect(p.columns.map((c) => c.name)).toEqual(['id', 'name', 'email', 'dt']);
    expect(p.columns.find((c) => c.name === 'dt')?.partition).toBe(true);
    const ids = p.rows.map((r) => Number(r[0]));
    expect(ids.some((i) => i % 10 === 0)).toBe(false);
    expect(new Set(p.rows.map((r) => r[2]))).toEqual(new Set(['(masked: confidential)']));
    expect(p.rows.find((r) => r[0] === '31')?.[3]).toBe('2026-01-02');
  });

  it('says how many of the files read carry a deletion vector (none before the DV delete)', async () => {
    const v1 = await rows.page(root, { path: root, version: 1, limit: 1 });
    expect([v1.files, v1.deletionVectorFiles]).toEqual([2, 0]);
    const v2 = await rows.page(root, { path: root, version: 2, limit: 1 });
    expect([v2.files, v2.deletionVectorFiles]).toEqual([2, 2]);
    const v3 = await rows.page(root, { path: root, version: 3, limit: 1 });
    expect([v3.files, v3.deletionVectorFiles]).toEqual([3, 2]);
  });

  it('sorts by any column and pages without overlap', async () => {
    const a = await rows.page(root, { path: root, version: 3, sort: { column: 'id', direction: 'desc' }, limit: 10 });
    expect(a.rows.map((r) => r[0])).toEqual(['54', '53', '52', '51', '50', '49', '48', '47', '46', '45']);
    const b = await rows.page(root, { path: root, version: 3, sort: { column: 'name', direction: 'asc' }, limit: 20, offset: 0 });
    const c = await rows.page(root, { path: root, version: 3, sort: { column: 'name', direction: 'asc' }, limit: 20, offset: 20 });
    const all = [...b.rows, ...c.rows].map((r) => r[0]);
    expect(new Set(all).size).toBe(40);
    const names = [...b.rows, ...c.rows].map((r) => r[1] ?? '');
    expect([...names].sort()).toEqual(names);
    await expect(rows.page(root, { path: root, sort: { column: 'email', direction: 'asc' } })).rejects.toThrow(/confidential/);
  });

  it('filters by column = value and by a checked WHERE, counting the matches', async () => {
    const eq = await rows.page(root, { path: root, version: 3, equals: [{ column: 'name', value: 'n3' }] });
    expect(eq.matchingRows).toBe(eq.rows.length);
    expect(eq.rows.every((r) => r[1] === 'n3')).toBe(true);
    const w = await rows.page(root, { path: root, version: 3, where: "id < 20 AND dt = DATE '2026-01-01'" });
    expect(w.rows.map((r) => Number(r[0])).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(w.matchingRows).toBe(18);
    expect(w.totalRows).toBe(50);
    expect(w.where).toMatch(/id < 20/);
  });

  it('never reads another file, even through the WHERE box', async () => {
    const secret = join(dir, 'secret.csv');
    for (const where of [
      `id IN (SELECT 1 FROM read_csv('${secret}'))`,
      `read_text('${secret}') <> ''`,
      `1=1) UNION ALL SELECT * FROM read_csv('${secret}') WHERE (1=1`,
    ]) {
      await expect(rows.page(root, { path: root, where })).rejects.toThrow(LakerecError);
    }
  });

  it('lists the rows a commit added, and says which version cannot be read and why', async () => {
    const added = await rows.page(root, { path: root, version: 3, addedIn: 3 });
    expect(added.rows.map((r) => r[0]).sort()).toEqual(['50', '51', '52', '53', '54']);
    expect(added.totalRows).toBe(5);
    const dv = await rows.page(root, { path: root, version: 2, addedIn: 2 });
    expect(dv.totalRows).toBe(0); // a DELETE's DV re-add is not new rows
    await expect(rows.page(root, { path: root, version: 99 })).rejects.toThrow(/Version 99/);
  });
});
