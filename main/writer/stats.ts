// Per-file statistics as Delta writers record them in `add.stats`: numRecords, and per leaf
// column minValues, maxValues and nullCount, keyed by physical name (no column mapping here, so
// physical = logical). Computed by DuckDB over exactly the rows that go into the file, in one
// grouped query per write.
import type { DataType, StructType } from '../../shared/delta';
import { sqlIdent } from '../engine/duck';
import { hasMinMax } from './schema';

/** SQL rendering an aggregate value as JSON text (null when it must not be recorded). */
function jsonValueSql(expr: string, t: DataType): string {
  switch (t) {
    case 'string':
      return `CAST(to_json(${expr}) AS VARCHAR)`;
    case 'date':
      return `CAST(to_json(strftime(${expr}, '%Y-%m-%d')) AS VARCHAR)`;
    // The protocol's timestamp stats: ISO-8601 with milliseconds; `timestamp` in UTC with Z.
    case 'timestamp':
      return `CAST(to_json(strftime(timezone('UTC', ${expr}), '%Y-%m-%dT%H:%M:%S.%gZ')) AS VARCHAR)`;
    case 'timestamp_ntz':
      return `CAST(to_json(strftime(${expr}, '%Y-%m-%dT%H:%M:%S.%g')) AS VARCHAR)`;
    case 'double':
    case 'float':
      // NaN and infinities have no JSON spelling; such a bound is left out, as Spark does.
      return `CASE WHEN isfinite(${expr}) THEN CAST(${expr} AS VARCHAR) END`;
    default:
      // integers and decimals: DuckDB's text form is a valid JSON number (decimals keep their scale).
      return `CAST(${expr} AS VARCHAR)`;
  }
}

export interface StatsColumns {
  /** Data columns (not partition columns) in file order. */
  dataColumns: { name: string; type: DataType }[];
}

/** Select-list items computing the stats of the rows of one group; aliases `_s_n`, `_s_nc<i>`, `_s_mn<i>`, `_s_mx<i>`. */
export function statsSelectList(cols: StatsColumns): string {
  const items = ['count(*) AS _s_n'];
  cols.dataColumns.forEach((c, i) => {
    const id = sqlIdent(c.name);
    // Nested columns get no stats (Delta records those per leaf; readers treat absence as unknown).
    if (typeof c.type !== 'string') return;
    items.push(`count(*) - count(${id}) AS _s_nc${i}`);
    if (hasMinMax(c.type)) {
      items.push(`${jsonValueSql(`min(${id})`, c.type)} AS _s_mn${i}`);
      items.push(`${jsonValueSql(`max(${id})`, c.type)} AS _s_mx${i}`);
    }
  });
  return items.join(', ');
}

/** The stats JSON string from one row of the stats select list. */
export function statsJson(cols: StatsColumns, row: Record<string, unknown>): string {
  const mins: string[] = [];
  const maxs: string[] = [];
  const nulls: string[] = [];
  cols.dataColumns.forEach((c, i) => {
    const key = JSON.stringify(c.name);
    if (typeof c.type !== 'string') return;
    nulls.push(`${key}:${Number(row[`_s_nc${i}`])}`);
    const mn = row[`_s_mn${i}`];
    const mx = row[`_s_mx${i}`];
    if (typeof mn === 'string' && typeof mx === 'string') {
      mins.push(`${key}:${mn}`);
      maxs.push(`${key}:${mx}`);
    }
  });
  // Assembled as text so decimals keep their exact digits (a JS number would round them).
  return `{"numRecords":${Number(row._s_n)},"minValues":{${mins.join(',')}},"maxValues":{${maxs.join(',')}},"nullCount":{${nulls.join(',')}}}`;
}

export function dataColumnsOf(schema: StructType, partitionColumns: string[]): StatsColumns {
  return { dataColumns: schema.fields.filter((f) => !partitionColumns.includes(f.name)).map((f) => ({ name: f.name, type: f.type })) };
}
