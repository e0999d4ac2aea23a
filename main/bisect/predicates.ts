// The predicates bisect may search over: only questions the table can answer alone (ADR 0004).
// Each is bound once to a replayed history; evaluating a version reads only the files that
// version needs and no earlier probe has read (a file's rows never change, so per-file results
// are cached by file entry: path + deletion vector).
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DeltaTable } from '../delta/table';
import type { Metadata, StructField, StructType } from '../../shared/delta';
import type { PredicateSpec } from '../../shared/bisect';
import { LakerecError } from '../../shared/errors';
import type { JobContext } from '../../shared/jobs';
import type { ActiveFile, Snapshot } from '../delta/types';
import { columnMappingMode, deltaTypeToDuckDb, parseSchemaString } from '../delta/schema';
import { registerSnapshotView, dropSnapshotView } from '../delta/scan';
import { boundedMemoryLimit, openDuck, sqlIdent, sqlString, type Duck } from '../engine/duck';
import { canonicalRow, typeFamily, type CanonicalColumn } from '../reconcile/canonical';
import { activeAt, stateOf, type FileEntry, type History } from '../delta/history';
import type { Evaluation } from './search';

export interface BoundPredicate {
  spec: PredicateSpec;
  /** What good means, including how nulls count. */
  semantics: string;
  /** Answered from the log's stats alone (no data file opened unless a file lacks stats). */
  logOnly: boolean;
  notes: string[];
  evaluate(version: number): Promise<Evaluation>;
  /** A partition predicate: the first version holding a file of the partition (before it: "before the partition existed"). */
  appliesFrom: number | null;
  /** Data files opened so far (the read counter). */
  filesRead(): number;
  /** Per-file results reused from an earlier probe. */
  filesFromCache(): number;
  close(): void;
}

export interface BindOptions {
  ctx?: JobContext;
  allowOutsidePaths?: boolean;
}

export const SEMANTICS = {
  'unique-keys': 'good when no key value occurs on more than one row of the version. Rows whose key has a null in any key column are not counted as duplicates (as dbt\'s `unique` test, which ignores nulls); use no-null-keys to find those.',
  'no-null-keys': 'good when no row of the version has a null in any key column, read from the log: each active file\'s stats.nullCount (and null partition values). No data file is opened; a file without nullCount stats, or whose nulls may be hidden by a deletion vector, is counted from its data and the note says so.',
  'row-count': 'good when the version holds exactly --expect rows (in --partition when given), from the log\'s stats (numRecords minus deletion-vector cardinality); a file without stats is counted from its data.',
  'matches-source': 'good when the partition\'s rows at the version equal the source\'s rows in that partition as a multiset (duplicates count): each row digested as md5 of lakerec\'s canonical row text (main/reconcile/canonical.ts), compared by digest and count. Nulls are values: a null equals a null.',
} as const;

const MATCHES_SOURCE_REFUSAL = 'matches-source needs --partition P=V: the source is the truth as of now, so every older version legitimately lacks what was loaded since, and the search would answer version 0 every time (a moving reference makes the predicate non-monotone in the version). Restricted to a closed partition, one no longer written, the source stops moving and the search is sound.';

const ROW_COUNT_REFUSAL = 'row-count without --partition P=V compares the whole table with one number, but the table\'s total moves with every append: every older version legitimately holds fewer rows, and the search would name the first append (a moving reference, as matches-source without a partition). Give a closed partition, or --allow-moving to accept a walk over the whole table.';

/** The first version at which a file of the partition is active (null: never). */
export function partitionAppearsAt(h: History, part: { column: string; value: string }): number | null {
  let first: number | null = null;
  for (const f of h.files) if (f.partitionValues[part.column] === part.value && (first === null || f.addedIn < first)) first = f.addedIn;
  return first;
}

/** A partition no version of the log ever held: every version would "fail" and version 0 would be named. */
function neverThere(h: History, part: { column: string; value: string }): void {
  if (partitionAppearsAt(h, part) !== null) return;
  throw new LakerecError('predicate_refused', `--partition ${part.column}=${part.value}: no version of this log holds a file in that partition, so there is no version at which it broke (check the value, e.g. the date format)`, { partition: `${part.column}=${part.value}` });
}

export function parsePartition(p: string): { column: string; value: string } {
  const eq = p.indexOf('=');
  if (eq <= 0) throw new LakerecError('usage', `--partition must be COLUMN=VALUE, got "${p}"`);
  return { column: p.slice(0, eq).trim(), value: p.slice(eq + 1) };
}

function schemaOf(md: Metadata): StructType {
  return parseSchemaString(md);
}

function field(schema: StructType, name: string): StructField | undefined {
  return schema.fields.find((f) => f.name === name);
}

/** Validates the spec against the table (usage / predicate_refused errors) and binds it. */
export async function bindPredicate(spec: PredicateSpec, h: History, opts: BindOptions = {}): Promise<BoundPredicate> {
  const latest = h.states[h.states.length - 1];
  const md = latest?.metadata;
  if (!md) throw new LakerecError('metadata_missing', 'the table has no metaData action: no schema to evaluate a predicate against');
  const schema = schemaOf(md);
  const columns = schema.fields.map((f) => f.name);
  const needKeys = (): string[] => {
    const keys = (spec.keys ?? []).flatMap((k) => k.split(',')).map((k) => k.trim()).filter(Boolean);
    if (keys.length === 0) throw new LakerecError('usage', `--predicate ${spec.predicate} needs --keys COLUMN[,COLUMN]`);
    for (const k of keys) if (!columns.includes(k)) throw new LakerecError('usage', `--keys ${k}: the table has no column "${k}" (columns: ${columns.join(', ')})`);
    return keys;
  };
  // A flag the predicate does not use is a mistake worth saying, not something to ignore silently.
  const uses: Record<string, (keyof PredicateSpec)[]> = {
    'unique-keys': ['keys'], 'no-null-keys': ['keys'], 'row-count': ['expect', 'partition', 'allowMoving'], 'matches-source': ['source', 'partition'],
  };
  const allowed = uses[spec.predicate];
  if (allowed) {
    for (const k of ['keys', 'expect', 'partition', 'source', 'allowMoving'] as const) {
      if (spec[k] !== undefined && spec[k] !== false && !allowed.includes(k)) {
        throw new LakerecError('usage', `--${k === 'allowMoving' ? 'allow-moving' : k} does not apply to --predicate ${spec.predicate} (it takes ${allowed.map((a) => `--${a}`).join(', ')})`);
      }
    }
  }
  const reader = new DataReader(h, md, opts, spec.predicate === 'matches-source' ? spec.source ?? null : null);
  switch (spec.predicate) {
    case 'unique-keys': return uniqueKeys({ ...spec, keys: needKeys() }, h, reader);
    case 'no-null-keys': return noNullKeys({ ...spec, keys: needKeys() }, h, reader);
    case 'row-count': {
      if (spec.expect === undefined || !Number.isInteger(spec.expect) || spec.expect < 0) throw new LakerecError('usage', '--predicate row-count needs --expect N (a whole number of rows)');
      let part: { column: string; value: string } | null = null;
      if (spec.partition) {
        part = parsePartition(spec.partition);
        if (!md.partitionColumns.includes(part.column)) {
          throw new LakerecError('predicate_refused', `row-count --partition ${part.column}=...: "${part.column}" is not a partition column of this table (partition columns: ${md.partitionColumns.join(', ') || 'none'}), so the log cannot say which files hold it`, { column: part.column });
        }
      }
      if (!part && !spec.allowMoving) throw new LakerecError('predicate_refused', ROW_COUNT_REFUSAL, { predicate: 'row-count' });
      if (part) neverThere(h, part);
      return rowCount(spec, part, h, reader);
    }
    case 'matches-source': {
      if (!spec.partition) throw new LakerecError('predicate_refused', MATCHES_SOURCE_REFUSAL, { predicate: 'matches-source' });
      if (!spec.source) throw new LakerecError('usage', '--predicate matches-source needs --source FILE (Parquet, CSV or JSON lines)');
      const part = parsePartition(spec.partition);
      if (!columns.includes(part.column)) throw new LakerecError('usage', `--partition ${part.column}=...: the table has no column "${part.column}"`);
      if (md.partitionColumns.includes(part.column)) neverThere(h, part);
      return matchesSource(spec, part, h, reader);
    }
    default:
      throw new LakerecError('usage', `unknown predicate "${String((spec as { predicate: unknown }).predicate)}" (one of unique-keys, no-null-keys, row-count, matches-source)`);
  }
}

/** Reads per-file results into DuckDB cache tables, counting every data file it opens. */
class DataReader {
  private duck: Duck | null = null;
  private readonly done = new Map<string, Set<number>>();
  read = 0;
  fromCache = 0;
  private view = 0;
  readonly schema: StructType;
  constructor(private readonly h: History, readonly md: Metadata, private readonly opts: BindOptions, private readonly source: string | null = null) {
    this.schema = schemaOf(md);
  }

  get ctx(): JobContext | undefined {
    return this.opts.ctx;
  }

  async conn(): Promise<Duck['conn']> {
    // Bounded: the caches spill past 512 MiB instead of growing with the table (40M rows < 1 GB RSS).
    if (!this.duck) this.duck = await openBisectDuck(this.h, this.source);
    return this.duck.conn;
  }

  /** Files among `files` whose data is gone (VACUUM): the version cannot be evaluated. */
  missing(files: FileEntry[], cache: string): FileEntry[] {
    const have = this.done.get(cache);
    return files.filter((f) => !have?.has(f.id) && (f.absolutePath === null || !existsSync(f.absolutePath)));
  }

  /**
   * Makes sure `cache` (a table whose first column is `fid`) holds `projection` for every file.
   * `projection` is a SELECT list over the view `v` (logical columns, latest schema); `groupByFile`
   * aggregates per file.
   */
  async ensure(cache: string, files: FileEntry[], projection: string, columnsDdl: string, groupByFile: boolean, where = ''): Promise<void> {
    const have = this.done.get(cache) ?? new Set<number>();
    this.done.set(cache, have);
    const todo = files.filter((f) => !have.has(f.id));
    this.fromCache += files.length - todo.length;
    const conn = await this.conn();
    await conn.run(`CREATE TABLE IF NOT EXISTS ${cache} (fid INTEGER, ${columnsDdl})`);
    if (todo.length === 0) return;
    const viewName = `lakerec_bisect_v${this.view++}`;
    const snapshot = this.snapshotOf(todo);
    await registerSnapshotView(conn, snapshot, viewName, { provenance: true, files: snapshot.files, allowOutsidePaths: this.opts.allowOutsidePaths }, this.opts.ctx);
    try {
      await conn.run('CREATE OR REPLACE TEMP TABLE lakerec_fidmap (lakerec_path VARCHAR, lakerec_fid INTEGER)');
      const app = await conn.createAppender('lakerec_fidmap', 'main', 'temp');
      for (const f of todo) { app.appendVarchar(f.path); app.appendInteger(f.id); app.endRow(); }
      app.flushSync();
      app.closeSync();
      const sql = `INSERT INTO ${cache} SELECT m.lakerec_fid, ${projection} FROM ${sqlIdent(viewName)} v JOIN lakerec_fidmap m ON m.lakerec_path = v._lakerec_file ${where ? `WHERE ${where}` : ''} ${groupByFile ? 'GROUP BY m.lakerec_fid' : ''}`;
      await conn.run(sql);
      if (groupByFile) {
        // A file whose rows were all filtered out still has a result: zero.
        await conn.run(`INSERT INTO ${cache} (fid) SELECT lakerec_fid FROM lakerec_fidmap WHERE lakerec_fid NOT IN (SELECT fid FROM ${cache})`);
      }
    } finally {
      await dropSnapshotView(conn, viewName);
    }
    this.read += todo.length;
    for (const f of todo) have.add(f.id);
  }

  /** A snapshot-shaped view of some files, read with the LATEST schema (so per-file results are comparable across versions). */
  snapshotOf(files: FileEntry[]): Snapshot {
    const md = this.md;
    const active: ActiveFile[] = files.map((f) => ({
      path: f.path, absolutePath: f.absolutePath ?? f.add.path, size: f.size, modificationTime: f.add.modificationTime,
      partitionValues: f.partitionValues, stats: null, deletionVector: f.deletionVector, numRecords: f.numRecords,
      addedInVersion: f.addedIn, add: f.add, outside: f.outside,
    }));
    const latest = this.h.states[this.h.states.length - 1];
    return {
      root: this.h.root, version: latest.version, timestamp: latest.change?.timestamp ?? 0,
      protocol: latest.protocol ?? { minReaderVersion: 1, minWriterVersion: 2 }, metadata: md, schema: this.schema,
      partitionColumns: md.partitionColumns, columnMapping: columnMappingMode(md), files: active, numRecords: null,
    };
  }

  /** The probed version's file ids as a table (`lakerec_probe(fid)`), for a semi-join against a cache. */
  async setProbe(files: FileEntry[]): Promise<void> {
    const conn = await this.conn();
    await conn.run('CREATE OR REPLACE TEMP TABLE lakerec_probe (fid INTEGER)');
    if (files.length === 0) return;
    const app = await conn.createAppender('lakerec_probe', 'main', 'temp');
    for (const f of files) { app.appendInteger(f.id); app.endRow(); }
    app.flushSync();
    app.closeSync();
  }

  close(): void {
    this.duck?.close();
    this.duck = null;
  }
}

const unreadableMissing = (missing: FileEntry[]): Evaluation => ({
  state: 'unreadable', filesRead: 0,
  detail: `${missing.length} data file(s) of this version are gone from disk (VACUUM?), e.g. ${missing[0].path}: the log still shows the version but its data cannot be read`,
});

function base(spec: PredicateSpec, reader: DataReader, logOnly: boolean, notes: string[], evaluate: (v: number) => Promise<Evaluation>, appliesFrom: number | null = null): BoundPredicate {
  return {
    spec, semantics: SEMANTICS[spec.predicate], logOnly, notes, evaluate, appliesFrom,
    filesRead: () => reader.read, filesFromCache: () => reader.fromCache, close: () => reader.close(),
  };
}

function uniqueKeys(spec: PredicateSpec, h: History, reader: DataReader): BoundPredicate {
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
    const missing = reader.missing(files, 'lakerec_uk');
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

function noNullKeys(spec: PredicateSpec, h: History, reader: DataReader): BoundPredicate {
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
      const missing = reader.missing(needData, 'lakerec_nn');
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

function rowCount(spec: PredicateSpec, part: { column: string; value: string } | null, h: History, reader: DataReader): BoundPredicate {
  const expect = spec.expect as number;
  const notes: string[] = [];
  return base(spec, reader, true, notes, async (v) => {
    const files = activeAt(h, v).filter((f) => !part || f.partitionValues[part.column] === part.value);
    let rows = 0;
    const needData = files.filter((f) => f.numRecords === null);
    for (const f of files) if (f.numRecords !== null) rows += f.numRecords;
    const before = reader.read;
    if (needData.length) {
      const missing = reader.missing(needData, 'lakerec_rc');
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

function sourceReader(path: string): string {
  const p = sqlString(path);
  if (/\.csv(\.gz)?$/i.test(path) || /\.tsv$/i.test(path)) return `read_csv(${p}, auto_detect = true, header = true)`;
  if (/\.(jsonl|ndjson|json)(\.gz)?$/i.test(path)) return `read_json(${p}, format = 'newline_delimited')`;
  if (/\.parquet$/i.test(path)) return `read_parquet(${p})`;
  // A folder of Parquet files (hive-partitioned or not).
  return `read_parquet(${sqlString(path.replace(/\/+$/, '') + '/**/*.parquet')}, hive_partitioning = true, union_by_name = true)`;
}

async function matchesSource(spec: PredicateSpec, part: { column: string; value: string }, h: History, reader: DataReader): Promise<BoundPredicate> {
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
    const srcTable = await DeltaTable.open(src);
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
    const missing = reader.missing(files, 'lakerec_ms');
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

/**
 * The DuckDB a bisect reads data through, limited to the table's files (and the source's) before
 * any query runs: no SQL of a bisect, whatever the log or the source holds, can open another file.
 */
export async function openBisectDuck(h: Pick<History, 'root' | 'files'>, source: string | null): Promise<Duck> {
  const duck = await openDuck({ threads: 2, memoryLimit: boundedMemoryLimit(512) });
  const outside = h.files.map((f) => f.absolutePath).filter((p): p is string => p !== null && !isUnder(p, h.root));
  const src = source !== null && existsSync(source) ? source : null;
  const srcIsDir = src !== null && statSync(src).isDirectory();
  try {
    await duck.restrict({ dirs: [h.root, ...(srcIsDir ? [src] : [])], files: [...outside, ...(src !== null && !srcIsDir ? [src] : [])] });
  } catch (e) {
    duck.close();
    throw e;
  }
  return duck;
}

function isUnder(path: string, root: string): boolean {
  const r = root.endsWith('/') ? root : root + '/';
  return path.startsWith(r);
}
