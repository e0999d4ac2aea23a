// stats_missing: added files without numRecords (count-level checks and log-only bisect cannot see them).
import type { Heuristic } from './types';

export const statsMissing: Heuristic = {
  names: ['stats_missing'],
  start() {
    return {
      at({ adds, v }) {
        const noStats = adds.filter((a) => a.numRecords === null);
        if (!noStats.length) return [];
        return [{
          name: 'stats_missing', version: v, severity: 'info',
          message: `${noStats.length} added file(s) carry no row-count stats: counts and log-only predicates cannot see their rows`,
          evidence: { files: noStats.length, paths: noStats.slice(0, 10).map((f) => f.path) },
        }];
      },
    };
  },
};
