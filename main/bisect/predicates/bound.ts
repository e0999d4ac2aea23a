// What a bound predicate is, what each one means (SEMANTICS), and the pieces every predicate shares.
import type { StructField, StructType } from '../../../shared/delta';
import type { PredicateSpec } from '../../../shared/bisect';
import type { FileEntry, History } from '../../delta/history';
import type { Evaluation } from '../search';
import type { DataReader } from './reader';

export interface BoundPredicate {
  spec: PredicateSpec;
  /** What good means, including how nulls count. */
  semantics: string;
  /** Answered from the log's stats alone (no data file opened unless a file lacks stats). */
  logOnly: boolean;
  notes: string[];
  evaluate(version: number): Promise<Evaluation>;
  /** A partition predicate: the first version holding a file of the partition (before it: "before the partition existed"). */
  appliesFrom: number | null;
  /** Data files opened so far (the read counter). */
  filesRead(): number;
  /** Per-file results reused from an earlier probe. */
  filesFromCache(): number;
  close(): void;
}

export const SEMANTICS = {
  'unique-keys': 'good when no key value occurs on more than one row of the version. Rows whose key has a null in any key column are not counted as duplicates (as dbt\'s `unique` test, which ignores nulls); use no-null-keys to find those.',
  'no-null-keys': 'good when no row of the version has a null in any key column, read from the log: each active file\'s stats.nullCount (and null partition values). No data file is opened; a file without nullCount stats, or whose nulls may be hidden by a deletion vector, is counted from its data and the note says so.',
  'row-count': 'good when the version holds exactly --expect rows (in --partition when given), from the log\'s stats (numRecords minus deletion-vector cardinality); a file without stats is counted from its data.',
  'matches-source': 'good when the partition\'s rows at the version equal the source\'s rows in that partition as a multiset (duplicates count): each row digested as md5 of lakerec\'s canonical row text (main/reconcile/canonical.ts), compared by digest and count. Nulls are values: a null equals a null.',
} as const;

/** The first version at which a file of the partition is active (null: never). */
export function partitionAppearsAt(h: History, part: { column: string; value: string }): number | null {
  let first: number | null = null;
  for (const f of h.files) if (f.partitionValues[part.column] === part.value && (first === null || f.addedIn < first)) first = f.addedIn;
  return first;
}

export function field(schema: StructType, name: string): StructField | undefined {
  return schema.fields.find((f) => f.name === name);
}

export const unreadableMissing = (missing: FileEntry[]): Evaluation => ({
  state: 'unreadable', filesRead: 0,
  detail: `${missing.length} data file(s) of this version are gone from disk (VACUUM?), e.g. ${missing[0].path}: the log still shows the version but its data cannot be read`,
});

export function base(spec: PredicateSpec, reader: DataReader, logOnly: boolean, notes: string[], evaluate: (v: number) => Promise<Evaluation>, appliesFrom: number | null = null): BoundPredicate {
  return {
    spec, semantics: SEMANTICS[spec.predicate], logOnly, notes, evaluate, appliesFrom,
    filesRead: () => reader.read, filesFromCache: () => reader.fromCache, close: () => reader.close(),
  };
}
