// empty_commit: a commit file with no action at all (0 bytes or whitespace). A writer never writes
// one; it is what is left when a commit was truncated or emptied by hand, and whatever it held
// (adds, removes, its commitInfo) is gone without a trace.
import { commitFileName } from '../../delta/logfiles';
import type { Heuristic } from './types';

export const emptyCommit: Heuristic = {
  names: ['empty_commit'],
  start({ history: h }) {
    return {
      end() {
        return h.states.filter((st) => st.change?.hasCommitFile && st.change.blankCommit).map((st) => ({
          name: 'empty_commit' as const, version: st.version, severity: 'warn' as const,
          message: `commit file ${commitFileName(st.version)} is ${st.change?.commitBytes ? 'whitespace only' : 'empty (0 bytes)'}: no action, no commitInfo; whatever this version held is gone, and its timestamp is the file's mtime`,
          evidence: { file: commitFileName(st.version), bytes: st.change?.commitBytes ?? 0 },
        }));
      },
    };
  },
};
