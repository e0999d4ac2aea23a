// `lakerec warehouse check`: the dialect proved on the user's own engine. One read-only statement
// over a VALUES list of the awkward values (it creates nothing): the warehouse's canonical text and
// md5 of each, and each double's exact parts; the same figures computed here by the local engine;
// every disagreement named.
import type { DuckDBConnection } from '@duckdb/node-api';
import { canonicalField } from '../reconcile/canonical';
import { floatPartsSql } from '../reconcile/checksum';
import { canonicalFieldSql, DIALECT_SQL, floatPartsSelect, type Dialect } from './dialect';
import { awkwardLiteral, type AwkwardValue } from './awkward';
import { sqlId } from './levels';

export interface CheckStatement {
  sql: string;
  id: string;
}

/** The statements a warehouse runs, over its own literals with its own canonical text: one row of
 * the fixed-form and string values (text, md5), and a VALUES list of the doubles (exact parts). */
export function checkStatements(dialect: Dialect, values: readonly AwkwardValue[]): { text: CheckStatement; floats: CheckStatement } {
  const d = DIALECT_SQL[dialect];
  const head = `-- lakerec warehouse check (${dialect}): creates nothing\n`;
  const texts = values.filter((v) => v.family !== 'float');
  const floats = values.filter((v) => v.family === 'float');
  const naive = texts.some((v) => v.naiveIsUtc === true);
  const sel = texts.flatMap((v, i) => {
    const f = canonicalFieldSql({ name: `v${i}`, type: v.type }, dialect, naive);
    return [`${f} AS t${i}`, `${d.md5Hex(f)} AS h${i}`];
  });
  const text = `${head}SELECT ${sel.join(', ')} FROM (VALUES (${texts.map((v) => awkwardLiteral(v, dialect)).join(', ')})) AS t(${texts.map((_, i) => `v${i}`).join(', ')})`;
  const list = `(VALUES ${floats.map((v, i) => `(${i}, ${awkwardLiteral(v, dialect)})`).join(', ')}) AS t(i, v)`;
  const fl = `${head}SELECT i, CAST(f_e AS ${d.text}) AS e, CAST(f_m AS ${d.text}) AS m, f_s AS s FROM (${floatPartsSelect(dialect, list, [{ expr: 'i', as: 'i' }], [{ expr: 'v', out: 'f' }])}) q ORDER BY i`;
  return { text: { sql: text, id: sqlId(text) }, floats: { sql: fl, id: sqlId(fl) } };
}

/** What a check compares: the text row, and the float rows keyed e<i>, m<i>, s<i>. */
export function checkFigures(textRow: Record<string, unknown>, floatRows: Record<string, unknown>[]): Record<string, string | null> {
  const out = normalise(textRow);
  for (const r of floatRows.map(normalise)) {
    const i = r.i;
    out[`e${i}`] = r.e;
    out[`m${i}`] = r.m;
    out[`s${i}`] = r.s;
  }
  return out;
}

/** The same figures by the local engine's own SQL (main/reconcile/canonical.ts, checksum.ts). */
export async function localFigures(conn: DuckDBConnection, values: readonly AwkwardValue[]): Promise<Record<string, string | null>> {
  const texts = values.filter((v) => v.family !== 'float');
  const floats = values.filter((v) => v.family === 'float');
  const sel = texts.flatMap((v, i) => {
    const f = canonicalField(`v${i}`, v.type, v.naiveIsUtc ?? false);
    return [`${f} AS t${i}`, `md5(${f}) AS h${i}`];
  });
  const t = await conn.runAndReadAll(`SELECT ${sel.join(', ')} FROM (SELECT ${texts.map((v, i) => `${v.duckdb} AS v${i}`).join(', ')})`);
  const fp = floatPartsSql('v');
  const f = await conn.runAndReadAll(`SELECT i, CAST(${fp.e} AS VARCHAR) AS e, CAST(${fp.m} AS VARCHAR) AS m, ${fp.special} AS s FROM (VALUES ${floats.map((v, i) => `(${i}, ${v.duckdb})`).join(', ')}) AS t(i, v) ORDER BY i`);
  return checkFigures(t.getRowObjectsJS()[0] as Record<string, unknown>, f.getRowObjectsJS() as Record<string, unknown>[]);
}

/** Driver values as text (keys lower-cased: Snowflake returns upper-case names). */
export function normalise(row: Record<string, unknown>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(row)) {
    out[k.toLowerCase()] = v === null || v === undefined ? null : typeof v === 'string' ? v : String(v);
  }
  return out;
}

export interface CheckLine {
  value: string;
  figure: 'text' | 'md5' | 'exponent' | 'mantissa' | 'special';
  local: string | null;
  warehouse: string | null;
  agree: boolean;
}

/** Each value's figures side by side. Integers compare as integers ("12" and "12.0" from a driver are one number). */
export function compareCheck(values: readonly AwkwardValue[], local: Record<string, string | null>, remote: Record<string, string | null>): CheckLine[] {
  const out: CheckLine[] = [];
  const asInt = (x: string | null) => (x === null ? null : /^-?\d+(\.0+)?$/.test(x) ? x.replace(/\.0+$/, '') : x);
  const texts = values.filter((v) => v.family !== 'float');
  const floats = values.filter((v) => v.family === 'float');
  const lines = (v: AwkwardValue, pairs: [CheckLine['figure'], string, boolean][]) => {
    for (const [figure, key, integer] of pairs) {
      const l = integer ? asInt(local[key] ?? null) : local[key] ?? null;
      const w = integer ? asInt(remote[key] ?? null) : remote[key] ?? null;
      out.push({ value: v.name, figure, local: l, warehouse: w, agree: l === w });
    }
  };
  texts.forEach((v, i) => lines(v, [['text', `t${i}`, false], ['md5', `h${i}`, false]]));
  floats.forEach((v, i) => lines(v, [['exponent', `e${i}`, true], ['mantissa', `m${i}`, true], ['special', `s${i}`, false]]));
  return out;
}
