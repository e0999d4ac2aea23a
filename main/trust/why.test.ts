// `reconcile --why KEY=VALUE` on a table built for it: one key the same on both sides, one
// changed, one missing, one duplicated, one extra, one absent everywhere; each row of the target
// with the commit that wrote it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck, sqlString } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { parseContract } from '../reconcile/contract';
import { parseWhy, whyKey, whyLines } from './why';

const dir = mkdtempSync(join(tmpdir(), 'lakerec-why-'));
const table = join(dir, 'table');
const source = join(dir, 'source.parquet');
const contract = parseContract('version: 1\nkeys: [id]\ntags: { secret: { sensitivity: restricted } }\n', 'c.yaml');
const schema: StructType = { type: 'struct', fields: [
  { name: 'id', type: 'long', nullable: false, metadata: {} },
  { name: 'label', type: 'string', nullable: true, metadata: {} },
  { name: 'secret', type: 'string', nullable: true, metadata: {} },
] };

beforeAll(async () => {
  const duck = await openDuck();
  try {
    await duck.conn.run(`COPY (SELECT * FROM (VALUES (1::BIGINT, 'a', 's1'), (2, 'b', 's2'), (3, 'c', 's3'), (4, 'd', 's4')) v(id, label, secret)) TO ${sqlString(source)} (FORMAT parquet)`);
  } finally {
    duck.close();
  }
  const w = await DeltaWriter.create(table, { schema, partitionColumns: [] });
  await w.append({ sql: `SELECT * FROM (VALUES (1::BIGINT, 'a', 's1'), (2, 'B', 's2'), (4, 'd', 's4')) v(id, label, secret)` });
  await w.append({ sql: `SELECT * FROM (VALUES (4::BIGINT, 'd', 's4'), (6, 'f', 's6')) v(id, label, secret)` });
  w.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--why KEY=VALUE', () => {
  it('takes every key column once, by name', () => {
    expect(parseWhy(['id=7'], contract)).toEqual({ id: '7' });
    expect(() => parseWhy(['7'], contract)).toThrow('--why takes KEY=VALUE, got "7"');
    expect(() => parseWhy(['=7'], contract)).toThrow('--why takes KEY=VALUE');
    expect(() => parseWhy(['name=x'], contract)).toThrow('--why: "name" is not a key column of the contract (id)');
    expect(() => parseWhy([], contract)).toThrow('--why needs every key column: missing id=VALUE');
  });

  it.each([
    ['1', 'same', [], 1, 1],
    ['2', 'differs', ['label'], 1, 1],
    ['3', 'missing_in_target', [], 1, 0],
    ['4', 'duplicated', [], 1, 2],
    ['6', 'extra_in_target', [], 0, 1],
    ['9', 'absent', [], 0, 0],
  ] as const)('id=%s: %s', async (id, verdict, columns, sourceRows, targetRows) => {
    const w = await whyKey({ source, table, contract, key: { id }, cwd: dir });
    expect([w.verdict, w.columns, w.source.length, w.target.length]).toEqual([verdict, columns, sourceRows, targetRows]);
    // a restricted column is never shown as it is
    for (const r of [...w.source, ...w.target.map((t) => t.row)]) expect(r.secret).not.toMatch(/^s\d$/);
    if (id === '4') expect(w.target.map((t) => t.provenance.commit?.version).sort()).toEqual([1, 2]);
  });

  it('printed: the verdict with the differing columns, each side\'s rows, who wrote each target row', async () => {
    const w = await whyKey({ source, table, contract, key: { id: '2' }, cwd: dir, version: 1 });
    const lines = whyLines(w, (p) => `v${p.commit?.version ?? '?'}`);
    expect(lines[0]).toBe('id=2: differs (label)');
    expect(lines).toContain('  source: 1 row(s)');
    expect(lines).toContain('  target: 1 row(s)');
    expect(lines.at(-1)).toBe('      written by v1');
  });
});
