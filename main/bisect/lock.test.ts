// A bisect's DuckDB reads the table's files and the source's, and no other file: the lock is set
// before any query, so whatever a log or source holds cannot make it open /etc/passwd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDuck, sqlString } from '../engine/duck';
import { openBisectDuck } from './predicates/index';
import { bisect } from './bisect';

let dir: string;
let table: string;
let outsideFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-bisect-lock-'));
  table = join(dir, 'orders');
  outsideFile = join(dir, 'secret.csv');
  writeFileSync(outsideFile, 'a\n1\n');
  // A one-file table written by DuckDB itself, with a hand-written commit.
  const duck = await openDuck();
  const data = join(table, 'part-0.parquet');
  mkdirSync(join(table, '_delta_log'), { recursive: true });
  await duck.conn.run(`COPY (SELECT range AS id FROM range(3)) TO ${sqlString(data)} (FORMAT parquet)`);
  duck.close();
  const schema = JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }] });
  writeFileSync(join(table, '_delta_log', '00000000000000000000.json'), [
    { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
    { metaData: { id: 'x', format: { provider: 'parquet', options: {} }, schemaString: schema, partitionColumns: [], configuration: {}, createdTime: 0 } },
    { add: { path: 'part-0.parquet', partitionValues: {}, size: 1, modificationTime: 0, dataChange: true } },
    { commitInfo: { timestamp: 1000, operation: 'WRITE' } },
  ].map((a) => JSON.stringify(a)).join('\n') + '\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bisect DuckDB lock', () => {
  it('reads the table files, refuses any other file, and cannot be unlocked', async () => {
    const duck = await openBisectDuck({ root: table, files: [] }, null);
    try {
      const n = await duck.conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(join(table, 'part-0.parquet'))})`);
      expect(Number(n.getRows()[0][0])).toBe(3);
      await expect(duck.conn.run(`SELECT * FROM read_csv(${sqlString(outsideFile)})`)).rejects.toThrow();
      await expect(duck.conn.run(`SELECT * FROM read_csv('/etc/passwd')`)).rejects.toThrow();
      await expect(duck.conn.run('SET enable_external_access = true')).rejects.toThrow();
    } finally {
      duck.close();
    }
  });

  it('lets a source file in, and only it', async () => {
    const duck = await openBisectDuck({ root: table, files: [] }, outsideFile);
    try {
      const r = await duck.conn.runAndReadAll(`SELECT count(*) FROM read_csv(${sqlString(outsideFile)})`);
      expect(Number(r.getRows()[0][0])).toBe(1);
      await expect(duck.conn.run(`SELECT * FROM read_csv('/etc/passwd')`)).rejects.toThrow();
    } finally {
      duck.close();
    }
  });

  it('a unique-keys bisect still reads the data under the lock', async () => {
    const r = await bisect(table, { predicate: 'unique-keys', keys: ['id'] });
    expect(r.outcome).toBe('clean');
    expect(r.filesRead).toBe(1);
  });
});
