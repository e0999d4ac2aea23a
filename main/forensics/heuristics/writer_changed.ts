// writer_changed: a different engine wrote this commit than the previous one with an engineInfo.
import type { Heuristic } from './types';

export const writerChanged: Heuristic = {
  names: ['writer_changed'],
  start({ versions }) {
    return {
      at({ st, sum, v }) {
        if (!sum.writer) return [];
        let prevWriter: string | null = null;
        for (let u = st.index - 1; u >= 0 && prevWriter === null; u--) prevWriter = versions[u].writer;
        if (!prevWriter || prevWriter === sum.writer) return [];
        return [{
          name: 'writer_changed', version: v, severity: 'info',
          message: `written by ${sum.writer}, the previous commit by ${prevWriter}`,
          evidence: { writer: sum.writer, previousWriter: prevWriter },
        }];
      },
    };
  },
};
