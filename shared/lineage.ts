// Lineage verified by perturbation: the one result object that the CLI (text, JSON, markdown) and
// the window's Lineage tab read. Definitions follow seeds/konstruct-verify.txt ("How Much to Trust
// the Lineage"): a claimed edge is confirmed or not exercised; an observed influence the graph did
// not claim is via joins and filters (the graph records the input column as a reference) or
// unexplained (a gap in the static analysis).

/** An input column of a model: the input relation (a model, seed, source or table) and the column; a struct field as `col.field`. */
export interface ColumnRef {
  input: string;
  column: string;
}

/** The claimed lineage of one model, from DuckDB's parser. */
export interface ModelClaims {
  /** Output columns in order, each with the input columns its values are computed from. */
  columns: { name: string; edges: ColumnRef[] }[];
  /** Input columns that decide which rows there are or how they pair (joins, WHERE, GROUP BY, HAVING, QUALIFY, DISTINCT). */
  references: ColumnRef[];
  /** What the analysis could not follow (an unresolved name, an unanalysed construct); claims beside a note are incomplete. */
  notes: string[];
}

/** The pseudo-output a change in the number of output rows is recorded under. */
export const ROWS = '(row count)';

export type PerturbationKind = 'shift' | 'null' | 'shuffle';
export const PERTURBATION_KINDS: readonly PerturbationKind[] = ['shift', 'null', 'shuffle'];

export interface EdgeResult {
  output: string;
  input: string;
  column: string;
  verdict: 'confirmed' | 'not_exercised';
  /** The perturbations that changed the output (empty when not exercised). */
  by: PerturbationKind[];
  /** Why it was not exercised, when it was not (null when confirmed). */
  reason: string | null;
}

export interface InfluenceResult {
  /** An output column, or ROWS for a change in row count. */
  output: string;
  input: string;
  column: string;
  verdict: 'via_joins_and_filters' | 'unexplained';
  by: PerturbationKind[];
}

export interface ModelInput {
  name: string;
  kind: 'seed' | 'model' | 'source' | 'table';
  /** Rows copied into the run (at most --rows). */
  rows: number;
  columns: string[];
}

export interface LineageCounts {
  claimed: number;
  confirmed: number;
  notExercised: number;
  viaJoinsAndFilters: number;
  unexplained: number;
}

export interface ModelResult {
  name: string;
  /** The model's file, relative to the project (null for a view in a DuckDB file). */
  path: string | null;
  /** Where its SQL came from: dbt's compilation, lakerec's rendering, a view of a DuckDB file, or a CREATE TABLE AS of the SQL script beside it. */
  sqlFrom: 'compiled' | 'rendered' | 'duckdb_view' | 'sql_script';
  /** The inputs it reads (models, seeds, sources, tables). */
  dependsOn: string[];
  status: 'verified' | 'skipped';
  /** Why it was skipped (null when verified). */
  skipReason: string | null;
  inputs: ModelInput[];
  claims: ModelClaims | null;
  edges: EdgeResult[];
  influences: InfluenceResult[];
  /** Output rows on the unperturbed copy (null when skipped). */
  outputRows: number | null;
  /**
   * The first output column that identifies rows on the unperturbed copy (no NULL, no repeat), or
   * null. Rows are matched across runs by it, or by the next such column when the perturbed input
   * is claimed to feed it.
   */
  rowKey: string | null;
  /** Queries run for this model (the baseline and every perturbation). */
  runs: number;
  counts: LineageCounts;
}

export interface LineageResult {
  project: string;
  kind: 'dbt' | 'duckdb';
  seed: number;
  rows: number;
  models: ModelResult[];
  totals: LineageCounts & { models: number; verified: number; skipped: number };
  /** The shift used: x * a + b on numbers, a suffix on strings, days on dates. */
  shift: { a: number; b: number; suffix: string; days: number };
}

// ---- the window (the Lineage tab and the commit panel's link) ----

/** A dbt project (or DuckDB file) attached to a table, a setting kept per table. */
export interface LineageAttachment {
  table: string;
  /** The dbt project folder or DuckDB file, or null when none is attached. */
  project: string | null;
  /** The model the user set for the table (null: found by configured location or by name). */
  model: string | null;
  /** The model that writes the table, and how it was found (null when none was found). */
  tableModel: string | null;
  foundBy: 'setting' | 'location' | 'name' | null;
  /** The project's models, for the picker ([] when none is attached or it cannot be read). */
  models: string[];
  /** Why the project cannot be read or no model writes the table, in one line (null when fine). */
  problem: string | null;
}

export interface LineageRequest {
  table: string;
  rows?: number;
  seed?: number;
}

export interface LineageRun {
  attachment: LineageAttachment;
  result: LineageResult;
}

/** Where a model's SQL came from, in words (the CLI, the markdown and the tab say the same). */
export function sqlFromLabel(s: ModelResult['sqlFrom']): string {
  return { compiled: "dbt's compiled SQL", rendered: 'SQL rendered by lakerec', duckdb_view: 'a view of the DuckDB file', sql_script: 'a CREATE TABLE AS of the script' }[s];
}
