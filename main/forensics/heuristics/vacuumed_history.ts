// vacuumed_history: versions the log can no longer produce (cleaned-up commits, unsupported features,
// a checkpoint that cannot be read). A commit missing between two that exist is version_missing.
import { ranges } from '../helpers';
import type { Heuristic } from './types';

export const vacuumedHistory: Heuristic = {
  names: ['vacuumed_history'],
  start({ history: h }) {
    return {
      end() {
        const unreadable = h.states.filter((s) => !s.info.readable && s.info.unreadableCause !== 'version_missing').map((s) => s.version);
        if (!unreadable.length) return [];
        return [{
          name: 'vacuumed_history', version: unreadable[unreadable.length - 1], severity: 'info',
          message: `${unreadable.length} version(s) can no longer be read (${ranges(unreadable)}); the oldest readable version is ${h.oldestReadable ?? 'none'}`,
          evidence: { unreadableVersions: ranges(unreadable), count: unreadable.length, oldestReadable: h.oldestReadable, reason: h.byVersion.get(unreadable[0])?.info.reason ?? null },
        }];
      },
    };
  },
};
