// A contract's partition expression translated from its one checked tree to each dialect: golden
// SQL per dialect, the statements parsed by the real grammars, refusals by name, DuckDB executing
// the translation against DuckDB's own evaluation of the user's expression over awkward instants,
// and a pushed reconcile of the content_divergence sample lake (whose source lacks `dt`) equal to
// the local reconcile, partition by partition.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgreSQL, SparkSQL, TrinoSQL } from 'dt-sql-parser';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';
import { openDuck, sqlString } from '../engine/duck';
import { openTable } from '../delta/open';
import { reconcile } from '../reconcile/reconcile';
import { loadContract, parseContract } from '../reconcile/contract';
import { checkedPartitionTree, derivePartitionSide, translatePartitionTree } from './derive';
import { DuckdbConnector } from './duckdb-connector';
import { statementsFor } from './levels';
import { warehouseReconcile } from './reconcile';
import type { Dialect, WarehouseColumn } from './dialect';

const EXPR = "date(ts AT TIME ZONE 'UTC')";
const instant: WarehouseColumn[] = [{ name: 'order_id', type: 'BIGINT' }, { name: 'ts', type: 'TIMESTAMP WITH TIME ZONE' }, { name: 'sku', type: 'VARCHAR' }];
const naive: WarehouseColumn[] = [{ name: 'order_id', type: 'BIGINT' }, { name: 'ts', type: 'TIMESTAMP' }, { name: 'sku', type: 'VARCHAR' }];

const D = '86400000000';
const GOLDEN: Record<Dialect, string> = {
  duckdb: `(DATE '1970-01-01' + CAST((epoch_us("ts") - (((epoch_us("ts")) % ${D}) + ${D}) % ${D}) // ${D} AS INTEGER))`,
  spark: `date_from_unix_date(CAST((unix_micros(\`ts\`) - pmod(unix_micros(\`ts\`), ${D})) div ${D} AS INT))`,
  snowflake: `DATEADD(day, CAST((DATE_PART(EPOCH_MICROSECOND, "ts") - MOD(MOD(DATE_PART(EPOCH_MICROSECOND, "ts"), ${D}) + ${D}, ${D})) / ${D} AS INTEGER), '1970-01-01'::DATE)`,
  trino: (() => {
    const m = `(date_diff('second', TIMESTAMP '1970-01-01 00:00:00', date_trunc('second', CAST("ts" AT TIME ZONE 'UTC' AS TIMESTAMP(6)))) * 1000000 + CAST(substr(CAST(CAST("ts" AT TIME ZONE 'UTC' AS TIMESTAMP(6)) AS VARCHAR), 21, 6) AS BIGINT))`;
    return `date_add('day', (${m} - mod(mod(${m}, ${D}) + ${D}, ${D})) / ${D}, DATE '1970-01-01')`;
  })(),
};

describe('the partition expression, translated from its checked tree', () => {
  for (const dialect of ['duckdb', 'spark', 'snowflake', 'trino'] as const) {
    it(`${dialect}: golden SQL, typed DATE`, async () => {
      const tree = await checkedPartitionTree(EXPR, instant.map((c) => c.name));
      expect(translatePartitionTree(tree, dialect, instant)).toEqual({ sql: GOLDEN[dialect], type: 'DATE' });
    });
  }
  it('a naive timestamp (read as UTC) through each dialect\'s wall-clock micros', async () => {
    const tree = await checkedPartitionTree(EXPR, naive.map((c) => c.name));
    expect(translatePartitionTree(tree, 'spark', naive).sql).toContain("timestampdiff(MICROSECOND, TIMESTAMP_NTZ '1970-01-01 00:00:00', `ts`)");
    expect(translatePartitionTree(tree, 'trino', naive).sql).toContain('CAST("ts" AS TIMESTAMP(6))');
  });
  it('quoting tricks in the text do not reach the SQL: the tree is rendered, not the text', async () => {
    const tree = await checkedPartitionTree(`CAST( /* ) OR 1=1 */ ts AT TIME ZONE 'UTC' AS DATE)`, instant.map((c) => c.name));
    expect(translatePartitionTree(tree, 'spark', instant).sql).toBe(GOLDEN.spark);
  });
  it('casts to text and text constants', async () => {
    const cols = [{ name: 'region', type: 'VARCHAR' }, { name: 'd', type: 'DATE' }];
    const tree = await checkedPartitionTree('CAST(d AS VARCHAR)', cols.map((c) => c.name));
    expect(translatePartitionTree(tree, 'spark', cols)).toEqual({ sql: "date_format(`d`, 'yyyy-MM-dd')", type: 'VARCHAR' });
    expect(translatePartitionTree(await checkedPartitionTree('region', ['region']), 'trino', cols)).toEqual({ sql: '"region"', type: 'VARCHAR' });
  });
  it('refuses what it cannot translate, by name and dialect', async () => {
    const names = instant.map((c) => c.name);
    await expect(async () => translatePartitionTree(await checkedPartitionTree("strftime(ts, '%Y-%m')", names), 'spark', instant)).rejects.toThrow(/partition expression: function strftime\(\) has no spark translation \(translated: column names/);
    await expect(async () => translatePartitionTree(await checkedPartitionTree("date(ts AT TIME ZONE 'Europe/Paris')", names), 'trino', instant)).rejects.toThrow(/timezone\(\) with a zone other than the constant 'UTC' has no trino translation/);
    await expect(async () => translatePartitionTree(await checkedPartitionTree("ts AT TIME ZONE 'UTC'", names), 'snowflake', instant)).rejects.toThrow(/a timestamp partition value \(write a cast to DATE\) has no snowflake translation/);
    await expect(checkedPartitionTree('(SELECT 1)', names)).rejects.toThrow(/partition expression refused: a subquery is not allowed/);
  });
  it('every derived statement parses under the real grammars', async () => {
    const contract = parseContract(`version: 1\nkeys: [order_id]\npartitioning: { column: dt, expression: "${EXPR}" }\n`);
    const parsers = { spark: new SparkSQL(), trino: new TrinoSQL(), snowflake: new PostgreSQL() };
    for (const dialect of ['spark', 'trino', 'snowflake'] as const) {
      const side = await derivePartitionSide({ dialect, relation: 'sales.orders', columns: instant }, contract, false);
      expect(side.columns.at(-1)).toEqual({ name: 'dt', type: 'DATE' });
      for (const level of ['counts', 'checksum', 'keys', 'rows'] as const) {
        for (const s of statementsFor({ dialect, relation: side.relation, columns: side.columns, contract }, level, { partitions: ['dt=2026-08-10', 'dt=(null)'] })) {
          expect(parsers[dialect].validate(s.sql.replace(/^--.*\n/gm, '')).map((e) => e.message), `${dialect} ${level}`).toEqual([]);
        }
      }
    }
  });
});

describe('DuckDB executes the translation', () => {
  it('equals DuckDB\'s own evaluation of the expression on awkward instants (before 1970, a microsecond either side of midnight)', async () => {
    const values = ['1969-12-31 23:59:59.999999+00', '1970-01-01 00:00:00+00', '1900-03-01 00:00:00.000001+00', '2026-08-10 23:59:59.999999+00', '2026-08-11 00:00:00+00', '0001-01-01 00:00:00+00', '9999-12-31 23:59:59.999999+00'];
    const tree = await checkedPartitionTree(EXPR, ['ts']);
    const sql = translatePartitionTree(tree, 'duckdb', [{ name: 'ts', type: 'TIMESTAMP WITH TIME ZONE' }]).sql;
    const duck = await openDuck({ threads: 1 });
    try {
      const rows = (await duck.conn.runAndReadAll(`SELECT CAST(${EXPR} AS VARCHAR) AS own, CAST(${sql} AS VARCHAR) AS translated FROM (VALUES ${values.map((v) => `(CAST(${sqlString(v)} AS TIMESTAMPTZ))`).join(', ')}, (NULL)) v(ts)`)).getRowObjectsJS();
      expect(rows.length).toBe(values.length + 1);
      for (const r of rows) expect(r.translated).toBe(r.own);
      expect(rows.map((r) => r.own)).toContain('1969-12-31');
    } finally {
      duck.close();
    }
  });

  describe('content_divergence: the source lacks dt; the pushed reconcile derives it and equals the local one', () => {
    let dir: string;
    let lake: BuiltLake;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'lakerec-wh-derive-'));
      [lake] = await buildSampleLakes({ out: dir, rows: 400, only: ['content_divergence'] });
    }, 180_000);
    afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

    it('per partition: rows and checksums at the checksum level', async () => {
      const contract = loadContract(lake.contractPath);
      expect(contract.partitioning?.expression).toBe(EXPR);
      // The source as a warehouse would have it: its Parquet without the dt column, which both runs derive.
      const noDt = join(dir, 'source_without_dt.parquet');
      const duck = await openDuck({ threads: 1 });
      try {
        await duck.conn.run(`COPY (SELECT * EXCLUDE (dt) FROM read_parquet(${sqlString(lake.sourceParquet)})) TO ${sqlString(noDt)} (FORMAT PARQUET)`);
      } finally {
        duck.close();
      }
      const local = await reconcile({ source: noDt, target: { root: lake.tablePath }, contract, level: 'checksum', digest: 'md5' });
      const table = await openTable(lake.tablePath);
      const snapshot = await table.snapshot();
      // A plain view of that Parquet (no derived column): the pushed run derives dt from the translated tree.
      const conn = await DuckdbConnector.open('local', [{ name: 'tgt', snapshot, root: table.root }], {
        views: [{ name: 'src_raw', sql: `SELECT * FROM read_parquet(${sqlString(noDt)})` }],
        extraFiles: [noDt],
      });
      try {
        const pushed = await warehouseReconcile({ source: { connector: conn, relation: '"src_raw"', label: 'src' }, target: { connector: conn, relation: '"tgt"', label: 'tgt' }, contract, level: 'checksum' });
        const raw = (await conn.query('DESCRIBE "src_raw"')).rows.map((r) => String(r[0]));
        expect(raw).toContain('ts');
        expect(raw).not.toContain('dt');
        expect(pushed.schema.compared).toContain('dt');
        expect(pushed.partitions.length).toBeGreaterThan(1);
        const pick = (ps: { partition: string; sourceRows: unknown; targetRows: unknown; sourceChecksum: unknown; targetChecksum: unknown }[]) =>
          ps.map((p) => [p.partition, String(p.sourceRows ?? 0), String(p.targetRows ?? 0), p.sourceChecksum ?? null, p.targetChecksum ?? null]);
        expect(pick(pushed.partitions)).toEqual(pick(local.partitions));
      } finally {
        await conn.close();
      }
    }, 120_000);
  });
});
