// Mutation testing's premise, end to end on a table unlike the orders table: each corruption
// injected into a copy is named by the reconcile engine as its expected mode, and float drift stays
// silent, with a contract that says only keys, partitioning, float tolerance and ordering.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { openDuck, type Duck } from '../engine/duck';
import { reconcile } from '../reconcile/reconcile';
import { DeltaWriter } from './writer';
import { CORRUPTIONS, EXPECTED_MODE, injectCorruption } from './corrupt';

const f = (name: string, type: string): StructType['fields'][number] => ({ name, type, nullable: true, metadata: {} });
const schema: StructType = { type: 'struct', fields: [f('event_id', 'string'), f('user_id', 'integer'), f('value', 'double'), f('label', 'string'), f('at', 'timestamp'), f('rev', 'long'), f('day', 'date')] };
const DAYS = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04'];
const rowsOf = (d: string, k: number): string => `SELECT 'ev-' || ${k} || '-' || i AS event_id, CAST(i % 17 AS INTEGER) AS user_id,
  CAST(i AS DOUBLE) / 7 + ${k} AS value, ['Crème', 'Zoë', 'plain', 'Ñandú', '東京'][1 + i % 5] AS label,
  CAST(TIMESTAMP '${d} 00:00:00' + INTERVAL (i * 1400 + ${k * 50 + 7}) SECOND AS TIMESTAMPTZ) AS "at", CAST(i AS BIGINT) AS rev, DATE '${d}' AS day
  FROM range(${50 + k * 10}) t(i)`;

let dir: string;
let duck: Duck;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-mutation-'));
  duck = await openDuck({ threads: 2 });
  const w = await DeltaWriter.create(join(dir, 'clean'), { schema, partitionColumns: ['day'], duck });
  for (const [k, d] of DAYS.entries()) await w.append({ sql: rowsOf(d, k) });
  w.close();
  await duck.conn.run(`COPY (${DAYS.map((d, k) => rowsOf(d, k)).join(' UNION ALL ')}) TO '${join(dir, 'source.parquet')}' (FORMAT parquet)`);
  // `at` is an SQL keyword: the expression quotes it (a contract's expression is parsed and checked up front).
  writeFileSync(join(dir, 'contract.yaml'), [
    'version: 1', 'name: events', 'keys: [event_id]',
    'partitioning:', '  column: day', `  expression: "date(\\"at\\" AT TIME ZONE 'UTC')"`,
    'columns:', '  value: { float: { tolerance: 1.0e-9 } }', 'ordering: rev', '',
  ].join('\n'));
});
afterAll(() => {
  duck.close();
  rmSync(dir, { recursive: true, force: true });
});

it('each injected corruption is named as its expected mode; float drift stays silent', async () => {
  const clean = await reconcile({ source: join(dir, 'source.parquet'), target: { root: join(dir, 'clean') }, contract: join(dir, 'contract.yaml') });
  expect(clean.findings).toEqual([]);
  const got: Record<string, string[]> = {};
  const want: Record<string, string[]> = {};
  for (const c of CORRUPTIONS) {
    const root = join(dir, c);
    cpSync(join(dir, 'clean'), root, { recursive: true });
    const w = await DeltaWriter.open(root, { duck });
    const inj = await injectCorruption(w, c, { keys: ['event_id'], ordering: 'rev', timestampColumn: 'at' });
    w.close();
    expect(inj.applied, c).toBe(true);
    const r = await reconcile({ source: join(dir, 'source.parquet'), target: { root }, contract: join(dir, 'contract.yaml') });
    got[c] = r.findings.map((x) => x.mode);
    want[c] = EXPECTED_MODE[c] ? [EXPECTED_MODE[c]!] : [];
  }
  expect(got).toEqual(want);
});
