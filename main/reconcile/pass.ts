// The one pass over a side: each row becomes (partition, keys, digest, ...) in a DuckDB temp
// table, read once; the float columns' exact per-partition sums come from those tables.
import type { DuckDBConnection } from '@duckdb/node-api';
import { LakerecError } from '../../shared/errors';
import type { FloatColumnResult } from '../../shared/reconcile';
import { sqlIdent } from '../engine/duck';
import { rowDigestHalves, type DigestMode } from './canonical';
import { addGroup, emptyExactSum, exactSumToNumber, floatPartsSql, type ExactSum } from './checksum';
import type { Contract } from './contract';
import type { StoredColumns } from './keydiff';
import type { InheritedPartition, StoredFloatSum } from './baseline';
import { execWithProgress, label, num, orderingSql, rows, text, uncast, type PartitionSpec } from './sql';

/** What the one pass computes, the same for both sides of a run. */
export interface PassSpec {
  contract: Contract;
  /** Columns in the row digest, sorted (floats are compared by exact sums instead). */
  digestCols: string[];
  floatCols: string[];
  mode: DigestMode;
  /** Columns of the same type on both sides: the fast digest hashes them as stored, no cast. */
  rawHash: Set<string>;
  /** The partition column's type when it is one type on both sides (stored typed: text is made per group, not per row), else null. */
  partitionType: string | null;
}

/** What the per-row tables hold besides (p, keys, h1): md5's second half; the ordering value. */
export function storedColumns(spec: PassSpec): StoredColumns {
  return { h2: spec.mode === 'md5', o: spec.contract.ordering !== null && spec.contract.ordering !== undefined, pType: spec.partitionType };
}

/** Per-partition rows and digest sums of a per-row table (p as text). */
export function sumsSql(table: string, spec: PassSpec): string {
  return `SELECT CAST(p AS VARCHAR) AS p, n, hi, lo FROM (SELECT p, count(*) AS n, sum(h1) AS hi, sum(${storedColumns(spec).h2 ? 'h2' : 'hash(h1)'}) AS lo FROM ${table} GROUP BY p)`;
}

/**
 * The one pass over a side: (partition, keys, digest, [md5's second half], [ordering], [float
 * values]) into a temp table, or, at checksum level without floats, straight into per-partition
 * sums. The digest is computed once per row. The same narrow table serves keys and rows: no
 * per-column data and no provenance are kept per row; which columns differ and the example rows
 * come from the changed rows fetched back by key afterwards (keydiff.ts).
 * `onProgress` gets the fraction of the scan done (DuckDB's query progress).
 */
export async function materialise(
  conn: DuckDBConnection, side: { table: string; view: string; partSql: string; types: Map<string, string> }, spec: PassSpec,
  opts: { append?: boolean; aggregateOnly?: boolean; onProgress?: (fraction: number) => void } = {},
): Promise<void> {
  const { contract } = spec;
  const cols = spec.digestCols.map((c) => ({ name: c, type: side.types.get(c)!, raw: spec.rawHash.has(c) }));
  const dg = rowDigestHalves(cols, contract.naiveIsUtc, spec.mode);
  const stored = storedColumns(spec);
  // Aggregating: group by the typed partition value and turn only the few groups into text.
  const sel: string[] = [`${opts.aggregateOnly || spec.partitionType !== null ? uncast(side.partSql) : side.partSql} AS p`];
  contract.keys.forEach((k, i) => sel.push(`${sqlIdent(k)} AS k${i}`));
  sel.push(`${dg.inner} AS _lk_d`);
  if (stored.o) sel.push(`${orderingSql(contract.ordering!, side.types.get(contract.ordering!)!)} AS o`);
  spec.floatCols.forEach((f, i) => sel.push(`CAST(${sqlIdent(f)} AS DOUBLE) AS f${i}`));
  // The digest once per row in the inner select, split into halves outside. The fast digest's
  // h2 is hash(h1): computed where it is summed, not stored per row.
  const h2 = opts.aggregateOnly || stored.h2 ? `, ${dg.h2} AS h2` : '';
  let q = `SELECT * EXCLUDE (_lk_d), ${dg.h1} AS h1${h2} FROM (SELECT ${sel.join(', ')} FROM ${sqlIdent(side.view)})`;
  if (opts.aggregateOnly) q = `SELECT CAST(p AS VARCHAR) AS p, n, hi, lo FROM (SELECT p, count(*) AS n, sum(h1) AS hi, sum(h2) AS lo FROM (${q}) GROUP BY p)`;
  try {
    await execWithProgress(conn, opts.append ? `INSERT INTO ${side.table} BY NAME ${q}` : `CREATE OR REPLACE TEMP TABLE ${side.table} AS ${q}`, opts.onProgress);
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0];
    if (side.table === 'lk_s') throw new LakerecError('source_unreadable', `cannot read the source: ${msg}`);
    throw new LakerecError('io_error', `cannot read the target's data: ${msg}`);
  }
}

export function toStored(v: { s: ExactSum; n: number }): StoredFloatSum {
  return { n: v.n, groups: Object.fromEntries([...v.s.groups].map(([e, m]) => [String(e), m.toString()])), nan: v.s.nan, posInf: v.s.posInf, negInf: v.s.negInf };
}

export function fromStored(f: StoredFloatSum): { s: ExactSum; n: number } {
  const s = emptyExactSum();
  for (const [e, m] of Object.entries(f.groups)) addGroup(s, Number(e), BigInt(m));
  s.nan = f.nan;
  s.posInf = f.posInf;
  s.negInf = f.negInf;
  return { s, n: f.n };
}

/**
 * Exact per-partition sums of each float column on both sides (inherited target partitions take
 * their sums from the baseline). Also returns the target's sums in stored form, for a baseline.
 */
export async function floatSums(
  conn: DuckDBConnection, floatCols: string[], contract: Contract, part: PartitionSpec, inherited: Map<string, InheritedPartition>,
): Promise<{ results: FloatColumnResult[]; target: Map<string, Record<string, StoredFloatSum>> }> {
  const out: FloatColumnResult[] = [];
  const stored = new Map<string, Record<string, StoredFloatSum>>();
  for (let i = 0; i < floatCols.length; i++) {
    const col = floatCols[i];
    const rule = contract.floats[col];
    const fp = floatPartsSql(`f${i}`);
    const side = async (table: string) => {
      const m = new Map<string, { s: ExactSum; n: number }>();
      const q = `SELECT p, e, special, sum(CAST(m AS HUGEINT)) AS ms, count(*) AS n FROM (SELECT CAST(p AS VARCHAR) AS p, ${fp.e} AS e, ${fp.m} AS m, ${fp.special} AS special FROM ${table}) GROUP BY ALL`;
      for (const r of await rows(conn, q)) {
        const l = label(part.column, text(r.p));
        const cur = m.get(l) ?? { s: emptyExactSum(), n: 0 };
        cur.n += num(r.n);
        if (r.special === 'nan') cur.s.nan += num(r.n);
        else if (r.special === '+inf') cur.s.posInf += num(r.n);
        else if (r.special === '-inf') cur.s.negInf += num(r.n);
        else if (r.e !== null) addGroup(cur.s, Number(r.e), BigInt(String(r.ms)));
        m.set(l, cur);
      }
      return m;
    };
    const s = await side('lk_s');
    const t = await side('lk_t');
    for (const [l, inh] of inherited) if (inh.floats[col]) t.set(l, fromStored(inh.floats[col]));
    for (const [l, v] of t) stored.set(l, { ...(stored.get(l) ?? {}), [col]: toStored(v) });
    const labels = [...new Set([...s.keys(), ...t.keys()])].sort();
    const tol = rule === 'exclude' ? 0 : rule.tolerance;
    out.push({
      column: col,
      rule: rule === 'exclude' ? 'exclude' : 'tolerance',
      tolerance: rule === 'exclude' ? null : rule.tolerance,
      partitions: labels.map((l) => {
        const a = exactSumToNumber(s.get(l)?.s ?? emptyExactSum());
        const b = exactSumToNumber(t.get(l)?.s ?? emptyExactSum());
        const n = Math.max(s.get(l)?.n ?? 0, t.get(l)?.n ?? 0);
        const agree = Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= tol * n;
        return { partition: l, source: String(a), target: String(b), agree };
      }),
    });
  }
  return { results: out, target: stored };
}
