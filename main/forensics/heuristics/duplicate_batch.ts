// duplicate_batch: an append whose files repeat the stats of an earlier append still in the table.
import type { FileEntry } from '../../delta/history';
import { isAppend } from '../helpers';
import type { Heuristic } from './types';

export const duplicateBatch: Heuristic = {
  names: ['duplicate_batch'],
  start({ history, active }) {
    let matched: FileEntry[] | null = null;
    return {
      before({ st, adds }) { matched = isAppend(st, history) ? active.matchEarlier(adds) : null; },
      at({ adds, sum, v }) {
        if (!matched) return [];
        const from = [...new Set(matched.map((f) => f.addedIn))].sort((a, b) => a - b);
        const rows = adds.reduce((s, f) => s + (f.numRecords ?? 0), 0);
        return [{
          name: 'duplicate_batch', version: v, severity: 'warn',
          message: `append of ${adds.length} file(s)/${rows} row(s) repeats the row counts and stats of v${from.join(', v')} (still in the table): a retried batch?`,
          evidence: { earlierVersions: from, files: adds.length, rows, partitions: sum.partitions, matchedPaths: matched.slice(0, 10).map((f) => f.path) },
        }];
      },
    };
  },
};
