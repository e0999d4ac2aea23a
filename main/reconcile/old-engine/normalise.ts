// What "the same result" means between engines, for the equality test against the old engine's
// output (old-engine/rows-level.json): the findings, the key diff, the partitions and the example
// rows, with what is random per build taken out (data file names carry a UUID; the version that
// added the file stays). Durations, dates and paths of the temp folder are not compared.
import type { ReconcileResult, RowDiff } from '../../../shared/reconcile';

export interface NormalisedResult {
  verdict: string;
  findings: { mode: string; blocking: boolean; level: string; summary: string; counts: Record<string, number>; partitions: string[]; exampleKeys: string[]; notes: string[] }[];
  unnamed: string[];
  /** Checksum values depend on the digest; whether the two sides agree does not. */
  partitions: { partition: string; sourceRows: number; targetRows: number; checksumsAgree: boolean | null; state: string }[];
  keyDiff: ReconcileResult['keyDiff'];
  columnDiffs: ReconcileResult['columnDiffs'];
  rowDiffs: (Omit<RowDiff, 'targetFile'> & { targetFile: string | null })[];
  floats: ReconcileResult['floats'];
}

/** A data file's path without its UUID (part-00000-<uuid>-c000.snappy.parquet -> part-00000-*). */
export function fileShape(path: string | null | undefined): string | null {
  if (path === null || path === undefined) return null;
  return path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '*');
}

export function normaliseResult(r: ReconcileResult): NormalisedResult {
  const strip = (s: string) => s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '*');
  const row = (d: RowDiff) => ({ ...d, targetFile: fileShape(d.targetFile) });
  return {
    verdict: r.verdict,
    findings: r.findings.map((f) => ({
      mode: f.mode, blocking: f.blocking, level: f.level, summary: strip(f.summary), counts: f.evidence.counts,
      partitions: f.evidence.partitions, exampleKeys: f.evidence.exampleKeys.map(strip), notes: f.evidence.notes.map(strip),
    })),
    unnamed: r.unnamed,
    partitions: r.partitions.map((p) => ({ partition: p.partition, sourceRows: p.sourceRows, targetRows: p.targetRows, checksumsAgree: p.sourceChecksum === null ? null : p.sourceChecksum === p.targetChecksum, state: p.state })),
    keyDiff: r.keyDiff,
    columnDiffs: r.columnDiffs,
    rowDiffs: r.rowDiffs.map(row),
    floats: r.floats,
  };
}
