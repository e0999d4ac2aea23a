// A tiny real Delta table (JSON commits + Parquet written by DuckDB) for the workbench's own
// tests and for `npm start` when the sample lakes have not been built. Four commits a history
// list can show: create, append, delete, overwrite with replaceWhere.
import { LAKEREC_VERSION } from '../../shared/version';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Action } from '../../shared/delta';
import { commitVersion, tableStorage } from '../writer';
import { openDuck, sqlString } from '../engine/duck';

const SCHEMA = {
  type: 'struct',
  fields: [
    { name: 'order_id', type: 'long', nullable: false, metadata: {} },
    { name: 'customer', type: 'string', nullable: true, metadata: {} },
    { name: 'amount', type: 'decimal(10,2)', nullable: true, metadata: {} },
    { name: 'dt', type: 'date', nullable: false, metadata: {} },
  ],
};

interface FileSpec {
  dt: string;
  firstId: number;
  rows: number;
}

/** Writes the demo `orders` table into `root` (replacing it). Returns the number of commits. */
export async function writeDemoTable(root: string, baseTime = Date.UTC(2026, 10, 2, 9, 0, 0)): Promise<number> {
  await rm(root, { recursive: true, force: true });
  await mkdir(join(root, '_delta_log'), { recursive: true });
  const duck = await openDuck({ threads: 1, memoryLimit: '256MB' });
  let seq = 0;
  const writeFileSpec = async (f: FileSpec, except?: string) => {
    const dir = join(root, `dt=${f.dt}`);
    await mkdir(dir, { recursive: true });
    const rel = `dt=${f.dt}/part-${String(seq++).padStart(5, '0')}-lakerec-demo.snappy.parquet`;
    const where = except ? `WHERE customer <> ${sqlString(except)}` : '';
    const sql = `COPY (SELECT * FROM (SELECT (${f.firstId} + i)::BIGINT AS order_id,
        'c' || ((${f.firstId} + i) % 5) AS customer,
        ((${f.firstId} + i) * 7 % 1000 / 10)::DECIMAL(10,2) AS amount
      FROM range(${f.rows}) t(i)) ${where}) TO ${sqlString(join(root, rel))} (FORMAT parquet, COMPRESSION snappy)`;
    await duck.conn.run(sql);
    const r = await duck.conn.runAndReadAll(`SELECT count(*)::BIGINT AS n, min(order_id) AS lo, max(order_id) AS hi FROM read_parquet(${sqlString(join(root, rel))})`);
    const [n, lo, hi] = r.getRows()[0].map((v) => Number(v));
    const { size } = await stat(join(root, rel));
    return {
      path: rel,
      partitionValues: { dt: f.dt },
      size,
      modificationTime: baseTime,
      dataChange: true,
      stats: JSON.stringify({ numRecords: n, minValues: { order_id: lo }, maxValues: { order_id: hi }, nullCount: { order_id: 0 } }),
    };
  };
  // The writer's atomic commit: a version file appears whole, and never over another one.
  const store = tableStorage(root);
  const commit = async (version: number, actions: Action[]) => {
    await commitVersion(store, version, actions);
  };
  const info = (version: number, operation: string, operationParameters: Record<string, unknown>) => ({
    commitInfo: {
      timestamp: baseTime + version * 3_600_000,
      operation,
      operationParameters,
      engineInfo: `lakerec-demo/${LAKEREC_VERSION}`,
      isolationLevel: 'Serializable',
      isBlindAppend: operation === 'WRITE' && operationParameters.mode === 'Append',
      ...(version > 0 ? { readVersion: version - 1 } : {}),
    },
  });
  try {
    const a = await writeFileSpec({ dt: '2026-11-01', firstId: 1, rows: 40 });
    const b = await writeFileSpec({ dt: '2026-11-02', firstId: 41, rows: 40 });
    await commit(0, [
      info(0, 'CREATE TABLE AS SELECT', { partitionBy: '["dt"]', isManaged: 'false', description: null }),
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      {
        metaData: {
          id: '6f1d2a64-1c3e-4f0b-9a55-1f0c1e0d2a01', name: 'orders', format: { provider: 'parquet', options: {} },
          schemaString: JSON.stringify(SCHEMA), partitionColumns: ['dt'], configuration: {}, createdTime: baseTime,
        },
      },
      { add: a }, { add: b },
    ]);
    const c = await writeFileSpec({ dt: '2026-11-03', firstId: 81, rows: 40 });
    await commit(1, [info(1, 'WRITE', { mode: 'Append', partitionBy: '[]' }), { add: c }]);
    const b2 = await writeFileSpec({ dt: '2026-11-02', firstId: 41, rows: 40 }, 'c3');
    await commit(2, [
      info(2, 'DELETE', { predicate: '["(customer = \'c3\')"]' }),
      { remove: { path: b.path, deletionTimestamp: baseTime + 7_200_000, dataChange: true, partitionValues: b.partitionValues, size: b.size } },
      { add: b2 },
    ]);
    const a2 = await writeFileSpec({ dt: '2026-11-01', firstId: 1000, rows: 35 });
    await commit(3, [
      info(3, 'WRITE', { mode: 'Overwrite', replaceWhere: "dt = '2026-11-01'", partitionBy: '[]' }),
      { remove: { path: a.path, deletionTimestamp: baseTime + 10_800_000, dataChange: true, partitionValues: a.partitionValues, size: a.size } },
      { add: a2 },
    ]);
  } finally {
    duck.close();
  }
  return 4;
}
