// Builds the sample lakes: for each scenario a folder with the target Delta table (the clean
// history plus the corrupting commits, all through lakerec's writer), the source extract it is
// reconciled against (Parquet and CSV), its contract, and scenario.json (expected finding, the
// version that broke it, measured facts). Deterministic for a seed: same rows, same commits.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LakerecError } from '../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../shared/jobs';
import type { FindingMode } from '../shared/reconcile';
import { openDuck, sqlString, type Duck } from '../main/engine/duck';
import { DeltaWriter } from '../main/writer';
import { DAYS, loadOrders, ORDER_COLUMNS, ordersSchema } from './orders';
import { ALL_LAKES, type BisectExpectation, type LakeKind, type ScenarioContext, type ScenarioSpec } from './scenarios';

export const DEFAULT_ROWS = 5400;
export const DEFAULT_SEED = 20260817;

export interface BuildOptions {
  /** Output folder (each lake is a subfolder). */
  out: string;
  /** Clean rows in total (split evenly over the 6 days). */
  rows?: number;
  seed?: number;
  /** Build only these lakes (by name). */
  only?: string[];
  ctx?: JobContext;
  /** One line per lake built. */
  log?: (line: string) => void;
}

/** scenario.json: what a lake is and what reconcile and bisect should find in it. */
export interface ScenarioMeta {
  name: string;
  title: string;
  kind: LakeKind;
  expectedMode: FindingMode | null;
  alsoExpected: FindingMode[];
  /** Nothing may be reported (float drift, control, a healed history at HEAD). */
  silent: boolean;
  story: string;
  brokenAtVersion: number | null;
  repairedAtVersion: number | null;
  headVersion: number;
  affectedPartitions: string[];
  facts: Record<string, number | string | boolean>;
  bisect: BisectExpectation[];
  /** Paths relative to the lake folder. */
  table: string;
  source: { parquet: string; csv: string };
  contract: string;
  sourceRows: number;
  targetRows: number;
  /** Rows per partition label on each side (target from the log's stats). */
  sourcePartitions: Record<string, number>;
  targetPartitions: Record<string, number>;
  /** Order-independent checksum of each side's rows (DuckDB hash; see checksum()): the same seed gives the same checksums. */
  sourceChecksum: string;
  targetChecksum: string;
  seed: number;
  rows: number;
  builtBy: string;
}

export interface BuiltLake {
  name: string;
  dir: string;
  tablePath: string;
  contractPath: string;
  sourceParquet: string;
  sourceCsv: string;
  meta: ScenarioMeta;
}

/** The folder holding `contracts/` (works from the sources and from the bundle in dist/). */
export function sampleLakesDir(): string {
  const candidates: string[] = [];
  try {
    let d = dirname(fileURLToPath(import.meta.url));
    for (let i = 0; i < 5; i++) {
      candidates.push(d, join(d, 'sample-lakes'));
      d = dirname(d);
    }
  } catch {
    /* not a file URL (bundled elsewhere) */
  }
  candidates.push(join(process.cwd(), 'sample-lakes'));
  const hit = candidates.find((c) => existsSync(join(c, 'contracts', 'orders.yaml')));
  if (!hit) throw new LakerecError('not_found', 'cannot find sample-lakes/contracts (run from the lakerec repository)');
  return hit;
}

export function lakeNames(): string[] {
  return ALL_LAKES.map((l) => l.name);
}

/** A deterministic UUID-shaped id for a lake's metadata (same seed, same table id). */
function stableId(seed: number, name: string): string {
  const h = createHash('sha256').update(`${seed}/${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A commit clock: set before each commit; every time the commit records (commit, files) is that time. */
class ScenarioClock {
  private t = 0;
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
  readonly fn = (): number => this.t;
}

async function scalar(duck: Duck, sql: string): Promise<number> {
  const r = await duck.conn.runAndReadAll(sql);
  return Number(r.getRows()[0]?.[0] ?? 0);
}

/**
 * An order-independent checksum of a side's rows: the row count and the sum of DuckDB's hash of
 * each row. Cheap at any size; stable for a given DuckDB version, which is what a determinism
 * check between two builds needs (it is not the reconcile checksum, which is canonical).
 */
async function checksum(duck: Duck, sql: string): Promise<string> {
  const r = await duck.conn.runAndReadAll(`SELECT count(*), coalesce(sum(hash(t)::HUGEINT), 0) FROM (${sql}) t`);
  const [n, h] = r.getRows()[0].map(String);
  return createHash('md5').update(`${n}/${h}`).digest('hex');
}

async function partitionCounts(duck: Duck, sql: string): Promise<Record<string, number>> {
  const r = await duck.conn.runAndReadAll(`SELECT 'dt=' || coalesce(strftime(dt, '%Y-%m-%d'), '__null__') AS p, count(*) AS n FROM (${sql}) GROUP BY ALL ORDER BY p`);
  return Object.fromEntries(r.getRowObjectsJS().map((x) => [String(x.p), Number(x.n)]));
}

/** Builds every lake (or `only` some) into `out`; returns what was built. */
export async function buildSampleLakes(opts: BuildOptions): Promise<BuiltLake[]> {
  const rows = opts.rows ?? DEFAULT_ROWS;
  const seed = opts.seed ?? DEFAULT_SEED;
  if (!Number.isInteger(rows) || rows < 6 || rows > 50_000_000) throw new LakerecError('usage', `--rows must be an integer from 6 to 50000000, got ${rows}`);
  if (!Number.isInteger(seed)) throw new LakerecError('usage', `--seed must be an integer, got ${seed}`);
  const specs = opts.only ? opts.only.map((n) => {
    const s = ALL_LAKES.find((l) => l.name === n);
    if (!s) throw new LakerecError('usage', `no sample lake named "${n}" (known: ${lakeNames().join(', ')})`);
    return s;
  }) : ALL_LAKES;
  const built = await buildLakes(specs, { ...opts, rows, seed });
  if (!opts.only) {
    writeFileSync(join(resolve(opts.out), 'index.json'), JSON.stringify({
      seed, rows, lakes: built.map((b) => ({ name: b.name, kind: b.meta.kind, title: b.meta.title, expectedMode: b.meta.expectedMode, dir: b.name })),
    }, null, 2) + '\n');
  }
  return built;
}

/** Builds lakes from specs (tests use it with variants of a scenario). */
export async function buildLakes(specs: ScenarioSpec[], opts: BuildOptions & { rows: number; seed: number }): Promise<BuiltLake[]> {
  const { rows, seed } = opts;
  const out = resolve(opts.out);
  mkdirSync(out, { recursive: true });
  const contracts = join(sampleLakesDir(), 'contracts');
  const perDay = Math.ceil(rows / DAYS.length);
  const duck = await openDuck({ threads: 2 });
  const built: BuiltLake[] = [];
  try {
    await loadOrders(duck.conn, 'lk_orders', seed, perDay);
    for (const [i, spec] of specs.entries()) {
      throwIfCancelled(opts.ctx);
      report(opts.ctx, { phase: 'building sample lakes', done: i, total: specs.length, message: spec.name });
      const lake = await buildOne(spec, { duck, out, seed, rows, perDay, contracts });
      built.push(lake);
      opts.log?.(`${spec.name.padEnd(26)} v${lake.meta.headVersion}  ${lake.meta.expectedMode ?? '(silent)'}`);
    }
    report(opts.ctx, { phase: 'building sample lakes', done: specs.length, total: specs.length });
  } finally {
    duck.close();
  }
  return built;
}

/** Builds one lake by name into `out/<name>`. */
export async function buildScenario(name: string, opts: Omit<BuildOptions, 'only'>): Promise<BuiltLake> {
  const [lake] = await buildSampleLakes({ ...opts, only: [name] });
  return lake;
}

async function buildOne(spec: ScenarioSpec, env: { duck: Duck; out: string; seed: number; rows: number; perDay: number; contracts: string }): Promise<BuiltLake> {
  const { duck, seed, perDay } = env;
  const dir = join(env.out, spec.name);
  // Replace an earlier build of this lake, never a folder that is something else.
  if (existsSync(dir) && readdirSync(dir).length > 0 && !existsSync(join(dir, 'scenario.json')) && !existsSync(join(dir, 'table', '_delta_log'))) {
    throw new LakerecError('usage', `${dir} exists and is not a sample lake; choose another --out (nothing was changed there)`, { path: dir });
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'source'), { recursive: true });
  const tablePath = join(dir, 'table');
  const clock = new ScenarioClock();
  clock.set('2026-08-10T00:05:00Z');
  const w = await DeltaWriter.create(tablePath, {
    schema: ordersSchema({ orderIdNotNull: spec.orderIdNotNull }),
    partitionColumns: ['dt'],
    name: 'orders',
    description: 'Orders, one partition per UTC day',
    // Delta's default: a checkpoint every 10 versions (the long history gets six).
    configuration: { 'delta.checkpointInterval': '10', ...(spec.deletionVectors ? { 'delta.enableDeletionVectors': 'true' } : {}) },
    id: stableId(seed, spec.name),
    clock: clock.fn,
    duck,
  });
  try {
    const day = (d: string): string => `SELECT ${ORDER_COLUMNS} FROM lk_orders WHERE dt = DATE '${d}'`;
    // The clean history: one append per day, each committed the night after.
    for (const d of DAYS) {
      clock.set(new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000 + 3_600_000).toISOString());
      await w.append({ sql: day(d) }, { extraParameters: { batch: `orders-${d}` } });
    }
    const ctx: ScenarioContext = {
      w,
      clean: 'lk_orders',
      perDay,
      seed,
      at: (iso) => clock.set(iso),
      day,
      scalar: (sql) => scalar(duck, sql),
      async extraOrders(name, s, n, days, firstId) {
        await loadOrders(duck.conn, name, s, n, days, firstId);
        return name;
      },
    };
    const extra = spec.sourceExtra ? await spec.sourceExtra(ctx) : null;
    const outcome = await spec.corrupt(ctx);

    // The source of truth: the clean rows (and any rows that legitimately arrived later).
    const sourceSql = `SELECT ${ORDER_COLUMNS} FROM lk_orders${extra ? ` UNION ALL SELECT ${ORDER_COLUMNS} FROM ${extra}` : ''}`;
    const sourceParquet = join(dir, 'source', 'orders.parquet');
    const sourceCsv = join(dir, 'source', 'orders.csv');
    await duck.conn.run(`COPY (${sourceSql} ORDER BY order_id) TO ${sqlString(sourceParquet)} (FORMAT parquet)`);
    // CSV: timestamps as naive UTC text (the contract says naive means UTC).
    await duck.conn.run(`COPY (SELECT order_id, customer_id, amount, amount_float, sku,
        strftime(timezone('UTC', ts), '%Y-%m-%d %H:%M:%S.%g') AS ts, strftime(timezone('UTC', updated_at), '%Y-%m-%d %H:%M:%S.%g') AS updated_at, dt
        FROM (${sourceSql}) ORDER BY order_id) TO ${sqlString(sourceCsv)} (FORMAT csv, HEADER true)`);
    const contractPath = join(dir, 'contract.yaml');
    const contractSrc = join(env.contracts, `${spec.name}.yaml`);
    if (!existsSync(contractSrc)) throw new LakerecError('not_found', `no contract for lake ${spec.name}: ${contractSrc}`);
    copyFileSync(contractSrc, contractPath);

    const targetSql = await w.currentRowsSql();
    const targetPartitions: Record<string, number> = {};
    for (const f of w.state.files.values()) {
      const k = `dt=${f.partitionValues.dt ?? '__null__'}`;
      const physical = Number((JSON.parse(f.stats ?? '{}') as { numRecords?: number }).numRecords ?? 0);
      targetPartitions[k] = (targetPartitions[k] ?? 0) + physical - (f.deletionVector?.cardinality ?? 0);
    }
    const meta: ScenarioMeta = {
      name: spec.name,
      title: spec.title,
      kind: spec.kind,
      expectedMode: spec.expectedMode,
      alsoExpected: spec.alsoExpected ?? [],
      silent: spec.expectedMode === null,
      story: spec.story,
      brokenAtVersion: outcome.brokenAtVersion,
      repairedAtVersion: outcome.repairedAtVersion ?? null,
      headVersion: w.version,
      affectedPartitions: outcome.affectedPartitions,
      facts: outcome.facts ?? {},
      bisect: outcome.bisect ?? [],
      table: 'table',
      source: { parquet: 'source/orders.parquet', csv: 'source/orders.csv' },
      contract: 'contract.yaml',
      sourceRows: await scalar(duck, `SELECT count(*) FROM (${sourceSql})`),
      targetRows: Object.values(targetPartitions).reduce((a, b) => a + b, 0),
      sourcePartitions: await partitionCounts(duck, sourceSql),
      targetPartitions: Object.fromEntries(Object.entries(targetPartitions).sort()),
      sourceChecksum: await checksum(duck, sourceSql),
      targetChecksum: await checksum(duck, targetSql),
      seed,
      rows: perDay * DAYS.length,
      builtBy: 'lakerec build-sample-lakes',
    };
    writeFileSync(join(dir, 'scenario.json'), JSON.stringify(meta, null, 2) + '\n');
    return { name: spec.name, dir, tablePath, contractPath, sourceParquet, sourceCsv, meta };
  } finally {
    w.close();
  }
}

/** Reads a built lake's scenario.json. */
export function readScenario(dir: string): ScenarioMeta {
  return JSON.parse(readFileSync(join(dir, 'scenario.json'), 'utf8')) as ScenarioMeta;
}
