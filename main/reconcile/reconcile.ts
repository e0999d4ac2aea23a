// The five levels, run in order by reconcile() below. schema and counts read no target data file
// (the log's schema and file stats: log-levels.ts); checksum, keys and rows share one pass
// (pass.ts): each side's rows become (partition, key, digest, ...) in a DuckDB temp table, and the
// checksum, the key diff (keydiff.ts) and the example rows all come from those tables. Rows never
// become JavaScript objects, except the few shown as examples. result.ts assembles the result.
import { LakerecError } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import { LEVELS, levelIndex, type Level, type ReconcileResult } from '../../shared/reconcile';
import { openDuck, interruptOnAbort } from '../engine/duck';
import { DEFAULT_DIGEST, digestName, type DigestMode } from './canonical';
import { checkContractColumns, loadContract, type Contract } from './contract';
import type { DeltaTable } from '../delta/table';
import { outsideLocalFiles } from '../delta/scan';
import { openSource, openTarget } from './sides';
import { readBaseline, writeBaselineFile, type Baseline } from './baseline';
import { duckVersion, profile } from './sql';
import { countsLevel, noCounts, schemaLevel } from './log-levels';
import { checkPassContract, checksumLevel, planPass, type ChecksumLevel } from './pass';
import { keysLevel } from './keydiff';
import { assembleResult, newTally, type DataLevels } from './result';


/**
 * DuckDB's memory for one reconcile: with what DuckDB holds outside its limit and Node's own, a run
 * stays under 2 GB of RSS (issue #14; measured at 100M rows a side by main/bench/reconcile-scale.ts).
 */
export const RECONCILE_MEMORY_LIMIT = '1280MB';
/** Freed memory goes back to the OS past this much per thread (without it 1536MB peaked at 2.2-2.5 GB). */
export const RECONCILE_ALLOCATOR_FLUSH = '16MB';

export interface ReconcileOptions {
  /** Source of truth: Parquet file or folder, CSV, JSON lines, or a Delta table (`path@version`). */
  source: string;
  /** `table`: an already open table (the window's), so its log is not read again. */
  target: { root: string; version?: number; table?: DeltaTable };
  /** A Delta source (`path@version`) that is this already open table (Compare: two versions of one table), so its log is not read again. */
  sourceTable?: DeltaTable;
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
  /** Row digest (default DEFAULT_DIGEST): DuckDB hash() (fast; bound to the DuckDB version) or md5 of canonical bytes (stable). */
  digest?: DigestMode;
  /** DuckDB memory limit (default RECONCILE_MEMORY_LIMIT, so a run stays under 2 GB of RSS); beyond it the per-row tables spill to a temp folder. */
  memoryLimit?: string;
}


export async function reconcile(opts: ReconcileOptions): Promise<ReconcileResult> {
  const started = Date.now();
  // LAKEREC_PROFILE=1: each phase's end, in ms since the start (the queries print their own times).
  const mark = (phase: string) => { if (profile) process.stderr.write(`[lakerec] phase ${phase} done at ${Date.now() - started} ms\n`); };
  const level: Level = opts.level ?? 'rows';
  if (!LEVELS.includes(level)) throw new LakerecError('usage', `unknown level "${String(level)}"; one of ${LEVELS.join(', ')}`);
  const at = levelIndex(level);
  const ctx = opts.ctx;
  const cwd = opts.cwd ?? process.cwd();
  const contract = typeof opts.contract === 'string' ? loadContract(opts.contract) : opts.contract;
  const exampleLimit = opts.exampleLimit ?? 5;
  if (opts.writeBaseline && at < levelIndex('checksum')) throw new LakerecError('usage', '--write-baseline needs level checksum or deeper (a baseline stores checksums)');
  const baselineIn: Baseline | null = opts.baseline ? readBaseline(opts.baseline) : null;

  const mode: DigestMode = opts.digest ?? DEFAULT_DIGEST;
  if (mode !== 'md5' && mode !== 'fast') throw new LakerecError('usage', `unknown digest "${String(mode)}"; md5 or fast`);
  throwIfCancelled(ctx);
  // DuckDB spills the per-row tables and the join to openDuck()'s temp folder beyond this.
  const duck = await openDuck({ memoryLimit: opts.memoryLimit ?? RECONCILE_MEMORY_LIMIT, allocatorFlush: RECONCILE_ALLOCATOR_FLUSH });
  const conn = duck.conn;
  // Cancelling stops the running query too, not just the next step.
  const detach = interruptOnAbort(conn, ctx?.signal);
  try {
    // DuckDB tracks a query's progress only with its progress bar on (never printed here).
    if (ctx?.progress) await conn.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
    const duckdb = await duckVersion(conn);
    const digest = digestName(mode, duckdb);
    report(ctx, { phase: 'reading the target log', done: 0, total: null });
    const target = await openTarget(opts.target.root, opts.target.version, opts.target.table);
    mark('target log');
    throwIfCancelled(ctx);
    report(ctx, { phase: 'opening the source', done: 0, total: null });
    const source = await openSource(conn, opts.source, cwd, contract, target, 'lk_src_named', opts.sourceTable);
    mark('source open');
    throwIfCancelled(ctx);
    // Every column the contract names must exist on a side: a typo would silently mean "nothing".
    checkContractColumns(contract, { sourceRaw: source.rawColumns.map((c) => c.name), source: source.columns.map((c) => c.name), target: target.columns.map((c) => c.name) });
    // From here on DuckDB may read the two sides' files and nothing else (defence in depth under
    // the type mapping and the expression check: no SQL of the run can open another file).
    await duck.restrict({
      dirs: [...target.table.storage.engineDirs(), ...(source.access.dirs ?? [])],
      files: [...(source.access.files ?? []), ...outsideLocalFiles(target.snapshot.files)],
    });

    const schema = await schemaLevel(conn, contract, source, target);
    mark('schema');
    const { part } = schema;
    const tally = newTally(part.column, target.snapshot.files.length);
    const plan = planPass(contract, schema, mode, level);
    if (opts.baseline && at < levelIndex('checksum')) tally.notes.push(`baseline not used: level ${level} reads no data, so there is nothing to inherit`);
    if (at >= levelIndex('checksum')) checkPassContract(contract, plan, schema);

    const counts = at >= levelIndex('counts')
      ? await countsLevel(conn, ctx, tally, { level, contract, source, target, schema, plan, srcView: 'lk_src', tgtView: 'lk_tgt' })
      : noCounts();
    mark('counts');
    const data: DataLevels = { floats: [], sourceTotal: null, targetTotal: null, baselineUse: null, keyDiff: null, keyTotals: null, columnDiffs: [], rowDiffs: [] };
    let checksum: ChecksumLevel | null = null;
    if (at >= levelIndex('checksum')) {
      checksum = await checksumLevel(conn, ctx, tally, {
        level, contract, target, schema, plan, digest, baselinePath: opts.baseline ?? null, baselineIn, sourceSumRows: counts.sourceSumRows,
      });
      data.floats = checksum.floats;
      data.sourceTotal = checksum.sourceTotal;
      data.targetTotal = checksum.targetTotal;
      data.baselineUse = checksum.baselineUse;
      mark('checksum');
      if (at >= levelIndex('keys')) {
        const kdr = await keysLevel(conn, ctx, tally, { level, contract, target, schema, plan, checksum, exampleLimit });
        data.keyDiff = kdr.evidence;
        data.keyTotals = kdr.totals;
        data.columnDiffs = kdr.columnDiffs;
        if (at >= levelIndex('rows')) data.rowDiffs = kdr.rowDiffs;
        mark('keys');
      }
    }

    const result = assembleResult(tally, { level, contract, schema: schema.schema, part, source, target, counts, data, digest, duckdb, started });
    mark('result');
    if (opts.writeBaseline) {
      if (!part.targetIsDeltaPartition && part.column !== null) {
        throw new LakerecError('usage', `--write-baseline needs the contract's partition column (${part.column}) to be the table's partition column, so file sets map to partitions`);
      }
      writeBaselineFile(opts.writeBaseline, {
        result, target, part, contract, digestCols: plan.digestCols, floatCols: plan.floatCols, targetFloats: checksum?.targetFloats ?? new Map(), hashForms: plan.hashForms,
      });
    }
    return result;
  } catch (e) {
    if (ctx?.signal?.aborted) throw new LakerecError('cancelled', 'The job was cancelled.');
    throw e;
  } finally {
    detach();
    duck.close();
  }
}
