// A reconcile with one side in a warehouse (or both): each side's partials are computed where
// that side lives (the warehouse through its connector; the local side by the DuckDB connector over
// the files lakerec lists, running the same pushed SQL in DuckDB's dialect, which the tests prove
// equal to the local engine's). Only partials move: per-partition counts, checksums and key
// digests, then key-level rows of the partitions that disagree, capped.
import { LakerecError } from '../../shared/errors';
import { LEVELS, levelIndex, type Level } from '../../shared/reconcile';
import { throwIfCancelled, report, type JobContext } from '../../shared/jobs';
import type { Contract } from '../reconcile/contract';
import { compareFamily } from '../reconcile/canonical';
import { exactSumToNumber, exactSumsEqual } from '../reconcile/checksum';
import type { Connector } from './connector';
import type { Dialect, WarehouseColumn } from './dialect';
import { derivePartitionSide } from './derive';
import { DEFAULT_ROW_CAP, type PushSide } from './levels';
import { comparable, hex, tableSum } from './partials';
import { PushLog, pushedChecksum, pushedCounts, pushedKeyDigests, pushedRows, pushedSchema, type PushedRow, type RanStatement } from './run';

export interface WarehouseSide {
  connector: Connector;
  /** The relation as that engine knows it. */
  relation: string;
  /** Shown in the report: "main.sales.orders on databricks prod", "/data/orders (local files)". */
  label: string;
  /** Columns as the local engine would type them (DuckDB names); read with DESCRIBE when not given. */
  columns?: WarehouseColumn[];
}

export interface WarehousePartition {
  partition: string;
  sourceRows: string | null;
  targetRows: string | null;
  sourceChecksum: string | null;
  targetChecksum: string | null;
  sourceKeys: string | null;
  targetKeys: string | null;
  state: 'match' | 'rows_differ' | 'content_differs' | 'only_in_source' | 'only_in_target';
}

export interface WarehouseKeyDiff {
  partitions: string[];
  /** Keys (canonical text) in the source only, the target only, in both with another row digest. */
  missing: string[];
  extra: string[];
  changed: string[];
  /** A side had more rows than the cap in these partitions: the lists are partial. */
  capped: boolean;
  cap: number;
}

export interface WarehouseReconcileResult {
  level: Level;
  digest: string;
  /** The source side's dialect (the key text is read by it). */
  sourceDialect: Dialect;
  source: { label: string; where: string; columns: WarehouseColumn[] };
  target: { label: string; where: string; columns: WarehouseColumn[] };
  schema: { compared: string[]; onlyInSource: string[]; onlyInTarget: string[]; typeChanges: { column: string; source: string; target: string }[] };
  partitions: WarehousePartition[];
  floats: { column: string; partition: string; source: string; target: string; agree: boolean }[];
  sourceTotal: { rows: string; checksum: string | null } | null;
  targetTotal: { rows: string; checksum: string | null } | null;
  keyDiff: WarehouseKeyDiff | null;
  /** The key-level rows fetched (disagreeing partitions only, capped): the evidence the modes are named from. */
  keyRows: { source: PushedRow[]; target: PushedRow[] } | null;
  /** Every statement, where it ran, its SQL identity, query id and bytes back. */
  ran: RanStatement[];
  bytesTransferred: number;
  verdict: 'matches' | 'diverges';
  exitCode: 0 | 1;
  notes: string[];
}

/** The columns a side's engine has, typed as DuckDB names them (the warehouse's own type names mapped by family). */
export function duckTypeOf(engineType: string, dialect: string): string {
  const t = engineType.trim().toUpperCase();
  // Spark's TIMESTAMP is an instant (its TIMESTAMP_NTZ the wall clock); Trino's and Snowflake's are wall clocks.
  if (dialect === 'spark' && /^TIMESTAMP(_LTZ)?$/.test(t)) return 'TIMESTAMP WITH TIME ZONE';
  if (/^(TINYINT|SMALLINT|INT|INTEGER|BIGINT|LONG|SHORT|BYTE|HUGEINT)$/.test(t)) return 'BIGINT';
  const dec = /^(?:DECIMAL|NUMERIC|NUMBER)\((\d+),\s*(\d+)\)$/.exec(t);
  if (dec) return Number(dec[2]) === 0 && t.startsWith('NUMBER') ? 'BIGINT' : `DECIMAL(${dec[1]},${dec[2]})`;
  if (/^(STRING|TEXT)$/.test(t) || t.startsWith('VARCHAR') || t.startsWith('CHAR')) return 'VARCHAR';
  if (/^(BOOLEAN|BOOL)$/.test(t)) return 'BOOLEAN';
  if (t === 'DATE') return 'DATE';
  if (/^(TIMESTAMP_NTZ|DATETIME)/.test(t) || /^TIMESTAMP(\(\d\))?( WITHOUT TIME ZONE)?$/.test(t)) return 'TIMESTAMP';
  if (/^(TIMESTAMP_LTZ|TIMESTAMP_TZ|TIMESTAMPTZ)/.test(t) || /^TIMESTAMP(\(\d\))? WITH TIME ZONE$/.test(t)) return 'TIMESTAMP WITH TIME ZONE';
  if (/^TIME(\(\d\))?( WITHOUT TIME ZONE)?$/.test(t)) return 'TIME';
  if (t === 'UUID') return 'UUID';
  if (/^(DOUBLE|FLOAT|REAL|FLOAT4|FLOAT8|DOUBLE PRECISION)/.test(t)) return 'DOUBLE';
  if (/^(BINARY|VARBINARY|BLOB|BYTEA)/.test(t)) return 'BLOB';
  return engineType;
}

async function columnsOf(side: WarehouseSide, contract: Contract, isSource: boolean, log: PushLog, ctx?: JobContext): Promise<WarehouseColumn[]> {
  if (side.columns) return side.columns;
  const described = await pushedSchema(side.connector, { dialect: side.connector.dialect, relation: side.relation, columns: [], contract, isSource }, log, { signal: ctx?.signal });
  return described.map((c) => ({ name: c.name, type: side.connector.dialect === 'duckdb' ? c.type : duckTypeOf(c.type, side.connector.dialect) }));
}

function typesCompare(a: string, b: string, naiveIsUtc: boolean): boolean {
  const fa = compareFamily(a, naiveIsUtc);
  const fb = compareFamily(b, naiveIsUtc);
  if (fa !== fb) return false;
  if (fa === 'decimal') return /,\s*(\d+)\)/.exec(a)?.[1] === /,\s*(\d+)\)/.exec(b)?.[1];
  return true;
}

export async function warehouseReconcile(opts: { source: WarehouseSide; target: WarehouseSide; contract: Contract; level?: Level; rowCap?: number; ctx?: JobContext }): Promise<WarehouseReconcileResult> {
  const level = opts.level ?? 'keys';
  if (!LEVELS.includes(level)) throw new LakerecError('usage', `unknown level "${String(level)}"; one of ${LEVELS.join(', ')}`);
  const at = levelIndex(level);
  const { contract, ctx } = opts;
  const cap = opts.rowCap ?? DEFAULT_ROW_CAP;
  const log = new PushLog();
  const notes: string[] = [];
  report(ctx, { phase: 'schema', done: 0, total: 5 });
  // A side without the partition column derives it by the contract's expression, in its own dialect.
  const src = await derivePartitionSide({ dialect: opts.source.connector.dialect, relation: opts.source.relation, columns: await columnsOf(opts.source, contract, true, log, ctx) }, contract, true);
  const tgt = await derivePartitionSide({ dialect: opts.target.connector.dialect, relation: opts.target.relation, columns: await columnsOf(opts.target, contract, false, log, ctx) }, contract, false);
  const srcCols = src.columns;
  const tgtCols = tgt.columns;
  const renamed = (n: string) => contract.renames[n] ?? n;
  const ignore = new Set(contract.ignore);
  const srcT = new Map(srcCols.map((c) => [renamed(c.name), c.type]));
  const tgtT = new Map(tgtCols.map((c) => [c.name, c.type]));
  const both = [...tgtT.keys()].filter((n) => srcT.has(n) && !ignore.has(n));
  const typeChanges = both.filter((n) => !typesCompare(srcT.get(n)!, tgtT.get(n)!, contract.naiveIsUtc)).map((n) => ({ column: n, source: srcT.get(n)!, target: tgtT.get(n)! }));
  const compared = both.filter((n) => !typeChanges.some((t) => t.column === n)).sort();
  const schema = {
    compared,
    onlyInSource: [...srcT.keys()].filter((n) => !tgtT.has(n) && !ignore.has(n)),
    onlyInTarget: [...tgtT.keys()].filter((n) => !srcT.has(n) && !ignore.has(n)),
    typeChanges,
  };
  const sSide: PushSide = { dialect: opts.source.connector.dialect, relation: src.relation, columns: srcCols, contract, isSource: true, compared };
  const tSide: PushSide = { dialect: opts.target.connector.dialect, relation: tgt.relation, columns: tgtCols, contract, compared };
  const q = { signal: ctx?.signal };

  const partitions = new Map<string, WarehousePartition>();
  const row = (l: string): WarehousePartition => {
    let p = partitions.get(l);
    if (!p) { p = { partition: l, sourceRows: null, targetRows: null, sourceChecksum: null, targetChecksum: null, sourceKeys: null, targetKeys: null, state: 'match' }; partitions.set(l, p); }
    return p;
  };
  let sourceTotal: WarehouseReconcileResult['sourceTotal'] = null;
  let targetTotal: WarehouseReconcileResult['targetTotal'] = null;
  const floats: WarehouseReconcileResult['floats'] = [];
  let keyDiff: WarehouseKeyDiff | null = null;
  let keyRows: WarehouseReconcileResult['keyRows'] = null;

  if (at >= levelIndex('counts') && at < levelIndex('checksum')) {
    throwIfCancelled(ctx);
    report(ctx, { phase: 'counts', done: 1, total: 5 });
    const sc = await pushedCounts(opts.source.connector, sSide, log, q);
    const tc = await pushedCounts(opts.target.connector, tSide, log, q);
    for (const [l, n] of sc) row(l).sourceRows = n.toString();
    for (const [l, n] of tc) row(l).targetRows = n.toString();
    sourceTotal = { rows: [...sc.values()].reduce((a, b) => a + b, 0n).toString(), checksum: null };
    targetTotal = { rows: [...tc.values()].reduce((a, b) => a + b, 0n).toString(), checksum: null };
  }
  if (at >= levelIndex('checksum')) {
    throwIfCancelled(ctx);
    report(ctx, { phase: 'checksum', done: 2, total: 5 });
    // The checksum statement carries the counts: one scan per side.
    const s = await pushedChecksum(opts.source.connector, sSide, log, q);
    const t = await pushedChecksum(opts.target.connector, tSide, log, q);
    const why = comparable(s.partials, t.partials);
    if (why) throw new LakerecError('usage', why);
    for (const p of s.partials.partitions.values()) Object.assign(row(p.partition), { sourceRows: p.rows.toString(), sourceChecksum: hex(p.sum) });
    for (const p of t.partials.partitions.values()) Object.assign(row(p.partition), { targetRows: p.rows.toString(), targetChecksum: hex(p.sum) });
    const st = tableSum(s.partials);
    const tt = tableSum(t.partials);
    sourceTotal = { rows: st.rows.toString(), checksum: hex(st.sum) };
    targetTotal = { rows: tt.rows.toString(), checksum: hex(tt.sum) };
    for (const [col, sm] of s.floats) {
      const tcol = renamed(col);
      const tm = t.floats.get(tcol) ?? new Map();
      const rule = contract.floats[tcol];
      const tol = rule && rule !== 'exclude' ? rule.tolerance : 0;
      for (const l of [...new Set([...sm.keys(), ...tm.keys()])].sort()) {
        const a = sm.get(l);
        const b = tm.get(l);
        const av = a ? exactSumToNumber(a.s) : 0;
        const bv = b ? exactSumToNumber(b.s) : 0;
        const n = Math.max(a?.n ?? 0, b?.n ?? 0);
        const agree = (a && b && exactSumsEqual(a.s, b.s)) || Object.is(av, bv) || Math.abs(av - bv) <= tol * n;
        floats.push({ column: tcol, partition: l, source: String(av), target: String(bv), agree });
      }
    }
  }
  if (at >= levelIndex('keys')) {
    throwIfCancelled(ctx);
    report(ctx, { phase: 'key digests', done: 3, total: 5 });
    const sk = await pushedKeyDigests(opts.source.connector, sSide, log, q);
    const tk = await pushedKeyDigests(opts.target.connector, tSide, log, q);
    for (const p of sk.partitions.values()) row(p.partition).sourceKeys = hex(p.sum);
    for (const p of tk.partitions.values()) row(p.partition).targetKeys = hex(p.sum);
  }
  for (const p of partitions.values()) {
    if (p.sourceRows === null && p.targetRows !== null) p.state = 'only_in_target';
    else if (p.targetRows === null && p.sourceRows !== null) p.state = 'only_in_source';
    else if (p.sourceRows !== p.targetRows) p.state = 'rows_differ';
    else if (p.sourceChecksum !== p.targetChecksum || p.sourceKeys !== p.targetKeys) p.state = 'content_differs';
  }
  const floatBad = new Set(floats.filter((f) => !f.agree).map((f) => f.partition));
  const disagreeing = [...partitions.values()].filter((p) => p.state !== 'match' || floatBad.has(p.partition)).map((p) => p.partition).sort();
  if (at >= levelIndex('keys') && disagreeing.length > 0) {
    throwIfCancelled(ctx);
    report(ctx, { phase: `key-level rows of ${disagreeing.length} partition(s)`, done: 4, total: 5 });
    // Only the partitions that disagree, capped: the rest of the table does not move.
    const sr = await pushedRows(opts.source.connector, sSide, disagreeing, log, cap, q);
    const tr = await pushedRows(opts.target.connector, tSide, disagreeing, log, cap, q);
    keyRows = { source: sr.rows, target: tr.rows };
    const sm = new Map(sr.rows.map((r) => [r.key, r.digest]));
    const tm = new Map(tr.rows.map((r) => [r.key, r.digest]));
    keyDiff = {
      partitions: disagreeing,
      missing: [...sm.keys()].filter((k) => !tm.has(k)),
      extra: [...tm.keys()].filter((k) => !sm.has(k)),
      changed: [...sm.keys()].filter((k) => tm.has(k) && tm.get(k) !== sm.get(k)),
      capped: sr.capped || tr.capped,
      cap,
    };
    if (keyDiff.capped) notes.push(`more than ${cap} rows in the disagreeing partitions on a side: the key lists are the first ${cap} keys only`);
    const dupes = sr.rows.length - sm.size + (tr.rows.length - tm.size);
    if (dupes > 0) notes.push(`${dupes} row(s) share a key with another row in the disagreeing partitions`);
  }
  report(ctx, { phase: 'done', done: 5, total: 5 });
  const diverges = disagreeing.length > 0 || schema.typeChanges.length > 0 || floats.some((f) => !f.agree);
  return {
    level, digest: 'md5-canonical-v1', sourceDialect: opts.source.connector.dialect,
    source: { label: opts.source.label, where: opts.source.connector.describe(), columns: srcCols },
    target: { label: opts.target.label, where: opts.target.connector.describe(), columns: tgtCols },
    schema, partitions: [...partitions.values()].sort((a, b) => (a.partition < b.partition ? -1 : 1)), floats, sourceTotal, targetTotal, keyDiff, keyRows,
    ran: log.ran, bytesTransferred: log.bytes, verdict: diverges ? 'diverges' : 'matches', exitCode: diverges ? 1 : 0, notes,
  };
}
