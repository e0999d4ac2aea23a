// version_missing: a commit is missing between versions that exist and no checkpoint covers it.
// PROTOCOL.md: a table's versions are contiguous, and metadata cleanup only deletes the oldest
// commits before a checkpoint it keeps; a hole is a lost (or deleted) commit, not cleanup. The
// versions after it are unreadable until a checkpoint rebuilds the table. One hit per gap, with
// what exists around it.
import { commitFileName } from '../../delta/logfiles';
import type { VersionState } from '../../delta/history';
import { ranges } from '../helpers';
import type { Heuristic } from './types';
import type { HeuristicHit } from '../../../shared/forensics';

const inLog = (st: VersionState): boolean => st.info.hasCommitFile || st.info.hasCheckpoint;

export const versionMissing: Heuristic = {
  names: ['version_missing'],
  start({ history: h }) {
    return {
      end() {
        const hits: HeuristicHit[] = [];
        const states = h.states;
        for (let i = 0; i < states.length; i++) {
          const st = states[i];
          const prevV = i > 0 ? states[i - 1].version : -1;
          // A run of missing versions listed one by one, or (a large gap) the jump before a listed one.
          let first: number;
          let last: number;
          let j = i;
          if (!inLog(st) && st.info.unreadableCause === 'version_missing') {
            while (j + 1 < states.length && !inLog(states[j + 1]) && states[j + 1].version === states[j].version + 1) j++;
            first = st.version;
            last = states[j].version;
            j++;
          } else if (inLog(st) && st.version > prevV + 1 && st.info.unreadableCause === 'version_missing') {
            first = prevV + 1;
            last = st.version - 1;
          } else {
            continue;
          }
          let before: VersionState | undefined;
          for (let k = i - 1; k >= 0 && !before; k--) if (inLog(states[k])) before = states[k];
          // The versions after the gap it makes unreadable, and where the log is readable again.
          const after = states[j];
          const unreadableAfter: number[] = [];
          let readableAgainAt: number | null = null;
          for (let k = j; k < states.length; k++) {
            if (states[k].info.readable) { readableAgainAt = states[k].version; break; }
            if (inLog(states[k])) unreadableAfter.push(states[k].version);
          }
          const count = last - first + 1;
          const files = count === 1 ? commitFileName(first) : `${commitFileName(first)} to ${commitFileName(last)}`;
          const around = [before ? `v${before.version}` : null, after ? `v${after.version}` : null].filter((x) => x !== null);
          hits.push({
            name: 'version_missing', version: first, severity: 'warn',
            message: `${count === 1 ? `version ${first} is` : `versions ${first}-${last} are`} missing: ${files} ${count === 1 ? 'does' : 'do'} not exist`
              + `${around.length ? ` (${around.join(' and ')} ${around.length === 1 ? 'does' : 'do'})` : ''} and no checkpoint covers ${count === 1 ? 'it' : 'them'}; `
              + (unreadableAfter.length ? `${ranges(unreadableAfter)} cannot be read` : 'no later version depends on it')
              + (readableAgainAt !== null ? `, the log is readable again from the checkpoint at v${readableAgainAt}` : ''),
            evidence: {
              missingVersions: count > 1 ? `v${first}-v${last}` : `v${first}`, count, files,
              before: before?.version ?? null, after: after?.version ?? null,
              unreadableAfter: ranges(unreadableAfter), readableAgainAt,
            },
          });
          i = Math.max(i, j - 1);
        }
        return hits;
      },
    };
  },
};
