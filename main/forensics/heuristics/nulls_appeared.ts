// nulls_appeared: a column with no null in any active file gets nulls from this commit.
import type { Heuristic } from './types';

export const nullsAppeared: Heuristic = {
  names: ['nulls_appeared'],
  start({ active }) {
    let fresh = new Map<string, { rows: number; files: number }>();
    return {
      before({ st, prevSt, adds }) {
        fresh = new Map();
        const hadData = st.tableFiles > 0 && (prevSt ? prevSt.tableFiles > 0 : false);
        if (!hadData) return;
        for (const f of adds) {
          for (const [c, n] of active.nullCols(f)) {
            if ((active.nullFiles.get(c) ?? 0) > 0) continue;
            const cur = fresh.get(c) ?? { rows: 0, files: 0 };
            fresh.set(c, { rows: cur.rows + n, files: cur.files + 1 });
          }
        }
      },
      at: ({ v, op }) => [...fresh].map(([c, n]) => ({
        name: 'nulls_appeared' as const, version: v, severity: 'info' as const,
        message: `${op} brought the first nulls into ${c} (${n.rows} row(s) in ${n.files} file(s)); no file in the table had one before`,
        evidence: { column: c, nullRows: n.rows, files: n.files },
      })),
    };
  },
};
