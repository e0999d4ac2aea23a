// partition_emptied: the partition had files before and has none after, none added back.
import type { HeuristicHit } from '../../../shared/forensics';
import type { FileEntry } from '../../delta/history';
import type { Heuristic } from './types';
import { pushTo } from '../../../shared/group';

export const partitionEmptied: Heuristic = {
  names: ['partition_emptied'],
  start({ part, active }) {
    let countBefore = new Map<string, number>();
    return {
      before({ dataRems, adds }) {
        countBefore = new Map();
        if (part.partitionSource !== 'none') for (const f of [...dataRems, ...adds]) countBefore.set(part.partOf(f), active.partCount.get(part.partOf(f)) ?? 0);
      },
      at({ dataRems, v, op }) {
        const hits: HeuristicHit[] = [];
        if (part.partitionSource === 'none' || !dataRems.length) return hits;
        const remParts = new Map<string, FileEntry[]>();
        for (const r of dataRems) {
          const p = part.partOf(r);
          pushTo(remParts, p, r);
        }
        for (const [p, rs] of remParts) {
          if (p.endsWith('=mixed')) continue;
          if ((active.partCount.get(p) ?? 0) > 0) continue;
          const rows = rs.reduce((s, f) => s + (f.numRecords ?? 0), 0);
          hits.push({
            name: 'partition_emptied', version: v, severity: 'warn',
            message: `${op} removed every file it touched in ${p} and added none back`,
            evidence: { partition: p, filesBefore: countBefore.get(p) ?? 0, filesRemoved: rs.length, rowsRemoved: rows, operation: op, removedPaths: rs.slice(0, 10).map((f) => f.path) },
          });
        }
        return hits;
      },
    };
  },
};
