// Report masking: every value of a counts-only column (confidential and above, by the contract's
// tags and the table schema's own) is masked in a reconcile result before any output sees it:
// the incident report, and the CLI's markdown, JSON and terminal text.
import type { CellText, Finding, ReconcileResult, RowDiff } from '../../shared/reconcile';
import {
  columnTags, isCountsOnly, isSensitivity, maskValue, sensitivityRank, type Sensitivity,
} from '../../shared/sensitivity';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';

/** Column sensitivities from the contract's tags, strengthened by the target schema's own tags. */
export function sensitivityOf(r: ReconcileResult, schemaTags: Record<string, Sensitivity | null> = {}): Record<string, Sensitivity> {
  const out: Record<string, Sensitivity> = {};
  const put = (col: string, s: Sensitivity | null | undefined) => {
    if (!s) return;
    if (!out[col] || sensitivityRank(s) > sensitivityRank(out[col])) out[col] = s;
  };
  for (const [col, t] of Object.entries(r.contract.tags)) put(col, isSensitivity(t.sensitivity) ? t.sensitivity : null);
  for (const [col, s] of Object.entries(schemaTags)) put(col, s);
  // A renamed column is the same data under its source name.
  for (const [src, tgt] of Object.entries(r.contract.renames)) {
    put(src, out[tgt]);
    put(tgt, out[src]);
  }
  return out;
}

function maskRow(row: Record<string, CellText> | null, other: Record<string, CellText> | null, sens: Record<string, Sensitivity>): Record<string, CellText> | null {
  if (!row) return row;
  const out: Record<string, CellText> = {};
  for (const [col, v] of Object.entries(row)) {
    if (v === null || !isCountsOnly(sens[col] ?? null)) { out[col] = v; continue; }
    // Keep the one fact a reader needs, that the values differ, without either value.
    const differs = other !== null && col in other && other[col] !== v;
    out[col] = maskValue(sens[col], v) + (differs ? ' ≠' : '');
  }
  return out;
}

function maskDiff(d: RowDiff, sens: Record<string, Sensitivity>): RowDiff {
  return {
    ...d,
    key: maskRow(d.key, null, sens) ?? {},
    source: maskRow(d.source, d.target, sens),
    target: maskRow(d.target, d.source, sens),
  };
}

/** "col=value" example keys (possibly "a=1, b=2") with confidential values masked. */
function maskKeyText(k: string, sens: Record<string, Sensitivity>): string {
  return k.split(/,\s*/).map((part) => {
    const i = part.indexOf('=');
    if (i <= 0) return part;
    const col = part.slice(0, i).trim();
    return isCountsOnly(sens[col] ?? null) ? `${col}=${maskValue(sens[col], part.slice(i + 1))}` : part;
  }).join(', ');
}

/** The result with every value of a counts-only column (confidential and above) masked. */
export function maskReconcileResult(r: ReconcileResult, sens: Record<string, Sensitivity>): ReconcileResult {
  if (!Object.values(sens).some((s) => isCountsOnly(s))) return r;
  const maskFinding = (f: Finding): Finding => ({
    ...f,
    evidence: {
      ...f.evidence,
      exampleKeys: f.evidence.exampleKeys.map((k) => maskKeyText(k, sens)),
      exampleRows: f.evidence.exampleRows.map((d) => maskDiff(d, sens)),
    },
  });
  return {
    ...r,
    findings: r.findings.map(maskFinding),
    rowDiffs: r.rowDiffs.map((d) => maskDiff(d, sens)),
  };
}

/**
 * The target schema's sensitivity tags at the reconciled version (empty when unreadable). An open
 * table (the one the reconcile read) answers from its cached snapshot instead of a second log read.
 */
export async function schemaSensitivity(root: string | DeltaTable, version: number | null): Promise<Record<string, Sensitivity | null>> {
  try {
    const table = typeof root === 'string' ? await openTable(root) : root;
    const snap = await table.snapshot(version === null ? {} : { version });
    const out: Record<string, Sensitivity | null> = {};
    for (const f of snap.schema.fields) out[f.name] = columnTags(f.metadata as Record<string, unknown> | undefined).sensitivity;
    return out;
  } catch {
    return {};
  }
}
