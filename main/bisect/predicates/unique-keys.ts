// unique-keys: no key value on more than one row of the version (null keys not counted).
import type { StructField } from '../../../shared/delta';
import type { PredicateSpec } from '../../../shared/bisect';
import { deltaTypeToDuckDb } from '../../delta/schema';
import { sqlIdent } from '../../engine/duck';
import { activeAt, type History } from '../../delta/history';
import { base, field, unreadableMissing, type BoundPredicate } from './bound';
import type { DataReader } from './reader';

export function uniqueKeys(spec: PredicateSpec, h: History, reader: DataReader): BoundPredicate {
  const keys = spec.keys as string[];
  const ddl = keys.map((k, i) => `k${i} ${deltaTypeToDuckDb((field(reader.schema, k) as StructField).type)}`).join(', ');
  const proj = keys.map((k) => `v.${sqlIdent(k)}`).join(', ');
  const notNull = keys.map((_, i) => `k${i} IS NOT NULL`).join(' AND ');
  const anyNull = keys.map((_, i) => `k${i} IS NULL`).join(' OR ');
  const kcols = keys.map((_, i) => `k${i}`).join(', ');
  const on = keys.map((_, i) => `u.k${i} = d.k${i}`).join(' AND ');
  let indexedAt = -1;
  return base(spec, reader, false, [], async (v) => {
    const files = activeAt(h, v);
    const missing = await reader.missing(files, 'lakerec_uk');
    if (missing.length) return unreadableMissing(missing);
    const before = reader.read;
    await reader.ensure('lakerec_uk', files, proj, ddl, false);
    const conn = await reader.conn();
    if (indexedAt !== reader.read) {
      // Rebuilt only when new files were read: the keys that occur more than once anywhere in the
      // files read so far, counted per file, and null-key rows per file. A probe then sums these
      // small tables over its file set instead of grouping every row of the version again.
      await conn.run(`CREATE OR REPLACE TEMP TABLE lakerec_uk_multi AS
        SELECT ${keys.map((_, i) => `u.k${i}`).join(', ')}, u.fid, count(*) AS c FROM lakerec_uk u
        SEMI JOIN (SELECT ${kcols} FROM lakerec_uk WHERE ${notNull} GROUP BY ALL HAVING count(*) > 1) d ON ${on}
        GROUP BY ALL`);
      await conn.run(`CREATE OR REPLACE TEMP TABLE lakerec_uk_nulls AS SELECT fid, count(*) AS n FROM lakerec_uk WHERE ${anyNull} GROUP BY fid`);
      indexedAt = reader.read;
    }
    await reader.setProbe(files);
    const r = await conn.runAndReadAll(`
      WITH d AS (SELECT ${kcols}, sum(c) AS c FROM lakerec_uk_multi m SEMI JOIN lakerec_probe p ON p.fid = m.fid GROUP BY ALL HAVING sum(c) > 1)
      SELECT (SELECT count(*) FROM d), (SELECT coalesce(sum(c - 1), 0) FROM d),
             (SELECT coalesce(sum(n), 0) FROM lakerec_uk_nulls x SEMI JOIN lakerec_probe p ON p.fid = x.fid),
             (SELECT ${keys.map((_, i) => `CAST(k${i} AS VARCHAR)`).join(" || ', ' || ")} FROM d ORDER BY c DESC LIMIT 1)`);
    const [dupKeys, surplus, nullRows, example] = r.getRows()[0];
    const n = Number(dupKeys);
    const nulls = Number(nullRows);
    const nullNote = nulls ? ` (${nulls} row(s) with a null key not counted)` : '';
    return {
      state: n > 0 ? 'bad' : 'good', measured: n, filesRead: reader.read - before,
      detail: n > 0 ? `${n} key(s) occur on more than one row (${Number(surplus)} surplus row(s)), e.g. ${keys.join(', ')} = ${String(example)}${nullNote}` : `every key unique${nullNote}`,
    };
  });
}
