// clock_went_backwards: a commit timestamp earlier than its predecessor's.
import type { Heuristic } from './types';

export const clockWentBackwards: Heuristic = {
  names: ['clock_went_backwards'],
  start() {
    return {
      at({ st, prevSt, prevSum, sum, v }) {
        if (!prevSt || !prevSum || !st.change || !prevSt.change || !sum.timestamp || !prevSum.timestamp || sum.timestamp >= prevSum.timestamp) return [];
        return [{
          name: 'clock_went_backwards', version: v, severity: 'info',
          message: `commit time ${sum.when} is ${((prevSum.timestamp - sum.timestamp) / 1000).toFixed(1)} s earlier than v${prevSum.version}'s ${prevSum.when}: time travel by timestamp is ambiguous here`,
          evidence: { timestamp: sum.when, previousTimestamp: prevSum.when, previousVersion: prevSum.version },
        }];
      },
    };
  },
};
