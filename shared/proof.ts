// The round-trip proof's result, as the window, web mode and `lakerec proof --json` see it.
// Plain data only (no bigint, no class): it crosses IPC and HTTP as JSON.
import type { OdsFingerprint } from './fingerprint';
import type { ColumnProfile } from './sensitivity';

export type ProofCheckName =
  | 'rows_match' | 'schema_match' | 'fingerprints_match' | 'rows_identical'
  | 'declared_schema' | 'tags_carried' | 'sensitivity_floor' | 'profile_no_leak'
  | 'delta_protocol' | 'one_writer' | 'access_d11' | 'sandbox_discarded';

export const PROOF_CHECKS: readonly { name: ProofCheckName; kind: 'data' | 'governance'; passesWhen: string }[] = [
  { name: 'rows_match', kind: 'data', passesWhen: 'every step has the generated row count' },
  { name: 'schema_match', kind: 'data', passesWhen: 'both Delta tables, and every read, have the generated names and types' },
  { name: 'fingerprints_match', kind: 'data', passesWhen: "every step's fingerprint equals the generated data's, computed by DuckDB SQL and by TypeScript over Arrow" },
  { name: 'rows_identical', kind: 'data', passesWhen: "A's read of B's table equals the generated data, row by row" },
  { name: 'declared_schema', kind: 'governance', passesWhen: 'both tables match the declared column schema (names, types, nullability)' },
  { name: 'tags_carried', kind: 'governance', passesWhen: "the column tags and descriptions are inside both tables' Delta schema" },
  { name: 'sensitivity_floor', kind: 'governance', passesWhen: 'no carried sensitivity tag is weaker than declared' },
  { name: 'profile_no_leak', kind: 'governance', passesWhen: 'profiles of confidential columns hold counts only, and no confidential value appears anywhere in the result' },
  { name: 'delta_protocol', kind: 'governance', passesWhen: "each engine read the other's protocol and table features, and each table declares the features its schema needs" },
  { name: 'one_writer', kind: 'governance', passesWhen: "every commit on each table is by the expected engine (commitInfo.engineInfo)" },
  { name: 'access_d11', kind: 'governance', passesWhen: 'never yet: a warning until table access control exists (fails when the sandbox is open to other users)' },
  { name: 'sandbox_discarded', kind: 'governance', passesWhen: 'nothing of the sandbox is left afterwards' },
];

export type CheckStatus = 'pass' | 'fail' | 'warn';

export interface ProofCheck {
  name: ProofCheckName;
  kind: 'data' | 'governance';
  status: CheckStatus;
  /** One sentence. */
  summary: string;
  /** What was looked at, one line each (values of confidential columns are masked). */
  evidence: string[];
}

export type FingerprintMethod = 'duckdb-sql' | 'typescript-arrow';

export type ProofStepId = 'generate' | 'a_write' | 'b_read' | 'b_write' | 'a_read';
export type StepStatus = 'pending' | 'running' | 'done' | 'failed';

export interface ProofStep {
  id: ProofStepId;
  /** The engine that ran the step (null for generate). */
  engine: string | null;
  title: string;
  status: StepStatus;
  /** 'a' or 'b': the Delta table the step wrote or read. */
  table: 'a' | 'b' | null;
  rows: number | null;
  /**
   * The fingerprint of what the step produced: generate and reads, TypeScript over the Arrow table
   * (generated, or returned by the engine); writes, DuckDB running the fingerprint SQL over the
   * table's files.
   */
  fingerprint: OdsFingerprint | null;
  fingerprintBy: FingerprintMethod | null;
  /** The same figures computed the other way (generate: DuckDB SQL over the generated rows; reads: DuckDB SQL over the files read); null for writes. */
  fingerprintCheck: OdsFingerprint | null;
  fingerprintCheckBy: FingerprintMethod | null;
  /** Differences from the generated data's fingerprint (empty: equal). */
  differences: string[];
  ms: number;
  error?: string;
}

/** What was proved: the generated table (the seed's `generic`), by its seed and row count. */
export interface ProofTableRef {
  kind: 'generated';
  seed: number;
  rows: number;
}

export interface ProofResult {
  version: 1;
  /** The proof's id: the lock file's, and the run history's record of it. */
  id: string;
  table: ProofTableRef;
  engines: [string, string];
  startedAt: string;
  finishedAt: string;
  ms: number;
  /** The sandbox the run used (deleted by the time the result is returned). */
  sandbox: string;
  steps: ProofStep[];
  checks: ProofCheck[];
  /** Profiles of every column of A's read of B's table, masked by sensitivity. */
  profiles: ColumnProfile[];
  /** true when no check failed (warnings do not fail a proof). */
  passed: boolean;
}

/** A run of proof, reconcile or bisect as the run history keeps it. */
export type RunKind = 'proof' | 'reconcile' | 'bisect' | 'mutate';

export interface RunRecord {
  id: string;
  kind: RunKind;
  startedAt: string;
  finishedAt: string | null;
  /** 'pass' | 'fail' | 'warn' | 'error' or a kind-specific word. */
  status: string;
  title: string;
  /** The kind's own result summary, as JSON. */
  summary: unknown;
}

/** The seed's ODS_PROOF: which proofs run when none is named. */
export const PROOF_MODES = ['generic', 'off', 'all'] as const;
export type ProofMode = (typeof PROOF_MODES)[number];

export interface ProofSettings {
  mode: ProofMode;
  /** A Dagster instance's GraphQL endpoint the record is posted to; null: not posted. */
  dagsterUrl: string | null;
}

/** The proofs a mode runs when none is named: every ordered pair for `all`, the first two engines for `generic`, none for `off`. */
export function proofsForMode(mode: ProofMode, engines: readonly string[]): [string, string][] {
  if (mode === 'off') return [];
  if (mode === 'generic') return engines.length >= 2 ? [[engines[0], engines[1]]] : [];
  const out: [string, string][] = [];
  for (const a of engines) for (const b of engines) out.push([a, b]);
  return out;
}
