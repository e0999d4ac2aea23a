// The corruption scenarios: each starts from the same clean history (create, then one append per
// day) and then does what a real pipeline does wrong, through the ordinary Delta write path. The
// expected finding of each is declared here, next to the commits that cause it, so the detection
// matrix and the tests read one source of truth.
// One file on purpose (over 400 lines): the sixteen scenarios are a table, read side by side.
import type { FindingMode } from '../shared/reconcile';
import { sqlString } from '../main/engine/duck';
import type { DeltaWriter } from '../main/writer';
import { DAYS, ORDER_COLUMNS, SKUS } from './orders';

export type LakeKind = 'scenario' | 'demo' | 'bisect';

/** What bisect should find on a lake (for the bisect tests and the demo). */
export interface BisectExpectation {
  predicate: 'unique-keys' | 'no-null-keys' | 'row-count' | 'matches-source';
  keys?: string[];
  expect?: number;
  partition?: string;
  /** First version where the predicate fails (null: never fails). */
  firstBadVersion: number | null;
  lastGoodVersion: number | null;
  /** Broke and recovered: the version where it passes again. */
  healedAtVersion?: number | null;
  /** More than 47 versions: a binary search, monotonicity assumed. */
  exhaustive: boolean;
  /** Versions that can no longer be read (vacuumed history). */
  unreadableVersions?: number[];
  /** The true first bad version is lost with the vacuumed history. */
  firstBadRecoverable?: boolean;
}

/** Facts a scenario's commits report back to the builder. */
export interface ScenarioOutcome {
  /** The version whose commit introduced the corruption (null: nothing was corrupted). */
  brokenAtVersion: number | null;
  /** The version that repaired it (healed history). */
  repairedAtVersion?: number | null;
  /** Partition labels the corruption touched ("dt=2026-08-12"). */
  affectedPartitions: string[];
  /** Scenario-specific measured facts (rows changed, bitwise-different floats, ...). */
  facts?: Record<string, number | string | boolean>;
  bisect?: BisectExpectation[];
}

export interface ScenarioContext {
  w: DeltaWriter;
  /** The clean orders rows: a DuckDB temp table. */
  clean: string;
  /** Rows per daily partition. */
  perDay: number;
  seed: number;
  /** Sets the commit clock (ms since epoch) for the next commit. */
  at(iso: string): void;
  /** SQL for one day of the clean data, in table column order. */
  day(d: string): string;
  /** A scalar from the writer's DuckDB. */
  scalar(sql: string): Promise<number>;
  /** Loads extra generated orders (ids from firstId) into a temp table; returns its name. */
  extraOrders(name: string, seed: number, perDay: number, days: string[], firstId: number): Promise<string>;
}

export interface ScenarioSpec {
  name: string;
  title: string;
  kind: LakeKind;
  /** The finding reconcile must name; null for the scenarios that must stay silent. */
  expectedMode: FindingMode | null;
  /** Further findings the lake also holds (the demo has two). */
  alsoExpected?: FindingMode[];
  /** Whether the key column is declared NOT NULL (true except where a null key must land). */
  orderIdNotNull: boolean;
  /** The table has deletion vectors enabled (DELETE marks rows instead of rewriting files). */
  deletionVectors?: boolean;
  /** What the pipeline did, in one or two sentences. */
  story: string;
  /** Extra source rows beyond the clean extract (bisect lake's late orders), as a temp table. */
  sourceExtra?: (ctx: ScenarioContext) => Promise<string | null>;
  /** Commits after the clean history. */
  corrupt(ctx: ScenarioContext): Promise<ScenarioOutcome>;
}

const part = (d: string): string => `dt=${d}`;
/** A retried load re-sends the batch id of the load it repeats (the daily loads carry `batch`). */
const retry = (d: string): { extraParameters: Record<string, string> } => ({ extraParameters: { batch: `orders-${d}` } });
const D = DAYS;
const CORRUPTION_TIME = '2026-08-17T19:47:12Z';
const uniqueKeys = (firstBad: number | null, lastGood: number | null, extra: Partial<BisectExpectation> = {}): BisectExpectation => ({
  predicate: 'unique-keys', keys: ['order_id'], firstBadVersion: firstBad, lastGoodVersion: lastGood, exhaustive: true, ...extra,
});

/** The SQL CASE mapping each SKU to its NFD spelling (only the ones that decompose change). */
function nfdSkuSql(): string {
  const whens = SKUS.filter((s) => s.normalize('NFD') !== s).map((s) => `WHEN ${sqlString(s)} THEN ${sqlString(s.normalize('NFD'))}`);
  return `CASE sku ${whens.join(' ')} ELSE sku END`;
}

export const SCENARIOS: ScenarioSpec[] = [
  {
    name: 'double_load',
    title: 'double load',
    kind: 'scenario',
    expectedMode: 'double_load',
    orderIdNotNull: true,
    story: `A retried batch: the load of ${D[2]} timed out after its commit had landed, and the retry appended the same rows again.`,
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const r = await c.w.append({ sql: c.day(D[2]) }, retry(D[2]));
      return { brokenAtVersion: r.version, affectedPartitions: [part(D[2])], facts: { duplicateRows: c.perDay }, bisect: [uniqueKeys(r.version, r.version - 1)] };
    },
  },
  {
    name: 'missing_rows',
    title: 'missing rows',
    kind: 'scenario',
    expectedMode: 'missing_rows',
    orderIdNotNull: true,
    story: 'An erasure request for customers 100 to 104 ran as DELETE WHERE customer_id BETWEEN 100 AND 149: the predicate caught its neighbours, in every partition.',
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const r = await c.w.deleteWhere('customer_id BETWEEN 100 AND 149');
      const wrongly = await c.scalar(`SELECT count(*) FROM ${c.clean} WHERE customer_id BETWEEN 105 AND 149`);
      const parts = [...new Set(r.removes.map((x) => part(String(x.partitionValues?.dt))))].sort();
      return { brokenAtVersion: r.version, affectedPartitions: parts, facts: { deletedRows: Number(r.commitInfo.operationMetrics?.numDeletedRows ?? 0), rowsNotMeantToGo: wrongly } };
    },
  },
  {
    name: 'extra_rows',
    title: 'extra rows',
    kind: 'scenario',
    expectedMode: 'extra_rows',
    orderIdNotNull: true,
    story: `A QA job pointed at production appended 40 test orders (keys the source never had) to ${D[4]}.`,
    async corrupt(c) {
      const t = await c.extraOrders('lk_qa_orders', c.seed + 7, 40, [D[4]], 900_001);
      c.at(CORRUPTION_TIME);
      const r = await c.w.append({ sql: `SELECT ${ORDER_COLUMNS} FROM ${t}` });
      return { brokenAtVersion: r.version, affectedPartitions: [part(D[4])], facts: { extraRows: 40 } };
    },
  },
  {
    name: 'partition_wipe',
    title: 'partition wipe',
    kind: 'scenario',
    expectedMode: 'partition_wipe',
    orderIdNotNull: true,
    story: `A reload of ${D[1]} read an empty extract and overwrote the day with it (replaceWhere dt = '${D[1]}'): the partition is gone.`,
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const r = await c.w.overwrite({ sql: `${c.day(D[1])} AND false` }, { replaceWhere: `dt = DATE '${D[1]}'` });
      // No row-count bisect expectation: the partition was empty before its first load too, so
      // "exactly N rows in dt=X" fails at v0, holds from the load, fails again here (not monotone).
      return { brokenAtVersion: r.version, affectedPartitions: [part(D[1])], facts: { wipedRows: c.perDay } };
    },
  },
  {
    name: 'overwrite_too_wide',
    title: 'overwrite wider than declared',
    kind: 'scenario',
    expectedMode: 'overwrite_too_wide',
    orderIdNotNull: true,
    story: `A reprocessing of ${D[4]} overwrote with replaceWhere dt >= '${D[4]}' (a range, meant as one day): it removed ${D[4]} and ${D[5]} and wrote back only ${D[4]}.`,
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const r = await c.w.overwrite({ sql: c.day(D[4]) }, { replaceWhere: `dt >= DATE '${D[4]}'` });
      return { brokenAtVersion: r.version, affectedPartitions: [part(D[5])], facts: { partitionsRemoved: 2, partitionsWritten: 1, lostRows: c.perDay } };
    },
  },
  {
    name: 'timezone_partition_shift',
    title: 'timezone partition shift',
    kind: 'scenario',
    expectedMode: 'timezone_partition_shift',
    orderIdNotNull: true,
    story: 'A backfill re-derived dt from ts in America/New_York instead of UTC and overwrote the table: every order placed between 00:00 and 04:00 UTC moved to the previous day.',
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const shifted = `SELECT order_id, customer_id, amount, amount_float, sku, ts, updated_at,
        CAST(timezone('America/New_York', ts) AS DATE) AS dt FROM ${c.clean}`;
      const moved = await c.scalar(`SELECT count(*) FROM (${shifted}) s JOIN ${c.clean} o USING (order_id) WHERE s.dt <> o.dt`);
      const r = await c.w.overwrite({ sql: shifted });
      return { brokenAtVersion: r.version, affectedPartitions: ['dt=2026-08-09', ...D.map(part)], facts: { movedRows: moved } };
    },
  },
  {
    name: 'stale_rows',
    title: 'stale rows',
    kind: 'scenario',
    expectedMode: 'stale_rows',
    orderIdNotNull: true,
    story: `A replay of an old change batch MERGEd earlier versions of 1 in 15 orders of ${D[3]} over the current ones (older updated_at, pre-correction amounts).`,
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const old = `SELECT order_id, customer_id, CAST(amount * 0.9 AS DECIMAL(12,2)) AS amount,
        CAST(CAST(amount * 0.9 AS DECIMAL(12,2)) AS DOUBLE) AS amount_float, sku, ts,
        updated_at - INTERVAL 2 HOUR AS updated_at, dt
        FROM ${c.clean} WHERE dt = DATE '${D[3]}' AND order_id % 15 = 0`;
      const r = await c.w.merge({ sql: old }, { on: ['order_id'] });
      return { brokenAtVersion: r.version, affectedPartitions: [part(D[3])], facts: { staleRows: Number(r.commitInfo.operationMetrics?.numTargetRowsUpdated ?? 0) } };
    },
  },
  {
    name: 'content_divergence',
    title: 'content divergence',
    kind: 'scenario',
    expectedMode: 'content_divergence',
    orderIdNotNull: true,
    story: `A cleanup job upper-cased the sku of customers with id divisible by 7 on ${D[2]}, leaving updated_at as it was.`,
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const r = await c.w.update({ sku: 'upper(sku)' }, `dt = DATE '${D[2]}' AND customer_id % 7 = 0`);
      return { brokenAtVersion: r.version, affectedPartitions: [part(D[2])], facts: { changedRows: Number(r.commitInfo.operationMetrics?.numUpdatedRows ?? 0), column: 'sku' } };
    },
  },
  {
    name: 'schema_drift',
    title: 'schema drift',
    kind: 'scenario',
    expectedMode: 'schema_drift',
    orderIdNotNull: true,
    story: `A new pipeline version reloaded ${D[5]} with mergeSchema on and a new column, channel: the table's schema now differs from the source's.`,
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const r = await c.w.overwrite({
        sql: `SELECT *, CASE customer_id % 3 WHEN 0 THEN 'web' WHEN 1 THEN 'store' ELSE 'app' END AS channel FROM (${c.day(D[5])})`,
      }, { replaceWhere: `dt = DATE '${D[5]}'`, mergeSchema: true });
      return { brokenAtVersion: r.version, affectedPartitions: [part(D[5])], facts: { addedColumn: 'channel' } };
    },
  },
  {
    name: 'recomputed_double',
    title: 'one recomputed double',
    kind: 'scenario',
    expectedMode: 'content_divergence',
    orderIdNotNull: true,
    story: `One order's amount_float on ${D[4]} was recomputed with tax applied (x 1.0825): a real difference in a float column, far beyond the contract's tolerance.`,
    async corrupt(c) {
      const id = await c.scalar(`SELECT min(order_id) + 17 FROM ${c.clean} WHERE dt = DATE '${D[4]}'`);
      c.at(CORRUPTION_TIME);
      const r = await c.w.update({ amount_float: 'amount_float * 1.0825' }, `order_id = ${id}`);
      return { brokenAtVersion: r.version, affectedPartitions: [part(D[4])], facts: { changedRows: 1, orderId: id, column: 'amount_float' } };
    },
  },
  {
    name: 'unicode_normalisation',
    title: 'Unicode normalisation (NFC vs NFD)',
    kind: 'scenario',
    expectedMode: 'unicode_normalisation',
    orderIdNotNull: true,
    story: `A reload of ${D[4]} passed through a tool that writes NFD: "Café" became "Cafe" + a combining accent. Same text to a reader, different bytes.`,
    async corrupt(c) {
      const changed = await c.scalar(`SELECT count(*) FROM (${c.day(D[4])}) WHERE ${nfdSkuSql()} <> sku`);
      c.at(CORRUPTION_TIME);
      const r = await c.w.overwrite({ sql: `SELECT * REPLACE (${nfdSkuSql()} AS sku) FROM (${c.day(D[4])})` }, { replaceWhere: `dt = DATE '${D[4]}'` });
      return { brokenAtVersion: r.version, affectedPartitions: [part(D[4])], facts: { changedRows: changed, column: 'sku' } };
    },
  },
  {
    name: 'null_keys',
    title: 'null keys',
    kind: 'scenario',
    expectedMode: 'null_keys',
    // Only a table that does NOT declare order_id NOT NULL accepts this write (a test asserts the other case).
    orderIdNotNull: false,
    story: `A reload of ${D[3]} joined to a lookup that lost 1 in 36 orders' ids: their order_id landed as null. The table never declared order_id NOT NULL, so the write was accepted.`,
    async corrupt(c) {
      const nulls = await c.scalar(`SELECT count(*) FROM (${c.day(D[3])}) WHERE order_id % 36 = 0`);
      c.at(CORRUPTION_TIME);
      const r = await c.w.overwrite({ sql: `SELECT * REPLACE (CASE WHEN order_id % 36 = 0 THEN NULL ELSE order_id END AS order_id) FROM (${c.day(D[3])})` }, { replaceWhere: `dt = DATE '${D[3]}'` });
      return {
        brokenAtVersion: r.version, affectedPartitions: [part(D[3])], facts: { nullKeyRows: nulls },
        bisect: [{ predicate: 'no-null-keys', keys: ['order_id'], firstBadVersion: r.version, lastGoodVersion: r.version - 1, exhaustive: true }],
      };
    },
  },
  {
    name: 'float_drift',
    title: 'float drift (must stay silent)',
    kind: 'scenario',
    expectedMode: null,
    orderIdNotNull: true,
    story: `A reload of ${D[2]} recomputed amount_float as (v*0.7 + v*0.2) + v*0.1: the same money grouped differently, as a changed join order does. Bits differ, values agree within the contract's tolerance.`,
    async corrupt(c) {
      const expr = '(amount_float * 0.7 + amount_float * 0.2) + amount_float * 0.1';
      const bitwise = await c.scalar(`SELECT count(*) FROM (${c.day(D[2])}) WHERE ${expr} <> amount_float`);
      const maxGap = await c.scalar(`SELECT max(abs(${expr} - amount_float)) FROM (${c.day(D[2])})`);
      c.at(CORRUPTION_TIME);
      const r = await c.w.overwrite({ sql: `SELECT * REPLACE (${expr} AS amount_float) FROM (${c.day(D[2])})` }, { replaceWhere: `dt = DATE '${D[2]}'` });
      return {
        brokenAtVersion: null, affectedPartitions: [part(D[2])],
        facts: { rewrittenAtVersion: r.version, bitwiseDifferentRows: bitwise, partitionRows: c.perDay, maxAbsoluteGap: maxGap },
      };
    },
  },
  {
    name: 'control',
    title: 'control, no corruption',
    kind: 'scenario',
    expectedMode: null,
    orderIdNotNull: true,
    story: 'The clean history and nothing else.',
    async corrupt() {
      return { brokenAtVersion: null, affectedPartitions: [], bisect: [uniqueKeys(null, null)] };
    },
  },
  {
    name: 'healed_history',
    title: 'healed history (bisect)',
    kind: 'scenario',
    expectedMode: null,
    orderIdNotNull: true,
    story: `The load of ${D[2]} was retried and landed twice; the next morning someone noticed and re-overwrote the day. Both ends are clean, the middle is not.`,
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const broke = await c.w.append({ sql: c.day(D[2]) }, retry(D[2]));
      c.at('2026-08-18T08:15:00Z');
      const fixed = await c.w.overwrite({ sql: c.day(D[2]) }, { replaceWhere: `dt = DATE '${D[2]}'` });
      return {
        brokenAtVersion: broke.version, repairedAtVersion: fixed.version, affectedPartitions: [part(D[2])],
        bisect: [uniqueKeys(broke.version, broke.version - 1, { healedAtVersion: fixed.version })],
      };
    },
  },
  {
    name: 'vacuumed_history',
    title: 'vacuumed history (bisect)',
    kind: 'scenario',
    expectedMode: 'double_load',
    orderIdNotNull: true,
    story: `The load of ${D[1]} landed twice; a later OPTIMIZE compacted the day, a checkpoint was written, log cleanup removed the older commits and VACUUM (retention 0) removed the files they named. The history before the checkpoint is gone.`,
    async corrupt(c) {
      c.at(CORRUPTION_TIME);
      const broke = await c.w.append({ sql: c.day(D[1]) }, retry(D[1]));
      c.at('2026-08-18T03:00:00Z');
      const opt = await c.w.optimize();
      await c.w.checkpoint();
      const deletedLog = c.w.cleanupLog(opt.version);
      const vac = c.w.vacuum({ retentionMs: 0 });
      const unreadable = Array.from({ length: opt.version }, (_x, i) => i);
      return {
        brokenAtVersion: broke.version, affectedPartitions: [part(D[1])],
        facts: { checkpointVersion: opt.version, deletedCommits: deletedLog.filter((f) => f.endsWith('.json')).length, vacuumedFiles: vac.deleted.length },
        bisect: [uniqueKeys(opt.version, null, { unreadableVersions: unreadable, firstBadRecoverable: false })],
      };
    },
  },
];

/** The demo's lake: one day loaded twice and another day deleted, so the total row count is exactly right. */
export const DEMO: ScenarioSpec = {
  name: 'demo',
  title: 'demo: double load plus partition wipe',
  kind: 'demo',
  expectedMode: 'partition_wipe',
  alsoExpected: ['double_load'],
  orderIdNotNull: true,
  story: `The load of ${D[2]} landed twice, then a cleanup deleted ${D[0]}. Every partition holds ${'the same number of rows'}, so the table's total is exactly the source's.`,
  async corrupt(c) {
    c.at(CORRUPTION_TIME);
    const dbl = await c.w.append({ sql: c.day(D[2]) }, retry(D[2]));
    c.at('2026-08-17T19:47:13Z');
    const wipe = await c.w.deleteWhere(`dt = DATE '${D[0]}'`);
    return {
      brokenAtVersion: dbl.version, affectedPartitions: [part(D[0]), part(D[2])],
      facts: { doubleLoadVersion: dbl.version, wipeVersion: wipe.version },
      bisect: [uniqueKeys(dbl.version, dbl.version - 1)],
    };
  },
};

const LATE_BATCHES = 53;
const LATE_PER_BATCH = 10;
const DOUBLE_AT_BATCH = 34;

/** A long history for binary-search bisect: 53 small late-order appends, one of them retried. */
export const BISECT_MANY: ScenarioSpec = {
  name: 'bisect_many_versions',
  title: 'many versions (binary-search bisect)',
  kind: 'bisect',
  expectedMode: 'double_load',
  orderIdNotNull: true,
  story: `After the daily loads, late orders for ${D[5]} arrived in ${LATE_BATCHES} small batches; one batch was retried and landed twice. Over 47 versions, so bisect searches instead of walking.`,
  async sourceExtra(c) {
    return c.extraOrders('lk_late_orders', c.seed + 11, LATE_BATCHES * LATE_PER_BATCH, [D[5]], 800_001);
  },
  async corrupt(c) {
    let broke = -1;
    const base = Date.parse('2026-08-16T02:00:00Z');
    let n = 0;
    for (let b = 0; b < LATE_BATCHES; b++) {
      const batch = `SELECT ${ORDER_COLUMNS} FROM lk_late_orders WHERE order_id BETWEEN ${800_001 + b * LATE_PER_BATCH} AND ${800_000 + (b + 1) * LATE_PER_BATCH}`;
      c.at(new Date(base + (n++) * 600_000).toISOString());
      await c.w.append({ sql: batch });
      if (b === DOUBLE_AT_BATCH) {
        c.at(new Date(base + (n++) * 600_000).toISOString());
        broke = (await c.w.append({ sql: batch })).version;
      }
    }
    return {
      brokenAtVersion: broke, affectedPartitions: [part(D[5])],
      facts: { versions: c.w.version + 1, lateRows: LATE_BATCHES * LATE_PER_BATCH },
      bisect: [uniqueKeys(broke, broke - 1, { exhaustive: false })],
    };
  },
};

/**
 * Not one of the 16: the source is a day ahead of the table (the next day's load has not run
 * yet), within the contract's lateness allowance: reported, not blocking.
 */
export const LATE_ARRIVING: ScenarioSpec = {
  name: 'late_arriving',
  title: 'late arriving (within the allowance)',
  kind: 'scenario',
  expectedMode: 'late_arriving',
  orderIdNotNull: true,
  story: 'The source already has 2026-08-16; the table\'s load for that day has not run yet. The contract allows the source to be 1 day ahead.',
  async sourceExtra(c) {
    return c.extraOrders('lk_next_day', c.seed + 13, c.perDay, ['2026-08-16'], 700_001);
  },
  async corrupt() {
    return { brokenAtVersion: null, affectedPartitions: ['dt=2026-08-16'], facts: { sourceAheadDays: 1 } };
  },
};

/**
 * Not one of the 16: missing rows again, on a table with deletion vectors enabled, so the DELETE
 * leaves every data file in place and marks the rows in DV files (protocol 3/7, deletionVectors).
 */
export const MISSING_ROWS_DV: ScenarioSpec = {
  name: 'missing_rows_dv',
  title: 'missing rows, deleted through deletion vectors',
  kind: 'scenario',
  expectedMode: 'missing_rows',
  orderIdNotNull: true,
  deletionVectors: true,
  story: 'The same over-wide erasure as missing_rows (customer_id BETWEEN 100 AND 149), on a table with deletion vectors enabled: no data file changes, the deleted rows are named in a deletion vector per file.',
  async corrupt(c) {
    c.at(CORRUPTION_TIME);
    const r = await c.w.deleteWhere('customer_id BETWEEN 100 AND 149');
    return {
      brokenAtVersion: r.version,
      affectedPartitions: [...new Set(r.adds.map((a) => part(String(a.partitionValues.dt))))].sort(),
      facts: { deletedRows: Number(r.commitInfo.operationMetrics?.numDeletedRows ?? 0), deletionVectors: r.adds.filter((a) => a.deletionVector).length },
    };
  },
};

export const ALL_LAKES: ScenarioSpec[] = [...SCENARIOS, DEMO, BISECT_MANY, LATE_ARRIVING, MISSING_ROWS_DV];
