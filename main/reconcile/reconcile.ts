// The five levels. schema and counts read no target data file (the log's schema and file stats);
// checksum, keys and rows share one pass: each side's rows become (partition, key, digest, ...)
// in a DuckDB temp table, and the checksum, the key diff and the example rows all come from
// those tables. Rows never become JavaScript objects, except the few shown as examples.
import { LAKEREC_VERSION } from '../../shared/version';
import type { DuckDBConnection } from '@duckdb/node-api';
import { LakerecError } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import {
  LEVELS, levelIndex, type FloatColumnResult, type Level, type PartitionResult, type ReconcileResult,
  type RowDiff, type SchemaComparison, type CellText, type ColumnDiffCount, type BaselineUse,
} from '../../shared/reconcile';
import { openDuck, sqlIdent, sqlString } from '../engine/duck';
import type { ActiveFile } from '../delta/types';
import { canonicalField, canonicalRow, compareFamily, digestName, rowDigestHalves, typesComparable, type DigestMode } from './canonical';
import {
  addGroup, combineHalves, emptyExactSum, exactSumToNumber, floatPartsSql, toHex128, type ExactSum,
} from './checksum';
import { contractError, contractSummary, loadContract, type Contract } from './contract';
import { classify, type Evidence, type KeyDiffEvidence, type PartitionRemoval, type StatsDuplicate } from './classify';
import type { DeltaTable } from '../delta/table';
import { openSource, openTarget, registerTargetView, targetChanges, type SourceSide, type TargetSide } from './sides';
import { baselineFor, readBaseline, writeBaselineFile, type Baseline, type InheritedPartition, type StoredFloatSum } from './baseline';


export interface ReconcileOptions {
  /** Source of truth: Parquet file or folder, CSV, JSON lines, or a Delta table (`path@version`). */
  source: string;
  /** `table`: an already open table (the window's), so its log is not read again. */
  target: { root: string; version?: number; table?: DeltaTable };
  /** A parsed contract, or the path of its YAML file. */
  contract: Contract | string;
  /** Deepest level to run (default rows). */
  level?: Level;
  /** Baseline file of a previous run (inherit unchanged partitions' checksums). */
  baseline?: string | null;
  /** Where to write this run's baseline (needs level checksum or deeper). */
  writeBaseline?: string | null;
  /** Relative paths resolve from here (default process.cwd()). */
  cwd?: string;
  ctx?: JobContext;
  /** Example rows per kind (default 5). */
  exampleLimit?: number;
  /** Row digest: md5 of canonical bytes (default; stable) or DuckDB hash() (faster; bound to the DuckDB version). */
  digest?: DigestMode;
  /** DuckDB memory limit (default 4GB); beyond it the per-row tables spill to a temp folder. */
  memoryLimit?: string;
}

const NULL_LABEL = '(null)';

interface PartitionSpec {
  column: string | null;
  /** SQL for the partition value as text, per side (over that side's view). */
  sourceSql: string;
  targetSql: string;
  /** The target's Delta partition column is the contract's: file sets map to partitions. */
  targetIsDeltaPartition: boolean;
  /** DuckDB type of the partition column in the target. */
  type: string | null;
}

/** The partition expression without its text cast (to group by the typed value). */
function uncast(partSql: string): string {
  const m = /^CAST\((.*) AS VARCHAR\)$/s.exec(partSql);
  return m ? m[1] : partSql;
}

function label(col: string | null, value: string | null): string {
  if (col === null) return '(table)';
  return `${col}=${value ?? NULL_LABEL}`;
}

// LAKEREC_PROFILE=1 prints each query's time to stderr (for the benchmark's slow spots).
const profile = typeof process !== 'undefined' && !!process.env.LAKEREC_PROFILE;
function profiled(sql: string, t0: number): void {
  if (profile) process.stderr.write(`[lakerec] ${(performance.now() - t0).toFixed(0)} ms  ${sql.replace(/\s+/g, ' ').slice(0, 160)}\n`);
}

async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const t0 = performance.now();
  const r = await conn.runAndReadAll(sql);
  profiled(sql, t0);
  return r.getRowObjectsJS() as Record<string, unknown>[];
}

async function exec(conn: DuckDBConnection, sql: string): Promise<void> {
  const t0 = performance.now();
  await conn.run(sql);
  profiled(sql, t0);
}

function text(v: unknown): CellText {
  if (v === null || v === undefined) return null;
  return String(v);
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** Day number of a 'YYYY-MM-DD' value (null when not a date). */
function dayOf(v: string | null): number | null {
  if (v === null || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return null;
  const t = Date.parse(v + 'T00:00:00Z');
  return Number.isNaN(t) ? null : Math.round(t / 86_400_000);
}

export async function reconcile(opts: ReconcileOptions): Promise<ReconcileResult> {
  const started = Date.now();
  const level: Level = opts.level ?? 'rows';
  if (!LEVELS.includes(level)) throw new LakerecError('usage', `unknown level "${String(level)}"; one of ${LEVELS.join(', ')}`);
  const at = levelIndex(level);
  const ctx = opts.ctx;
  const cwd = opts.cwd ?? process.cwd();
  const contract = typeof opts.contract === 'string' ? loadContract(opts.contract) : opts.contract;
  const exampleLimit = opts.exampleLimit ?? 5;
  if (opts.writeBaseline && at < levelIndex('checksum')) throw new LakerecError('usage', '--write-baseline needs level checksum or deeper (a baseline stores checksums)');
  const baselineIn: Baseline | null = opts.baseline ? readBaseline(opts.baseline) : null;

  const mode: DigestMode = opts.digest ?? 'md5';
  if (mode !== 'md5' && mode !== 'fast') throw new LakerecError('usage', `unknown digest "${String(mode)}"; md5 or fast`);
  throwIfCancelled(ctx);
  const duck = await openDuck(opts.memoryLimit ? { memoryLimit: opts.memoryLimit } : {});
  const conn = duck.conn;
  // Cancelling stops the running query too, not just the next step.
  const onAbort = () => { try { conn.interrupt(); } catch { /* already closed */ } };
  ctx?.signal?.addEventListener('abort', onAbort);
  try {
    const duckdb = await duckVersion(conn);
    const digest = digestName(mode, duckdb);
    report(ctx, { phase: 'reading the target log', done: 0, total: null });
    const target = await openTarget(opts.target.root, opts.target.version, opts.target.table);
    throwIfCancelled(ctx);
    report(ctx, { phase: 'opening the source', done: 0, total: null });
    const source = await openSource(conn, opts.source, cwd, contract, target, 'lk_src_named');
    throwIfCancelled(ctx);

    // ---- schema ----
    const part = await partitionSpec(conn, contract, source, target);
    const schema = compareSchema(source, target, contract, part);
    const srcType = new Map(source.columns.map((c) => [c.name, c.type]));
    const tgtType = new Map(target.columns.map((c) => [c.name, c.type]));
    for (const k of contract.keys) {
      if (!srcType.has(k) || !tgtType.has(k)) {
        const side = !srcType.has(k) ? 'source' : 'target';
        throw contractError(contract, 'keys', `key column "${k}" is not a column of the ${side}`);
      }
      if (!typesComparable(srcType.get(k)!, tgtType.get(k)!, contract.naiveIsUtc)) {
        throw new LakerecError('contract_mismatch', `key column "${k}" is ${srcType.get(k)} in the source and ${tgtType.get(k)} in the target; the contract does not map one to the other`);
      }
    }

    const partitions = new Map<string, PartitionResult>();
    const getP = (value: string | null): PartitionResult => {
      const l = label(part.column, value);
      let p = partitions.get(l);
      if (!p) {
        p = { partition: l, value, sourceRows: 0, targetRows: 0, sourceChecksum: null, targetChecksum: null, inherited: false, state: 'counts_match' };
        partitions.set(l, p);
      }
      return p;
    };
    const reads = { targetRowsRead: 0, targetRowsAvoided: 0, targetFilesRead: 0, targetFilesTotal: target.snapshot.files.length, sourceRowsRead: 0, exampleRowsFetched: 0 };
    const notes: string[] = [];
    let floats: FloatColumnResult[] = [];
    let keyDiff: KeyDiffEvidence | null = null;
    let columnDiffs: ColumnDiffCount[] = [];
    let rowDiffs: RowDiff[] = [];
    let keyTotals: ReconcileResult['keyDiff'] = null;
    let sourceTotal: bigint | null = null;
    let targetTotal: bigint | null = null;
    let baselineUse: BaselineUse | null = null;
    let removals = new Map<string, PartitionRemoval>();
    let logConsulted = false;
    let targetFloats = new Map<string, Record<string, StoredFloatSum>>();
    let statsDuplicates: StatsDuplicate[] = [];
    let statsNullKeys: number | null = null;
    let late: Evidence['late'] = null;
    const srcView = 'lk_src';
    const tgtView = 'lk_tgt';

    const compared = schema.compared.filter((c) => !schema.typeChanges.some((t) => t.column === c));
    const floatCols = compared.filter((c) => compareFamily(tgtType.get(c)!, false) === 'float' || compareFamily(srcType.get(c)!, false) === 'float');
    const digestCols = compared.filter((c) => !floatCols.includes(c)).sort();
    // The checksum level alone needs only per-partition sums: aggregate while reading, keep no
    // per-row table (floats need their values for exact sums, so they keep the rows).
    const aggregateOnly = level === 'checksum' && floatCols.length === 0;

    if (opts.baseline && at < levelIndex('checksum')) notes.push(`baseline not used: level ${level} reads no data, so there is nothing to inherit`);

    if (at >= levelIndex('checksum')) {
      for (const f of floatCols) {
        if (!contract.floats[f]) {
          throw new LakerecError('contract_mismatch',
            `column "${f}" is a float: a bit-exact hash would flag rounding noise, so the contract must say what equal means (columns: { ${f}: { float: { tolerance: 1.0e-9 } } } or { float: exclude })`);
        }
      }
      if (contract.ordering && (!srcType.has(contract.ordering) || !tgtType.has(contract.ordering))) {
        throw contractError(contract, 'ordering', `ordering column "${contract.ordering}" is not a column of the ${srcType.has(contract.ordering) ? 'target' : 'source'}`);
      }
    }

    if (at >= levelIndex('counts')) {
      // ---- counts: source by reading it, target from the log's stats ----
      // At checksum and deeper the source's one pass happens here, and its counts come from it.
      let countSql = `SELECT CAST(p AS VARCHAR) AS p, n FROM (SELECT ${uncast(part.sourceSql)} AS p, count(*) AS n FROM ${srcView} GROUP BY 1)`;
      if (at >= levelIndex('checksum')) {
        report(ctx, { phase: 'hashing the source', done: 0, total: null });
        await materialise(conn, 'lk_s', srcView, part.sourceSql, contract, digestCols, floatCols, srcType, mode, at >= levelIndex('rows'), false, false, aggregateOnly);
        countSql = aggregateOnly ? 'SELECT p, n FROM lk_s' : 'SELECT p, count(*) AS n FROM lk_s GROUP BY 1';
      } else {
        report(ctx, { phase: 'counting source rows', done: 0, total: null });
      }
      let counted: Record<string, unknown>[];
      try {
        counted = await rows(conn, countSql);
      } catch (e) {
        throw new LakerecError('source_unreadable', `cannot read the source: ${(e as Error).message.split('\n')[0]}`);
      }
      for (const r of counted) {
        const p = getP(text(r.p));
        p.sourceRows = num(r.n);
        reads.sourceRowsRead += p.sourceRows;
      }
      throwIfCancelled(ctx);
      const statsCounts = countsFromStats(target, part);
      if (statsCounts) {
        for (const [v, n] of statsCounts) getP(v).targetRows = n;
      } else {
        notes.push('the target has files without row-count statistics or not attributable to one partition: counts compared from its data');
        await registerTargetView(conn, target, tgtView);
        for (const r of await rows(conn, `SELECT ${part.targetSql} AS p, count(*) AS n FROM ${tgtView} GROUP BY 1`)) getP(text(r.p)).targetRows = num(r.n);
        reads.targetRowsRead = [...partitions.values()].reduce((a, p) => a + p.targetRows, 0);
        reads.targetFilesRead = target.snapshot.files.length;
      }
      statsNullKeys = nullKeysFromStats(target, contract.keys);
      const needLog = [...partitions.values()].some((p) => p.targetRows < p.sourceRows);
      if (needLog && part.targetIsDeltaPartition) {
        removals = await removalsFromLog(conn, target, part);
        logConsulted = true;
      }
      // A partition the table once held is not "late": it was loaded and then lost.
      late = latePartitions(contract, part, [...partitions.values()], new Set([...removals.values()].filter((r) => r.everLoaded).map((r) => r.partition)));
      statsDuplicates = duplicateFilesFromStats(target, part);
    }

    if (at >= levelIndex('checksum')) {
      // ---- baseline: which target partitions can be inherited ----
      let readFiles: ActiveFile[] = target.snapshot.files;
      let inherited = new Map<string, InheritedPartition>();
      if (opts.baseline) {
        const b = baselineFor(baselineIn, { contract, target, part, digestCols, floatCols, canonical: digest });
        baselineUse = { path: opts.baseline!, inherited: [], reread: [], refused: b.refused };
        if (!b.refused) {
          inherited = b.inherited;
          readFiles = target.snapshot.files.filter((f) => !inherited.has(label(part.column, f.partitionValues[part.column!] ?? null)));
        } else {
          notes.push(`baseline not used: ${b.refused}`);
        }
      }

      report(ctx, { phase: 'hashing the target', done: 0, total: null });
      await registerTargetView(conn, target, 'lk_tgt_read', readFiles, at >= levelIndex('keys'));
      await materialise(conn, 'lk_t', 'lk_tgt_read', part.targetSql, contract, digestCols, floatCols, tgtType, mode, at >= levelIndex('rows'), at >= levelIndex('keys'), false, aggregateOnly);
      reads.targetFilesRead = readFiles.length;
      throwIfCancelled(ctx);

      const sums = async (table: string) => {
        const out = new Map<string, { n: number; sum: bigint }>();
        const q = aggregateOnly ? `SELECT p, n, hi, lo FROM ${table}` : `SELECT p, count(*) AS n, sum(h1) AS hi, sum(h2) AS lo FROM ${table} GROUP BY p`;
        for (const r of await rows(conn, q)) {
          out.set(label(part.column, text(r.p)), { n: num(r.n), sum: combineHalves(r.hi as bigint | null, r.lo as bigint | null) });
        }
        return out;
      };
      const sSums = await sums('lk_s');
      const tSums = await sums('lk_t');
      for (const [l, v] of sSums) {
        const p = partitions.get(l) ?? getP(l.slice(l.indexOf('=') + 1));
        p.sourceRows = v.n;
        p.sourceChecksum = toHex128(v.sum);
      }
      sourceTotal = [...sSums.values()].reduce((a, v) => (a + v.sum) % (1n << 128n), 0n);
      let tgtRead = 0;
      for (const [l, v] of tSums) {
        const p = partitions.get(l) ?? getP(l.slice(l.indexOf('=') + 1));
        p.targetRows = v.n;
        p.targetChecksum = toHex128(v.sum);
        tgtRead += v.n;
      }
      for (const [l, v] of inherited) {
        const p = partitions.get(l) ?? getP(l.slice(l.indexOf('=') + 1));
        p.targetRows = v.rows;
        p.targetChecksum = v.checksum;
        p.inherited = true;
        reads.targetRowsAvoided += v.rows;
      }
      // Partitions present on one side only still have a checksum (of nothing) on the other.
      for (const p of partitions.values()) {
        if (p.sourceChecksum === null) p.sourceChecksum = toHex128(0n);
        if (p.targetChecksum === null) p.targetChecksum = toHex128(0n);
      }
      let fs = await floatSums(conn, floatCols, contract, part, inherited);
      const floatDisagrees = (l: string) => fs.results.some((f) => f.partitions.some((x) => x.partition === l && !x.agree));
      // An inherited partition that disagrees with the source must be read for the key diff.
      if (baselineUse && at >= levelIndex('keys')) {
        const reread = [...inherited.keys()].filter((l) => partitions.get(l)!.sourceChecksum !== partitions.get(l)!.targetChecksum || floatDisagrees(l));
        if (reread.length) {
          const files = target.snapshot.files.filter((f) => reread.includes(label(part.column, f.partitionValues[part.column!] ?? null)));
          await registerTargetView(conn, target, 'lk_tgt_reread', files);
          await materialise(conn, 'lk_t', 'lk_tgt_reread', part.targetSql, contract, digestCols, floatCols, tgtType, mode, at >= levelIndex('rows'), true, true);
          reads.targetFilesRead += files.length;
          for (const l of reread) {
            const p = partitions.get(l)!;
            p.inherited = false;
            reads.targetRowsAvoided -= p.targetRows;
            tgtRead += p.targetRows;
            inherited.delete(l);
          }
          fs = await floatSums(conn, floatCols, contract, part, inherited);
        }
        baselineUse.reread = [...partitions.keys()].filter((l) => !inherited.has(l));
      }
      if (baselineUse) {
        baselineUse.inherited = [...inherited.keys()];
        if (!baselineUse.reread.length) baselineUse.reread = [...partitions.keys()].filter((l) => !inherited.has(l));
        notes.push(`baseline: ${inherited.size} partition(s) inherited, ${reads.targetRowsAvoided.toLocaleString('en-US')} target row(s) not read; the source has no log and was re-read in full (${reads.sourceRowsRead.toLocaleString('en-US')} rows)`);
      }
      reads.targetRowsRead = tgtRead;
      targetTotal = [...partitions.values()].reduce((a, p) => (a + BigInt('0x' + (p.targetChecksum ?? '0'))) % (1n << 128n), 0n);
      throwIfCancelled(ctx);

      floats = fs.results;
      targetFloats = fs.target;

      if (at >= levelIndex('keys')) {
        report(ctx, { phase: 'diffing keys', done: 0, total: null });
        const skip = [...inherited.keys()].filter((l) => partitions.get(l)!.sourceChecksum === partitions.get(l)!.targetChecksum && !floatDisagrees(l));
        await registerTargetView(conn, target, 'lk_tgt_all');
        const kdr = await diffKeys(conn, contract, part, digestCols, floatCols, srcType, tgtType, skip, exampleLimit, at >= levelIndex('rows'), reads);
        keyDiff = kdr.evidence;
        keyTotals = kdr.totals;
        columnDiffs = kdr.columnDiffs;
        if (at >= levelIndex('rows')) rowDiffs = kdr.rowDiffs;
      }
    }

    // ---- partition states ----
    const lateSet = new Set(late?.partitions ?? []);
    const floatBad = new Set(floats.flatMap((f) => f.partitions.filter((p) => !p.agree).map((p) => p.partition)));
    for (const p of partitions.values()) {
      if (lateSet.has(p.partition)) p.state = 'late';
      else if (p.sourceRows > 0 && p.targetRows === 0) p.state = 'missing_in_target';
      else if (p.sourceRows === 0 && p.targetRows > 0) p.state = 'missing_in_source';
      else if (p.sourceRows !== p.targetRows) p.state = 'differs';
      else if (at < levelIndex('checksum')) p.state = 'counts_match';
      else p.state = p.sourceChecksum === p.targetChecksum && !floatBad.has(p.partition) ? 'match' : 'differs';
    }
    const partList = [...partitions.values()].sort((a, b) => a.partition.localeCompare(b.partition));

    const { findings, unnamed } = classify({
      level, schema, partitions: partList, partitionColumn: part.column, partitionExpression: contract.partitioning?.expression ?? null, removals, logConsulted, statsDuplicates, statsNullKeys,
      keys: contract.keys, floats, keyDiff, late,
    });
    // Anything disagreeing must surface, named or not.
    const blocking = findings.some((f) => f.blocking) || unnamed.length > 0;
    const anyDiff = partList.some((p) => p.state !== 'match' && p.state !== 'counts_match' && p.state !== 'late');
    if (anyDiff && !blocking) unnamed.push('partitions disagree but no finding explains it');
    const verdict = blocking || anyDiff ? 'diverges' : 'matches';
    if (at >= levelIndex('counts') && reads.sourceRowsRead > 0) notes.push(`source rows read: ${reads.sourceRowsRead.toLocaleString('en-US')} (the source has no log; it is read in full)`);

    const result: ReconcileResult = {
      verdict,
      level,
      exitCode: verdict === 'diverges' ? 1 : 0,
      source: {
        description: source.description,
        kind: source.kind,
        rows: partList.reduce((a, p) => a + p.sourceRows, 0),
        checksum: sourceTotal === null ? null : toHex128(sourceTotal),
        version: source.version,
      },
      target: {
        description: target.root,
        kind: 'delta',
        rows: partList.reduce((a, p) => a + p.targetRows, 0),
        checksum: targetTotal === null ? null : toHex128(targetTotal),
        version: target.snapshot.version,
      },
      contract: contractSummary(contract),
      schema,
      partitions: partList,
      findings,
      unnamed,
      floats,
      columnDiffs,
      rowDiffs,
      keyDiff: keyTotals,
      reads,
      baseline: baselineUse,
      digest,
      engine: { duckdb, lakerec: LAKEREC_VERSION },
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      notes,
    };
    if (opts.writeBaseline) {
      if (!part.targetIsDeltaPartition && part.column !== null) {
        throw new LakerecError('usage', `--write-baseline needs the contract's partition column (${part.column}) to be the table's partition column, so file sets map to partitions`);
      }
      writeBaselineFile(opts.writeBaseline, { result, target, part, contract, digestCols, floatCols, targetFloats });
    }
    return result;
  } catch (e) {
    if (ctx?.signal?.aborted) throw new LakerecError('cancelled', 'The job was cancelled.');
    throw e;
  } finally {
    ctx?.signal?.removeEventListener('abort', onAbort);
    duck.close();
  }
}

async function duckVersion(conn: DuckDBConnection): Promise<string> {
  const r = await rows(conn, 'SELECT version() AS v');
  return String(r[0].v);
}

/** The partition column (or expression) on each side; validates the expression against the source. */
async function partitionSpec(conn: DuckDBConnection, contract: Contract, source: SourceSide, target: TargetSide): Promise<PartitionSpec & { srcHasCol: boolean }> {
  const pc = contract.partitioning?.column ?? null;
  const expr = contract.partitioning?.expression ?? null;
  const srcHas = pc !== null && source.columns.some((c) => c.name === pc);
  const tgtHas = pc !== null && target.columns.some((c) => c.name === pc);
  let srcSelect = 'SELECT *';
  if (pc !== null && !srcHas) {
    if (!expr) throw contractError(contract, 'partitioning', `partition column "${pc}" is not in the source and the contract gives no expression to derive it`);
    srcSelect = `SELECT *, (${expr}) AS ${sqlIdent(pc)}`;
  }
  try {
    await conn.run(`CREATE OR REPLACE TEMP VIEW lk_src AS ${srcSelect} FROM ${sqlIdent(source.view)}`);
    if (pc !== null) await conn.run(`SELECT ${sqlIdent(pc)} FROM lk_src LIMIT 0`);
  } catch (e) {
    throw contractError(contract, 'partitioning.expression', `partition expression "${expr}" does not evaluate on the source: ${(e as Error).message.split('\n')[0]}`);
  }
  if (pc !== null && !srcHas) {
    const d = await rows(conn, 'DESCRIBE lk_src');
    const t = d.find((r) => r.column_name === pc);
    source.columns.push({ name: pc, type: String(t?.column_type ?? 'VARCHAR') });
  }
  if (pc !== null && !tgtHas && !expr) throw contractError(contract, 'partitioning', `partition column "${pc}" is not in the target and the contract gives no expression to derive it`);
  const pText = (side: 'source' | 'target') => {
    if (pc === null) return 'NULL::VARCHAR';
    if (side === 'target' && !tgtHas) return `CAST((${expr}) AS VARCHAR)`;
    return `CAST(${sqlIdent(pc)} AS VARCHAR)`;
  };
  return {
    column: pc,
    sourceSql: pText('source'),
    targetSql: pText('target'),
    targetIsDeltaPartition: pc !== null && target.snapshot.partitionColumns.includes(pc),
    type: target.columns.find((c) => c.name === pc)?.type ?? null,
    srcHasCol: srcHas,
  };
}

function compareSchema(source: SourceSide, target: TargetSide, contract: Contract, _part: PartitionSpec): SchemaComparison {
  const ignore = new Set(contract.ignore);
  const src = source.columns.filter((c) => !ignore.has(c.name));
  const tgt = target.columns.filter((c) => !ignore.has(c.name));
  const tNames = new Map(tgt.map((c) => [c.name, c.type]));
  const sNames = new Map(src.map((c) => [c.name, c.type]));
  const compared = tgt.filter((c) => sNames.has(c.name)).map((c) => c.name).sort();
  const typeChanges = compared
    .filter((n) => !typesComparable(sNames.get(n)!, tNames.get(n)!, contract.naiveIsUtc))
    .map((n) => ({ column: n, source: sNames.get(n)!, target: tNames.get(n)! }));
  return {
    source: source.rawColumns,
    target: target.columns,
    compared,
    onlyInSource: src.filter((c) => !tNames.has(c.name)).map((c) => c.name),
    onlyInTarget: tgt.filter((c) => !sNames.has(c.name)).map((c) => c.name),
    typeChanges,
    ignored: [...ignore],
    renamed: Object.entries(contract.renames).map(([s, t]) => ({ source: s, target: t })),
  };
}

/** Per-partition target row counts from add-action stats (numRecords minus DV cardinality). */
function countsFromStats(target: TargetSide, part: PartitionSpec): Map<string | null, number> | null {
  const out = new Map<string | null, number>();
  for (const f of target.snapshot.files) {
    if (f.numRecords === null) return null;
    let v: string | null;
    if (part.column === null) v = null;
    else if (part.targetIsDeltaPartition) v = f.partitionValues[part.column] ?? null;
    else {
      // Not a Delta partition column: a file belongs to one partition only if its min equals its max.
      const mn = f.stats?.minValues?.[part.column];
      const mx = f.stats?.maxValues?.[part.column];
      if (mn === undefined || mn === null || mn !== mx || (f.stats?.nullCount?.[part.column] ?? 0) !== 0) return null;
      v = String(mn);
    }
    out.set(v, (out.get(v) ?? 0) + f.numRecords);
  }
  return out;
}

function nullKeysFromStats(target: TargetSide, keys: string[]): number | null {
  let n = 0;
  for (const f of target.snapshot.files) {
    for (const k of keys) {
      if (target.snapshot.partitionColumns.includes(k)) {
        if (f.partitionValues[k] === null) n += f.numRecords ?? 0;
        continue;
      }
      const c = f.stats?.nullCount?.[k];
      if (typeof c !== 'number') return null;
      n += c;
    }
  }
  return n;
}

/** Source partitions beyond the target's newest, within the contract's lateness allowance. */
function latePartitions(contract: Contract, part: PartitionSpec, parts: PartitionResult[], onceLoaded: Set<string>): Evidence['late'] {
  if (!contract.lateness || part.column === null || contract.lateness.column !== part.column) return null;
  const loaded = parts.filter((p) => p.targetRows > 0).map((p) => dayOf(p.value)).filter((d): d is number => d !== null);
  if (!loaded.length) return null;
  const newest = Math.max(...loaded);
  const late = parts.filter((p) => {
    const d = dayOf(p.value);
    return d !== null && !onceLoaded.has(p.partition) && p.targetRows === 0 && p.sourceRows > 0 && d > newest && d - newest <= contract.lateness!.days;
  });
  if (!late.length) return null;
  return { partitions: late.map((p) => p.partition), rows: late.reduce((a, p) => a + p.sourceRows, 0), allow: contract.lateness.allow };
}

/** For each partition: the last commit that removed files from it, read from the log (no data). */
async function removalsFromLog(conn: DuckDBConnection, target: TargetSide, part: PartitionSpec): Promise<Map<string, PartitionRemoval>> {
  const col = part.column!;
  const out = new Map<string, PartitionRemoval>();
  const ever = new Set<string>();
  const changes = (await targetChanges(target)).filter((c) => c.version <= target.snapshot.version);
  for (const c of changes) {
    const addedHere = new Set(c.adds.map((a) => a.partitionValues?.[col] ?? null));
    for (const v of addedHere) ever.add(label(col, v));
    const removedHere = new Set(c.removes.map((r) => r.partitionValues?.[col] ?? null));
    for (const v of removedHere) {
      const l = label(col, v);
      const params = c.commitInfo?.operationParameters ?? {};
      let predicate: string | null = null;
      const raw = params.predicate ?? params.replaceWhere;
      if (typeof raw === 'string') {
        try {
          const arr = JSON.parse(raw) as unknown;
          predicate = Array.isArray(arr) ? arr.map(String).join(' AND ') : String(arr);
        } catch {
          predicate = raw;
        }
      }
      out.set(l, {
        partition: l,
        version: c.version,
        operation: `${c.commitInfo?.operation ?? 'unknown'}${typeof params.mode === 'string' ? ` (${params.mode})` : ''}`,
        predicate,
        addedBackHere: addedHere.has(v),
        addedElsewhere: [...addedHere].some((x) => x !== v),
        predicateCovers: predicate ? await predicateCovers(conn, predicate, col, part.type, v) : null,
        everLoaded: true,
      });
    }
  }
  for (const [l, r] of out) r.everLoaded = ever.has(l);
  return out;
}

/** Evaluates a commit's predicate on a partition value alone; null when it needs other columns. */
async function predicateCovers(conn: DuckDBConnection, predicate: string, col: string, type: string | null, value: string | null): Promise<boolean | null> {
  try {
    const lit = value === null ? 'NULL' : sqlString(value);
    const r = await rows(conn, `SELECT coalesce((${predicate}), false) AS ok FROM (SELECT CAST(${lit} AS ${type ?? 'VARCHAR'}) AS ${sqlIdent(col)})`);
    return r[0].ok === true;
  } catch {
    return null;
  }
}

/** Files in one partition whose full stats repeat another file's: the signature of a retried batch. */
function duplicateFilesFromStats(target: TargetSide, part: PartitionSpec): StatsDuplicate[] {
  if (!part.targetIsDeltaPartition) return [];
  const groups = new Map<string, ActiveFile[]>();
  for (const f of target.snapshot.files) {
    const s = f.stats;
    if (!s || !s.minValues || !s.maxValues || Object.keys(s.minValues).length === 0 || f.numRecords === null) continue;
    const key = JSON.stringify([f.partitionValues[part.column!] ?? null, s.numRecords, s.minValues, s.maxValues, s.nullCount ?? null, f.deletionVector?.cardinality ?? 0]);
    const g = groups.get(key) ?? [];
    g.push(f);
    groups.set(key, g);
  }
  const out: StatsDuplicate[] = [];
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    const l = label(part.column, g[0].partitionValues[part.column!] ?? null);
    const rowsEach = g[0].numRecords ?? 0;
    const prev = out.find((d) => d.partition === l);
    const extra = rowsEach * (g.length - 1);
    if (prev) { prev.rows += extra; prev.files.push(...g.map((f) => ({ path: f.path, version: f.addedInVersion }))); }
    else out.push({ partition: l, rows: extra, files: g.map((f) => ({ path: f.path, version: f.addedInVersion })) });
  }
  return out;
}

/**
 * The one pass over a side: (partition, keys, 128-bit digest, ordering, float values,
 * [per-column hashes], [provenance]) into a temp table. The md5 is computed once per row.
 */
async function materialise(
  conn: DuckDBConnection, table: string, view: string, partSql: string, contract: Contract,
  digestCols: string[], floatCols: string[], types: Map<string, string>, mode: DigestMode, perColumn: boolean, provenance: boolean, append = false,
  aggregateOnly = false,
): Promise<void> {
  const cols = digestCols.map((c) => ({ name: c, type: types.get(c)! }));
  const dg = rowDigestHalves(cols, contract.naiveIsUtc, mode);
  // Aggregating: group by the typed partition value and turn only the few groups into text.
  const sel: string[] = [`${aggregateOnly ? uncast(partSql) : partSql} AS p`];
  contract.keys.forEach((k, i) => sel.push(`${sqlIdent(k)} AS k${i}`));
  if (dg.inner) sel.push(`${dg.inner} AS _lk_d`);
  else sel.push(`${dg.h1} AS h1`, `${dg.h2} AS h2`);
  if (contract.ordering) sel.push(`${orderingSql(contract.ordering, types.get(contract.ordering)!)} AS o`);
  else sel.push('NULL::BIGINT AS o');
  floatCols.forEach((f, i) => sel.push(`CAST(${sqlIdent(f)} AS DOUBLE) AS f${i}`));
  if (perColumn) digestCols.forEach((c, i) => sel.push(`hash(${canonicalField(c, types.get(c)!, contract.naiveIsUtc)}) AS h_${i}`));
  if (provenance) sel.push('_lakerec_file AS file', '_lakerec_row AS rowno');
  else sel.push('NULL::VARCHAR AS file', 'NULL::BIGINT AS rowno');
  let q = `SELECT ${sel.join(', ')} FROM ${sqlIdent(view)}`;
  // md5 once per row, split into halves outside.
  if (dg.inner) q = `SELECT * EXCLUDE (_lk_d), ${dg.h1} AS h1, ${dg.h2} AS h2 FROM (${q})`;
  if (aggregateOnly) q = `SELECT CAST(p AS VARCHAR) AS p, n, hi, lo FROM (SELECT p, count(*) AS n, sum(h1) AS hi, sum(h2) AS lo FROM (${q}) GROUP BY p)`;
  try {
    await exec(conn, append ? `INSERT INTO ${table} BY NAME ${q}` : `CREATE OR REPLACE TEMP TABLE ${table} AS ${q}`);
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0];
    if (table === 'lk_s') throw new LakerecError('source_unreadable', `cannot read the source: ${msg}`);
    throw new LakerecError('io_error', `cannot read the target's data: ${msg}`);
  }
}

/** The ordering column as a comparable value (timestamps as UTC micros). */
function orderingSql(col: string, type: string): string {
  const f = compareFamily(type, true);
  if (f === 'timestamp') return `epoch_us(${sqlIdent(col)})`;
  if (f === 'date') return `CAST(${sqlIdent(col)} AS DATE) - DATE '1970-01-01'`;
  if (f === 'integer' || f === 'decimal' || f === 'float') return `CAST(${sqlIdent(col)} AS DOUBLE)`;
  return `CAST(${sqlIdent(col)} AS VARCHAR)`;
}

function toStored(v: { s: ExactSum; n: number }): StoredFloatSum {
  return { n: v.n, groups: Object.fromEntries([...v.s.groups].map(([e, m]) => [String(e), m.toString()])), nan: v.s.nan, posInf: v.s.posInf, negInf: v.s.negInf };
}

function fromStored(f: StoredFloatSum): { s: ExactSum; n: number } {
  const s = emptyExactSum();
  for (const [e, m] of Object.entries(f.groups)) addGroup(s, Number(e), BigInt(m));
  s.nan = f.nan;
  s.posInf = f.posInf;
  s.negInf = f.negInf;
  return { s, n: f.n };
}

/**
 * Exact per-partition sums of each float column on both sides (inherited target partitions take
 * their sums from the baseline). Also returns the target's sums in stored form, for a baseline.
 */
async function floatSums(
  conn: DuckDBConnection, floatCols: string[], contract: Contract, part: PartitionSpec, inherited: Map<string, InheritedPartition>,
): Promise<{ results: FloatColumnResult[]; target: Map<string, Record<string, StoredFloatSum>> }> {
  const out: FloatColumnResult[] = [];
  const stored = new Map<string, Record<string, StoredFloatSum>>();
  for (let i = 0; i < floatCols.length; i++) {
    const col = floatCols[i];
    const rule = contract.floats[col];
    const fp = floatPartsSql(`f${i}`);
    const side = async (table: string) => {
      const m = new Map<string, { s: ExactSum; n: number }>();
      const q = `SELECT p, e, special, sum(CAST(m AS HUGEINT)) AS ms, count(*) AS n FROM (SELECT p, ${fp.e} AS e, ${fp.m} AS m, ${fp.special} AS special FROM ${table}) GROUP BY ALL`;
      for (const r of await rows(conn, q)) {
        const l = label(part.column, text(r.p));
        const cur = m.get(l) ?? { s: emptyExactSum(), n: 0 };
        cur.n += num(r.n);
        if (r.special === 'nan') cur.s.nan += num(r.n);
        else if (r.special === '+inf') cur.s.posInf += num(r.n);
        else if (r.special === '-inf') cur.s.negInf += num(r.n);
        else if (r.e !== null) addGroup(cur.s, Number(r.e), BigInt(String(r.ms)));
        m.set(l, cur);
      }
      return m;
    };
    const s = await side('lk_s');
    const t = await side('lk_t');
    for (const [l, inh] of inherited) if (inh.floats[col]) t.set(l, fromStored(inh.floats[col]));
    for (const [l, v] of t) stored.set(l, { ...(stored.get(l) ?? {}), [col]: toStored(v) });
    const labels = [...new Set([...s.keys(), ...t.keys()])].sort();
    const tol = rule === 'exclude' ? 0 : rule.tolerance;
    out.push({
      column: col,
      rule: rule === 'exclude' ? 'exclude' : 'tolerance',
      tolerance: rule === 'exclude' ? null : rule.tolerance,
      partitions: labels.map((l) => {
        const a = exactSumToNumber(s.get(l)?.s ?? emptyExactSum());
        const b = exactSumToNumber(t.get(l)?.s ?? emptyExactSum());
        const n = Math.max(s.get(l)?.n ?? 0, t.get(l)?.n ?? 0);
        const agree = Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= tol * n;
        return { partition: l, source: String(a), target: String(b), agree };
      }),
    });
  }
  return { results: out, target: stored };
}

interface KeyDiffResult {
  evidence: KeyDiffEvidence;
  totals: NonNullable<ReconcileResult['keyDiff']>;
  columnDiffs: ColumnDiffCount[];
  rowDiffs: RowDiff[];
}

/** The key diff: a FULL OUTER JOIN of the two digest tables on the key, inside DuckDB. */
async function diffKeys(
  conn: DuckDBConnection, contract: Contract, part: PartitionSpec, digestCols: string[], floatCols: string[],
  srcType: Map<string, string>, tgtType: Map<string, string>, skipPartitions: string[], limit: number, perColumn: boolean,
  reads: ReconcileResult['reads'],
): Promise<KeyDiffResult> {
  const K = contract.keys.map((_, i) => `k${i}`);
  const keyCols = contract.keys;
  const keyNull = K.map((k) => `${k} IS NULL`).join(' OR ');
  const skipVals = skipPartitions.map((l) => l.slice(l.indexOf('=') + 1));
  const skip = skipVals.length ? ` AND coalesce(p, ${sqlString(NULL_LABEL)}) NOT IN (${skipVals.map(sqlString).join(', ')})` : '';
  // Keys are unique on both sides almost always: those rows are joined as they are (one hash
  // join, no aggregation). Keys that repeat on either side are few; they are aggregated per key
  // first and then joined. Both land in lk_kd, which keeps only keys that are not equal.
  const notNull = `NOT (${keyNull})${skip}`;
  const Kl = K.join(', ');
  await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_sdup AS SELECT ${Kl} FROM lk_s WHERE ${notNull} GROUP BY ${Kl} HAVING count(*) > 1`);
  await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_dupk AS SELECT ${Kl} FROM lk_t WHERE ${notNull} GROUP BY ${Kl} HAVING count(*) > 1 UNION SELECT ${Kl} FROM lk_sdup`);
  const on = (a: string, b: string) => K.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');
  const floatDiff = floatCols.map((c, i) => {
    const rule = contract.floats[c];
    if (rule === 'exclude') return null;
    return `(s.f${i} IS DISTINCT FROM t.f${i} AND NOT coalesce(abs(s.f${i} - t.f${i}) <= ${rule.tolerance}, false))`;
  }).filter((x): x is string => x !== null);
  const changedCond = ['(s.h1 <> t.h1 OR s.h2 <> t.h2)', ...floatDiff].join(' OR ');
  const kdSelect = (sn: string, tn: string, tsame: string, from: string) => `SELECT * FROM (
    SELECT ${K.map((k) => `coalesce(s.${k}, t.${k}) AS ${k}`).join(', ')},
      ${sn} AS sn, ${tn} AS tn, s.p AS sp, t.p AS tp, (s.h1 = t.h1 AND s.h2 = t.h2) AS same_d, ${tsame} AS tsame, s.o AS so, t.o AS tgo, t.file AS file, t.rowno AS rowno,
      ${perColumn && digestCols.length ? digestCols.map((_, i) => `s.h_${i} IS DISTINCT FROM t.h_${i} AS c${i}`).join(', ') + ',' : ''}
      CASE WHEN ${sn} IS NULL THEN 'extra' WHEN ${tn} IS NULL THEN 'missing'
           WHEN ${tn} > ${sn} THEN 'duplicate'
           WHEN s.p IS DISTINCT FROM t.p THEN 'moved'
           WHEN ${changedCond} THEN 'changed' ELSE 'same' END AS kind
    FROM ${from}
  ) WHERE kind <> 'same'`;
  const uniq = (tb: string) => `(SELECT * FROM ${tb} x WHERE ${notNull.replace(/\bk(\d+)\b/g, 'x.k$1')} AND NOT EXISTS (SELECT 1 FROM lk_dupk d WHERE ${on('d', 'x')}))`;
  await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_kd AS ${kdSelect(
    `CASE WHEN s.${K[0]} IS NULL THEN NULL ELSE 1 END`, `CASE WHEN t.${K[0]} IS NULL THEN NULL ELSE 1 END`, 'true',
    `${uniq('lk_s')} s FULL OUTER JOIN ${uniq('lk_t')} t ON ${on('s', 't')}`)}`);
  const fAgg = floatCols.map((_, i) => `any_value(f${i}) AS f${i}`);
  const hAgg = perColumn ? digestCols.map((_, i) => `min(h_${i}) AS h_${i}`) : [];
  const agg = (tb: string) => `(SELECT ${K.map((k) => `x.${k}`).join(', ')}, count(*) AS n, any_value(p) AS p, min(h1) AS h1, min(h2) AS h2, (min(h1) = max(h1) AND min(h2) = max(h2)) AS same_copies, max(o) AS o, any_value(file) AS file, any_value(rowno) AS rowno${[...fAgg, ...hAgg].map((x) => ', ' + x).join('')} FROM ${tb} x SEMI JOIN lk_dupk d ON ${on('d', 'x')} GROUP BY ${K.map((k) => `x.${k}`).join(', ')})`;
  await exec(conn, `INSERT INTO lk_kd BY NAME ${kdSelect('s.n', 't.n', 't.same_copies', `${agg('lk_s')} s FULL OUTER JOIN ${agg('lk_t')} t ON ${on('s', 't')}`)}`);

  // Totals per partition and kind.
  const byPartition: KeyDiffEvidence['byPartition'] = new Map();
  const entry = (l: string) => {
    let e = byPartition.get(l);
    if (!e) { e = { missing: 0, extra: 0, dupKeys: 0, dupRows: 0, dupDiffKeys: 0, changed: 0, moved: 0, nullKeyRows: 0 }; byPartition.set(l, e); }
    return e;
  };
  const ev: KeyDiffEvidence = {
    byPartition, missing: 0, extra: 0, dupKeys: 0, dupRows: 0, dupDiffKeys: 0, sourceDupKeys: 0, changed: 0, moved: 0,
    nullKeyRowsTarget: 0, nullKeyRowsSource: 0, movedAdjacent: 0, movedDirection: { later: 0, earlier: 0 }, movedExprMismatch: null, staleRows: 0,
    unicodeExamined: 0, unicodeOnly: 0,
    examples: { missing: [], extra: [], duplicate: [], changed: [], moved: [], null_key: [], stale: [], unicode: [] },
    exampleKeys: { missing: [], extra: [], duplicate: [], changed: [], moved: [], null_key: [], stale: [], unicode: [] },
  };
  const q = `SELECT kind, coalesce(tp, sp) AS p, count(*) AS keys, sum(coalesce(tn, 0) - coalesce(sn, 0)) AS surplus,
      count(*) FILTER (WHERE kind = 'duplicate' AND NOT (tsame AND same_d)) AS dupdiff
    FROM lk_kd GROUP BY ALL`;
  for (const r of await rows(conn, q)) {
    const e = entry(label(part.column, text(r.p)));
    const n = num(r.keys);
    switch (r.kind) {
      case 'missing': e.missing += n; ev.missing += n; break;
      case 'extra': e.extra += n; ev.extra += n; break;
      case 'duplicate': e.dupKeys += n; e.dupRows += num(r.surplus); e.dupDiffKeys += num(r.dupdiff); ev.dupKeys += n; ev.dupRows += num(r.surplus); ev.dupDiffKeys += num(r.dupdiff); break;
      case 'moved': e.moved += n; ev.moved += n; break;
      case 'changed': e.changed += n; ev.changed += n; break;
    }
  }
  ev.sourceDupKeys = num((await rows(conn, 'SELECT count(*) AS n FROM lk_sdup'))[0].n);
  for (const r of await rows(conn, `SELECT p, count(*) AS n FROM lk_t WHERE ${keyNull} GROUP BY p`)) {
    entry(label(part.column, text(r.p))).nullKeyRows += num(r.n);
    ev.nullKeyRowsTarget += num(r.n);
  }
  ev.nullKeyRowsSource = num((await rows(conn, `SELECT count(*) AS n FROM lk_s WHERE ${keyNull}`))[0].n);

  // Moved keys: how far, in days, when the partition is a date.
  if (ev.moved > 0) {
    for (const r of await rows(conn, `SELECT sp, tp, count(*) AS n FROM lk_kd WHERE kind = 'moved' GROUP BY ALL`)) {
      const a = dayOf(text(r.sp));
      const b = dayOf(text(r.tp));
      if (a !== null && b !== null && Math.abs(b - a) === 1) {
        ev.movedAdjacent += num(r.n);
        if (b > a) ev.movedDirection.later += num(r.n); else ev.movedDirection.earlier += num(r.n);
      }
    }
  }
  // Moved rows: does the target's partition value disagree with the contract's own derivation of
  // it from the same row? Then the partition was derived differently (a zone, a clock), not moved.
  if (ev.moved > 0 && contract.partitioning?.expression && part.column) {
    try {
      const jk = keyCols.map((kc, i) => `t.${sqlIdent(kc)} = k.${K[i]}`).join(' AND ');
      const r = (await rows(conn, `SELECT count(*) AS n FROM lk_kd k JOIN lk_tgt_all t ON ${jk}
        WHERE k.kind = 'moved' AND CAST((${contract.partitioning.expression}) AS VARCHAR) IS DISTINCT FROM CAST(t.${sqlIdent(part.column)} AS VARCHAR)`))[0];
      ev.movedExprMismatch = num(r.n);
    } catch {
      ev.movedExprMismatch = null;
    }
  }
  if (ev.changed > 0 && contract.ordering) {
    ev.staleRows = num((await rows(conn, `SELECT count(*) AS n FROM lk_kd WHERE kind = 'changed' AND tgo < so`))[0].n);
  }

  // Rows level: per column, how many changed rows differ there (from per-column hashes).
  const columnDiffs: ColumnDiffCount[] = [];
  if (perColumn && digestCols.length && ev.changed > 0) {
    const r = (await rows(conn, `SELECT ${digestCols.map((_, i) => `count(*) FILTER (WHERE c${i}) AS c${i}`).join(', ')} FROM lk_kd WHERE kind IN ('changed', 'moved')`))[0];
    digestCols.forEach((c, i) => { if (num(r[`c${i}`]) > 0) columnDiffs.push({ column: c, rows: num(r[`c${i}`]) }); });
    columnDiffs.sort((a, b) => b.rows - a.rows);
  }

  // Examples: a few keys per kind, then their full rows fetched back by key from both sides.
  const exampleSql = (where: string, n: number) => `SELECT ${K.join(', ')}, kind, sp, tp, file, rowno FROM lk_kd WHERE ${where} ORDER BY ${K.join(', ')} LIMIT ${n}`;
  const staleWhere = contract.ordering ? `kind = 'changed' AND tgo < so` : 'false';
  const unicodeN = limit * 4;
  const picks: { kind: keyof KeyDiffEvidence['examples']; where: string; n: number }[] = [
    { kind: 'missing', where: `kind = 'missing'`, n: limit },
    { kind: 'extra', where: `kind = 'extra'`, n: limit },
    { kind: 'duplicate', where: `kind = 'duplicate'`, n: limit },
    { kind: 'moved', where: `kind = 'moved'`, n: limit },
    { kind: 'stale', where: staleWhere, n: limit },
    { kind: 'changed', where: `kind = 'changed'${contract.ordering ? ' AND NOT coalesce(tgo < so, false)' : ''}`, n: unicodeN },
  ];
  await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_ex (${K.map((k, i) => `${k} ${srcType.get(keyCols[i])}`).join(', ')}, kind VARCHAR, sp VARCHAR, tp VARCHAR, file VARCHAR, rowno BIGINT)`);
  for (const pk of picks) await exec(conn, `INSERT INTO lk_ex SELECT *  REPLACE (CASE WHEN ${pk.kind === 'stale' ? 'true' : 'false'} THEN 'stale' ELSE kind END AS kind) FROM (${exampleSql(pk.where, pk.n)})`);
  const exRows = await rows(conn, `SELECT ${K.map((k) => `CAST(${k} AS VARCHAR) AS ${k}`).join(', ')}, kind, sp, tp, file, rowno FROM lk_ex`);
  const keyText = (r: Record<string, unknown>) => JSON.stringify(K.map((k) => text(r[k])));
  const keyLabel = (r: Record<string, unknown>) => keyCols.map((k, i) => `${k}=${text(r[K[i]]) ?? 'null'}`).join(', ');

  // Full rows, fetched back by key (a targeted read, counted apart from the one pass).
  const showCols = [...new Set([...digestCols, ...floatCols])].sort();
  const fetch = async (view: string, types: Map<string, string>) => {
    const m = new Map<string, Record<string, CellText>[]>();
    if (exRows.length === 0) return m;
    const cols = showCols.filter((c) => types.has(c));
    const sel = [...keyCols.map((k, i) => `CAST(v.${sqlIdent(k)} AS VARCHAR) AS ${K[i]}`), ...cols.map((c) => `CAST(v.${sqlIdent(c)} AS VARCHAR) AS ${sqlIdent('c_' + c)}`)];
    const join = keyCols.map((k, i) => `v.${sqlIdent(k)} = e.${K[i]}`).join(' AND ');
    for (const r of await rows(conn, `SELECT ${sel.join(', ')} FROM ${sqlIdent(view)} v SEMI JOIN (SELECT DISTINCT ${K.join(', ')} FROM lk_ex) e ON ${join}`)) {
      const rec: Record<string, CellText> = {};
      for (const c of cols) rec[c] = text(r['c_' + c]);
      const k = keyText(r);
      const list = m.get(k) ?? [];
      list.push(rec);
      m.set(k, list);
      reads.exampleRowsFetched++;
    }
    return m;
  };
  const sRows = await fetch('lk_src', srcType);
  const tRows = await fetch('lk_tgt_all', tgtType);

  const pv = (v: unknown) => (v === null || v === undefined ? null : label(part.column, text(v)));
  const stringCols = new Set(showCols.filter((c) => compareFamily(tgtType.get(c) ?? srcType.get(c) ?? '', false) === 'string'));
  for (const r of exRows) {
    const k = keyText(r);
    const s = sRows.get(k)?.[0] ?? null;
    const t = tRows.get(k)?.[0] ?? null;
    const kind = String(r.kind) as keyof KeyDiffEvidence['examples'];
    const diffCols = s && t ? showCols.filter((c) => s[c] !== t[c]) : [];
    const key: Record<string, CellText> = {};
    keyCols.forEach((kc, i) => { key[kc] = text(r[K[i]]); });
    const rd: RowDiff = {
      key,
      sourcePartition: pv(r.sp),
      targetPartition: pv(r.tp),
      kind: kind === 'stale' || kind === 'unicode' ? 'changed' : kind === 'null_key' ? 'null_key' : kind,
      columns: diffCols,
      source: s,
      target: t,
      targetFile: text(r.file),
      targetRow: r.rowno === null || r.rowno === undefined ? null : Number(r.rowno),
    };
    if (kind === 'changed') {
      const unicodeOnly = diffCols.length > 0 && diffCols.every((c) => stringCols.has(c) && s![c] !== null && t![c] !== null && s![c]!.normalize('NFC') === t![c]!.normalize('NFC'));
      if (unicodeOnly) {
        if (ev.examples.unicode.length < limit) { ev.examples.unicode.push(rd); ev.exampleKeys.unicode.push(keyLabel(r)); }
        continue;
      }
      if (ev.examples.changed.length >= limit) continue;
    }
    ev.examples[kind].push(rd);
    ev.exampleKeys[kind].push(keyLabel(r));
  }
  // Unicode: every changed row (not just the examples) re-compared with strings NFC-normalised,
  // fetched back by key from both sides (a targeted read, counted with the example rows).
  const staleCond = contract.ordering ? ' AND NOT coalesce(k.tgo < k.so, false)' : '';
  const hasStrings = digestCols.some((c) => compareFamily(tgtType.get(c)!, false) === 'string');
  if (ev.changed > 0 && hasStrings) {
    const sc = digestCols.map((c) => ({ name: c, type: srcType.get(c)! }));
    const tc = digestCols.map((c) => ({ name: c, type: tgtType.get(c)! }));
    const jk = (a: string) => keyCols.map((kc, i) => `${a}.${sqlIdent(kc)} = k.${K[i]}`).join(' AND ');
    const u = (await rows(conn, `SELECT count(*) AS n, count(*) FILTER (WHERE md5(${canonicalRow(sc, contract.naiveIsUtc, { qualifier: 's', nfc: true })}) = md5(${canonicalRow(tc, contract.naiveIsUtc, { qualifier: 't', nfc: true })})) AS u
      FROM lk_kd k JOIN lk_src s ON ${jk('s')} JOIN lk_tgt_all t ON ${jk('t')} WHERE k.kind = 'changed' AND NOT k.same_d${staleCond}`))[0];
    ev.unicodeExamined = num(u.n);
    ev.unicodeOnly = num(u.u);
    reads.exampleRowsFetched += 2 * num(u.n);
  }
  // Null-key rows have no key to fetch by: show them from their file position.
  if (ev.nullKeyRowsTarget > 0) {
    for (const r of await rows(conn, `SELECT p, file, rowno FROM lk_t WHERE ${keyNull} ORDER BY file, rowno LIMIT ${limit}`)) {
      const key: Record<string, CellText> = {};
      keyCols.forEach((kc) => { key[kc] = null; });
      ev.examples.null_key.push({ key, sourcePartition: null, targetPartition: pv(r.p), kind: 'null_key', columns: [], source: null, target: null, targetFile: text(r.file), targetRow: r.rowno === null ? null : Number(r.rowno) });
      ev.exampleKeys.null_key.push(`${text(r.file) ?? '?'}#${text(r.rowno) ?? '?'}`);
    }
  }
  // Rows level shows every example kind.
  const rowDiffs = [...ev.examples.duplicate, ...ev.examples.missing, ...ev.examples.extra, ...ev.examples.moved, ...ev.examples.stale, ...ev.examples.unicode, ...ev.examples.changed, ...ev.examples.null_key];
  return {
    evidence: ev,
    totals: {
      missing: ev.missing, extra: ev.extra, duplicatedInTarget: ev.dupKeys, duplicatedInSource: ev.sourceDupKeys,
      changed: ev.changed, moved: ev.moved, nullKeysTarget: ev.nullKeyRowsTarget, nullKeysSource: ev.nullKeyRowsSource,
    },
    columnDiffs,
    rowDiffs,
  };
}
