// The levels that read no target data: the schema comparison and the partition spec (schema),
// and what the log alone says at counts level: per-partition row counts from add-action stats,
// null keys from nullCount, partitions removed by a commit, late partitions, repeated files.
import type { DuckDBConnection } from '@duckdb/node-api';
import { LakerecError, toErrorData } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import { levelIndex, type Level, type PartitionResult, type SchemaComparison } from '../../shared/reconcile';
import { sqlIdent, sqlString } from '../engine/duck';
import { checkScalarExpression } from '../engine/expression';
import { physicalName } from '../delta/schema';
import type { ActiveFile } from '../delta/types';
import { statsSignature } from '../delta/active-files';
import { typesComparable } from './canonical';
import { materialise, sumsSql, type PassPlan } from './pass';
import type { CountsLevel, SchemaLevel } from './levels';
import type { Tally } from './result';
import { contractError, type Contract } from './contract';
import type { Evidence, StatsDuplicate } from './classify';
import { partitionRemovals, type PartitionRemoval } from '../forensics/removals';
import { registerTargetView, targetChanges, type SourceSide, type TargetSide } from './sides';
import { dayOf, execWithProgress, label, num, rows, sideProgress, sourceRowTotal, text, uncast, type PartitionSpec } from './sql';
import { pushTo } from '../../shared/group';
import { footerEngineFile } from '../storage';

/** The partition column (or expression) on each side; validates the expression against the source. */
export async function partitionSpec(conn: DuckDBConnection, contract: Contract, source: SourceSide, target: TargetSide): Promise<PartitionSpec & { srcHasCol: boolean }> {
  const pc = contract.partitioning?.column ?? null;
  // The expression is someone else's SQL: parsed and checked as one scalar expression over the
  // sides' columns, and only DuckDB's rendering of it runs (main/engine/expression.ts).
  let expr: string | null = null;
  if (contract.partitioning?.expression) {
    const known = [...source.columns, ...target.columns].map((c) => c.name);
    const checked = await checkScalarExpression(conn, contract.partitioning.expression, known);
    if (!checked.ok) throw contractError(contract, 'partitioning.expression', `partition expression refused: ${checked.problem}`);
    expr = checked.sql;
  }
  const srcHas = pc !== null && source.columns.some((c) => c.name === pc);
  const tgtHas = pc !== null && target.columns.some((c) => c.name === pc);
  let srcSelect = 'SELECT *';
  if (pc !== null && !srcHas) {
    if (!expr) throw contractError(contract, 'partitioning', `partition column "${pc}" is not in the source and the contract gives no expression to derive it`);
    srcSelect = `SELECT *, (${expr}) AS ${sqlIdent(pc)}`;
  }
  try {
    await conn.run(`CREATE OR REPLACE TEMP VIEW lk_src AS ${srcSelect} FROM ${sqlIdent(source.view)}`);
    if (pc !== null) await conn.run(`SELECT ${sqlIdent(pc)} FROM lk_src LIMIT 0`);
  } catch (e) {
    throw contractError(contract, 'partitioning.expression', `partition expression "${contract.partitioning?.expression ?? ''}" does not evaluate on the source: ${(e as Error).message.split('\n')[0]}`);
  }
  if (pc !== null && !srcHas) {
    const d = await rows(conn, 'DESCRIBE lk_src');
    const t = d.find((r) => r.column_name === pc);
    source.columns.push({ name: pc, type: String(t?.column_type ?? 'VARCHAR') });
  }
  if (pc !== null && !tgtHas && !expr) throw contractError(contract, 'partitioning', `partition column "${pc}" is not in the target and the contract gives no expression to derive it`);
  const pText = (side: 'source' | 'target') => {
    if (pc === null) return 'NULL::VARCHAR';
    if (side === 'target' && !tgtHas) return `CAST((${expr}) AS VARCHAR)`;
    return `CAST(${sqlIdent(pc)} AS VARCHAR)`;
  };
  return {
    column: pc,
    sourceSql: pText('source'),
    targetSql: pText('target'),
    targetIsDeltaPartition: pc !== null && target.snapshot.partitionColumns.includes(pc),
    type: target.columns.find((c) => c.name === pc)?.type ?? null,
    srcHasCol: srcHas,
    expressionSql: expr,
  };
}

export function compareSchema(source: SourceSide, target: TargetSide, contract: Contract, _part: PartitionSpec): SchemaComparison {
  const ignore = new Set(contract.ignore);
  const src = source.columns.filter((c) => !ignore.has(c.name));
  const tgt = target.columns.filter((c) => !ignore.has(c.name));
  const tNames = new Map(tgt.map((c) => [c.name, c.type]));
  const sNames = new Map(src.map((c) => [c.name, c.type]));
  const compared = tgt.filter((c) => sNames.has(c.name)).map((c) => c.name).sort();
  const typeChanges = compared
    .filter((n) => !typesComparable(sNames.get(n)!, tNames.get(n)!, contract.naiveIsUtc))
    .map((n) => ({ column: n, source: sNames.get(n)!, target: tNames.get(n)! }));
  return {
    source: source.rawColumns,
    target: target.columns,
    compared,
    onlyInSource: src.filter((c) => !tNames.has(c.name)).map((c) => c.name),
    onlyInTarget: tgt.filter((c) => !sNames.has(c.name)).map((c) => c.name),
    typeChanges,
    ignored: [...ignore],
    renamed: Object.entries(contract.renames).map(([s, t]) => ({ source: s, target: t })),
  };
}

/** What the log says about the target's row counts, per partition, without opening a data file. */
export interface TargetLogCounts {
  /** Per-partition rows (numRecords minus deletion-vector cardinality); null when some file lacks them. */
  counts: Map<string | null, number> | null;
  files: number;
  /** Files whose add action carries no numRecords: their rows are unknown to the log, never 0. */
  withoutNumRecords: number;
  /** Files with numRecords that belong to no single partition (a non-Delta partition column whose stats span values). */
  unattributable: number;
}

/** The target's per-partition row counts from its add actions' stats (the counts level's target side). */
export function targetCountsFromLog(target: TargetSide, part: PartitionSpec): TargetLogCounts {
  const out = new Map<string | null, number>();
  let withoutNumRecords = 0;
  let unattributable = 0;
  const files = target.snapshot.files;
  for (const f of files) {
    const n = f.numRecords;
    if (n === null) { withoutNumRecords++; continue; }
    let v: string | null;
    if (part.column === null) v = null;
    else if (part.targetIsDeltaPartition) v = f.partitionValues[part.column] ?? null;
    else {
      // Not a Delta partition column: a file belongs to one partition only if its min equals its max.
      const mn = f.stats?.minValues?.[part.column];
      const mx = f.stats?.maxValues?.[part.column];
      if (mn === undefined || mn === null || mn !== mx || (f.stats?.nullCount?.[part.column] ?? 0) !== 0) { unattributable++; continue; }
      v = String(mn);
    }
    out.set(v, (out.get(v) ?? 0) + n);
  }
  return { counts: withoutNumRecords === 0 && unattributable === 0 ? out : null, files: files.length, withoutNumRecords, unattributable };
}

/** Per-partition target row counts from add-action stats (numRecords minus DV cardinality). */
export function countsFromStats(target: TargetSide, part: PartitionSpec): Map<string | null, number> | null {
  return targetCountsFromLog(target, part).counts;
}

/** Footer files asked of the store at once, and named in one metadata query. */
const FOOTER_BATCH = 64;

/**
 * The target's per-partition row counts when the log lacks some files' numRecords: those files'
 * rows from their Parquet footers' num_rows (minus the deletion vector's cardinality), the rest from
 * the log. Only the footers are fetched (a remote store's range requests, footer.ts), never a data
 * page. Null when the footers cannot say: a file outside the table, or a partition column that is
 * not a Delta partition column (a file's partition is then known only from its rows).
 */
export async function targetCountsFromFooters(conn: DuckDBConnection, target: TargetSide, part: PartitionSpec, fromLog: TargetLogCounts, ctx?: JobContext): Promise<{ counts: Map<string | null, number>; files: number } | null> {
  if (fromLog.unattributable > 0 || (part.column !== null && !part.targetIsDeltaPartition)) return null;
  const files = target.snapshot.files;
  const todo = files.filter((f) => f.numRecords === null);
  if (todo.some((f) => f.outside)) return null;
  const storage = target.table.storage;
  const valueOf = (f: ActiveFile): string | null => (part.column === null ? null : f.partitionValues[part.column] ?? null);
  const out = new Map<string | null, number>();
  for (const f of files) if (f.numRecords !== null) out.set(valueOf(f), (out.get(valueOf(f)) ?? 0) + f.numRecords);
  for (let i = 0; i < todo.length; i += FOOTER_BATCH) {
    throwIfCancelled(ctx);
    const batch = todo.slice(i, i + FOOTER_BATCH);
    const held = await Promise.all(batch.map((f) => footerEngineFile(storage, f.path, ctx?.signal)));
    try {
      const byName = new Map(batch.map((f, j) => [held[j].path, f]));
      const got = await rows(conn, `SELECT file_name, num_rows FROM parquet_file_metadata([${held.map((h) => sqlString(h.path)).join(', ')}])`);
      for (const r of got) {
        const f = byName.get(String(r.file_name));
        if (!f) return null;
        byName.delete(String(r.file_name));
        const n = num(r.num_rows) - (f.deletionVector?.cardinality ?? 0);
        out.set(valueOf(f), (out.get(valueOf(f)) ?? 0) + n);
      }
      if (byName.size > 0) return null;
    } finally {
      for (const h of held) await h.release();
    }
    report(ctx, { phase: 'reading the target\'s Parquet footers', done: Math.min(i + FOOTER_BATCH, todo.length), total: todo.length });
  }
  return { counts: out, files: todo.length };
}

// Parquet physical types whose footer min/max are the values themselves (never truncated);
// floating point is left out (-0.0 and 0.0, NaN).
const EXACT_STAT_TYPES = new Set(['BOOLEAN', 'INT32', 'INT64', 'INT96']);

/**
 * The source's per-partition row counts from its Parquet footers, without reading a data page:
 * when the partition column is a column of the files and every row group holds one value of it
 * (min = max, exact, no nulls) or only nulls. Null when the footers cannot say (then the caller
 * scans). The labels are DuckDB's text of the typed value, the same as a scan's.
 */
export async function sourceCountsFromFooters(conn: DuckDBConnection, contract: Contract, source: SourceSide, part: PartitionSpec & { srcHasCol: boolean }): Promise<Record<string, unknown>[] | null> {
  const files = source.kind === 'parquet' ? source.parquetFiles : null;
  if (!files || files.length === 0) return null;
  const list = `[${files.map(sqlString).join(', ')}]`;
  if (part.column === null) {
    const r = await rows(conn, `SELECT sum(num_rows) AS n FROM parquet_file_metadata(${list})`);
    return [{ p: null, n: r[0]?.n ?? 0 }];
  }
  if (!part.srcHasCol) return null;
  const raw = Object.entries(contract.renames).find(([, t]) => t === part.column)?.[0] ?? part.column;
  // A column that (also) comes from hive-style paths: the scan's value is the path's.
  if (files.some((f) => f.includes(`/${raw}=`) || f.includes(`\\${raw}=`))) return null;
  const type = source.columns.find((c) => c.name === part.column)?.type;
  if (!type || /FLOAT|DOUBLE|REAL/.test(type)) return null;
  const col = `path_in_schema = ${sqlString(raw)}`;
  const groups = await rows(conn, `SELECT any_value(row_group_num_rows) AS n, count(*) FILTER (WHERE ${col}) AS has,
      any_value(stats_min_value) FILTER (WHERE ${col}) AS mn, any_value(stats_max_value) FILTER (WHERE ${col}) AS mx,
      any_value(stats_null_count) FILTER (WHERE ${col}) AS nc, any_value(type) FILTER (WHERE ${col}) AS t,
      bool_and(coalesce(min_is_exact, false) AND coalesce(max_is_exact, false)) FILTER (WHERE ${col}) AS exact
    FROM parquet_metadata(${list}) GROUP BY file_name, row_group_id`);
  const byValue = new Map<string | null, number>();
  for (const g of groups) {
    const n = num(g.n);
    if (num(g.has) !== 1) return null;
    // An empty row group holds no partition (a scan would not name one).
    if (n === 0) continue;
    let v: string | null;
    if (g.nc !== null && num(g.nc) === n) v = null;
    else {
      if (g.mn === null || g.mn !== g.mx || num(g.nc) !== 0) return null;
      if (!EXACT_STAT_TYPES.has(String(g.t)) && g.exact !== true) return null;
      v = String(g.mn);
    }
    byValue.set(v, (byValue.get(v) ?? 0) + n);
  }
  const values = [...byValue.keys()].filter((v): v is string => v !== null);
  const labelOf = new Map<string, unknown>();
  if (values.length > 0) {
    // The footer's text becomes the column's type, then DuckDB's text of it; `type` is DuckDB's own (DESCRIBE).
    try {
      for (const r of await rows(conn, `SELECT v, CAST(CAST(v AS ${type}) AS VARCHAR) AS p FROM (VALUES ${values.map((v) => `(${sqlString(v)})`).join(', ')}) t(v)`)) labelOf.set(String(r.v), r.p);
    } catch {
      return null;
    }
  }
  return [...byValue].map(([v, n]) => ({ p: v === null ? null : labelOf.get(v) ?? null, n }));
}

export function nullKeysFromStats(target: TargetSide, keys: string[]): number | null {
  let n = 0;
  for (const f of target.snapshot.files) {
    for (const k of keys) {
      if (target.snapshot.partitionColumns.includes(k)) {
        if (f.partitionValues[k] === null) n += f.numRecords ?? 0;
        continue;
      }
      const c = f.stats?.nullCount?.[k];
      if (typeof c !== 'number') return null;
      n += c;
    }
  }
  return n;
}

/** One day (a partition value) with its rows on each side, and whether the table ever held it. */
export interface DayRows {
  value: string | null;
  sourceRows: number;
  targetRows: number;
  onceLoaded: boolean;
}

/**
 * The lateness rule, the one place it is written (the reconcile's late partitions, the data laws'
 * late days): a day the source has and the target has never held, after the target's newest
 * loaded day by no more than the allowance. Returns the late days' values.
 */
export function lateDays(allowDays: number, days: DayRows[]): Set<string | null> {
  const loaded = days.filter((p) => p.targetRows > 0).map((p) => dayOf(p.value)).filter((d): d is number => d !== null);
  if (!loaded.length) return new Set();
  const newest = Math.max(...loaded);
  return new Set(days.filter((p) => {
    const d = dayOf(p.value);
    return d !== null && !p.onceLoaded && p.targetRows === 0 && p.sourceRows > 0 && d > newest && d - newest <= allowDays;
  }).map((p) => p.value));
}

/** Source partitions beyond the target's newest, within the contract's lateness allowance. */
export function latePartitions(contract: Contract, part: PartitionSpec, parts: PartitionResult[], onceLoaded: Set<string>): Evidence['late'] {
  if (!contract.lateness || part.column === null || contract.lateness.column !== part.column) return null;
  const lateValues = lateDays(contract.lateness.days, parts.map((p) => ({ value: p.value, sourceRows: p.sourceRows, targetRows: p.targetRows, onceLoaded: onceLoaded.has(p.partition) })));
  const late = parts.filter((p) => lateValues.has(p.value));
  if (!late.length) return null;
  return { partitions: late.map((p) => p.partition), rows: late.reduce((a, p) => a + p.sourceRows, 0), allow: contract.lateness.allow };
}

/** The key a table column has in the log's partitionValues: its physical name under column mapping. */
export function partitionKey(target: TargetSide, column: string): string {
  const f = target.snapshot.schema.fields.find((x) => x.name === column);
  return f ? physicalName(f, target.snapshot.columnMapping) : column;
}

/** The values of a partition column any commit up to the snapshot added files under (the log only). */
export async function valuesEverLoaded(target: TargetSide, column: string): Promise<Set<string | null>> {
  const key = partitionKey(target, column);
  const out = new Set<string | null>();
  for (const c of await targetChanges(target)) {
    if (c.version > target.snapshot.version) continue;
    for (const a of c.adds) out.add(a.partitionValues?.[key] ?? null);
  }
  return out;
}

/** For each partition: the last commit that removed files from it, read from the log (no data): forensics' one implementation. */
export async function removalsFromLog(conn: DuckDBConnection, target: TargetSide, part: PartitionSpec): Promise<Map<string, PartitionRemoval>> {
  const col = part.column!;
  // The log's actions key partitionValues by the physical name under column mapping.
  const changes = await targetChanges(target);
  return partitionRemovals(conn, changes, { column: col, key: partitionKey(target, col), type: part.type, label: (v) => label(col, v) }, target.snapshot.version);
}

/** Files in one partition whose full stats repeat another file's: the signature of a retried batch. */
export function duplicateFilesFromStats(target: TargetSide, part: PartitionSpec): StatsDuplicate[] {
  if (!part.targetIsDeltaPartition) return [];
  const groups = new Map<string, ActiveFile[]>();
  for (const f of target.snapshot.files) {
    const key = statsSignature(f);
    if (key === null) continue;
    pushTo(groups, key, f);
  }
  const out: StatsDuplicate[] = [];
  // partitionValues is keyed by the physical name under column mapping.
  const pkey = partitionKey(target, part.column!);
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    const l = label(part.column, g[0].partitionValues[pkey] ?? null);
    const rowsEach = g[0].numRecords ?? 0;
    const prev = out.find((d) => d.partition === l);
    const extra = rowsEach * (g.length - 1);
    if (prev) { prev.rows += extra; prev.files.push(...g.map((f) => ({ path: f.path, version: f.addedInVersion }))); }
    else out.push({ partition: l, rows: extra, files: g.map((f) => ({ path: f.path, version: f.addedInVersion })) });
  }
  return out;
}

export async function schemaLevel(conn: DuckDBConnection, contract: Contract, source: SourceSide, target: TargetSide): Promise<SchemaLevel> {
  const part = await partitionSpec(conn, contract, source, target);
  const schema = compareSchema(source, target, contract, part);
  const srcType = new Map(source.columns.map((c) => [c.name, c.type]));
  const tgtType = new Map(target.columns.map((c) => [c.name, c.type]));
  for (const k of contract.keys) {
    if (!srcType.has(k) || !tgtType.has(k)) {
      const side = !srcType.has(k) ? 'source' : 'target';
      throw contractError(contract, 'keys', `key column "${k}" is not a column of the ${side}`);
    }
    if (!typesComparable(srcType.get(k)!, tgtType.get(k)!, contract.naiveIsUtc)) {
      throw new LakerecError('contract_mismatch', `key column "${k}" is ${srcType.get(k)} in the source and ${tgtType.get(k)} in the target; the contract does not map one to the other`);
    }
  }
  return { part, schema, srcType, tgtType };
}

export function noCounts(): CountsLevel {
  return { removals: new Map(), logConsulted: false, statsDuplicates: [], statsNullKeys: null, late: null, sourceSumRows: null, sourceFromFooters: false };
}

/**
 * The counts level: the source by reading it, the target from the log's stats. At checksum and
 * deeper the source's one pass happens here, and its counts come from it.
 */
export async function countsLevel(
  conn: DuckDBConnection, ctx: JobContext | undefined, tally: Tally,
  run: { level: Level; contract: Contract; source: SourceSide; target: TargetSide; schema: SchemaLevel; plan: PassPlan; srcView: string; tgtView: string },
): Promise<CountsLevel> {
  const { contract, source, target, plan, srcView, tgtView } = run;
  const { part, srcType } = run.schema;
  const { partitions, getP, reads, notes } = tally;
  const at = levelIndex(run.level);
  const out = noCounts();
  let countSql = `SELECT CAST(p AS VARCHAR) AS p, n FROM (SELECT ${uncast(part.sourceSql)} AS p, count(*) AS n FROM ${srcView} GROUP BY 1)`;
  if (at >= levelIndex('checksum')) {
    const total = await sourceRowTotal(conn, source);
    const isText = source.kind === 'csv' || source.kind === 'json';
    if (isText && at >= levelIndex('keys')) {
      // A text file has no row groups or partition files to skip: keys and rows read the source
      // again (the example rows, the changed rows' columns), so it is parsed once, into a temp
      // table the rest of the run reads (DuckDB spills it past its memory limit).
      try {
        await execWithProgress(conn, `CREATE OR REPLACE TEMP TABLE lk_src_rows AS SELECT * FROM ${sqlIdent(srcView)}`, sideProgress(ctx, 'reading the source', total));
      } catch (e) {
        throw new LakerecError('source_unreadable', `cannot read the source: ${(e as Error).message.split('\n')[0]}`);
      }
      await conn.run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(srcView)} AS SELECT * FROM lk_src_rows`);
    }
    const onProgress = sideProgress(ctx, 'hashing the source', total);
    await materialise(conn, { table: 'lk_s', view: srcView, partSql: part.sourceSql, types: srcType }, plan.pass, { aggregateOnly: plan.aggregateOnly, onProgress, rowFormat: source.kind === 'csv' || source.kind === 'json' });
    // The same query gives the source's checksums (read once, in the checksum level).
    countSql = plan.aggregateOnly ? 'SELECT p, n, hi, lo FROM lk_s' : sumsSql('lk_s', plan.pass);
  } else {
    report(ctx, { phase: 'counting source rows', done: 0, total: null });
  }
  let counted: Record<string, unknown>[] | null = null;
  try {
    // Below checksum level the Parquet footers may already hold the counts (no data page read).
    if (at < levelIndex('checksum')) counted = await sourceCountsFromFooters(conn, contract, source, part);
    if (counted) out.sourceFromFooters = true;
    counted ??= await rows(conn, countSql);
  } catch (e) {
    throw new LakerecError('source_unreadable', `cannot read the source: ${(e as Error).message.split('\n')[0]}`);
  }
  if (at >= levelIndex('checksum')) out.sourceSumRows = counted;
  let fromFooters = 0;
  for (const r of counted) {
    const p = getP(text(r.p));
    p.sourceRows = num(r.n);
    if (out.sourceFromFooters) fromFooters += p.sourceRows;
    else reads.sourceRowsRead += p.sourceRows;
  }
  if (out.sourceFromFooters) notes.push(`source counted from its Parquet footers: ${fromFooters.toLocaleString('en-US')} rows, no data page read`);
  throwIfCancelled(ctx);
  const fromLog = targetCountsFromLog(target, part);
  // Files the log gives no numRecords: their footers' row counts (no data page read, and from a
  // remote store only the footers' bytes) before the data files themselves.
  let footers: Awaited<ReturnType<typeof targetCountsFromFooters>> = null;
  if (!fromLog.counts) {
    try {
      footers = await targetCountsFromFooters(conn, target, part, fromLog, ctx);
    } catch (e) {
      if (e instanceof LakerecError && e.code === 'cancelled') throw e;
      footers = null;
    }
  }
  if (fromLog.counts) {
    for (const [v, n] of fromLog.counts) getP(v).targetRows = n;
  } else if (footers) {
    for (const [v, n] of footers.counts) getP(v).targetRows = n;
    notes.push(`the target's row counts: ${fromLog.withoutNumRecords.toLocaleString('en-US')} of ${fromLog.files.toLocaleString('en-US')} files carry no numRecords in the log, so their rows were counted from their Parquet footers (no data page read)`);
  } else {
    // The log does not know these rows (never read as 0): they are counted from the data files.
    const why = [
      fromLog.withoutNumRecords ? `${fromLog.withoutNumRecords.toLocaleString('en-US')} of ${fromLog.files.toLocaleString('en-US')} files carry no numRecords` : '',
      fromLog.unattributable ? `${fromLog.unattributable.toLocaleString('en-US')} files span more than one ${part.column ?? ''} value` : '',
    ].filter(Boolean).join(' and ');
    notes.push(`the target's row counts are unknown from its log (${why}): counts compared from its data`);
    let counted: Record<string, unknown>[];
    try {
      await registerTargetView(conn, target, tgtView);
      counted = await rows(conn, `SELECT ${part.targetSql} AS p, count(*) AS n FROM ${tgtView} GROUP BY 1`);
    } catch (e) {
      const d = toErrorData(e);
      throw new LakerecError(d.code === 'internal' ? 'io_error' : d.code, `the target's row counts are unknown: its log has none (${why}) and its data files cannot be counted: ${d.message.split('\n')[0]}`);
    }
    for (const r of counted) getP(text(r.p)).targetRows = num(r.n);
    reads.targetRowsRead = [...partitions.values()].reduce((a, p) => a + p.targetRows, 0);
    reads.targetFilesRead = target.snapshot.files.length;
  }
  out.statsNullKeys = nullKeysFromStats(target, contract.keys);
  const needLog = [...partitions.values()].some((p) => p.targetRows < p.sourceRows);
  if (needLog && part.targetIsDeltaPartition) {
    out.removals = await removalsFromLog(conn, target, part);
    out.logConsulted = true;
  }
  // A partition the table once held is not "late": it was loaded and then lost.
  out.late = latePartitions(contract, part, [...partitions.values()], new Set([...out.removals.values()].filter((r) => r.everLoaded).map((r) => r.partition)));
  out.statsDuplicates = duplicateFilesFromStats(target, part);
  return out;
}
