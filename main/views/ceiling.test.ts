// The job ceiling on the grid's queries: a WHERE that sizes a string is refused by the check, fast;
// a filter that passes the check and is still slow is stopped by the per-query time limit; a NUL in
// an `equals` value is a usage error with one line. The same string caps hold for a contract's
// partition expression (main/engine/expression.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDemoTable } from '../app/demo-table';
import { openDuck, type Duck } from '../engine/duck';
import { checkScalarExpression } from '../engine/expression';
import { MAX_STRING_WIDTH } from '../engine/string-size';
import { RowsService } from './rows';

let dir: string;
let table: string;
const rows = new RowsService();
let duck: Duck;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-ceiling-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
  duck = await openDuck({ threads: 1, memoryLimit: '256MB' });
}, 60_000);

afterAll(() => {
  rows.close();
  duck?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const refusal = async (where: string) => {
  const t0 = Date.now();
  const e = await rows.page(table, { path: table, where }).then(() => null, (x: unknown) => x as { code: string; message: string });
  return { e, ms: Date.now() - t0 };
};

describe('string-sizing arguments in the WHERE box', () => {
  it('length(repeat(s, 2000000000)) > 0 is refused by the check, fast, with one line', async () => {
    const { e, ms } = await refusal('length(repeat(customer, 2000000000)) > 0');
    expect(e).toMatchObject({ code: 'usage', message: `The filter may not make an unbounded string: repeat(): a length of 2000000000 is over the limit of ${MAX_STRING_WIDTH}.` });
    expect(e?.message).not.toMatch(/\n/);
    expect(ms).toBeLessThan(5000);
  });

  it('lpad, rpad, format and printf are capped the same way; a count from a column or an expression is refused', async () => {
    for (const where of [
      "length(lpad(customer, 2000000000, 'x')) > 0",
      "length(rpad(customer, 99999, 'x')) > 0",
      "length(format('{:>2000000000}', customer)) > 0",
      "length(printf('%2000000000s', customer)) > 0",
      "length(printf('%*s', 2000000000, customer)) > 0",
      "length(format('{:>{}}', customer, 2000000000)) > 0",
      'length(repeat(customer, CAST(order_id AS INTEGER) * 1000000)) > 0',
      'length(repeat(customer, 2000 * 1000000)) > 0',
      'length(printf(customer, 1)) > 0',
    ]) {
      const { e } = await refusal(where);
      expect({ where, code: e?.code, msg: e?.message }).toMatchObject({ where, code: 'usage', msg: expect.stringMatching(/^The filter may not make an unbounded string: (repeat|lpad|rpad|format|printf)\(\): /) });
    }
  });

  it('a bounded use still runs', async () => {
    const p = await rows.page(table, { path: table, where: "length(repeat(customer, 3)) = 3 * length(customer) AND lpad(customer, 5, '_') <> '' AND printf('%5s', customer) <> ''" });
    expect(p.matchingRows).toBe(p.totalRows);
  });

  it("a contract's partition expression is held to the same caps", async () => {
    const r = await checkScalarExpression(duck.conn, "length(lpad(s, 2000000000, 'x'))", ['s']);
    expect(r).toEqual({ ok: false, problem: `lpad(): a length of 2000000000 is over the limit of ${MAX_STRING_WIDTH}` });
    expect(await checkScalarExpression(duck.conn, "printf('%2000000000s', s)", ['s'])).toEqual({ ok: false, problem: `printf(): a width of 2000000000 is over the limit of ${MAX_STRING_WIDTH}` });
    expect((await checkScalarExpression(duck.conn, "lpad(s, 10, '0')", ['s'])).ok).toBe(true);
  });
});

describe('the time limit of an interactive query', () => {
  it('a filter that passes the check but runs long is stopped with one line naming the limit', async () => {
    const before = process.env.LAKEREC_QUERY_TIME_LIMIT_MS;
    process.env.LAKEREC_QUERY_TIME_LIMIT_MS = '300';
    try {
      const t0 = Date.now();
      // Edit distances of 2,000-character strings: passes every cap, costs 4 x 10^6 steps a row.
      // (DuckDB sees an interrupt between vectors of rows; a query stuck inside one vector is
      // ended by the engine host instead: main/app/engine-ceiling.test.ts.)
      const e = await rows.page(table, { path: table, where: "levenshtein(lpad(customer, 2000, 'x'), rpad(customer, 2000, 'y')) >= 0" })
        .then(() => null, (x: unknown) => x as { code: string; message: string });
      expect(e).toMatchObject({ code: 'limit_exceeded', message: 'This page of rows ran longer than its time limit of 300 ms and was stopped (LAKEREC_QUERY_TIME_LIMIT_MS sets the limit).' });
      expect(Date.now() - t0).toBeLessThan(10_000);
    } finally {
      if (before === undefined) delete process.env.LAKEREC_QUERY_TIME_LIMIT_MS;
      else process.env.LAKEREC_QUERY_TIME_LIMIT_MS = before;
    }
    // The same table answers the next query.
    expect((await rows.page(table, { path: table, limit: 5 })).rows.length).toBe(5);
  });
});

describe('equals values', () => {
  it('a NUL in an equals value is a usage error with one clear line', async () => {
    const e = await rows.page(table, { path: table, equals: [{ column: 'customer', value: 'c1\0x' }] }).then(() => null, (x: unknown) => x as { code: string; message: string });
    expect(e).toMatchObject({ code: 'usage', message: 'The value to match in column "customer" contains a NUL character, which no value of the table can hold.' });
  });
});
