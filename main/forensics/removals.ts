// The log as an incident record, per partition: the last commit that removed files from each
// partition, what it declared (operation, predicate), whether its own predicate covers the
// partition, and whether it put files back there or elsewhere. Read from the log's actions alone
// (no data). The one implementation: the reconcile counts level explains a partition that lost
// rows with it (main/reconcile/log-levels.ts), as forensics' heuristics read the same commits.
import type { DuckDBConnection } from '@duckdb/node-api';
import { declaredPredicate, evaluatePredicate } from '../delta/predicate';
import type { VersionChange } from '../delta/types';

/** What the log says about the partitions that lost rows (from commit history, no data read). */
export interface PartitionRemoval {
  partition: string;
  version: number;
  operation: string;
  predicate: string | null;
  /** The removing commit added no file back to this partition... */
  addedBackHere: boolean;
  /** ...while adding files to other partitions. */
  addedElsewhere: boolean;
  /** The commit's own predicate covers this partition (null: could not be evaluated). */
  predicateCovers: boolean | null;
  /** The partition ever held a file in this table's history. */
  everLoaded: boolean;
}

export interface RemovalColumn {
  /** The column's logical name (what the predicate names). */
  column: string;
  /** The key the log's actions hold its value under (the physical name under column mapping). */
  key: string;
  /** The DuckDB type its text values are read as (VARCHAR when null). */
  type: string | null;
  /** How a partition value is named (`dt=2026-08-10`). */
  label(value: string | null): string;
}

/** For each partition of `col`: the last commit up to `upTo` that removed files from it. */
export async function partitionRemovals(conn: DuckDBConnection, changes: VersionChange[], col: RemovalColumn, upTo: number): Promise<Map<string, PartitionRemoval>> {
  const { key } = col;
  const out = new Map<string, PartitionRemoval>();
  const ever = new Set<string>();
  for (const c of changes) {
    if (c.version > upTo) continue;
    const addedHere = new Set(c.adds.map((a) => a.partitionValues?.[key] ?? null));
    for (const v of addedHere) ever.add(col.label(v));
    const removedHere = new Set(c.removes.map((r) => r.partitionValues?.[key] ?? null));
    for (const v of removedHere) {
      const l = col.label(v);
      const params = c.commitInfo?.operationParameters ?? {};
      const predicate = declaredPredicate(params);
      out.set(l, {
        partition: l,
        version: c.version,
        operation: `${c.commitInfo?.operation ?? 'unknown'}${typeof params.mode === 'string' ? ` (${params.mode})` : ''}`,
        predicate,
        addedBackHere: addedHere.has(v),
        addedElsewhere: [...addedHere].some((x) => x !== v),
        predicateCovers: predicate ? await predicateCovers(conn, predicate, col.column, col.type, v) : null,
        everLoaded: true,
      });
    }
  }
  for (const [l, r] of out) r.everLoaded = ever.has(l);
  return out;
}

/** Evaluates a commit's predicate on a partition value alone; null when it needs other columns. */
export async function predicateCovers(conn: DuckDBConnection, predicate: string, col: string, type: string | null, value: string | null): Promise<boolean | null> {
  const held = await evaluatePredicate(conn, predicate, [{ name: col, type: type ?? 'VARCHAR' }], [[value]]);
  return held === null ? null : held[0];
}
