// The five levels. schema and counts read no target data file (the log's schema and file stats);
// checksum, keys and rows share one pass: each side's rows become (partition, key, digest, ...)
// in a DuckDB temp table, and the checksum, the key diff and the example rows all come from
// those tables. Rows never become JavaScript objects, except the few shown as examples.
import { LAKEREC_VERSION } from '../../shared/version';
import { LakerecError } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import {
  LEVELS, levelIndex, type FloatColumnResult, type Level, type PartitionResult, type ReconcileResult,
  type RowDiff, type ColumnDiffCount, type BaselineUse,
} from '../../shared/reconcile';
import { openDuck } from '../engine/duck';
import type { ActiveFile } from '../delta/types';
import { compareFamily, DEFAULT_DIGEST, digestName, typesComparable, type DigestMode } from './canonical';
import { combineHalves, toHex128 } from './checksum';
import { contractError, contractSummary, loadContract, type Contract } from './contract';
import { classify, type Evidence, type KeyDiffEvidence, type PartitionRemoval, type StatsDuplicate } from './classify';
import type { DeltaTable } from '../delta/table';
import { normaliseType, openSource, openTarget, registerTargetView } from './sides';
import { baselineFor, readBaseline, writeBaselineFile, type Baseline, type InheritedPartition, type StoredFloatSum } from './baseline';
import { duckVersion, label, num, rows, sideProgress, sourceRowTotal, text, uncast } from './sql';
import {
  compareSchema, countsFromStats, duplicateFilesFromStats, latePartitions, nullKeysFromStats, partitionSpec, removalsFromLog,
} from './log-levels';
import { floatSums, materialise, storedColumns, sumsSql, type PassSpec } from './pass';
import { diffKeys } from './keydiff';


/** DuckDB's memory for one reconcile: with Node's own, a run stays under 2 GB of RSS (issue #14). */
export const RECONCILE_MEMORY_LIMIT = '1536MB';

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
  /** DuckDB memory limit (default 1536MB, so a run stays under 2 GB of RSS); beyond it the per-row tables spill to a temp folder. */
  memoryLimit?: string;
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

  const mode: DigestMode = opts.digest ?? DEFAULT_DIGEST;
  if (mode !== 'md5' && mode !== 'fast') throw new LakerecError('usage', `unknown digest "${String(mode)}"; md5 or fast`);
  throwIfCancelled(ctx);
  // DuckDB spills the per-row tables and the join to openDuck()'s temp folder beyond this.
  const duck = await openDuck({ memoryLimit: opts.memoryLimit ?? RECONCILE_MEMORY_LIMIT });
  const conn = duck.conn;
  // Cancelling stops the running query too, not just the next step.
  const onAbort = () => { try { conn.interrupt(); } catch { /* already closed */ } };
  ctx?.signal?.addEventListener('abort', onAbort);
  try {
    // DuckDB tracks a query's progress only with its progress bar on (never printed here).
    if (ctx?.progress) await conn.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
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
    let sourceSumRows: Record<string, unknown>[] | null = null;
    const srcView = 'lk_src';
    const tgtView = 'lk_tgt';

    const compared = schema.compared.filter((c) => !schema.typeChanges.some((t) => t.column === c));
    const floatCols = compared.filter((c) => compareFamily(tgtType.get(c)!, false) === 'float' || compareFamily(srcType.get(c)!, false) === 'float');
    const digestCols = compared.filter((c) => !floatCols.includes(c)).sort();
    // The checksum level alone needs only per-partition sums: aggregate while reading, keep no
    // per-row table (floats need their values for exact sums, so they keep the rows).
    const aggregateOnly = level === 'checksum' && floatCols.length === 0;
    const rawHash = new Set(digestCols.filter((c) => normaliseType(srcType.get(c)!) === normaliseType(tgtType.get(c)!)));
    const pc = part.column;
    // The source's type name: one DuckDB printed (DESCRIBE), never the log's text.
    const partitionType = pc !== null && srcType.has(pc) && tgtType.has(pc) && normaliseType(srcType.get(pc)!) === normaliseType(tgtType.get(pc)!) ? srcType.get(pc)! : null;
    const pass: PassSpec = { contract, digestCols, floatCols, mode, rawHash, partitionType };
    // What decides a stored checksum besides the contract and the digest identity (baseline.ts).
    const hashForms = mode === 'fast' ? digestCols.map((c) => `${c}:${rawHash.has(c) ? 'raw' : 'typed'}`) : [];

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
        const total = await sourceRowTotal(conn, source);
        const onProgress = sideProgress(ctx, 'hashing the source', total);
        await materialise(conn, { table: 'lk_s', view: srcView, partSql: part.sourceSql, types: srcType }, pass, { aggregateOnly, onProgress });
        // The same query gives the source's checksums (read once, below).
        countSql = aggregateOnly ? 'SELECT p, n, hi, lo FROM lk_s' : sumsSql('lk_s', pass);
      } else {
        report(ctx, { phase: 'counting source rows', done: 0, total: null });
      }
      let counted: Record<string, unknown>[];
      try {
        counted = await rows(conn, countSql);
      } catch (e) {
        throw new LakerecError('source_unreadable', `cannot read the source: ${(e as Error).message.split('\n')[0]}`);
      }
      if (at >= levelIndex('checksum')) sourceSumRows = counted;
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
        const b = baselineFor(baselineIn, { contract, target, part, digestCols, floatCols, canonical: digest, hashForms });
        baselineUse = { path: opts.baseline!, inherited: [], reread: [], refused: b.refused };
        if (!b.refused) {
          inherited = b.inherited;
          readFiles = target.snapshot.files.filter((f) => !inherited.has(label(part.column, f.partitionValues[part.column!] ?? null)));
        } else {
          notes.push(`baseline not used: ${b.refused}`);
        }
      }

      const tgtTotal = readFiles.every((f) => f.numRecords !== null) ? readFiles.reduce((a, f) => a + (f.numRecords ?? 0), 0) : null;
      const onProgress = sideProgress(ctx, 'hashing the target', tgtTotal);
      await registerTargetView(conn, target, 'lk_tgt_read', readFiles, false);
      await materialise(conn, { table: 'lk_t', view: 'lk_tgt_read', partSql: part.targetSql, types: tgtType }, pass, { aggregateOnly, onProgress });
      reads.targetFilesRead = readFiles.length;
      throwIfCancelled(ctx);

      const sums = async (table: string, known: Record<string, unknown>[] | null) => {
        const out = new Map<string, { n: number; sum: bigint }>();
        const q = aggregateOnly ? `SELECT p, n, hi, lo FROM ${table}` : sumsSql(table, pass);
        for (const r of known ?? await rows(conn, q)) {
          out.set(label(part.column, text(r.p)), { n: num(r.n), sum: combineHalves(r.hi as bigint | null, r.lo as bigint | null) });
        }
        return out;
      };
      const sSums = await sums('lk_s', sourceSumRows);
      const tSums = await sums('lk_t', null);
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
          await registerTargetView(conn, target, 'lk_tgt_reread', files, false);
          await materialise(conn, { table: 'lk_t', view: 'lk_tgt_reread', partSql: part.targetSql, types: tgtType }, pass, { append: true });
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
        // Only partitions that disagree can hold a difference (ADR 0005).
        const disagree = [...partitions.values()].filter((p) => p.sourceRows !== p.targetRows || p.sourceChecksum !== p.targetChecksum || floatDisagrees(p.partition)).map((p) => p.partition);
        const only = part.column === null || disagree.length === partitions.size ? null : disagree;
        const kdr = await diffKeys(conn, contract, part, digestCols, floatCols, srcType, tgtType, skip, exampleLimit, at >= levelIndex('rows'), reads, only, storedColumns(pass),
          async (labels) => {
            const files = part.targetIsDeltaPartition ? target.snapshot.files.filter((f) => labels.includes(label(part.column, f.partitionValues[part.column!] ?? null))) : undefined;
            await registerTargetView(conn, target, 'lk_tgt_some', files, false);
            return 'lk_tgt_some';
          });
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
      writeBaselineFile(opts.writeBaseline, { result, target, part, contract, digestCols, floatCols, targetFloats, hashForms });
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
