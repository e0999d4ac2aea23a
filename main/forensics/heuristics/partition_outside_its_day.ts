// partition_outside_its_day: until now every file's timestamps fell inside its date partition's UTC
// day; this commit adds files whose timestamps do not (a partition derived in another time zone?).
import type { HeuristicHit } from '../../../shared/forensics';
import { iso } from '../helpers';
import type { Heuristic } from './types';

export const partitionOutsideItsDay: Heuristic = {
  names: ['partition_outside_its_day'],
  start({ active }) {
    let pending: HeuristicHit[] = [];
    return {
      before({ adds, v, op }) {
        pending = [];
        for (const { p, t, key } of active.pairs) {
          const before = active.fitCount.get(key);
          if (!before || before.fit === 0 || before.misfit > 0) continue;
          const misfits = adds.flatMap((f) => { const r = active.fits(f, p, t); return r && !r.fit ? [{ f, r }] : []; });
          if (!misfits.length) continue;
          const { f, r } = misfits[0];
          const offsets = [...new Set(misfits.map((x) => Math.round((x.r.lo - x.r.day) / 3_600_000)))].sort((a, b) => a - b);
          pending.push({
            name: 'partition_outside_its_day', version: v, severity: 'warn',
            message: `${op} wrote ${misfits.length} file(s) whose ${t} falls outside their ${p}'s UTC day (e.g. ${p}=${f.partitionValues[p]} holds ${t} ${iso(r.lo)} .. ${iso(r.hi)}); every file before kept ${t} inside its day: ${p} derived in another time zone?`,
            evidence: { partitionColumn: p, timestampColumn: t, files: misfits.length, examplePartition: `${p}=${f.partitionValues[p]}`, exampleMin: iso(r.lo), exampleMax: iso(r.hi), startOffsetHours: offsets, filesThatFitBefore: before.fit },
          });
        }
      },
      at: () => pending,
    };
  },
};
