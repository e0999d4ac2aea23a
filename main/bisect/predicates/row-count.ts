// row-count: the version (or one partition of it) holds exactly --expect rows, from the log's numRecords.
import type { PredicateSpec } from '../../../shared/bisect';
import { activeAt, type History } from '../../delta/history';
import { base, partitionAppearsAt, unreadableMissing, type BoundPredicate } from './bound';
import type { DataReader } from './reader';

export function rowCount(spec: PredicateSpec, part: { column: string; value: string } | null, h: History, reader: DataReader): BoundPredicate {
  const expect = spec.expect as number;
  const notes: string[] = [];
  return base(spec, reader, true, notes, async (v) => {
    const files = activeAt(h, v).filter((f) => !part || f.partitionValues[part.column] === part.value);
    let rows = 0;
    const needData = files.filter((f) => f.numRecords === null);
    for (const f of files) if (f.numRecords !== null) rows += f.numRecords;
    const before = reader.read;
    if (needData.length) {
      const missing = await reader.missing(needData, 'lakerec_rc');
      if (missing.length) return unreadableMissing(missing);
      if (!notes.length) notes.push('some files have no numRecords stats: those files were counted from their data');
      await reader.ensure('lakerec_rc', needData, 'count(*)', 'n BIGINT', true);
      await reader.setProbe(needData);
      const r = await (await reader.conn()).runAndReadAll('SELECT coalesce(sum(n), 0) FROM lakerec_rc u SEMI JOIN lakerec_probe p ON p.fid = u.fid');
      rows += Number(r.getRows()[0][0]);
    }
    const where = part ? ` in ${part.column}=${part.value}` : '';
    return {
      state: rows === expect ? 'good' : 'bad', measured: rows, filesRead: reader.read - before,
      detail: rows === expect ? `${rows} row(s)${where}, as expected` : `${rows} row(s)${where}, expected ${expect} (${rows > expect ? '+' : ''}${rows - expect})`,
    };
  }, part ? partitionAppearsAt(h, part) : null);
}
