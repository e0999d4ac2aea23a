// metrics_disagree: a commit whose operationMetrics (what the writer said it did) disagree with the
// actions the commit holds (what the log says it did): an add deleted by hand, a truncated commit.
import type { EvidenceValue } from '../../../shared/forensics';
import type { Heuristic } from './types';

const num = (x: unknown): number | null => {
  if (typeof x === 'number' && Number.isFinite(x)) return x;
  if (typeof x === 'string' && /^\d+$/.test(x)) return Number(x);
  return null;
};

export const metricsDisagree: Heuristic = {
  names: ['metrics_disagree'],
  start({ history: h, versions }) {
    return {
      end() {
        const hits = [];
        for (const st of h.states) {
          const m = st.change?.commitInfo?.operationMetrics;
          if (!m || !st.change?.hasCommitFile) continue;
          const adds = (st.commitAdded ?? st.added).map((id) => h.files[id]);
          const sum = versions[st.index];
          // Files rewritten in place (a deletion vector added) are neither added nor removed files, as
          // writers count them (Spark's DELETE with DVs: numAddedFiles 0, numRemovedFiles 0).
          const addsInLog = sum.addedFiles;
          const removesInLog = sum.removedFiles;
          let physicalRows: number | null = 0;
          let anyDv = false;
          for (const a of adds) {
            if (a.deletionVector) anyDv = true;
            const n = a.numRecords === null ? null : a.numRecords + (a.deletionVector?.cardinality ?? 0);
            physicalRows = physicalRows === null || n === null ? null : physicalRows + n;
          }
          // numDeletedRows: writers count it gross (rows of the removed files: an overwrite) or net (a
          // copy-on-write DELETE: removed minus rewritten rows). Either agrees; only a figure matching
          // neither is evidence.
          const claimedDeleted = num(m.numDeletedRows);
          const gross = sum.removedRows;
          const net = sum.removedRows === null || sum.addedRows === null ? null : sum.removedRows - sum.addedRows;
          const deletedRows = claimedDeleted !== null && (claimedDeleted === gross || claimedDeleted === net) ? claimedDeleted : net;
          const rowsAgree = !anyDv && physicalRows !== null && num(m.numOutputRows) === physicalRows;
          const checks: { metric: string; claimed: number | null; actual: number | null; evidenceName: string }[] = [
            // Spark counts empty task files it never adds in numFiles: with numOutputRows agreeing, a numFiles
            // above the adds is not evidence.
            { metric: 'numFiles', claimed: rowsAgree && (num(m.numFiles) ?? 0) > addsInLog ? null : num(m.numFiles), actual: addsInLog, evidenceName: 'addsInLog' },
            { metric: 'numAddedFiles', claimed: num(m.numAddedFiles), actual: addsInLog, evidenceName: 'addsInLog' },
            { metric: 'numRemovedFiles', claimed: num(m.numRemovedFiles), actual: removesInLog, evidenceName: 'removesInLog' },
            { metric: 'numOutputRows', claimed: anyDv ? null : num(m.numOutputRows), actual: physicalRows, evidenceName: 'rowsInLog' },
            { metric: 'numDeletedRows', claimed: num(m.numDeletedRows), actual: deletedRows, evidenceName: 'deletedRowsInLog' },
          ];
          const off: string[] = [];
          const evidence: Record<string, EvidenceValue> = {};
          for (const c of checks) {
            if (c.claimed === null || c.actual === null) continue;
            evidence[c.metric] = c.claimed;
            evidence[c.evidenceName] = c.actual;
            if (c.claimed !== c.actual) off.push(`${c.metric} says ${c.claimed}, the commit's actions ${c.actual}`);
          }
          if (!off.length) continue;
          hits.push({
            name: 'metrics_disagree' as const, version: st.version, severity: 'warn' as const,
            message: `${st.change.commitInfo?.operation ?? 'commit'}'s operationMetrics disagree with its actions: ${off.join('; ')} (actions removed or edited by hand?)`,
            evidence,
          });
        }
        return hits;
      },
    };
  },
};
