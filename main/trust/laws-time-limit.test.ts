// The data laws run a contract's day expression (someone else's SQL) under a time limit of
// LAW_TIME_FACTOR interactive limits. An expression that passes the scalar check (only allowed
// functions) but hashes 30 kB a row is stopped with one line naming the limit, well before it
// could finish on its own (without the limit it ran past the test's 60 s timeout on the build
// machine).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck } from '../engine/duck';
import { DeltaWriter } from '../writer/writer';
import { checkLaws, LAW_TIME_FACTOR } from './laws';

let dir: string;
const p = (...x: string[]) => join(dir, ...x);
const LIMIT_MS = 100;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-laws-limit-'));
  const duck = await openDuck({ threads: 2 });
  try {
    const schema: StructType = { type: 'struct', fields: [
      { name: 'id', type: 'long', nullable: false, metadata: {} },
      { name: 'qty', type: 'long', nullable: true, metadata: {} },
      { name: 'day', type: 'date', nullable: true, metadata: {} },
    ] };
    const w = await DeltaWriter.create(p('table'), { schema, partitionColumns: ['day'], duck });
    await w.append({ sql: "SELECT CAST(i AS BIGINT) AS id, CAST(1 AS BIGINT) AS qty, DATE '2026-01-01' AS day FROM range(10) t(i)" });
    w.close();
    // The source has no day column: its day comes from the contract's expression, over every row.
    await duck.conn.run(`COPY (SELECT CAST(i AS BIGINT) AS id, CAST(1 AS BIGINT) AS qty FROM range(400000) t(i)) TO '${p('source.parquet')}' (FORMAT parquet)`);
  } finally {
    duck.close();
  }
  // Only allowed functions: an md5 of a 10,000-character padding, nested three deep (30 kB hashed a row, 12 GB over the source's 400,000 rows).
  let x = 'CAST(id AS VARCHAR)';
  for (let i = 0; i < 3; i++) x = `md5(lpad(${x}, 10000, 'x'))`;
  const expr = `CASE WHEN length(${x}) > 0 THEN DATE '2026-01-01' END`;
  writeFileSync(p('contract.yaml'), `version: 1\nkeys: [id]\npartitioning:\n  column: day\n  expression: "${expr}"\nlaws:\n  day: day\n  measures: [qty]\n`);
}, 120_000);

afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe('the laws\' day expression time limit', () => {
  it('a day expression that passes the check but runs long is stopped with one line naming the limit', async () => {
    const before = process.env.LAKEREC_QUERY_TIME_LIMIT_MS;
    process.env.LAKEREC_QUERY_TIME_LIMIT_MS = String(LIMIT_MS);
    try {
      const t0 = Date.now();
      const e = await checkLaws({ source: p('source.parquet'), table: p('table'), contract: p('contract.yaml') })
        .then(() => null, (x: unknown) => x as { code: string; message: string });
      const limit = LIMIT_MS * LAW_TIME_FACTOR;
      expect(e).toMatchObject({
        code: 'limit_exceeded',
        message: `The totals per day (the contract's day expression) ran longer than its time limit of ${limit / 1000} s and was stopped (LAKEREC_QUERY_TIME_LIMIT_MS sets the limit).`,
      });
      // Stopped within a few vectors of rows of the limit (generous: the build machines are shared).
      expect(Date.now() - t0).toBeLessThan(limit + 25_000);
    } finally {
      if (before === undefined) delete process.env.LAKEREC_QUERY_TIME_LIMIT_MS;
      else process.env.LAKEREC_QUERY_TIME_LIMIT_MS = before;
    }
  }, 60_000);
});
