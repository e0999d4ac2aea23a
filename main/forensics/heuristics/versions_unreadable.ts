// versions_unreadable: versions the reader cannot rebuild for a reason other than log cleanup or a
// missing commit: a reader feature or protocol it does not support, a checkpoint it cannot read,
// a metaData the protocol forbids or without a schema. One finding per cause, with the reason.
import type { UnreadableCause } from '../../../shared/forensics';
import { ranges } from '../helpers';
import type { Heuristic } from './types';
import { pushTo } from '../../../shared/group';

const OWN_FINDING: ReadonlySet<UnreadableCause> = new Set(['history_expired', 'version_missing']);

export const versionsUnreadable: Heuristic = {
  names: ['versions_unreadable'],
  start({ history: h }) {
    return {
      end() {
        const byCause = new Map<UnreadableCause, number[]>();
        for (const s of h.states) {
          if (s.info.readable) continue;
          const cause = s.info.unreadableCause ?? 'unreadable';
          if (OWN_FINDING.has(cause)) continue;
          pushTo(byCause, cause, s.version);
        }
        return [...byCause].map(([cause, versions]) => {
          const reason = h.byVersion.get(versions[0])?.info.reason ?? null;
          return {
            name: 'versions_unreadable' as const, version: versions[versions.length - 1], severity: 'warn' as const,
            message: `${versions.length} version(s) cannot be read (${ranges(versions)})${reason ? `: ${reason}` : ''}`,
            evidence: { unreadableVersions: ranges(versions), count: versions.length, cause, reason, oldestReadable: h.oldestReadable },
          };
        }).sort((a, b) => a.version - b.version);
      },
    };
  },
};
