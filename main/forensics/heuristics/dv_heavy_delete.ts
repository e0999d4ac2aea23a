// dv_heavy_delete: deletion vectors that hide at least half of their files' rows.
import type { Heuristic } from './types';

export const dvHeavyDelete: Heuristic = {
  names: ['dv_heavy_delete'],
  start() {
    return {
      at({ adds, sum, v, op }) {
        const dvAdds = adds.filter((a) => a.deletionVector && a.stats && typeof a.stats.numRecords === 'number');
        if (!dvAdds.length) return [];
        const physical = dvAdds.reduce((s, a) => s + (a.stats?.numRecords ?? 0), 0);
        const hidden = dvAdds.reduce((s, a) => s + (a.deletionVector?.cardinality ?? 0), 0);
        if (physical <= 0 || hidden / physical < 0.5) return [];
        return [{
          name: 'dv_heavy_delete', version: v, severity: 'info',
          message: `${op} left deletion vectors hiding ${hidden} of ${physical} row(s) in ${dvAdds.length} file(s): readers skip most of what they read (OPTIMIZE/purge would rewrite them)`,
          evidence: { files: dvAdds.length, physicalRows: physical, hiddenRows: hidden, rowsHiddenThisCommit: sum.dvDeletedRows },
        }];
      },
    };
  },
};
