// overwrite_wider_than_predicate: evaluate the declared predicate on each removed file's partition
// values (in DuckDB, typed by the schema); a removed file outside it is too wide. An overwrite
// whose replaceWhere cannot be checked is worth a note (predicate_not_evaluable).
import { declaredPredicate, filesOutsidePredicate, isOverwrite } from '../helpers';
import type { HeuristicHit } from '../../../shared/forensics';
import type { Heuristic, VersionContext } from './types';

export const overwriteWiderThanPredicate: Heuristic = {
  names: ['overwrite_wider_than_predicate', 'predicate_not_evaluable'],
  start({ history, part, duck }) {
    const tablePartitionCols = history.states[history.states.length - 1]?.metadata?.partitionColumns ?? [];
    return {
      at({ st, ci, dataRems, v, op }) {
        if (!dataRems.length || !tablePartitionCols.length) return [];
        const pred = declaredPredicate(ci?.operationParameters as Record<string, unknown> | undefined);
        if (!pred || !(isOverwrite(st) || /DELETE/i.test(op))) return [];
        return judge(pred, st, dataRems, v, op);
      },
    };
    async function judge(pred: string, st: VersionContext['st'], dataRems: VersionContext['dataRems'], v: number, op: string): Promise<HeuristicHit[]> {
      const outside = await filesOutsidePredicate(await duck(), pred, dataRems, st.metadata);
      // A DELETE on data columns is ordinary; an overwrite whose replaceWhere cannot be checked is worth a note.
      if (outside === 'not_evaluable') {
        return isOverwrite(st) ? [{
          name: 'predicate_not_evaluable', version: v, severity: 'info',
          message: `${op}'s declared predicate could not be checked against partition values (it names data columns or is not SQL DuckDB reads)`,
          evidence: { predicate: pred },
        }] : [];
      }
      if (!outside.length) return [];
      const parts = [...new Set(outside.map((f) => part.partOf(f)))].sort();
      return [{
        name: 'overwrite_wider_than_predicate', version: v, severity: 'warn',
        message: `${op} removed ${outside.length} file(s) in ${parts.join(', ')}, outside its declared predicate ${pred}`,
        evidence: { predicate: pred, partitionsOutside: parts, filesOutside: outside.length, rowsOutside: outside.reduce((s, f) => s + (f.numRecords ?? 0), 0), paths: outside.slice(0, 10).map((f) => f.path) },
      }];
    }
  },
};
