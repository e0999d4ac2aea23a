// large_delete: a commit (not an overwrite) whose net row loss is at least a quarter of the table.
import { isOverwrite } from '../helpers';
import type { Heuristic } from './types';

export const largeDelete: Heuristic = {
  names: ['large_delete'],
  start() {
    return {
      at({ st, prevSt, sum, v, op }) {
        const prevRows = prevSt ? prevSt.tableRows : null;
        if (!prevRows || st.tableRows === null || prevRows - st.tableRows < Math.max(1, prevRows * 0.25) || isOverwrite(st)) return [];
        return [{
          name: 'large_delete', version: v, severity: 'warn',
          message: `${op} took the table from ${prevRows} to ${st.tableRows} row(s) (-${(100 * (prevRows - st.tableRows) / prevRows).toFixed(1)}%)`,
          evidence: { rowsBefore: prevRows, rowsAfter: st.tableRows, operation: op, partitions: sum.partitions },
        }];
      },
    };
  },
};
