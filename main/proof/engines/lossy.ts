// TEST DOUBLES, not engines: each wraps the arrow engine and damages the data on write in one
// known way, so the tests (and `LAKEREC_PROOF_TEST_ENGINES=1 lakerec proof`) can show that the
// proof catches exactly what it claims to. Never offered in the window or the CLI's help.
import * as A from 'apache-arrow';
import { META_SENSITIVITY } from '../../../shared/sensitivity';
import { buildData, buildTable, tableRows, type Cell } from '../cells';
import { throwIfCancelled } from '../../../shared/jobs';
import { arrowEngine, writeArrowTable } from './arrow';
import type { Engine } from './types';

function mapColumns(table: A.Table, f: (field: A.Field, cells: Cell[]) => { field: A.Field; cells: Cell[] }): A.Table {
  const rows = tableRows(table);
  const cols = table.schema.fields.map((field, i) => f(field, rows.map((r) => r[i])));
  const schema = new A.Schema(cols.map((c) => c.field));
  return buildTable(schema, rows.map((_, r) => cols.map((c) => c.cells[r])));
}

/** pandas' default conversion: a NaN comes back as a null. */
export function nanToNull(table: A.Table): A.Table {
  return mapColumns(table, (field, cells) => ({
    field,
    cells: field.type.typeId === A.Type.Float ? cells.map((c) => (typeof c === 'number' && Number.isNaN(c) ? null : c)) : cells,
  }));
}

/** A decimal with more than 2 digits of scale narrowed to scale 2 (rounded half away from zero). */
export function narrowDecimals(table: A.Table): A.Table {
  return mapColumns(table, (field, cells) => {
    if (field.type.typeId !== A.Type.Decimal || (field.type as A.Decimal).scale <= 2) return { field, cells };
    const t = field.type as A.Decimal;
    const div = 10n ** BigInt(t.scale - 2);
    const round = (v: bigint): bigint => { const q = v / div; const r = v % div; return 2n * (r < 0n ? -r : r) >= div ? q + (v < 0n ? -1n : 1n) : q; };
    return {
      field: new A.Field(field.name, new A.Decimal(2, t.precision, 128), field.nullable, field.metadata),
      cells: cells.map((c) => (c === null ? null : round(c as bigint))),
    };
  });
}

/**
 * Timestamps coerced to int64 nanoseconds (pandas' datetime64[ns], Spark's INT96 as delta-rs
 * reads it): values before 1677-09-21 or after 2262-04-11 wrap around.
 */
export function coerceToNanos(table: A.Table): A.Table {
  const rows = tableRows(table);
  const fields = table.schema.fields.map((f) => (f.type.typeId === A.Type.Timestamp
    ? new A.Field(f.name, new A.Timestamp(A.TimeUnit.NANOSECOND, (f.type as A.Timestamp).timezone), f.nullable, f.metadata)
    : f));
  const schema = new A.Schema(fields);
  const children = fields.map((f, i) => {
    const cells = rows.map((r) => r[i]);
    if (f.type.typeId !== A.Type.Timestamp) return buildData(f.type, cells);
    const micro = buildData(table.schema.fields[i].type, cells);
    const data = BigInt64Array.from(cells, (c) => (c === null ? 0n : BigInt.asIntN(64, (c as bigint) * 1000n)));
    return A.makeData({ type: f.type as A.Timestamp, length: cells.length, nullCount: micro.nullCount, nullBitmap: micro.nullBitmap, data } as never);
  });
  const data = A.makeData({ type: new A.Struct(fields), length: rows.length, nullCount: 0, children });
  return new A.Table(schema, [new A.RecordBatch(schema, data)]);
}

/** Column tags and descriptions dropped (what Polars, pandas and Spark did with Parquet). */
export function dropTags(table: A.Table): A.Table {
  return mapColumns(table, (field, cells) => ({ field: new A.Field(field.name, field.type, field.nullable, new Map()), cells }));
}

/** Every sensitivity tag written as `public`: tags present, but weaker than declared. */
export function weakenSensitivity(table: A.Table): A.Table {
  return mapColumns(table, (field, cells) => {
    const meta = new Map(field.metadata);
    if (meta.has(META_SENSITIVITY)) meta.set(META_SENSITIVITY, 'public');
    return { field: new A.Field(field.name, field.type, field.nullable, meta), cells };
  });
}

function lossy(name: string, what: string, damage: (t: A.Table) => A.Table): Engine {
  return {
    name,
    description: `TEST DOUBLE: the arrow engine, but ${what}`,
    engineInfoPrefix: `lakerec-${name}/`,
    readerFeatures: arrowEngine.readerFeatures,
    testOnly: true,
    async write(root, table, ctx) {
      throwIfCancelled(ctx);
      return writeArrowTable(root, damage(table), `lakerec-${name}/test-double`);
    },
    read: (root, ctx) => arrowEngine.read(root, ctx),
  };
}

export const lossyEngines: Engine[] = [
  lossy('lossy-nan', 'a NaN is written as a null', nanToNull),
  lossy('lossy-decimal', 'decimals are narrowed to scale 2', narrowDecimals),
  lossy('lossy-nanos', 'timestamps are written as nanoseconds (wrapping outside 1677-2262)', coerceToNanos),
  lossy('lossy-tags', 'column tags and descriptions are dropped', dropTags),
  lossy('lossy-sensitivity', 'sensitivity tags are weakened to public', weakenSensitivity),
];
