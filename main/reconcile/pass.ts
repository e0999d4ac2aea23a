// The one pass over a side: each row becomes (partition, keys, digest, ...) in a DuckDB temp
// table, read once; the float columns' exact per-partition sums come from those tables.
import type { DuckDBConnection } from '@duckdb/node-api';
import { LakerecError } from '../../shared/errors';
import { throwIfCancelled, type JobContext } from '../../shared/jobs';
import { levelIndex, type BaselineUse, type FloatColumnResult, type Level } from '../../shared/reconcile';
import { sqlIdent } from '../engine/duck';
import type { ActiveFile } from '../delta/types';
import { compareFamily, rowDigestHalves, type DigestMode } from './canonical';
import {
  addGroup, addScaled, combineHalves, emptyExactSum, exactSumToNumber, floatBoundsAggregates, floatPartsSql, floatScale, scaledSumAggregates, toHex128, type ExactSum,
} from './checksum';
import { contractError, type Contract } from './contract';
import { baselineFor, type Baseline, type InheritedPartition, type StoredFloatSum } from './baseline';
import type { SchemaLevel, StoredColumns } from './levels';
import type { Tally } from './result';
import { normaliseType, registerTargetView, type TargetSide } from './sides';
import { exec, execWithProgress, label, num, orderingSql, rows, sideProgress, text, uncast, type PartitionSpec } from './sql';

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
  opts: {
    append?: boolean; aggregateOnly?: boolean; onProgress?: (fraction: number) => void;
    /** The view parses text (CSV, JSON lines): read it once, so float bounds come from a narrow per-row table. */
    rowFormat?: boolean;
  } = {},
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
  try {
    if (opts.aggregateOnly && opts.rowFormat && spec.floatCols.length > 0) {
      // A text source parsed twice would cost a second parse: its rows go once into a narrow
      // per-row table (partition, digest halves, floats), which the bounds and the sums then read.
      const rowsTable = `${side.table}_rows`;
      await execWithProgress(conn, `CREATE OR REPLACE TEMP TABLE ${rowsTable} AS SELECT p, h1, h2${spec.floatCols.map((_, i) => `, f${i}`).join('')} FROM (${q})`, opts.onProgress);
      const fa = await aggregateFloats(conn, { table: side.table, view: rowsTable, partSql: 'p' }, spec.floatCols.map((_, i) => `f${i}`));
      q = `SELECT CAST(p AS VARCHAR) AS p, n, hi, lo${fa.outer} FROM (SELECT p, count(*) AS n, sum(h1) AS hi, sum(h2) AS lo${fa.aggs} FROM ${rowsTable} GROUP BY p)`;
    } else if (opts.aggregateOnly) {
      // Floats summed while reading too: each column's scale from a bounds query over this side
      // first (a scan of the float columns alone); a column too wide for one scale is summed by
      // exponent groups into its own table (side.table + '_fg' + i). ADR 0003.
      const fa = await aggregateFloats(conn, side, spec.floatCols);
      q = `SELECT CAST(p AS VARCHAR) AS p, n, hi, lo${fa.outer} FROM (SELECT p, count(*) AS n, sum(h1) AS hi, sum(h2) AS lo${fa.aggs} FROM (${q}) GROUP BY p)`;
    }
    await execWithProgress(conn, opts.append ? `INSERT INTO ${side.table} BY NAME ${q}` : `CREATE OR REPLACE TEMP TABLE ${side.table} AS ${q}`, opts.onProgress);
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0];
    if (side.table === 'lk_s') throw new LakerecError('source_unreadable', `cannot read the source: ${msg}`);
    throw new LakerecError('io_error', `cannot read the target's data: ${msg}`);
  }
}

/**
 * The float columns' part of an aggregating pass: the scaled-sum aggregates and their output
 * columns (emin{i} is the column's scale, NULL where it is summed by exponent groups instead, in
 * `${side.table}_fg${i}`, which this builds).
 */
async function aggregateFloats(
  conn: DuckDBConnection, side: { table: string; view: string; partSql: string }, floatCols: string[],
): Promise<{ aggs: string; outer: string }> {
  if (floatCols.length === 0) return { aggs: '', outer: '' };
  const f = (i: number) => `f${i}`;
  const vals = `(SELECT ${floatCols.map((c, i) => `CAST(${sqlIdent(c)} AS DOUBLE) AS ${f(i)}`).join(', ')} FROM ${sqlIdent(side.view)})`;
  const b = (await rows(conn, `SELECT count(*) AS n, ${floatCols.map((_, i) => floatBoundsAggregates(f(i), i)).join(', ')} FROM ${vals}`))[0];
  const bound = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  let aggs = '';
  let outer = '';
  for (let i = 0; i < floatCols.length; i++) {
    const sc = floatScale(bound(b[`lo${i}`]), bound(b[`hi${i}`]), num(b.n));
    if (sc) {
      aggs += `, ${scaledSumAggregates(f(i), sc.shift, i)}`;
      outer += `, ms${i}, nan${i}, pinf${i}, ninf${i}, CAST(${sc.emin} AS INTEGER) AS emin${i}`;
    } else {
      outer += `, CAST(NULL AS INTEGER) AS emin${i}`;
      const fp = floatPartsSql(`_lk_f${i}`);
      await exec(conn, `CREATE OR REPLACE TEMP TABLE ${side.table}_fg${i} AS SELECT CAST(p AS VARCHAR) AS p, e, special, ms, n FROM (
        SELECT p, e, special, sum(CAST(m AS HUGEINT)) AS ms, count(*) AS n FROM (SELECT ${uncast(side.partSql)} AS p, ${fp.e} AS e, ${fp.m} AS m, ${fp.special} AS special
          FROM (SELECT *, CAST(${sqlIdent(floatCols[i])} AS DOUBLE) AS _lk_f${i} FROM ${sqlIdent(side.view)})) GROUP BY ALL)`);
    }
  }
  return { aggs, outer };
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
 * One bounds query over both tables picks each column's scale (checksum.ts: floatScale); the
 * columns that have one are summed as scaled HUGEINTs in one aggregate per side, the rest by
 * exponent groups (floatPartsSql). Both are exact; ADR 0003 has the figures.
 */
export async function floatSums(
  conn: DuckDBConnection, floatCols: string[], contract: Contract, part: PartitionSpec, inherited: Map<string, InheritedPartition>,
  /** The tables are the aggregating pass's per-partition rows (materialise's aggregateOnly), not per-row tables. */
  aggregated = false,
): Promise<{ results: FloatColumnResult[]; target: Map<string, Record<string, StoredFloatSum>> }> {
  const out: FloatColumnResult[] = [];
  const stored = new Map<string, Record<string, StoredFloatSum>>();
  if (floatCols.length === 0) return { results: out, target: stored };
  const f = (i: number) => `f${i}`;
  const scales: ({ emin: number; shift: number } | null)[] = floatCols.map(() => null);
  if (!aggregated) {
    const both = `(SELECT ${floatCols.map((_, i) => f(i)).join(', ')} FROM lk_s UNION ALL SELECT ${floatCols.map((_, i) => f(i)).join(', ')} FROM lk_t)`;
    const b = (await rows(conn, `SELECT count(*) AS n, ${floatCols.map((_, i) => floatBoundsAggregates(f(i), i)).join(', ')} FROM ${both}`))[0];
    const bound = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    floatCols.forEach((_, i) => { scales[i] = floatScale(bound(b[`lo${i}`]), bound(b[`hi${i}`]), num(b.n)); });
  }
  const side = async (table: string) => {
    const per = floatCols.map(() => new Map<string, { s: ExactSum; n: number }>());
    const at = (i: number, l: string) => {
      let cur = per[i].get(l);
      if (!cur) { cur = { s: emptyExactSum(), n: 0 }; per[i].set(l, cur); }
      return cur;
    };
    if (aggregated) {
      // The pass summed each column in its own scale per side (emin{i}), or into ${table}_fg{i}.
      const wide = new Set<number>();
      for (const r of await rows(conn, `SELECT * FROM ${table}`)) {
        const l = label(part.column, text(r.p));
        for (let i = 0; i < floatCols.length; i++) {
          if (r[`emin${i}`] === null || r[`emin${i}`] === undefined) { wide.add(i); continue; }
          const cur = at(i, l);
          cur.n += num(r.n);
          addScaled(cur.s, num(r[`emin${i}`]), r[`ms${i}`], num(r[`nan${i}`]), num(r[`pinf${i}`]), num(r[`ninf${i}`]));
        }
      }
      for (const i of wide) {
        for (const r of await rows(conn, `SELECT p, e, special, ms, n FROM ${table}_fg${i}`)) addExponentGroup(at(i, label(part.column, text(r.p))), r);
      }
      return per;
    }
    const fast = floatCols.map((_, i) => i).filter((i) => scales[i] !== null);
    if (fast.length) {
      const aggs = fast.map((i) => scaledSumAggregates(f(i), scales[i]!.shift, i)).join(', ');
      // Grouped by the stored partition value; only the groups become text.
      for (const r of await rows(conn, `SELECT * REPLACE (CAST(p AS VARCHAR) AS p) FROM (SELECT p, count(*) AS n, ${aggs} FROM ${table} GROUP BY p)`)) {
        const l = label(part.column, text(r.p));
        for (const i of fast) {
          const cur = at(i, l);
          cur.n += num(r.n);
          addScaled(cur.s, scales[i]!.emin, r[`ms${i}`], num(r[`nan${i}`]), num(r[`pinf${i}`]), num(r[`ninf${i}`]));
        }
      }
    }
    for (let i = 0; i < floatCols.length; i++) {
      if (scales[i] !== null) continue;
      const fp = floatPartsSql(f(i));
      const q = `SELECT CAST(p AS VARCHAR) AS p, e, special, ms, n FROM (SELECT p, e, special, sum(CAST(m AS HUGEINT)) AS ms, count(*) AS n FROM (SELECT p, ${fp.e} AS e, ${fp.m} AS m, ${fp.special} AS special FROM ${table}) GROUP BY ALL)`;
      for (const r of await rows(conn, q)) addExponentGroup(at(i, label(part.column, text(r.p))), r);
    }
    return per;
  };
  const sAll = await side('lk_s');
  const tAll = await side('lk_t');
  for (let i = 0; i < floatCols.length; i++) {
    const col = floatCols[i];
    const rule = contract.floats[col];
    const s = sAll[i];
    const t = tAll[i];
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
        const bb = exactSumToNumber(t.get(l)?.s ?? emptyExactSum());
        const n = Math.max(s.get(l)?.n ?? 0, t.get(l)?.n ?? 0);
        const agree = Object.is(a, bb) || (Number.isNaN(a) && Number.isNaN(bb)) || Math.abs(a - bb) <= tol * n;
        return { partition: l, source: String(a), target: String(bb), agree };
      }),
    });
  }
  return { results: out, target: stored };
}

/** One row of an exponent-groups query (p, e, special, ms, n) added to a partition's exact sum. */
function addExponentGroup(cur: { s: ExactSum; n: number }, r: Record<string, unknown>): void {
  cur.n += num(r.n);
  if (r.special === 'nan') cur.s.nan += num(r.n);
  else if (r.special === '+inf') cur.s.posInf += num(r.n);
  else if (r.special === '-inf') cur.s.negInf += num(r.n);
  else if (r.e !== null && r.e !== undefined) addGroup(cur.s, Number(r.e), BigInt(String(r.ms)));
}

/** The pass's plan: which columns go into the digest, which are compared as exact float sums. */
export interface PassPlan {
  pass: PassSpec;
  digestCols: string[];
  floatCols: string[];
  /** The checksum level alone needs only per-partition sums: no per-row table is kept. */
  aggregateOnly: boolean;
  /** What decides a stored checksum besides the contract and the digest identity (baseline.ts). */
  hashForms: string[];
}

export function planPass(contract: Contract, s: SchemaLevel, mode: DigestMode, level: Level): PassPlan {
  const { schema, part, srcType, tgtType } = s;
  const compared = schema.compared.filter((c) => !schema.typeChanges.some((t) => t.column === c));
  const floatCols = compared.filter((c) => compareFamily(tgtType.get(c)!, false) === 'float' || compareFamily(srcType.get(c)!, false) === 'float');
  const digestCols = compared.filter((c) => !floatCols.includes(c)).sort();
  // The checksum level alone needs only per-partition sums: aggregate while reading, keep no
  // per-row table (floats too: their exact sums are aggregated in the same pass).
  const aggregateOnly = level === 'checksum';
  const rawHash = new Set(digestCols.filter((c) => normaliseType(srcType.get(c)!) === normaliseType(tgtType.get(c)!)));
  const pc = part.column;
  // The source's type name: one DuckDB printed (DESCRIBE), never the log's text.
  const partitionType = pc !== null && srcType.has(pc) && tgtType.has(pc) && normaliseType(srcType.get(pc)!) === normaliseType(tgtType.get(pc)!) ? srcType.get(pc)! : null;
  const pass: PassSpec = { contract, digestCols, floatCols, mode, rawHash, partitionType };
  const hashForms = mode === 'fast' ? digestCols.map((c) => `${c}:${rawHash.has(c) ? 'raw' : 'typed'}`) : [];
  return { pass, digestCols, floatCols, aggregateOnly, hashForms };
}

/** At checksum and deeper every float needs a rule, and the ordering column must exist on both sides. */
export function checkPassContract(contract: Contract, plan: PassPlan, s: SchemaLevel): void {
  const { srcType, tgtType } = s;
  for (const f of plan.floatCols) {
    if (!contract.floats[f]) {
      throw new LakerecError('contract_mismatch',
        `column "${f}" is a float: a bit-exact hash would flag rounding noise, so the contract must say what equal means (columns: { ${f}: { float: { tolerance: 1.0e-9 } } } or { float: exclude })`);
    }
  }
  if (contract.ordering && (!srcType.has(contract.ordering) || !tgtType.has(contract.ordering))) {
    throw contractError(contract, 'ordering', `ordering column "${contract.ordering}" is not a column of the ${srcType.has(contract.ordering) ? 'target' : 'source'}`);
  }
}

/** What the checksum level found; `inherited` and `floatDisagrees` feed the key diff. */
export interface ChecksumLevel {
  floats: FloatColumnResult[];
  targetFloats: Map<string, Record<string, StoredFloatSum>>;
  sourceTotal: bigint;
  targetTotal: bigint;
  baselineUse: BaselineUse | null;
  inherited: Map<string, InheritedPartition>;
  floatDisagrees: (partitionLabel: string) => boolean;
}

/**
 * The checksum level: which target partitions a baseline lets us inherit, the target's one pass,
 * both sides' per-partition checksums and float sums; an inherited partition that disagrees is
 * re-read when the key diff follows.
 */
export async function checksumLevel(
  conn: DuckDBConnection, ctx: JobContext | undefined, tally: Tally,
  run: {
    level: Level; contract: Contract; target: TargetSide; schema: SchemaLevel; plan: PassPlan; digest: string;
    baselinePath: string | null; baselineIn: Baseline | null; sourceSumRows: Record<string, unknown>[] | null;
  },
): Promise<ChecksumLevel> {
  const { contract, target, plan, digest } = run;
  const { part, tgtType } = run.schema;
  const { pass, aggregateOnly, digestCols, floatCols, hashForms } = plan;
  const { partitions, getP, reads, notes } = tally;
  const at = levelIndex(run.level);
  let baselineUse: BaselineUse | null = null;
  // ---- baseline: which target partitions can be inherited ----
  let readFiles: ActiveFile[] = target.snapshot.files;
  let inherited = new Map<string, InheritedPartition>();
  if (run.baselinePath) {
    const b = baselineFor(run.baselineIn, { contract, target, part, digestCols, floatCols, canonical: digest, hashForms });
    baselineUse = { path: run.baselinePath, inherited: [], reread: [], refused: b.refused };
    if (!b.refused) {
      inherited = b.inherited;
      readFiles = target.snapshot.files.filter((f) => !inherited.has(label(part.column, f.partitionValues[part.column!] ?? null)));
    } else {
      notes.push(`baseline not used: ${b.refused}`);
    }
  }

  const tgtTotal = readFiles.every((f) => f.numRecords !== null) ? readFiles.reduce((a, f) => a + (f.numRecords ?? 0), 0) : null;
  const onProgress = sideProgress(ctx, 'hashing the target', tgtTotal);
  await registerTargetView(conn, target, 'lk_tgt_read', readFiles, false);
  await materialise(conn, { table: 'lk_t', view: 'lk_tgt_read', partSql: part.targetSql, types: tgtType }, pass, { aggregateOnly, onProgress });
  reads.targetFilesRead = readFiles.length;
  throwIfCancelled(ctx);

  const sums = async (table: string, known: Record<string, unknown>[] | null) => {
    const out = new Map<string, { n: number; sum: bigint }>();
    const q = aggregateOnly ? `SELECT p, n, hi, lo FROM ${table}` : sumsSql(table, pass);
    for (const r of known ?? await rows(conn, q)) {
      out.set(label(part.column, text(r.p)), { n: num(r.n), sum: combineHalves(r.hi as bigint | null, r.lo as bigint | null) });
    }
    return out;
  };
  const sSums = await sums('lk_s', run.sourceSumRows);
  const tSums = await sums('lk_t', null);
  for (const [l, v] of sSums) {
    const p = partitions.get(l) ?? getP(l.slice(l.indexOf('=') + 1));
    p.sourceRows = v.n;
    p.sourceChecksum = toHex128(v.sum);
  }
  const sourceTotal = [...sSums.values()].reduce((a, v) => (a + v.sum) % (1n << 128n), 0n);
  let tgtRead = 0;
  for (const [l, v] of tSums) {
    const p = partitions.get(l) ?? getP(l.slice(l.indexOf('=') + 1));
    p.targetRows = v.n;
    p.targetChecksum = toHex128(v.sum);
    tgtRead += v.n;
  }
  for (const [l, v] of inherited) {
    const p = partitions.get(l) ?? getP(l.slice(l.indexOf('=') + 1));
    p.targetRows = v.rows;
    p.targetChecksum = v.checksum;
    p.inherited = true;
    reads.targetRowsAvoided += v.rows;
  }
  // Partitions present on one side only still have a checksum (of nothing) on the other.
  for (const p of partitions.values()) {
    if (p.sourceChecksum === null) p.sourceChecksum = toHex128(0n);
    if (p.targetChecksum === null) p.targetChecksum = toHex128(0n);
  }
  let fs = await floatSums(conn, floatCols, contract, part, inherited, aggregateOnly);
  const floatDisagrees = (l: string) => fs.results.some((f) => f.partitions.some((x) => x.partition === l && !x.agree));
  // An inherited partition that disagrees with the source must be read for the key diff.
  if (baselineUse && at >= levelIndex('keys')) {
    const reread = [...inherited.keys()].filter((l) => partitions.get(l)!.sourceChecksum !== partitions.get(l)!.targetChecksum || floatDisagrees(l));
    if (reread.length) {
      const files = target.snapshot.files.filter((f) => reread.includes(label(part.column, f.partitionValues[part.column!] ?? null)));
      await registerTargetView(conn, target, 'lk_tgt_reread', files, false);
      await materialise(conn, { table: 'lk_t', view: 'lk_tgt_reread', partSql: part.targetSql, types: tgtType }, pass, { append: true });
      reads.targetFilesRead += files.length;
      for (const l of reread) {
        const p = partitions.get(l)!;
        p.inherited = false;
        reads.targetRowsAvoided -= p.targetRows;
        tgtRead += p.targetRows;
        inherited.delete(l);
      }
      fs = await floatSums(conn, floatCols, contract, part, inherited);
    }
    baselineUse.reread = [...partitions.keys()].filter((l) => !inherited.has(l));
  }
  if (baselineUse) {
    baselineUse.inherited = [...inherited.keys()];
    if (!baselineUse.reread.length) baselineUse.reread = [...partitions.keys()].filter((l) => !inherited.has(l));
    notes.push(`baseline: ${inherited.size} partition(s) inherited, ${reads.targetRowsAvoided.toLocaleString('en-US')} target row(s) not read; the source has no log and was re-read in full (${reads.sourceRowsRead.toLocaleString('en-US')} rows)`);
  }
  reads.targetRowsRead = tgtRead;
  const targetTotal = [...partitions.values()].reduce((a, p) => (a + BigInt('0x' + (p.targetChecksum ?? '0'))) % (1n << 128n), 0n);
  throwIfCancelled(ctx);
  return { floats: fs.results, targetFloats: fs.target, sourceTotal, targetTotal, baselineUse, inherited, floatDisagrees };
}
