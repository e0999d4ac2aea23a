// Benchmark (a figure, not a test): reconcile a Delta table on a loopback S3 server (s3rver,
// started here on a free port) at counts and at rows level, with the bytes each run fetched beside
// the baseline measured in the same run: the bytes of the objects a by-hand approach downloads (the
// whole table, every object under its location). The table has six day partitions, one of which
// the source disagrees with, and its log carries no numRecords for half its files (the counts level
// reads those files' Parquet footers by range request, not the files). The local cache's peak is
// printed beside its cap.
//
//   node dist/main/bench.js --only remote-reconcile --merge
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { openDuck, sqlString } from '../engine/duck';
import { openTable } from '../delta/open';
import { reconcile } from '../reconcile/reconcile';
import { filesUnder } from './remote-log';
import { BlobCache, ObjectStorage, cacheCapBytes } from '../storage';
import type { Level } from '../../shared/reconcile';

export const REMOTE_DAYS = ['2026-03-01', '2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06'];
/** The day the source disagrees with the table on (one row fewer in the table). */
export const DIVERGENT_DAY = '2026-03-04';

export interface RemoteTableFixture {
  /** The table's folder (a Delta table: _delta_log and dt=... partition folders). */
  table: string;
  /** The source: one Parquet file of every row, one more row on the divergent day. */
  source: string;
  contract: string;
  /** Every file under the table (what a by-hand copy downloads), bytes. */
  tableBytes: number;
  /** The data files of the divergent day, bytes. */
  divergentBytes: number;
  files: number;
  rows: number;
}

/**
 * Writes a small partitioned Delta table under `dir`: `filesPerDay` Parquet files per day of
 * `rowsPerFile` rows (an id, a text column of hashes so the files have some size, the day); every
 * other file's add action carries no stats. The source has the same rows plus one on DIVERGENT_DAY.
 */
export async function writeRemoteFixture(dir: string, opts: { filesPerDay?: number; rowsPerFile?: number } = {}): Promise<RemoteTableFixture> {
  const filesPerDay = opts.filesPerDay ?? 2;
  const rowsPerFile = opts.rowsPerFile ?? 20_000;
  const table = join(dir, 'table');
  mkdirSync(join(table, '_delta_log'), { recursive: true });
  const duck = await openDuck({ threads: 1 });
  const adds: string[] = [];
  let id = 0;
  let divergentBytes = 0;
  try {
    for (const day of REMOTE_DAYS) {
      mkdirSync(join(table, `dt=${day}`), { recursive: true });
      for (let k = 0; k < filesPerDay; k++) {
        const rel = `dt=${day}/part-${k}.parquet`;
        const extra = day === DIVERGENT_DAY && k === 0 ? -1 : 0;
        const n = rowsPerFile + extra;
        await duck.conn.run(`COPY (SELECT ${id} + range AS id, md5(CAST(${id} + range AS VARCHAR)) || md5(CAST(range AS VARCHAR)) AS h FROM range(${n})) TO ${sqlString(join(table, rel))} (FORMAT parquet)`);
        id += rowsPerFile;
        const size = statSync(join(table, rel)).size;
        if (day === DIVERGENT_DAY) divergentBytes += size;
        const stats = adds.length % 2 === 0 ? { stats: JSON.stringify({ numRecords: n, minValues: {}, maxValues: {}, nullCount: {} }) } : {};
        adds.push(JSON.stringify({ add: { path: rel, partitionValues: { dt: day }, size, modificationTime: 1772323200000, dataChange: true, ...stats } }));
      }
    }
    const schema = { type: 'struct', fields: [
      { name: 'id', type: 'long', nullable: true, metadata: {} },
      { name: 'h', type: 'string', nullable: true, metadata: {} },
      { name: 'dt', type: 'date', nullable: true, metadata: {} },
    ] };
    const log = [
      JSON.stringify({ commitInfo: { timestamp: 1772323200000, operation: 'WRITE', operationParameters: {} } }),
      JSON.stringify({ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }),
      JSON.stringify({ metaData: { id: '00000000-0000-0000-0000-00000000b0b0', format: { provider: 'parquet', options: {} }, schemaString: JSON.stringify(schema), partitionColumns: ['dt'], configuration: {}, createdTime: 1772323200000 } }),
      ...adds,
    ];
    writeFileSync(join(table, '_delta_log', '00000000000000000000.json'), log.join('\n') + '\n');
    // The source: every row, the divergent day's missing row included (id order, one file).
    const source = join(dir, 'source.parquet');
    const parts = REMOTE_DAYS.flatMap((day, d) => Array.from({ length: filesPerDay }, (_, k) => {
      const base = (d * filesPerDay + k) * rowsPerFile;
      return `SELECT ${base} + range AS id, md5(CAST(${base} + range AS VARCHAR)) || md5(CAST(range AS VARCHAR)) AS h, DATE '${day}' AS dt FROM range(${rowsPerFile})`;
    }));
    await duck.conn.run(`COPY (${parts.join(' UNION ALL ')} ORDER BY id) TO ${sqlString(source)} (FORMAT parquet)`);
    const contract = join(dir, 'contract.yaml');
    writeFileSync(contract, 'version: 1\nname: remote\nkeys: [id]\npartitioning:\n  column: dt\n');
    const all = filesUnder(table);
    return {
      table, source, contract, divergentBytes,
      tableBytes: all.reduce((a, f) => a + statSync(f).size, 0),
      files: REMOTE_DAYS.length * filesPerDay,
      rows: REMOTE_DAYS.length * filesPerDay * rowsPerFile - 1,
    };
  } finally {
    duck.close();
  }
}

export interface RemoteLevelFigures {
  level: Level;
  /** The run's answer, in one line (the same as the local run's, or the bench fails). */
  answer: string;
  requests: number;
  /** Every byte the store fetched (log and data). */
  bytes: number;
  /** Bytes fetched for data files (footers included). */
  dataBytes: number;
  /** bytes / the baseline's bytes. */
  fraction: number;
  ms: number;
}

export interface RemoteReconcileFigures {
  input: string;
  files: number;
  rows: number;
  partitions: number;
  /** The baseline: every object under the table's location (a by-hand copy of the table). */
  baselineBytes: number;
  /** The divergent partition's data files (the rows level's goal: these plus footers). */
  divergentBytes: number;
  counts: RemoteLevelFigures;
  rowsLevel: RemoteLevelFigures;
  /** The rows level given a baseline of the table's checksums (unchanged partitions inherit theirs). */
  rowsWithBaseline: RemoteLevelFigures;
  /** The most the local cache held during the runs, and its cap. */
  cachePeakBytes: number;
  cacheCapBytes: number;
}

const answerOf = (r: { partitions: { value: string | null; sourceRows: number; targetRows: number; state: unknown }[] }): string =>
  r.partitions.map((p) => `${p.value}:${p.sourceRows}/${p.targetRows}:${String(p.state)}`).join(' ');

export async function benchRemoteReconcile(): Promise<RemoteReconcileFigures> {
  const tmp = mkdtempSync(join(tmpdir(), 'lakerec-bench-remote-rec-'));
  const S3rver = createRequire(import.meta.url)('s3rver') as new (o: object) => { run(): Promise<{ port: number }>; close(): Promise<void> };
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: join(tmp, 's3'), silent: true, configureBuckets: [{ name: 'bench' }] });
  // The bench's own cache, at the cap a user's run has (LAKEREC_CACHE_MB, default 2048 MB).
  const cache = new BlobCache(cacheCapBytes());
  try {
    const fx = await writeRemoteFixture(join(tmp, 'data'));
    const { port } = await server.run();
    const endpoint = `http://127.0.0.1:${port}`;
    const env = { AWS_ENDPOINT_URL_S3: endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    const put = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    for (const f of filesUnder(fx.table)) {
      await put.send(new PutObjectCommand({ Bucket: 'bench', Key: `t/${relative(fx.table, f).split(sep).join('/')}`, Body: readFileSync(f) }));
    }
    put.destroy();
    const level = async (lv: Level, baseline: string | null = null): Promise<RemoteLevelFigures> => {
      const local = await reconcile({ source: fx.source, target: { root: fx.table }, contract: fx.contract, level: lv, baseline });
      // Each run from an empty cache, so the bytes are the run's own.
      cache.dispose();
      const table = await openTable('s3://bench/t', { env, cache });
      const t0 = performance.now();
      const remote = await reconcile({ source: fx.source, target: { root: table.root, table }, contract: fx.contract, level: lv, baseline });
      const ms = performance.now() - t0;
      if (answerOf(remote) !== answerOf(local)) throw new Error(`the remote ${lv} run answered ${answerOf(remote)}, the local run ${answerOf(local)}`);
      if (!(table.storage instanceof ObjectStorage)) throw new Error('the remote table is not on an object store');
      const s = table.storage.stats;
      return { level: lv, answer: answerOf(remote), requests: s.requests, bytes: s.bytes, dataBytes: s.dataBytes, fraction: Math.round((s.bytes / fx.tableBytes) * 1000) / 1000, ms: Math.round(ms) };
    };
    const counts = await level('counts');
    const rowsLevel = await level('rows');
    // A baseline of the table's checksums (a previous run's, written locally): its unchanged
    // partitions inherit them, so the rows level reads only the partition that disagrees.
    const baselineFile = join(tmp, 'baseline.json');
    await reconcile({ source: fx.source, target: { root: fx.table }, contract: fx.contract, level: 'checksum', writeBaseline: baselineFile });
    const rowsWithBaseline = await level('rows', baselineFile);
    return {
      input: `${fx.files} files in ${REMOTE_DAYS.length} day partitions, ${fx.rows} rows, one divergent day; half the add actions carry no numRecords`,
      files: fx.files, rows: fx.rows, partitions: REMOTE_DAYS.length,
      baselineBytes: fx.tableBytes, divergentBytes: fx.divergentBytes,
      counts, rowsLevel, rowsWithBaseline, cachePeakBytes: cache.peak, cacheCapBytes: cache.capBytes,
    };
  } finally {
    cache.dispose();
    await server.close().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function formatRemoteReconcileFigures(f: RemoteReconcileFigures): string {
  const kb = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;
  const line = (x: RemoteLevelFigures): string =>
    `  ${x.level.padEnd(7)} level  ${kb(x.bytes)} fetched (${kb(x.dataBytes)} of data files, ${x.requests} requests) = ${(x.fraction * 100).toFixed(1)}% of the baseline, ${x.ms} ms`;
  return [
    `remote-reconcile: ${f.input}, on loopback S3`,
    `  baseline       ${kb(f.baselineBytes)} (every object of the table, what a by-hand copy downloads)`,
    line(f.counts),
    line(f.rowsLevel),
    line(f.rowsWithBaseline).replace('rows    level', 'rows + baseline'),
    `  divergent day  ${kb(f.divergentBytes)} of data files (the rows level's goal: these plus footers)`,
    `  local cache    peak ${kb(f.cachePeakBytes)}, cap ${kb(f.cacheCapBytes)}`,
  ].join('\n');
}
