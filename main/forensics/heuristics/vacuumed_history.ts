// vacuumed_history: versions the log can no longer produce because of log cleanup (the oldest
// commits deleted before a checkpoint that is kept, PROTOCOL.md "Metadata Cleanup"). A commit
// missing between two that exist is version_missing; any other reason is versions_unreadable.
import { ranges } from '../helpers';
import type { Heuristic } from './types';

export const vacuumedHistory: Heuristic = {
  names: ['vacuumed_history'],
  start({ history: h }) {
    return {
      end() {
        const unreadable = h.states.filter((s) => !s.info.readable && s.info.unreadableCause === 'history_expired').map((s) => s.version);
        if (!unreadable.length) return [];
        return [{
          name: 'vacuumed_history', version: unreadable[unreadable.length - 1], severity: 'info',
          message: `${unreadable.length} version(s) can no longer be read (${ranges(unreadable)}): their commits were cleaned up; the oldest readable version is ${h.oldestReadable ?? 'none'}`,
          evidence: { unreadableVersions: ranges(unreadable), count: unreadable.length, oldestReadable: h.oldestReadable, reason: h.byVersion.get(unreadable[0])?.info.reason ?? null },
        }];
      },
    };
  },
};
