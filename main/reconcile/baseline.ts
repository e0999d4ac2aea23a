// Baselines: per-partition checksums plus the file set each came from. Delta files are
// immutable, so a partition whose file set (and deletion vectors) is unchanged still has the
// same rows: its checksum is inherited rather than re-read. The source has no log and is always
// re-read; the report says so.
import { existsSync, readFileSync } from 'node:fs';
import { writeOutput } from '../engine/outputs';
import { LakerecError } from '../../shared/errors';
import type { ReconcileResult } from '../../shared/reconcile';
import type { ActiveFile } from '../delta/types';
import type { Contract } from './contract';
import type { TargetSide } from './sides';
import { pushTo } from '../../shared/group';

export const BASELINE_FORMAT = 'lakerec-baseline-v1';

/** An exact float sum as stored: mantissa sums per exponent (decimal strings), special values, rows. */
export interface StoredFloatSum {
  n: number;
  groups: Record<string, string>;
  nan: number;
  posInf: number;
  negInf: number;
}

export interface InheritedPartition {
  rows: number;
  checksum: string;
  /** Exact sums of the float columns the contract compares by sum. */
  floats: Record<string, StoredFloatSum>;
}

export interface Baseline {
  format: typeof BASELINE_FORMAT;
  /** What decides a checksum: if any of it changed, nothing can be inherited. */
  signature: string;
  canonical: string;
  table: { root: string; version: number; metadataId: string };
  createdAt: string;
  partitions: Record<string, { files: string[]; rows: number; checksum: string; floats?: Record<string, StoredFloatSum> }>;
}

interface PartLike { column: string | null; targetIsDeltaPartition: boolean }

export function fileIdentity(f: ActiveFile): string {
  return f.deletionVector ? `${f.path}#dv:${f.deletionVector.storageType}:${f.deletionVector.pathOrInlineDv}:${f.deletionVector.offset ?? ''}` : f.path;
}

function label(col: string | null, v: string | null): string {
  return col === null ? '(table)' : `${col}=${v ?? '(null)'}`;
}

function fileSets(target: TargetSide, part: PartLike): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const f of target.snapshot.files) {
    const l = part.column === null ? '(table)' : label(part.column, f.partitionValues[part.column] ?? null);
    pushTo(m, l, fileIdentity(f));
  }
  for (const list of m.values()) list.sort();
  return m;
}

export function signature(o: { contract: Contract; target: TargetSide; digestCols: string[]; floatCols: string[]; canonical: string; hashForms?: string[] }): string {
  const types = new Map(o.target.columns.map((c) => [c.name, c.type]));
  return JSON.stringify({
    canonical: o.canonical,
    keys: o.contract.keys,
    partition: o.contract.partitioning?.column ?? null,
    naiveIsUtc: o.contract.naiveIsUtc,
    columns: o.digestCols.map((c) => `${c}:${types.get(c) ?? '?'}`),
    floats: o.floatCols,
    ...(o.hashForms && o.hashForms.length ? { hashForms: o.hashForms } : {}),
  });
}

/** Reads a baseline; a missing file is not an error (the first run of a CI gate has none yet). */
export function readBaseline(path: string): Baseline | null {
  if (!existsSync(path)) return null;
  let b: Baseline;
  try {
    b = JSON.parse(readFileSync(path, 'utf8')) as Baseline;
  } catch (e) {
    throw new LakerecError('usage', `baseline ${path} is not valid JSON: ${(e as Error).message}`, { path });
  }
  if (b?.format !== BASELINE_FORMAT || typeof b.partitions !== 'object') {
    throw new LakerecError('usage', `baseline ${path} is not a lakerec baseline (format ${BASELINE_FORMAT})`, { path });
  }
  return b;
}

export function baselineFor(
  b: Baseline | null,
  o: { contract: Contract; target: TargetSide; part: PartLike; digestCols: string[]; floatCols: string[]; canonical: string; hashForms?: string[] },
): { inherited: Map<string, InheritedPartition>; refused: string | null } {
  const inherited = new Map<string, InheritedPartition>();
  if (!b) return { inherited, refused: 'no baseline file yet (this run reads everything and can write one)' };
  if (b.table.metadataId !== o.target.snapshot.metadata.id) return { inherited, refused: 'the baseline is of another table (metadata id differs)' };
  // A checksum is only comparable under the digest identity it was computed with (algorithm and,
  // for DuckDB's hash(), the DuckDB version): under another, every partition is read again.
  if (b.canonical !== o.canonical) {
    return { inherited, refused: `the baseline was written under digest ${b.canonical} and this run uses ${o.canonical}: its checksums are not comparable, so every partition is re-read` };
  }
  if (b.signature !== signature(o)) return { inherited, refused: 'the contract, schema or digest changed since the baseline was written' };
  if (!o.part.targetIsDeltaPartition && o.part.column !== null) return { inherited, refused: `the contract's partition column ${o.part.column} is not the table's partition column` };
  for (const [l, files] of fileSets(o.target, o.part)) {
    const prev = b.partitions[l];
    if (prev && prev.files.length === files.length && prev.files.every((f, i) => f === files[i])
      && o.floatCols.every((c) => prev.floats?.[c] !== undefined)) {
      inherited.set(l, { rows: prev.rows, checksum: prev.checksum, floats: prev.floats ?? {} });
    }
  }
  return { inherited, refused: null };
}

export function writeBaselineFile(
  path: string,
  o: {
    result: ReconcileResult; target: TargetSide; part: PartLike; contract: Contract; digestCols: string[]; floatCols: string[];
    targetFloats: Map<string, Record<string, StoredFloatSum>>;
    hashForms?: string[];
  },
): void {
  const sets = fileSets(o.target, o.part);
  const partitions: Baseline['partitions'] = {};
  for (const p of o.result.partitions) {
    const files = sets.get(p.partition);
    if (!files || p.targetChecksum === null) continue;
    partitions[p.partition] = { files, rows: p.targetRows, checksum: p.targetChecksum, floats: o.targetFloats.get(p.partition) ?? {} };
  }
  const b: Baseline = {
    format: BASELINE_FORMAT,
    signature: signature({ contract: o.contract, target: o.target, digestCols: o.digestCols, floatCols: o.floatCols, canonical: o.result.digest, hashForms: o.hashForms }),
    canonical: o.result.digest,
    table: { root: o.target.root, version: o.target.snapshot.version, metadataId: o.target.snapshot.metadata.id },
    createdAt: new Date().toISOString(),
    partitions,
  };
  // Never inside the table it describes (nor any other): the one output guard.
  writeOutput(path, JSON.stringify(b, null, 2) + '\n', { what: 'the baseline', roots: [o.target.root] });
}
