// timestamp_from_file_time: a commit without commitInfo has no commit time; the reader falls back
// to the file's mtime, which a copy or restore changes. Marked, so no one reads it as a commit time.
import type { Heuristic } from './types';

export const timestampFromFileTime: Heuristic = {
  names: ['timestamp_from_file_time'],
  start({ history: h, versions }) {
    return {
      end() {
        return h.states.filter((st) => st.change?.hasCommitFile && st.change.timestampSource === 'file_mtime').map((st) => ({
          name: 'timestamp_from_file_time' as const, version: st.version, severity: 'info' as const,
          message: `no commitInfo timestamp: ${versions[st.index].when || 'the time'} is the commit file's mtime, not when the commit was made`,
          evidence: { timestamp: versions[st.index].when, source: 'file_mtime' },
        }));
      },
    };
  },
};
