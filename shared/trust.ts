// Trust in the checks, as plain serialisable data: the mutation score of a contract on a table,
// keys and relationships verified on the data, data laws (conservation of totals per day), and the
// commit behind a row. The CLI prints these, the window renders them, the reports embed them.
import type { FindingMode, Level } from './reconcile';

import type { RowProvenance } from './provenance';

export type { CommitRef, RowProvenance } from './provenance';

// ---------------------------------------------------------------------------------------------
// mutation testing

/** One mutant at one level: named (the expected mode), caught (diverges, other or no name), survived. */
export type MutantOutcome = 'named' | 'caught' | 'survived';

export type MutantStatus =
  /** Reconciled at every requested level. */
  | 'run'
  /** The corruption cannot be applied to this table and contract (the reason says why). */
  | 'not_applicable'
  /** Applied, but the data afterwards is the same as before: nothing could catch it. */
  | 'equivalent';

export interface MutantLevel {
  level: Level;
  outcome: MutantOutcome;
  verdict: 'matches' | 'diverges';
  modes: FindingMode[];
  targetRowsRead: number;
  ms: number;
}

/** A contract change that would catch (or name) a survivor, checked by rerunning the mutant with it. */
export interface Suggestion {
  /** What to change, in words ("add ordering: updated_at"). */
  change: string;
  /** The YAML to add or change in the contract. */
  yaml: string;
  /** A deeper level instead of a contract change, when that is what names it. */
  level: Level | null;
  /** The rerun with the suggestion: first level that notices / names. */
  checked: { firstNotices: Level | null; firstNames: Level | null; kills: boolean; names: boolean } | null;
}

export interface MutantResult {
  /** The corruption (main/writer/corrupt.ts CORRUPTIONS). */
  corruption: string;
  /** The finding it should produce; null for the mutants that must stay silent (float drift). */
  expectedMode: FindingMode | null;
  status: MutantStatus;
  /** What the corruption did, or why it could not be applied. */
  note: string;
  /** The partition it aimed at, the rows it touched. */
  partition: string | null;
  rows: number;
  levels: MutantLevel[];
  firstNotices: Level | null;
  firstNames: Level | null;
  /** Named at some level, other than the expected mode (shown, not hidden). */
  otherModes: FindingMode[];
  /** For a survivor or a mutant never named: what would catch or name it (empty when nothing found). */
  suggestions: Suggestion[];
  ms: number;
}

export interface LevelScore {
  level: Level;
  named: number;
  caught: number;
  survived: number;
  /** killed / (killed + survived), killed = named + caught; null when no mutant ran. */
  score: number | null;
  /** named / (killed + survived). */
  namedScore: number | null;
}

export interface MutationResult {
  table: string;
  version: number;
  source: string;
  contract: { name: string; path: string | null; sha256: string | null };
  seed: number;
  levels: Level[];
  /** The sandbox table before any mutant: its verdict per level (a level where it already diverges cannot judge mutants). */
  baseline: { level: Level; verdict: 'matches' | 'diverges'; modes: FindingMode[] }[];
  mutants: MutantResult[];
  perLevel: LevelScore[];
  /** Over the mutants that ran and are not silent checks: killed at the deepest level run. */
  overall: {
    killed: number; survived: number; named: number; score: number | null; namedScore: number | null; notApplicable: number; equivalent: number; silentChecks: number; falseAlarms: number;
    /** The level the score was computed at; null when there is no score. */
    level: Level | null;
    /** Why there is no score (the unmutated table already diverges, no mutant ran); null when scored. */
    refused: string | null;
    /** The one sentence every face shows first: the score and its level, or the refusal and its reason. */
    headline: string;
  };
  /** The user's table was never written: the sandbox referenced its files read-only and is gone. */
  sandbox: { dir: string; filesReferenced: number; removed: boolean };
  notes: string[];
  startedAt: string;
  durationMs: number;
}

/** Progress data of a mutation run: each mutant as it finishes. */
export interface MutationProgress {
  kind: 'mutant';
  index: number;
  total: number;
  mutant: MutantResult;
}

// ---------------------------------------------------------------------------------------------
// keys and relationships

export type CheckStatus = 'confirmed' | 'failed' | 'not_checked';

export interface KeyRepeat {
  /** "order_id=17" (masked when the column is confidential). */
  key: string;
  rows: number;
  /** Where the repeated rows live (target side only). */
  where: RowProvenance[];
}

export interface KeyCheck {
  columns: string[];
  side: 'table' | 'source';
  status: CheckStatus;
  rows: number;
  nullRows: number;
  distinct: number;
  /** Key values that occur more than once, and the rows beyond the first. */
  repeatedKeys: number;
  extraRows: number;
  examples: KeyRepeat[];
  /** Where rows with a null key live (table side). */
  nullExamples: RowProvenance[];
  /** Why not checked, or a remark. */
  note: string | null;
}

export interface CandidateKey {
  columns: string[];
  /** Approximate distinct count that made it a candidate, then the exact check. */
  approxDistinct: number;
  exact: boolean;
}

export interface RelationshipCheck {
  column: string;
  references: { path: string; column: string };
  declared: 'many_to_one' | 'one_to_one';
  /** What the data shows: one_to_one when the referring column never repeats. */
  observed: 'many_to_one' | 'one_to_one' | null;
  status: CheckStatus;
  /** Referring rows with a non-null value; rows and distinct values found in no referenced key. */
  rows: number;
  nullRows: number;
  danglingRows: number;
  danglingValues: number;
  /** Dangling values (masked when the column is confidential). */
  examples: string[];
  referencedKey: { status: CheckStatus; rows: number; distinct: number; nullRows: number };
  note: string | null;
}

export interface KeysResult {
  table: string;
  version: number;
  source: string | null;
  /** The contract's keys (empty when none was given). */
  declared: string[];
  keys: KeyCheck[];
  /** Inferred when the contract names no key: single columns and pairs, unique and never null. */
  candidates: CandidateKey[] | null;
  relationships: RelationshipCheck[];
  summary: { keysConfirmed: number; keysFailed: number; relationshipsConfirmed: number; relationshipsFailed: number; notChecked: number };
  durationMs: number;
}

// ---------------------------------------------------------------------------------------------
// data laws

export interface LawDay {
  day: string | null;
  source: string;
  target: string;
  /** target - source, as text (exact for integers and decimals). */
  difference: string;
}

export interface LawCheck {
  /** "row count" or "sum(amount)". */
  law: string;
  measure: string | null;
  kind: 'row_count' | 'exact_sum' | 'float_sum';
  /** Proposed from the schema (numeric, non-key) rather than named in the contract's laws. */
  proposed: boolean;
  tolerance: number | null;
  holds: boolean;
  days: number;
  failedDays: number;
  /** The first days it does not hold (up to 5), in day order. */
  failures: LawDay[];
}

export interface LawsResult {
  table: string;
  version: number;
  source: string;
  /** The column the days come from, and how the source gets it (its own column or the partition expression). */
  day: { column: string | null; sourceExpression: string | null };
  laws: LawCheck[];
  /** Days left out of every law: not loaded yet, within the contract's lateness allowance. */
  late: { days: string[]; allow: string } | null;
  summary: { held: number; broken: number };
  notes: string[];
  durationMs: number;
}

/** A ratio as the reports show it ("11.1%"), "n/a" when unknown. */
export function percentText(x: number | null): string {
  return x === null ? 'n/a' : `${Math.round(x * 1000) / 10}%`;
}
