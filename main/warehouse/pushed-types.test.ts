// Time, uuid, interval and nested columns in the warehouse dialects: the ones a dialect can write
// exactly as ADR 0003's text (DuckDB's) are golden-pinned and parsed by the grammars, the time
// rule (trailing fraction zeros dropped) is executed by DuckDB against DuckDB's own text, and every
// other column is refused with the sentence that says why for that dialect.
import { describe, expect, it } from 'vitest';
import { PostgreSQL, TrinoSQL } from 'dt-sql-parser';
import { openDuck, sqlString } from '../engine/duck';
import { parseContract } from '../reconcile/contract';
import { canonicalFieldSql, type Dialect } from './dialect';
import { statementsFor } from './levels';
import { duckTypeOf } from './reconcile';

const time = { name: 't', type: 'TIME' };
const uuid = { name: 'u', type: 'UUID' };

describe('time and uuid where the dialect writes DuckDB\'s text', () => {
  it('golden SQL', () => {
    expect(canonicalFieldSql(time, 'trino', false)).toBe(`CASE WHEN "t" IS NULL THEN 'N|' ELSE concat('V', regexp_replace(CAST(CAST("t" AS TIME(6)) AS VARCHAR), '[.]?0+$', ''), '|') END`);
    expect(canonicalFieldSql(time, 'snowflake', false)).toBe(`CASE WHEN "t" IS NULL THEN 'N|' ELSE concat('V', REGEXP_REPLACE(TO_VARCHAR("t", 'HH24:MI:SS.FF6'), '[.]?0+$', ''), '|') END`);
    expect(canonicalFieldSql(uuid, 'trino', false)).toBe(`CASE WHEN "u" IS NULL THEN 'N|' ELSE concat('V', CAST("u" AS VARCHAR), '|') END`);
  });

  it('the trailing-zero rule, executed by DuckDB on six-digit texts, gives DuckDB\'s own TIME text', async () => {
    const values = ['00:00:00', '12:00:00.5', '00:00:00.000001', '23:59:59.1234', '10:20:30.1', '00:00:10', '01:10:00.010203', '23:59:59.999999'];
    const duck = await openDuck({ threads: 1 });
    try {
      const rows = (await duck.conn.runAndReadAll(`SELECT CAST(x AS VARCHAR) AS own, regexp_replace(strftime(DATE '2000-01-01' + x, '%H:%M:%S.%f'), '[.]?0+$', '') AS rule, strftime(DATE '2000-01-01' + x, '%H:%M:%S.%f') AS six FROM (VALUES ${values.map((v) => `(CAST(${sqlString(v)} AS TIME))`).join(', ')}) v(x)`)).getRowObjectsJS();
      expect(rows.map((r) => String(r.six).length)).toEqual(values.map(() => 15));
      for (const r of rows) expect(r.rule, String(r.six)).toBe(r.own);
      expect(rows.map((r) => r.own)).toEqual(values);
    } finally {
      duck.close();
    }
  });

  it('statements with time and uuid columns parse under the grammars', () => {
    const contract = parseContract('version: 1\nkeys: [id]\n');
    const columns = [{ name: 'id', type: 'BIGINT' }, time, uuid];
    for (const s of statementsFor({ dialect: 'trino', relation: 'delta.s.t', columns, contract }, 'checksum')) {
      expect(new TrinoSQL().validate(s.sql.replace(/^--.*\n/gm, '')).map((e) => e.message)).toEqual([]);
    }
    for (const s of statementsFor({ dialect: 'snowflake', relation: 'DB.S.T', columns: [{ name: 'id', type: 'BIGINT' }, time], contract }, 'checksum')) {
      expect(new PostgreSQL().validate(s.sql.replace(/^--.*\n/gm, '')).map((e) => e.message)).toEqual([]);
    }
  });

  it('the engines\' type names map to the families', () => {
    expect(duckTypeOf('time(6)', 'trino')).toBe('TIME');
    expect(duckTypeOf('TIME(9)', 'snowflake')).toBe('TIME');
    expect(duckTypeOf('uuid', 'trino')).toBe('UUID');
    expect(duckTypeOf('time(3) with time zone', 'trino')).toBe('time(3) with time zone');
  });
});

describe('refused per column, saying why for that dialect', () => {
  const cases: [Dialect, string, RegExp][] = [
    ['spark', 'UUID', /has no canonical text for spark: Databricks SQL has no UUID type/],
    ['snowflake', 'UUID', /has no canonical text for snowflake: Snowflake has no UUID type/],
    ['spark', 'TIME', /Databricks SQL has no TIME type/],
    ['trino', 'TIME WITH TIME ZONE', /TIME WITH TIME ZONE carries the offset in DuckDB's own form/],
    ['snowflake', 'INTERVAL', /Snowflake has no interval column type/],
    ['trino', 'INTERVAL', /keeps months, days and microseconds apart .* trino splits intervals into year-month and day-time types/],
    ['spark', 'INTERVAL', /spark splits intervals/],
    ['trino', 'INTEGER[]', /DuckDB's JSON text of the value .* trino's JSON text of a list is not the same bytes/],
    ['spark', 'STRUCT(a INTEGER)', /spark's JSON text of a struct is not the same bytes/],
    ['snowflake', 'MAP(VARCHAR, INTEGER)', /snowflake's JSON text of a map is not the same bytes/],
    ['trino', 'BIT', /has no canonical text for trino: pushed digests define integers/],
  ];
  for (const [dialect, type, why] of cases) {
    it(`${type} on ${dialect}`, () => {
      expect(() => canonicalFieldSql({ name: 'c', type }, dialect, false)).toThrow(why);
      expect(() => canonicalFieldSql({ name: 'c', type }, dialect, false)).toThrow(/^column "c" \(.*\) has no canonical text for .*; ignore it in the contract or reconcile that side locally$/);
      expect(() => canonicalFieldSql({ name: 'c', type }, 'duckdb', false)).not.toThrow();
    });
  }
});
