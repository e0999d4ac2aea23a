// Perturbations of one input column and the detection of what they changed, as the seed defines
// them: shifted (x * a + b on numbers, a suffix on strings, days added to dates), set to NULL,
// and shuffled between rows with a seeded permutation (Sattolo's: every row gets another row's
// value). An output column changed when its multiset of values changed; when values only moved
// between rows, it is compared paired with the output columns claimed not to depend on the
// input (those whose own values did not change, so one changed column does not drag others); when an output column identifies rows, rows are matched across runs by it, so a change
// is seen even when the perturbation also adds or removes rows.
import type { DuckDBType } from '@duckdb/node-api';
import { mulberry32 } from '../../shared/random';
import type { PerturbationKind } from '../../shared/lineage';
import { sqlIdent, sqlString } from '../engine/duck';

export interface Shift { a: number; b: number; suffix: string; days: number }

/** The shift a seed gives: the same seed, the same constants. */
export function shiftFor(seed: number): Shift {
  const r = mulberry32(seed ^ 0x5eed);
  const a = [2, 3, 5, 7][Math.floor(r() * 4)];
  const b = 1 + Math.floor(r() * 97);
  const days = 1 + Math.floor(r() * 400);
  return { a, b, suffix: `~${(seed >>> 0).toString(36)}`, days };
}

/** A seed for one input column's permutation, from the run's seed and the column's name. */
export function columnSeed(seed: number, input: string, column: string): number {
  let h = (seed >>> 0) ^ 0x9e3779b9;
  for (const ch of `${input}\u0000${column}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h >>> 0;
}

/** A cyclic permutation of 0..n-1 (no row keeps its own value), from the seed. */
export function sattolo(n: number, seed: number): number[] {
  const p = Array.from({ length: n }, (_, i) => i);
  const r = mulberry32(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * i);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

const NUMERIC = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT', 'FLOAT', 'DOUBLE', 'DECIMAL']);

/** The shifted value of `x` (of type `t`), or null when the type has no shift (a list, a blob). */
export function shiftExpr(x: string, t: DuckDBType, s: Shift): string | null {
  const id = t.typeId;
  const name = typeName(t);
  const base = name.replace(/\(.*$/, '');
  if (NUMERIC.has(base)) return `TRY_CAST(${x} * ${s.a} + ${s.b} AS ${name})`;
  if (base === 'VARCHAR') return `(${x} || ${sqlString(s.suffix)})`;
  if (base === 'DATE') return `CAST(${x} + INTERVAL ${s.days} DAY AS DATE)`;
  if (base.startsWith('TIMESTAMP')) return `CAST(${x} + INTERVAL ${s.days} DAY AS ${name})`;
  if (base === 'TIME') return `CAST(${x} + INTERVAL ${s.b} MINUTE AS TIME)`;
  if (base === 'BOOLEAN') return `(NOT ${x})`;
  void id;
  return null;
}

export function typeName(t: DuckDBType): string {
  return t.toString();
}

/** One perturbation target: a top-level column, or one field of a struct column. */
export interface Target {
  column: string;
  /** The struct field path under the column ([] for the whole column). */
  field: string[];
  type: DuckDBType;
}

/** The targets of an input: every column, and every field of a struct column (nested fields too). */
export function targetsOf(names: string[], types: DuckDBType[]): Target[] {
  const out: Target[] = [];
  const add = (column: string, field: string[], t: DuckDBType) => {
    out.push({ column, field, type: t });
    const st = t as unknown as { entryNames?: string[]; entryTypes?: DuckDBType[] };
    if (t.typeId === STRUCT_ID && st.entryNames && st.entryTypes) st.entryNames.forEach((n, i) => add(column, [...field, n], st.entryTypes![i]));
  };
  names.forEach((n, i) => add(n, [], types[i]));
  return out;
}
// DuckDBTypeId.STRUCT
const STRUCT_ID = 15;

/** The lineage name of a target: `col` or `col.field`. */
export const targetName = (t: Target) => [t.column, ...t.field].join('.');

/**
 * The SELECT list item that replaces target's column in a perturbed copy. `b` is the row's
 * alias, `v` the alias of the row a shuffle takes its value from.
 */
export function perturbedColumn(t: Target, kind: PerturbationKind, s: Shift, colType: DuckDBType): string | null {
  const leaf = (alias: string) => [alias, sqlIdent(t.column), ...t.field.map(sqlIdent)].join('.');
  let value: string | null;
  if (kind === 'null') value = `CAST(NULL AS ${typeName(t.type)})`;
  else if (kind === 'shuffle') value = leaf('v');
  else value = shiftExpr(leaf('b'), t.type, s);
  if (value === null) return null;
  return rebuild(['b', sqlIdent(t.column)].join('.'), colType, t.field, value);
}

/** `x` (of type `t`) with the field at `path` replaced by `value`; a NULL struct stays NULL. */
function rebuild(x: string, t: DuckDBType, path: string[], value: string): string {
  if (path.length === 0) return value;
  const st = t as unknown as { entryNames: string[]; entryTypes: DuckDBType[] };
  const parts = st.entryNames.map((n, i) => {
    const fx = `${x}.${sqlIdent(n)}`;
    const v = n === path[0] ? rebuild(fx, st.entryTypes[i], path.slice(1), value) : fx;
    return `${sqlIdent(n)} := ${v}`;
  });
  return `CASE WHEN ${x} IS NULL THEN NULL ELSE CAST(struct_pack(${parts.join(', ')}) AS ${typeName(t)}) END`;
}

// ---- detection ----

/** A result: column names and rows of canonical cell text (null for SQL NULL). */
export interface ResultRows { names: string[]; rows: (string | null)[][] }

export interface Change {
  /** Output columns whose values changed. */
  columns: Set<string>;
  /** Whether the rows themselves changed: their number, or (matched by a key) which keys there are. */
  rows: boolean;
}

/** Output columns whose values identify rows in `r`: no NULL, no repeat. */
export function identifyingColumns(r: ResultRows): number[] {
  const out: number[] = [];
  r.names.forEach((_, i) => {
    const seen = new Set<string>();
    for (const row of r.rows) {
      const v = row[i];
      if (v === null || seen.has(v)) return;
      seen.add(v);
    }
    if (r.rows.length > 0) out.push(i);
  });
  return out;
}

const multiset = (rows: (string | null)[][], idx: number[]): Map<string, number> => {
  const m = new Map<string, number>();
  for (const row of rows) {
    const k = JSON.stringify(idx.map((i) => row[i]));
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
};
const sameMultiset = (a: Map<string, number>, b: Map<string, number>) => a.size === b.size && [...a].every(([k, n]) => b.get(k) === n);

/**
 * What changed between the baseline and a perturbed run. `independent(o)` says whether output
 * column o is claimed not to depend on the perturbed input column; `keys` are the baseline's
 * identifying columns (a key is used only when claimed independent and still identifying).
 */
export function detect(base: ResultRows, pert: ResultRows, independent: (col: string) => boolean, keys: number[]): Change & { key: string | null } {
  const columns = new Set<string>();
  const names = base.names;
  const keyIdx = keys.find((k) => independent(names[k]) && identifyingColumns({ names: [names[k]], rows: pert.rows.map((r) => [r[k]]) }).length === 1) ?? null;
  let rows = base.rows.length !== pert.rows.length;
  let matched: { b: (string | null)[]; p: (string | null)[] }[] | null = null;
  if (keyIdx !== null) {
    const pm = new Map(pert.rows.map((r) => [r[keyIdx] as string, r]));
    matched = [];
    for (const b of base.rows) {
      const p = pm.get(b[keyIdx] as string);
      if (p) matched.push({ b, p });
    }
    if (matched.length !== base.rows.length || matched.length !== pert.rows.length) rows = true;
  }
  // Anchors for the paired comparison: claimed independent, and their own values unchanged.
  const moved = names.map((_, i) => !sameMultiset(multiset(base.rows, [i]), multiset(pert.rows, [i])));
  const indep = names.map((n, i) => (independent(n) && !moved[i] ? i : -1)).filter((i) => i >= 0);
  names.forEach((name, i) => {
    if (matched && (rows || i === keyIdx)) {
      // Rows came or went: compare the rows both runs have, by key.
      if (i !== keyIdx && matched.some(({ b, p }) => b[i] !== p[i])) columns.add(name);
      return;
    }
    if (moved[i]) { columns.add(name); return; }
    if (rows) return;
    // Same multiset: did values move between rows? Pair with the columns claimed independent.
    const pair = indep.filter((j) => j !== i);
    if (pair.length && !sameMultiset(multiset(base.rows, [i, ...pair]), multiset(pert.rows, [i, ...pair]))) { columns.add(name); return; }
    if (matched && matched.some(({ b, p }) => b[i] !== p[i])) columns.add(name);
  });
  return { columns, rows, key: keyIdx === null ? null : names[keyIdx] };
}
