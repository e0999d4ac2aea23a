// The levels that read no target data: the schema comparison and the partition spec (schema),
// and what the log alone says at counts level: per-partition row counts from add-action stats,
// null keys from nullCount, partitions removed by a commit, late partitions, repeated files.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { PartitionResult, SchemaComparison } from '../../shared/reconcile';
import { sqlIdent, sqlString } from '../engine/duck';
import type { ActiveFile } from '../delta/types';
import { typesComparable } from './canonical';
import { contractError, type Contract } from './contract';
import type { Evidence, PartitionRemoval, StatsDuplicate } from './classify';
import { targetChanges, type SourceSide, type TargetSide } from './sides';
import { dayOf, label, rows, type PartitionSpec } from './sql';

/** The partition column (or expression) on each side; validates the expression against the source. */
export async function partitionSpec(conn: DuckDBConnection, contract: Contract, source: SourceSide, target: TargetSide): Promise<PartitionSpec & { srcHasCol: boolean }> {
  const pc = contract.partitioning?.column ?? null;
  const expr = contract.partitioning?.expression ?? null;
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
    throw contractError(contract, 'partitioning.expression', `partition expression "${expr}" does not evaluate on the source: ${(e as Error).message.split('\n')[0]}`);
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

/** Per-partition target row counts from add-action stats (numRecords minus DV cardinality). */
export function countsFromStats(target: TargetSide, part: PartitionSpec): Map<string | null, number> | null {
  const out = new Map<string | null, number>();
  for (const f of target.snapshot.files) {
    if (f.numRecords === null) return null;
    let v: string | null;
    if (part.column === null) v = null;
    else if (part.targetIsDeltaPartition) v = f.partitionValues[part.column] ?? null;
    else {
      // Not a Delta partition column: a file belongs to one partition only if its min equals its max.
      const mn = f.stats?.minValues?.[part.column];
      const mx = f.stats?.maxValues?.[part.column];
      if (mn === undefined || mn === null || mn !== mx || (f.stats?.nullCount?.[part.column] ?? 0) !== 0) return null;
      v = String(mn);
    }
    out.set(v, (out.get(v) ?? 0) + f.numRecords);
  }
  return out;
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

/** Source partitions beyond the target's newest, within the contract's lateness allowance. */
export function latePartitions(contract: Contract, part: PartitionSpec, parts: PartitionResult[], onceLoaded: Set<string>): Evidence['late'] {
  if (!contract.lateness || part.column === null || contract.lateness.column !== part.column) return null;
  const loaded = parts.filter((p) => p.targetRows > 0).map((p) => dayOf(p.value)).filter((d): d is number => d !== null);
  if (!loaded.length) return null;
  const newest = Math.max(...loaded);
  const late = parts.filter((p) => {
    const d = dayOf(p.value);
    return d !== null && !onceLoaded.has(p.partition) && p.targetRows === 0 && p.sourceRows > 0 && d > newest && d - newest <= contract.lateness!.days;
  });
  if (!late.length) return null;
  return { partitions: late.map((p) => p.partition), rows: late.reduce((a, p) => a + p.sourceRows, 0), allow: contract.lateness.allow };
}

/** For each partition: the last commit that removed files from it, read from the log (no data). */
export async function removalsFromLog(conn: DuckDBConnection, target: TargetSide, part: PartitionSpec): Promise<Map<string, PartitionRemoval>> {
  const col = part.column!;
  const out = new Map<string, PartitionRemoval>();
  const ever = new Set<string>();
  const changes = (await targetChanges(target)).filter((c) => c.version <= target.snapshot.version);
  for (const c of changes) {
    const addedHere = new Set(c.adds.map((a) => a.partitionValues?.[col] ?? null));
    for (const v of addedHere) ever.add(label(col, v));
    const removedHere = new Set(c.removes.map((r) => r.partitionValues?.[col] ?? null));
    for (const v of removedHere) {
      const l = label(col, v);
      const params = c.commitInfo?.operationParameters ?? {};
      let predicate: string | null = null;
      const raw = params.predicate ?? params.replaceWhere;
      if (typeof raw === 'string') {
        try {
          const arr = JSON.parse(raw) as unknown;
          predicate = Array.isArray(arr) ? arr.map(String).join(' AND ') : String(arr);
        } catch {
          predicate = raw;
        }
      }
      out.set(l, {
        partition: l,
        version: c.version,
        operation: `${c.commitInfo?.operation ?? 'unknown'}${typeof params.mode === 'string' ? ` (${params.mode})` : ''}`,
        predicate,
        addedBackHere: addedHere.has(v),
        addedElsewhere: [...addedHere].some((x) => x !== v),
        predicateCovers: predicate ? await predicateCovers(conn, predicate, col, part.type, v) : null,
        everLoaded: true,
      });
    }
  }
  for (const [l, r] of out) r.everLoaded = ever.has(l);
  return out;
}

/** Evaluates a commit's predicate on a partition value alone; null when it needs other columns. */
export async function predicateCovers(conn: DuckDBConnection, predicate: string, col: string, type: string | null, value: string | null): Promise<boolean | null> {
  try {
    const lit = value === null ? 'NULL' : sqlString(value);
    const r = await rows(conn, `SELECT coalesce((${predicate}), false) AS ok FROM (SELECT CAST(${lit} AS ${type ?? 'VARCHAR'}) AS ${sqlIdent(col)})`);
    return r[0].ok === true;
  } catch {
    return null;
  }
}

/** Files in one partition whose full stats repeat another file's: the signature of a retried batch. */
export function duplicateFilesFromStats(target: TargetSide, part: PartitionSpec): StatsDuplicate[] {
  if (!part.targetIsDeltaPartition) return [];
  const groups = new Map<string, ActiveFile[]>();
  for (const f of target.snapshot.files) {
    const s = f.stats;
    if (!s || !s.minValues || !s.maxValues || Object.keys(s.minValues).length === 0 || f.numRecords === null) continue;
    const key = JSON.stringify([f.partitionValues[part.column!] ?? null, s.numRecords, s.minValues, s.maxValues, s.nullCount ?? null, f.deletionVector?.cardinality ?? 0]);
    const g = groups.get(key) ?? [];
    g.push(f);
    groups.set(key, g);
  }
  const out: StatsDuplicate[] = [];
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    const l = label(part.column, g[0].partitionValues[part.column!] ?? null);
    const rowsEach = g[0].numRecords ?? 0;
    const prev = out.find((d) => d.partition === l);
    const extra = rowsEach * (g.length - 1);
    if (prev) { prev.rows += extra; prev.files.push(...g.map((f) => ({ path: f.path, version: f.addedInVersion }))); }
    else out.push({ partition: l, rows: extra, files: g.map((f) => ({ path: f.path, version: f.addedInVersion })) });
  }
  return out;
}
