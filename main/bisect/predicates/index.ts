// The predicates bisect may search over: only questions the table can answer alone (ADR 0004).
// Each is bound once to a replayed history; evaluating a version reads only the files that
// version needs and no earlier probe has read (a file's rows never change, so per-file results
// are cached by file entry: path + deletion vector). This index validates a spec and binds it;
// each predicate is its own file, the shared data reader and bisect's locked DuckDB are reader.ts,
// a bound predicate's shape and SEMANTICS are bound.ts.
import type { PredicateSpec } from '../../../shared/bisect';
import { LakerecError } from '../../../shared/errors';
import type { History } from '../../delta/history';
import { partitionAppearsAt, type BoundPredicate } from './bound';
import { DataReader, schemaOf, type BindOptions } from './reader';
import { uniqueKeys } from './unique-keys';
import { noNullKeys } from './no-null-keys';
import { rowCount } from './row-count';
import { matchesSource } from './matches-source';

export { SEMANTICS, partitionAppearsAt, type BoundPredicate } from './bound';
export { openBisectDuck, type BindOptions } from './reader';

const MATCHES_SOURCE_REFUSAL = 'matches-source needs --partition P=V: the source is the truth as of now, so every older version legitimately lacks what was loaded since, and the search would answer version 0 every time (a moving reference makes the predicate non-monotone in the version). Restricted to a closed partition, one no longer written, the source stops moving and the search is sound.';

const ROW_COUNT_REFUSAL = 'row-count without --partition P=V compares the whole table with one number, but the table\'s total moves with every append: every older version legitimately holds fewer rows, and the search would name the first append (a moving reference, as matches-source without a partition). Give a closed partition, or --allow-moving to accept a walk over the whole table.';

/** A partition no version of the log ever held: every version would "fail" and version 0 would be named. */
function neverThere(h: History, part: { column: string; value: string }): void {
  if (partitionAppearsAt(h, part) !== null) return;
  throw new LakerecError('predicate_refused', `--partition ${part.column}=${part.value}: no version of this log holds a file in that partition, so there is no version at which it broke (check the value, e.g. the date format)`, { partition: `${part.column}=${part.value}` });
}

export function parsePartition(p: string): { column: string; value: string } {
  const eq = p.indexOf('=');
  if (eq <= 0) throw new LakerecError('usage', `--partition must be COLUMN=VALUE, got "${p}"`);
  return { column: p.slice(0, eq).trim(), value: p.slice(eq + 1) };
}

/** Validates the spec against the table (usage / predicate_refused errors) and binds it. */
export async function bindPredicate(spec: PredicateSpec, h: History, opts: BindOptions = {}): Promise<BoundPredicate> {
  const latest = h.states[h.states.length - 1];
  const md = latest?.metadata;
  if (!md) throw new LakerecError('metadata_missing', 'the table has no metaData action: no schema to evaluate a predicate against');
  const schema = schemaOf(md);
  const columns = schema.fields.map((f) => f.name);
  const needKeys = (): string[] => {
    const keys = (spec.keys ?? []).flatMap((k) => k.split(',')).map((k) => k.trim()).filter(Boolean);
    if (keys.length === 0) throw new LakerecError('usage', `--predicate ${spec.predicate} needs --keys COLUMN[,COLUMN]`);
    for (const k of keys) if (!columns.includes(k)) throw new LakerecError('usage', `--keys ${k}: the table has no column "${k}" (columns: ${columns.join(', ')})`);
    return keys;
  };
  // A flag the predicate does not use is a mistake worth saying, not something to ignore silently.
  const uses: Record<string, (keyof PredicateSpec)[]> = {
    'unique-keys': ['keys'], 'no-null-keys': ['keys'], 'row-count': ['expect', 'partition', 'allowMoving'], 'matches-source': ['source', 'partition'],
  };
  const allowed = uses[spec.predicate];
  if (allowed) {
    for (const k of ['keys', 'expect', 'partition', 'source', 'allowMoving'] as const) {
      if (spec[k] !== undefined && spec[k] !== false && !allowed.includes(k)) {
        throw new LakerecError('usage', `--${k === 'allowMoving' ? 'allow-moving' : k} does not apply to --predicate ${spec.predicate} (it takes ${allowed.map((a) => `--${a}`).join(', ')})`);
      }
    }
  }
  const reader = new DataReader(h, md, opts, spec.predicate === 'matches-source' ? spec.source ?? null : null);
  switch (spec.predicate) {
    case 'unique-keys': return uniqueKeys({ ...spec, keys: needKeys() }, h, reader);
    case 'no-null-keys': return noNullKeys({ ...spec, keys: needKeys() }, h, reader);
    case 'row-count': {
      if (spec.expect === undefined || !Number.isInteger(spec.expect) || spec.expect < 0) throw new LakerecError('usage', '--predicate row-count needs --expect N (a whole number of rows)');
      let part: { column: string; value: string } | null = null;
      if (spec.partition) {
        part = parsePartition(spec.partition);
        if (!md.partitionColumns.includes(part.column)) {
          throw new LakerecError('predicate_refused', `row-count --partition ${part.column}=...: "${part.column}" is not a partition column of this table (partition columns: ${md.partitionColumns.join(', ') || 'none'}), so the log cannot say which files hold it`, { column: part.column });
        }
      }
      if (!part && !spec.allowMoving) throw new LakerecError('predicate_refused', ROW_COUNT_REFUSAL, { predicate: 'row-count' });
      if (part) neverThere(h, part);
      return rowCount(spec, part, h, reader);
    }
    case 'matches-source': {
      if (!spec.partition) throw new LakerecError('predicate_refused', MATCHES_SOURCE_REFUSAL, { predicate: 'matches-source' });
      if (!spec.source) throw new LakerecError('usage', '--predicate matches-source needs --source FILE (Parquet, CSV or JSON lines)');
      const part = parsePartition(spec.partition);
      if (!columns.includes(part.column)) throw new LakerecError('usage', `--partition ${part.column}=...: the table has no column "${part.column}"`);
      if (md.partitionColumns.includes(part.column)) neverThere(h, part);
      return matchesSource(spec, part, h, reader);
    }
    default:
      throw new LakerecError('usage', `unknown predicate "${String((spec as { predicate: unknown }).predicate)}" (one of unique-keys, no-null-keys, row-count, matches-source)`);
  }
}
