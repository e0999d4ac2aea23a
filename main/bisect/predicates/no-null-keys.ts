// no-null-keys: no null in a key column, from the log's nullCount stats; data read only where they fall short.
import type { PredicateSpec } from '../../../shared/bisect';
import { sqlIdent } from '../../engine/duck';
import { activeAt, stateOf, type FileEntry, type History } from '../../delta/history';
import { base, unreadableMissing, type BoundPredicate } from './bound';
import type { DataReader } from './reader';

export function noNullKeys(spec: PredicateSpec, h: History, reader: DataReader): BoundPredicate {
  const keys = spec.keys as string[];
  const notes: string[] = [];
  const fallbackFiles = new Set<number>();
  const anyNull = keys.map((k) => `v.${sqlIdent(k)} IS NULL`).join(' OR ');
  return base(spec, reader, true, notes, async (v) => {
    const files = activeAt(h, v);
    const md = stateOf(h, v)?.metadata ?? null;
    const partCols = md?.partitionColumns ?? [];
    let nulls = 0;
    const needData: FileEntry[] = [];
    let example: string | null = null;
    for (const f of files) {
      let fileNulls = 0;
      let unknown = false;
      for (const k of keys) {
        if (partCols.includes(k)) {
          if (f.partitionValues[k] === null || f.partitionValues[k] === undefined) {
            if (f.numRecords === null) unknown = true; else fileNulls += f.numRecords;
          }
          continue;
        }
        const nc = f.stats?.nullCount?.[k];
        if (typeof nc !== 'number') { unknown = true; continue; }
        // A deletion vector may hide the null rows: the stats describe the file before it.
        if (nc > 0 && f.deletionVector) { unknown = true; continue; }
        fileNulls += nc;
      }
      if (unknown) needData.push(f);
      else if (fileNulls > 0) { nulls += fileNulls; example ??= f.path; }
    }
    const before = reader.read;
    if (needData.length) {
      const missing = await reader.missing(needData, 'lakerec_nn');
      if (missing.length) return unreadableMissing(missing);
      for (const f of needData) {
        if (!fallbackFiles.has(f.id)) {
          fallbackFiles.add(f.id);
          if (fallbackFiles.size === 1) notes.push('some files have no nullCount stats for the key (or a deletion vector may hide null rows): those files were counted from their data');
        }
      }
      await reader.ensure('lakerec_nn', needData, `count(*) FILTER (WHERE ${anyNull})`, 'n BIGINT', true);
      const conn = await reader.conn();
      await reader.setProbe(needData);
      const r = await conn.runAndReadAll('SELECT coalesce(sum(n), 0) FROM lakerec_nn u SEMI JOIN lakerec_probe p ON p.fid = u.fid');
      const n = Number(r.getRows()[0][0]);
      nulls += n;
    }
    return {
      state: nulls > 0 ? 'bad' : 'good', measured: nulls, filesRead: reader.read - before,
      detail: nulls > 0 ? `${nulls} null key value(s) in ${keys.join(', ')}${example ? `, e.g. in ${example}` : ''}` : 'no null keys',
    };
  });
}
