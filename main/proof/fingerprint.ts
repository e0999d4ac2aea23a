// The ods fingerprint v1 computed a second, independent way: TypeScript over an Arrow table
// (node:crypto's md5, BigInt sums), and the DuckDB way: the generated SQL run over a relation.
// The proof requires both to give the same figures.
import { createHash } from 'node:crypto';
import type * as A from 'apache-arrow';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DataType as DeltaType, StructType } from '../../shared/delta';
import {
  FINGERPRINT_VERSION, decimalScale, fingerprintFromSqlRow, fingerprintRule, fingerprintSql,
  type CanonicalRule, type ColumnFingerprint, type OdsFingerprint,
} from '../../shared/fingerprint';
import { columnCells, deltaTypeOf, type Cell } from './cells';

/** Decimal text of an unscaled value with `scale` digits after the point (12.30, -0.50). */
export function decimalText(unscaled: bigint, scale: number): string {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString();
  if (scale === 0) return (neg ? '-' : '') + digits;
  const padded = digits.padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
}

/** YYYY-MM-DD of a day count since 1970-01-01 (proleptic Gregorian, years 0001 to 9999). */
export function dateText(days: number): string {
  return new Date(days * 86_400_000).toISOString().slice(0, 10);
}

/** The canonical text of a non-null cell under a rule (the seed's definition). */
export function canonicalText(c: Cell, rule: CanonicalRule, type: DeltaType): string {
  switch (rule) {
    case 'integer': return String(c);
    case 'decimal': return decimalText(c as bigint, decimalScale(type));
    case 'boolean': return c ? 'true' : 'false';
    case 'date': return dateText(c as number);
    case 'timestamp': case 'timestamp_ntz': return String(c);
    case 'string': return c as string;
  }
}

/** The integer value of the first 15 hex digits of md5(text) (UTF-8). */
export function md5Prefix(text: string): bigint {
  return BigInt('0x' + createHash('md5').update(text, 'utf8').digest('hex').slice(0, 15));
}

/** Fingerprint of one column's cells, typed by its Delta type. */
export function columnFingerprint(name: string, type: DeltaType, cells: Cell[]): ColumnFingerprint {
  const { kind, rule } = fingerprintRule(type);
  const nulls = cells.reduce<number>((n, c) => n + (c === null ? 1 : 0), 0);
  const col: ColumnFingerprint = { name, kind, nulls };
  if (kind === 'hash' && rule) {
    let sum = 0n;
    for (const c of cells) if (c !== null) sum += md5Prefix(canonicalText(c, rule, type));
    col.hash = sum.toString();
  } else if (kind === 'float') {
    let nan = 0, posinf = 0, neginf = 0, sum = 0, seen = 0;
    let min = Infinity, max = -Infinity;
    for (const c of cells) {
      if (c === null) continue;
      const v = c as number;
      if (Number.isNaN(v)) nan++;
      else if (v === Infinity) posinf++;
      else if (v === -Infinity) neginf++;
      else { seen++; sum += v; if (v < min) min = v; if (v > max) max = v; }
    }
    Object.assign(col, { nan, posinf, neginf, min: seen ? min : null, max: seen ? max : null, sum: seen ? sum : null });
  }
  return col;
}

/** The ods fingerprint v1 of an Arrow table, computed in TypeScript. */
export function fingerprintArrow(table: A.Table): OdsFingerprint {
  const columns = table.schema.fields.map((f, i) => columnFingerprint(f.name, deltaTypeOf(f.type), columnCells(table, i)));
  return { version: FINGERPRINT_VERSION, rows: table.numRows, columns };
}

/** The ods fingerprint v1 of a DuckDB relation, computed by running the generated SQL. */
export async function fingerprintDuckdb(conn: DuckDBConnection, schema: StructType, relation: string): Promise<OdsFingerprint> {
  const reader = await conn.runAndReadAll(fingerprintSql(schema, 'duckdb', relation));
  const rows = reader.getRowObjects();
  return fingerprintFromSqlRow(schema, rows[0] as Record<string, unknown>);
}
