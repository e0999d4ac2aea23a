// matches-source: a closed partition's rows at the version equal the source's as a multiset of row digests.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openTable } from '../../delta/open';
import type { PredicateSpec } from '../../../shared/bisect';
import { LakerecError } from '../../../shared/errors';
import { registerSnapshotView, dropSnapshotView } from '../../delta/scan';
import { sqlIdent, sqlString } from '../../engine/duck';
import { canonicalRow, typeFamily, type CanonicalColumn } from '../../reconcile/canonical';
import { activeAt, type History } from '../../delta/history';
import { base, partitionAppearsAt, unreadableMissing, type BoundPredicate } from './bound';
import type { DataReader } from './reader';

function sourceReader(path: string): string {
  const p = sqlString(path);
  if (/\.csv(\.gz)?$/i.test(path) || /\.tsv$/i.test(path)) return `read_csv(${p}, auto_detect = true, header = true)`;
  if (/\.(jsonl|ndjson|json)(\.gz)?$/i.test(path)) return `read_json(${p}, format = 'newline_delimited')`;
  if (/\.parquet$/i.test(path)) return `read_parquet(${p})`;
  // A folder of Parquet files (hive-partitioned or not).
  return `read_parquet(${sqlString(path.replace(/\/+$/, '') + '/**/*.parquet')}, hive_partitioning = true, union_by_name = true)`;
}

export async function matchesSource(spec: PredicateSpec, part: { column: string; value: string }, h: History, reader: DataReader): Promise<BoundPredicate> {
  const src = spec.source as string;
  if (!existsSync(src)) throw new LakerecError('source_unreadable', `source ${src} does not exist`, { path: src });
  const conn = await reader.conn();
  const notes: string[] = [];
  // The target's columns and DuckDB types (latest schema), from an empty view.
  const probeView = 'lakerec_bisect_types';
  await registerSnapshotView(conn, reader.snapshotOf([]), probeView, {});
  const tcols = (await conn.runAndReadAll(`DESCRIBE ${probeView}`)).getRows().map((r) => ({ name: String(r[0]), type: String(r[1]) }));
  await dropSnapshotView(conn, probeView);
  if (existsSync(join(src, '_delta_log'))) {
    // Another Delta table as the source: its latest snapshot through the reader (DVs applied, logical names).
    const srcTable = await openTable(src);
    await registerSnapshotView(conn, await srcTable.snapshot(), 'lakerec_src_delta', {}, reader.ctx);
    await conn.run('CREATE OR REPLACE TEMP VIEW lakerec_src AS SELECT * FROM lakerec_src_delta');
    notes.push(`source is a Delta table: its latest version, v${srcTable.latestVersion}`);
  } else {
    try {
      await conn.run(`CREATE OR REPLACE TEMP VIEW lakerec_src AS SELECT * FROM ${sourceReader(src)}`);
    } catch (e) {
      throw new LakerecError('source_unreadable', `cannot read source ${src}: ${(e as Error).message.split('\n')[0]}`, { path: src });
    }
  }
  const scols = new Map((await conn.runAndReadAll('DESCRIBE lakerec_src')).getRows().map((r) => [String(r[0]), String(r[1])]));
  const floats = tcols.filter((c) => typeFamily(c.type) === 'float').map((c) => c.name);
  if (floats.length) notes.push(`float column(s) ${floats.join(', ')} left out of the row digest: bit-exact float equality is not a meaningful test (see reconcile's float rules)`);
  const cols: CanonicalColumn[] = tcols.filter((c) => !floats.includes(c.name));
  const absent = cols.filter((c) => !scols.has(c.name)).map((c) => c.name);
  if (absent.length) throw new LakerecError('predicate_refused', `the source has no column(s) ${absent.join(', ')} that the table has; matches-source compares whole rows (source columns: ${[...scols.keys()].join(', ')})`);
  if (!scols.has(part.column)) throw new LakerecError('predicate_refused', `the source has no column "${part.column}" to restrict it to the partition`);
  const extra = [...scols.keys()].filter((c) => !tcols.some((t) => t.name === c));
  if (extra.length) notes.push(`source column(s) ${extra.join(', ')} are not in the table and were ignored`);
  // Both sides cast to the target's types, then the same canonical text and md5 digest.
  const castList = (alias: string) => cols.map((c) => `TRY_CAST(${alias}.${sqlIdent(c.name)} AS ${c.type}) AS ${sqlIdent(c.name)}`).join(', ');
  const digest = `md5_number(${canonicalRow(cols, true)})`;
  const inPart = (alias: string) => `CAST(${alias}.${sqlIdent(part.column)} AS VARCHAR) = ${sqlString(part.value)}`;
  await conn.run(`CREATE OR REPLACE TEMP TABLE lakerec_srcd AS SELECT d, count(*) AS c FROM (SELECT ${digest} AS d FROM (SELECT ${castList('s')} FROM lakerec_src s WHERE ${inPart('s')})) GROUP BY d`);
  const srcRows = Number((await conn.runAndReadAll('SELECT coalesce(sum(c), 0) FROM lakerec_srcd')).getRows()[0][0]);
  notes.push(`source: ${srcRows} row(s) in ${part.column}=${part.value}, read once`);
  const md = reader.md;
  const isPartCol = md.partitionColumns.includes(part.column);
  if (!isPartCol) notes.push(`"${part.column}" is not a partition column: every file of a version is read to find the partition's rows (cached per file)`);
  return base(spec, reader, false, notes, async (v) => {
    const files = activeAt(h, v).filter((f) => !isPartCol || f.partitionValues[part.column] === part.value);
    const missing = await reader.missing(files, 'lakerec_ms');
    if (missing.length) return unreadableMissing(missing);
    const before = reader.read;
    await reader.ensure('lakerec_ms', files, `md5_number(${canonicalRow(cols, true)})`, 'd UHUGEINT', false, inPart('v'));
    await reader.setProbe(files);
    const r = await (await reader.conn()).runAndReadAll(`
      WITH t AS (SELECT d, count(*) AS c FROM lakerec_ms u SEMI JOIN lakerec_probe p ON p.fid = u.fid GROUP BY d)
      SELECT coalesce(sum(CASE WHEN coalesce(t.c, 0) > coalesce(s.c, 0) THEN t.c - coalesce(s.c, 0) ELSE 0 END), 0),
             coalesce(sum(CASE WHEN coalesce(s.c, 0) > coalesce(t.c, 0) THEN s.c - coalesce(t.c, 0) ELSE 0 END), 0),
             coalesce(sum(t.c), 0)
      FROM t FULL OUTER JOIN lakerec_srcd s ON s.d = t.d`);
    const [extraRows, missingRows, targetRows] = r.getRows()[0].map(Number);
    const off = extraRows + missingRows;
    return {
      state: off === 0 ? 'good' : 'bad', measured: off, filesRead: reader.read - before,
      detail: off === 0 ? `${targetRows} row(s) in ${part.column}=${part.value}, equal to the source` : `${part.column}=${part.value}: ${targetRows} row(s) vs source ${srcRows}; ${extraRows} not in the source, ${missingRows} of the source's missing`,
    };
  }, isPartCol ? partitionAppearsAt(h, part) : null);
}
