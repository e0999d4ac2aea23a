// overwrite_shrank_the_table: an overwrite removed files from more partitions than it wrote.
import { isOverwrite } from '../helpers';
import type { Heuristic } from './types';

export const overwriteShrankTheTable: Heuristic = {
  names: ['overwrite_shrank_the_table'],
  start({ part }) {
    return {
      at({ st, dataRems, adds, sum, v }) {
        if (!isOverwrite(st) || !dataRems.length || part.partitionSource === 'none') return [];
        const remParts = new Set(dataRems.map((f) => part.partOf(f)));
        const addParts = new Set(adds.map((f) => part.partOf(f)));
        if (remParts.size <= addParts.size) return [];
        const gone = [...remParts].filter((p) => !addParts.has(p)).sort();
        return [{
          name: 'overwrite_shrank_the_table', version: v, severity: 'warn',
          message: `overwrite removed files from ${remParts.size} partition(s) and wrote ${addParts.size}; the difference is data that is now gone`,
          evidence: { partitionsRemovedFrom: [...remParts].sort(), partitionsWritten: [...addParts].sort(), partitionsNotRewritten: gone, rowsRemoved: sum.removedRows, rowsAdded: sum.addedRows },
        }];
      },
    };
  },
};
