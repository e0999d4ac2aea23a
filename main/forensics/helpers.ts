// Small facts about commits and files that several heuristics ask: is it an overwrite, an append,
// what predicate did it declare.
import type { Metadata, RemoveFile, StructField } from '../../shared/delta';
import { numRecordsFromStats } from '../delta/replay';
import type { Duck } from '../engine/duck';
import { declaredPredicate, evaluatePredicate } from '../delta/predicate';
import type { FileEntry, History, VersionState } from '../delta/history';

export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

/** Rows of remove actions from their own stats (null when any lacks them). */
export function removeRows(removes: RemoveFile[]): number | null {
  let total = 0;
  for (const r of removes) {
    const n = numRecordsFromStats(r.stats);
    if (n === null) return null;
    total += n - (r.deletionVector?.cardinality ?? 0);
  }
  return total;
}

export function fieldsOf(md: Metadata | null): StructField[] {
  if (!md) return [];
  try { return (JSON.parse(md.schemaString) as { fields?: StructField[] }).fields ?? []; } catch { return []; }
}

export function isOverwrite(st: VersionState): boolean {
  const ci = st.change?.commitInfo;
  const op = (ci?.operation ?? '').toUpperCase();
  const mode = String(ci?.operationParameters?.mode ?? '');
  if (mode.toLowerCase() === 'overwrite') return true;
  return /REPLACE TABLE|OVERWRITE/.test(op);
}

export function isAppend(st: VersionState, h: History): boolean {
  const ci = st.change?.commitInfo;
  const mode = String(ci?.operationParameters?.mode ?? '').toLowerCase();
  const dataRemoves = st.removed.filter((id) => h.files[id].removedIn === st.version).length;
  if (st.added.length === 0 || dataRemoves > 0) return false;
  return mode === 'append' || ci?.isBlindAppend === true || (ci?.operation ?? '').toUpperCase() === 'WRITE' || !ci;
}

// The declared predicate of an overwrite/delete: one parser and one evaluator (main/delta/predicate.ts).
export { declaredPredicate };

export function ranges(vs: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < vs.length; i++) {
    let j = i;
    while (j + 1 < vs.length && vs[j + 1] === vs[j] + 1) j++;
    out.push(i === j ? `v${vs[i]}` : `v${vs[i]}-v${vs[j]}`);
    i = j;
  }
  return out.join(', ');
}

const duckTypeOf = (t: unknown): string => {
  if (typeof t !== 'string') return 'VARCHAR';
  if (t === 'long') return 'BIGINT';
  if (t === 'integer') return 'INTEGER';
  if (t === 'short') return 'SMALLINT';
  if (t === 'byte') return 'TINYINT';
  if (t === 'date') return 'DATE';
  if (t === 'timestamp') return 'TIMESTAMPTZ';
  if (t === 'timestamp_ntz') return 'TIMESTAMP';
  if (t === 'boolean') return 'BOOLEAN';
  if (t === 'double') return 'DOUBLE';
  if (t === 'float') return 'FLOAT';
  if (t.startsWith('decimal')) return t.toUpperCase();
  return 'VARCHAR';
};

/** Removed files whose partition values do not satisfy `predicate`; 'not_evaluable' when DuckDB
 *  cannot evaluate it over partition columns alone. */
export async function filesOutsidePredicate(duck: Duck, predicate: string, files: FileEntry[], md: Metadata | null): Promise<FileEntry[] | 'not_evaluable'> {
  const cols = md?.partitionColumns ?? [];
  const types = new Map(fieldsOf(md).map((f) => [f.name, duckTypeOf(f.type)]));
  const held = await evaluatePredicate(duck.conn, predicate, cols.map((c) => ({ name: c, type: types.get(c) ?? 'VARCHAR' })), files.map((f) => cols.map((c) => f.partitionValues[c] ?? null)));
  if (held === null) return 'not_evaluable';
  return files.filter((_, i) => !held[i]);
}
