import { it, expect } from 'vitest';
import { openDuck, sqlIdent, sqlString } from './duck';

it('opens DuckDB with parquet built in and quotes safely', async () => {
  const duck = await openDuck();
  try {
    const r = await duck.conn.runAndReadAll(`select ${sqlString("o'k")} as ${sqlIdent('we"ird')}, 42::hugeint as n`);
    expect(r.getRowObjects()[0]).toEqual({ 'we"ird': "o'k", n: 42n });
  } finally {
    duck.close();
  }
});

it('restrict(): after it, DuckDB reads and writes only the registered files, for good', async () => {
  const { mkdtempSync, writeFileSync, existsSync, rmSync, mkdirSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-restrict-'));
  const table = join(dir, 'table');
  mkdirSync(table);
  writeFileSync(join(table, 'a.csv'), 'x\n1\n');
  writeFileSync(join(dir, 'secret.csv'), 'x\n42\n');
  const out = join(dir, 'out.parquet');
  const duck = await openDuck({ threads: 1, memoryLimit: '128MB' });
  const fails = async (sql: string) => {
    try { await duck.conn.run(sql); return null; } catch (e) { return (e as Error).message.split('\n')[0]; }
  };
  try {
    await duck.restrict({ dirs: [table], files: [out] });
    expect(await fails(`SELECT * FROM read_csv(${sqlString(join(table, 'a.csv'))})`)).toBeNull();
    expect(await fails(`COPY (SELECT 1 AS x) TO ${sqlString(out)} (FORMAT parquet)`)).toBeNull();
    expect(await fails(`SELECT * FROM read_csv(${sqlString(join(dir, 'secret.csv'))})`)).toMatch(/Permission Error/);
    expect(await fails(`SELECT * FROM read_text(${sqlString(join(table, '..', 'secret.csv'))})`)).toMatch(/Permission Error/);
    expect(await fails(`COPY (SELECT 1) TO ${sqlString(join(dir, 'pwned.csv'))}`)).toMatch(/Permission Error/);
    expect(await fails(`ATTACH ${sqlString(join(dir, 'x.db'))}`)).toMatch(/Permission Error/);
    expect(await fails('SET enable_external_access = true')).toMatch(/locked/);
    expect(await fails("SET allowed_directories = ['/']")).toMatch(/locked/);
    expect(await fails('INSTALL httpfs')).toMatch(/Permission Error|disabled/);
    expect(existsSync(join(dir, 'pwned.csv'))).toBe(false);
    // the spill folder still works under the lock
    expect(await fails("SET memory_limit = '1GB'")).toMatch(/locked/);
    const r = await duck.conn.runAndReadAll('SELECT count(*) FROM (SELECT i, md5(i::VARCHAR) h FROM range(1000000) t(i) ORDER BY h)');
    expect(Number(r.getRows()[0][0])).toBe(1_000_000);
  } finally {
    duck.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('scales the default memory limit to the machine, and takes LAKEREC_DUCKDB_MEMORY', async () => {
  const { defaultMemoryLimit } = await import('./duck');
  expect(defaultMemoryLimit({}, 4 * 1024 ** 3)).toBe('2048MiB');
  expect(defaultMemoryLimit({}, 64 * 1024 ** 3)).toBe('8192MiB');
  expect(defaultMemoryLimit({}, 256 * 1024 ** 2)).toBe('256MiB');
  expect(defaultMemoryLimit({ LAKEREC_DUCKDB_MEMORY: '3GB' })).toBe('3GB');
  expect(() => defaultMemoryLimit({ LAKEREC_DUCKDB_MEMORY: "1GB'; COPY" })).toThrow(/must look like/);
});

it('bounds the memory of streaming work below the machine default unless LAKEREC_DUCKDB_MEMORY says otherwise', async () => {
  const { boundedMemoryLimit } = await import('./duck');
  expect(boundedMemoryLimit(512, {}, 23 * 1024 ** 3)).toBe('512MiB');
  expect(boundedMemoryLimit(512, {}, 600 * 1024 ** 2)).toBe('300MiB');
  expect(boundedMemoryLimit(512, { LAKEREC_DUCKDB_MEMORY: '2GB' })).toBe('2GB');
});
