// data_files_missing: the log outlives the data (VACUUM, a manual delete): active files not on
// disk, and removed files gone (time travel to before the removal cannot read data).
import type { HeuristicHit } from '../../../shared/forensics';
import { activeAt } from '../../delta/history';
import type { Heuristic } from './types';

export const dataFilesMissing: Heuristic = {
  names: ['data_files_missing'],
  start({ history: h, presence }) {
    return {
      end() {
        const latest = h.states[h.states.length - 1];
        if (!latest) return [];
        const hits: HeuristicHit[] = [];
        // Unknown (outside the root, not checked) is not missing.
        const fileExists = (f: { id: number }): boolean => presence.get(f.id) !== false;
        const missing = activeAt(h, latest.version).filter((f) => !fileExists(f));
        if (missing.length) {
          hits.push({
            name: 'data_files_missing', version: latest.version, severity: 'warn',
            message: `${missing.length} file(s) the latest version needs are not on disk: the table cannot be read in full`,
            evidence: { files: missing.length, rows: missing.reduce((s, f) => s + (f.numRecords ?? 0), 0), paths: missing.slice(0, 10).map((f) => f.path) },
          });
        }
        const gone = h.files.filter((f) => f.removedIn !== null && !fileExists(f));
        if (gone.length) {
          // No Math.max(...gone): a million removed files would overflow the stack.
          let newest = 0;
          for (const f of gone) if ((f.removedIn as number) > newest) newest = f.removedIn as number;
          hits.push({
            name: 'data_files_missing', version: newest, severity: 'info',
            message: `${gone.length} removed file(s) were deleted from disk (VACUUM): versions before v${newest} keep their log but not their data`,
            evidence: { files: gone.length, oldestDataReadableVersion: newest, paths: gone.slice(0, 10).map((f) => f.path) },
          });
        }
        return hits;
      },
    };
  },
};
