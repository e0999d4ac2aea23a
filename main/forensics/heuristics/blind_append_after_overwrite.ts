// blind_append_after_overwrite: an append into partitions the previous commit just overwrote.
import { isAppend, isOverwrite } from '../helpers';
import type { Heuristic } from './types';

export const blindAppendAfterOverwrite: Heuristic = {
  names: ['blind_append_after_overwrite'],
  start({ history, part }) {
    return {
      at({ st, prevSt, prevSum, sum, v }) {
        if (!prevSt || !prevSum || part.partitionSource === 'none' || !isAppend(st, history) || !isOverwrite(prevSt)) return [];
        const prevParts = new Set(prevSum.partitions);
        const overlap = sum.partitions.filter((p) => prevParts.has(p));
        if (!overlap.length) return [];
        return [{
          name: 'blind_append_after_overwrite', version: v, severity: 'info',
          message: `append into ${overlap.join(', ')} right after v${prevSt.version} overwrote it: the overwrite's rows and these may both be meant as the partition's contents`,
          evidence: { overwriteVersion: prevSt.version, partitions: overlap, rowsAppended: sum.addedRows },
        }];
      },
    };
  },
};
