// Keys and relationships verified on the data. A key is confirmed when no value repeats and none is
// null (one count query over the files; where it fails, a second pass finds the repeats, the files
// that hold them and the commits that added those files). Without a contract key, candidates are
// inferred cheaply: the log's null counts and approximate distinct counts first, the exact check on
// the few candidates. A relationship is confirmed when every non-null value of the referring column
// is found in the referenced key and that key is confirmed.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { LakerecError } from '../../shared/errors';
import { throwIfCancelled, report, type JobContext } from '../../shared/jobs';
import { columnTags, isSensitivity, maskValue, sensitivityRank, type Sensitivity } from '../../shared/sensitivity';
import type { CandidateKey, KeyCheck, KeyRepeat, KeysResult, RelationshipCheck, RowProvenance } from '../../shared/trust';
import { openDuck, sqlIdent, sqlString, interruptOnAbort } from '../engine/duck';
import { registerSnapshotView } from '../delta/scan';
import { openTable } from '../delta/open';
import { contractError, loadContract, type Contract } from '../reconcile/contract';
import { openSource, openTarget, parquetFilesUnder, registerTargetView, type TargetSide } from '../reconcile/sides';
import { provenanceIndex, type ProvenanceIndex } from './provenance';

export interface KeysOptions {
  table: string;
  version?: number;
  contract?: Contract | string | null;
  /** Also verify the keys on the source of truth. */
  source?: string | null;
  cwd?: string;
  ctx?: JobContext;
  /** Example values per failed check (default 5). */
  exampleLimit?: number;
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** A contract with nothing but defaults (opening a source needs one for renames and timestamps). */
function emptyContract(): Contract {
  return {
    version: 1, name: 'contract', path: null, sha256: null, keys: [], partitioning: null, floats: {}, naiveIsUtc: false,
    lateness: null, ordering: null, ignore: [], renames: {}, tags: {}, relationships: [], laws: null, lines: {},
  };
}

/** Column sensitivities from the contract's tags and the table's schema tags (the stricter wins). */
export function columnSensitivity(contract: Contract | null, fields: { name: string; metadata?: Record<string, unknown> }[]): Record<string, Sensitivity> {
  const out: Record<string, Sensitivity> = {};
  const put = (c: string, s: Sensitivity | null) => { if (s && (!out[c] || sensitivityRank(s) > sensitivityRank(out[c]))) out[c] = s; };
  for (const f of fields) put(f.name, columnTags(f.metadata).sensitivity);
  for (const [c, t] of Object.entries(contract?.tags ?? {})) put(c, isSensitivity(t.sensitivity) ? t.sensitivity : null);
  return out;
}

function keyLabel(cols: string[], values: (string | null)[], sens: Record<string, Sensitivity>): string {
  return cols.map((c, i) => `${c}=${values[i] === null ? 'null' : maskValue(sens[c] ?? null, values[i]!)}`).join(', ');
}

async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Record<string, unknown>[];
}

/**
 * One key on one relation. `prov` (a view with _lakerec_file/_lakerec_row, and the table's commit
 * index) is used only when the key fails, to say where the repeats and nulls are.
 */
export async function checkKey(
  conn: DuckDBConnection, view: string, cols: string[], side: 'table' | 'source', sens: Record<string, Sensitivity>,
  prov: { view: string; index: ProvenanceIndex } | null, limit = 5,
): Promise<KeyCheck> {
  const k = cols.map(sqlIdent);
  const anyNull = k.map((c) => `${c} IS NULL`).join(' OR ');
  const tuple = k.length === 1 ? k[0] : `(${k.join(', ')})`;
  // The cheap question first: the same cost as count(*), count(distinct k), count(k).
  // One column: exactly DuckDB's count(*), count(DISTINCT k), count(k) (both counts skip nulls).
  const sql = k.length === 1
    ? `SELECT count(*) AS n, count(*) - count(${k[0]}) AS nulls, count(DISTINCT ${k[0]}) AS d FROM ${sqlIdent(view)}`
    : `SELECT count(*) AS n, count(*) FILTER (WHERE ${anyNull}) AS nulls, count(DISTINCT ${tuple}) FILTER (WHERE NOT (${anyNull})) AS d FROM ${sqlIdent(view)}`;
  const [s] = await rows(conn, sql);
  const n = num(s.n), nulls = num(s.nulls), distinct = num(s.d);
  const check: KeyCheck = { columns: cols, side, status: 'confirmed', rows: n, nullRows: nulls, distinct, repeatedKeys: 0, extraRows: n - nulls - distinct, examples: [], nullExamples: [], note: null };
  if (n === 0) return { ...check, status: 'not_checked', note: 'the relation has no rows' };
  if (nulls === 0 && distinct === n) return check;
  check.status = 'failed';
  const src = prov ? prov.view : view;
  const cast = k.map((c, i) => `CAST(${c} AS VARCHAR) AS _k${i}`).join(', ');
  if (check.extraRows > 0) {
    const [r] = await rows(conn, `SELECT count(*) AS keys FROM (SELECT ${k.join(', ')} FROM ${sqlIdent(view)} WHERE NOT (${anyNull}) GROUP BY ALL HAVING count(*) > 1)`);
    check.repeatedKeys = num(r.keys);
    const where = prov ? `, list({'f': _lakerec_file, 'r': _lakerec_row} ORDER BY _lakerec_file, _lakerec_row)[1:10] AS at` : '';
    const ex = await rows(conn, `SELECT ${cast}, count(*) AS c${where} FROM ${sqlIdent(src)} WHERE NOT (${anyNull}) GROUP BY ALL HAVING count(*) > 1 ORDER BY c DESC, ${k.map((_c, i) => `_k${i}`).join(', ')} LIMIT ${limit}`);
    check.examples = ex.map((r): KeyRepeat => ({
      key: keyLabel(cols, cols.map((_c, i) => (r[`_k${i}`] === null ? null : String(r[`_k${i}`]))), sens),
      rows: num(r.c),
      where: prov ? (r.at as { f: string; r: number | bigint }[]).map((x): RowProvenance => prov.index.rowOf(String(x.f), Number(x.r))) : [],
    }));
  }
  if (nulls > 0 && prov) {
    const ex = await rows(conn, `SELECT _lakerec_file AS f, _lakerec_row AS r FROM ${sqlIdent(prov.view)} WHERE ${anyNull} ORDER BY f, r LIMIT ${limit}`);
    check.nullExamples = ex.map((r) => prov.index.rowOf(String(r.f), Number(r.r)));
  }
  return check;
}

const KEYABLE = /^(BIGINT|INTEGER|SMALLINT|TINYINT|UBIGINT|UINTEGER|USMALLINT|UTINYINT|HUGEINT|VARCHAR|DATE|TIMESTAMP.*|DECIMAL.*|UUID|BLOB)$/;

/** Candidate keys: single columns, then pairs, unique and never null on the data. */
export async function inferCandidates(conn: DuckDBConnection, view: string, t: TargetSide): Promise<CandidateKey[]> {
  const cols = t.columns.filter((c) => KEYABLE.test(c.type)).map((c) => c.name);
  // The log's null counts rule columns out without reading a row.
  const hasNulls = new Set<string>();
  for (const f of t.snapshot.files) {
    const nc = f.stats?.nullCount as Record<string, unknown> | undefined;
    if (nc) for (const c of cols) if (typeof nc[c] === 'number' && (nc[c] as number) > 0) hasNulls.add(c);
  }
  const open = cols.filter((c) => !hasNulls.has(c));
  if (open.length === 0) return [];
  const [a] = await rows(conn, `SELECT count(*) AS n, ${open.map((c, i) => `approx_count_distinct(${sqlIdent(c)}) AS a${i}, count(${sqlIdent(c)}) AS c${i}`).join(', ')} FROM ${sqlIdent(view)}`);
  const n = num(a.n);
  if (n === 0) return [];
  const approx = open.map((c, i) => ({ c, a: num(a[`a${i}`]), full: num(a[`c${i}`]) === n })).filter((x) => x.full);
  const out: CandidateKey[] = [];
  // HyperLogLog can be off by 10% and more on small tables: anything within 20% of n is checked exactly.
  for (const x of approx.filter((y) => y.a >= n * 0.8).sort((p, q) => q.a - p.a).slice(0, 8)) {
    const [e] = await rows(conn, `SELECT count(DISTINCT ${sqlIdent(x.c)}) AS d FROM ${sqlIdent(view)}`);
    if (num(e.d) === n) out.push({ columns: [x.c], approxDistinct: x.a, exact: true });
  }
  if (out.length > 0) return out;
  const top = approx.sort((p, q) => q.a - p.a).slice(0, 6);
  const pairs: [string, string][] = [];
  for (let i = 0; i < top.length; i++) for (let j = i + 1; j < top.length; j++) pairs.push([top[i].c, top[j].c]);
  if (pairs.length === 0) return [];
  const [pa] = await rows(conn, `SELECT ${pairs.map(([p, q], i) => `approx_count_distinct((${sqlIdent(p)}, ${sqlIdent(q)})) AS p${i}`).join(', ')} FROM ${sqlIdent(view)}`);
  const ranked = pairs.map((p, i) => ({ p, a: num(pa[`p${i}`]) })).filter((x) => x.a >= n * 0.8).sort((x, y) => y.a - x.a).slice(0, 4);
  for (const x of ranked) {
    const [e] = await rows(conn, `SELECT count(DISTINCT (${sqlIdent(x.p[0])}, ${sqlIdent(x.p[1])})) AS d FROM ${sqlIdent(view)}`);
    if (num(e.d) === n) out.push({ columns: [...x.p], approxDistinct: x.a, exact: true });
  }
  return out;
}

function parquetFiles(path: string): string[] {
  return statSync(path).isDirectory() ? parquetFilesUnder(path) : [path];
}

/** Registers the referenced relation of a relationship (a Delta table or Parquet file/folder) as `view`. */
async function openReferenced(conn: DuckDBConnection, path: string, view: string): Promise<void> {
  if (!existsSync(path)) throw new LakerecError('source_unreadable', `referenced table ${path} does not exist`, { path });
  if (statSync(path).isDirectory() && existsSync(join(path, '_delta_log'))) {
    const snap = await (await openTable(path)).snapshot();
    await registerSnapshotView(conn, snap, view, {});
    return;
  }
  const files = parquetFiles(path);
  if (files.length === 0) throw new LakerecError('source_unreadable', `referenced folder ${path} holds no .parquet file`, { path });
  try {
    await conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(view)} AS SELECT * FROM read_parquet([${files.map(sqlString).join(', ')}], union_by_name = true)`);
  } catch (e) {
    throw new LakerecError('source_unreadable', `referenced table ${path} cannot be read: ${(e as Error).message.split('\n')[0]}`, { path });
  }
}

export async function verifyKeys(opts: KeysOptions): Promise<KeysResult> {
  const started = Date.now();
  const ctx = opts.ctx;
  const cwd = opts.cwd ?? process.cwd();
  const limit = opts.exampleLimit ?? 5;
  const contract = opts.contract ? (typeof opts.contract === 'string' ? loadContract(opts.contract) : opts.contract) : null;
  const duck = await openDuck({ threads: 2 });
  const detach = interruptOnAbort(duck.conn, ctx?.signal);
  try {
    const conn = duck.conn;
    report(ctx, { phase: 'reading the table log', done: 0, total: null });
    const target = await openTarget(resolve(cwd, opts.table), opts.version);
    await registerTargetView(conn, target, 'lk_keys_t', undefined, false);
    const names = target.columns.map((c) => c.name);
    const sens = columnSensitivity(contract, target.snapshot.schema.fields as { name: string; metadata?: Record<string, unknown> }[]);
    const declared = contract?.keys ?? [];
    for (const k of declared) {
      if (!names.includes(k)) throw contractError(contract!, 'keys', `key column "${k}" is not a column of the table (${names.join(', ')})`);
    }
    let index: ProvenanceIndex | null = null;
    const prov = async () => {
      if (!index) {
        index = await provenanceIndex(target.table, target.snapshot);
        await registerSnapshotView(conn, target.snapshot, 'lk_keys_tp', { provenance: true });
      }
      return { view: 'lk_keys_tp', index };
    };
    const keys: KeyCheck[] = [];
    let candidates: CandidateKey[] | null = null;
    if (declared.length > 0) {
      throwIfCancelled(ctx);
      report(ctx, { phase: 'checking the key on the table', done: 0, total: null });
      let kc = await checkKey(conn, 'lk_keys_t', declared, 'table', sens, null, limit);
      if (kc.status === 'failed') kc = await checkKey(conn, 'lk_keys_t', declared, 'table', sens, await prov(), limit);
      keys.push(kc);
      if (opts.source) {
        throwIfCancelled(ctx);
        report(ctx, { phase: 'checking the key on the source', done: 0, total: null });
        const src = await openSource(conn, opts.source, cwd, contract ?? emptyContract(), target, 'lk_keys_s');
        const missing = declared.filter((k) => !src.columns.some((c) => c.name === k));
        keys.push(missing.length > 0
          ? { columns: declared, side: 'source', status: 'not_checked', rows: 0, nullRows: 0, distinct: 0, repeatedKeys: 0, extraRows: 0, examples: [], nullExamples: [], note: `the source has no column ${missing.join(', ')}` }
          : await checkKey(conn, 'lk_keys_s', declared, 'source', sens, null, limit));
      }
    } else {
      report(ctx, { phase: 'inferring candidate keys', done: 0, total: null });
      candidates = await inferCandidates(conn, 'lk_keys_t', target);
    }

    const relationships: RelationshipCheck[] = [];
    const base = contract?.path ? dirname(resolve(cwd, contract.path)) : cwd;
    for (const rel of contract?.relationships ?? []) {
      throwIfCancelled(ctx);
      report(ctx, { phase: `checking ${rel.column} -> ${rel.references.column}`, done: relationships.length, total: contract!.relationships.length });
      if (!names.includes(rel.column)) throw contractError(contract!, 'relationships', `relationship column "${rel.column}" is not a column of the table`);
      const refPath = resolve(base, rel.references.path);
      const view = `lk_keys_ref${relationships.length}`;
      await openReferenced(conn, refPath, view);
      const refCols = (await rows(conn, `DESCRIBE ${sqlIdent(view)}`)).map((r) => String(r.column_name));
      const out: RelationshipCheck = {
        column: rel.column, references: { path: rel.references.path, column: rel.references.column }, declared: rel.cardinality, observed: null,
        status: 'not_checked', rows: 0, nullRows: 0, danglingRows: 0, danglingValues: 0, examples: [],
        referencedKey: { status: 'not_checked', rows: 0, distinct: 0, nullRows: 0 }, note: null,
      };
      if (!refCols.includes(rel.references.column)) {
        relationships.push({ ...out, note: `${refPath} has no column ${rel.references.column}` });
        continue;
      }
      const rk = await checkKey(conn, view, [rel.references.column], 'source', {}, null, 0);
      out.referencedKey = { status: rk.status, rows: rk.rows, distinct: rk.distinct, nullRows: rk.nullRows };
      const c = sqlIdent(rel.column);
      const [s] = await rows(conn, `SELECT count(${c}) AS n, count(*) - count(${c}) AS nulls, count(DISTINCT ${c}) AS d FROM lk_keys_t`);
      out.rows = num(s.n);
      out.nullRows = num(s.nulls);
      out.observed = out.rows === 0 ? null : num(s.d) === out.rows ? 'one_to_one' : 'many_to_one';
      try {
        // A null refers to nothing, so it is not counted against the relationship.
        const anti = `FROM lk_keys_t t ANTI JOIN (SELECT DISTINCT ${sqlIdent(rel.references.column)} AS v FROM ${sqlIdent(view)} WHERE ${sqlIdent(rel.references.column)} IS NOT NULL) r ON t.${c} = r.v WHERE t.${c} IS NOT NULL`;
        const [d] = await rows(conn, `SELECT count(*) AS n, count(DISTINCT t.${c}) AS d ${anti}`);
        out.danglingRows = num(d.n);
        out.danglingValues = num(d.d);
        if (out.danglingRows > 0) {
          const ex = await rows(conn, `SELECT DISTINCT CAST(t.${c} AS VARCHAR) AS v ${anti} ORDER BY 1 LIMIT ${limit}`);
          out.examples = ex.map((r) => maskValue(sens[rel.column] ?? null, String(r.v)));
        }
      } catch (e) {
        relationships.push({ ...out, note: `the two columns cannot be compared: ${(e as Error).message.split('\n')[0]}` });
        continue;
      }
      const found = out.danglingRows === 0;
      out.status = found && rk.status === 'confirmed' ? 'confirmed' : out.rows === 0 ? 'not_checked' : 'failed';
      const notes: string[] = [];
      if (rk.status !== 'confirmed') notes.push(`the referenced ${rel.references.column} is not a confirmed key (${rk.nullRows} null, ${rk.extraRows} repeated row(s))`);
      if (rel.cardinality === 'one_to_one' && out.observed === 'many_to_one') notes.push(`declared one-to-one, but ${rel.column} repeats: it holds as many-to-one; one-to-one is declared, not verified`);
      if (out.danglingRows > 0) notes.push(`${out.danglingValues} value(s) in ${out.danglingRows} row(s) are found in no ${rel.references.column}`);
      if (out.rows === 0) notes.push(`${rel.column} has no non-null value`);
      out.note = notes.length > 0 ? notes.join('; ') : null;
      relationships.push(out);
    }
    const counted = keys.filter((k) => k.status !== 'not_checked');
    return {
      table: target.root,
      version: target.snapshot.version,
      source: opts.source ?? null,
      declared,
      keys,
      candidates,
      relationships,
      summary: {
        keysConfirmed: counted.filter((k) => k.status === 'confirmed').length,
        keysFailed: counted.filter((k) => k.status === 'failed').length,
        relationshipsConfirmed: relationships.filter((r) => r.status === 'confirmed').length,
        relationshipsFailed: relationships.filter((r) => r.status === 'failed').length,
        notChecked: keys.filter((k) => k.status === 'not_checked').length + relationships.filter((r) => r.status === 'not_checked').length,
      },
      durationMs: Date.now() - started,
    };
  } finally {
    detach();
    duck.close();
  }
}

