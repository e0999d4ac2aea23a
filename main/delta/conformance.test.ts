// Conformance against tables written by other implementations (../shared/conformance, read-only):
// - golden/: every case with expected/ must give exactly the expected rows (multiset, columns by
//   name); the cases without expected/ behave as that folder's README says.
// - delta-rs/: every table opens at every version it has, with the row count written below, or
//   fails with the named, documented reason (docs/conformance.md).
// Skips, saying why, when ../shared is absent.
import { describe, expect, test, beforeAll, afterAll } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { openTable } from './open';
import { registerSnapshotView } from './scan';
import { openDuck, sqlIdent, sqlString, type Duck } from '../engine/duck';

const repoRoot = resolve(__dirname, '..', '..');
const shared = resolve(repoRoot, '..', 'shared');
const conformance = join(shared, 'conformance');
const have = existsSync(conformance);
if (!have) console.log(`conformance tests skipped: ${conformance} is absent (the shared conformance tables are not on this machine)`);

let duck: Duck;
beforeAll(async () => { if (have) duck = await openDuck(); });
afterAll(() => { if (have) duck.close(); });

async function errorOf(p: Promise<unknown>): Promise<LakerecError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof LakerecError) return e;
    throw e;
  }
  throw new Error('expected a LakerecError, got success');
}

async function count(view: string): Promise<number> {
  return Number((await duck.conn.runAndReadAll(`SELECT count(*) FROM ${sqlIdent(view)}`)).getRows()[0][0]);
}

/** Rows of a view as canonical text, for a multiset compare by column name. */
function canonicalSelect(view: string, cols: { name: string; type: string }[], order: string[]): string {
  const exprs = order.map((n) => {
    const c = cols.find((x) => x.name === n)!;
    // A Delta `timestamp` is an instant: compare int96/TIMESTAMP and TIMESTAMPTZ as UTC instants.
    const e = c.type.startsWith('TIMESTAMP WITH TIME ZONE') ? `CAST(${sqlIdent(n)} AS TIMESTAMP)` : sqlIdent(n);
    return `CAST(${e} AS VARCHAR)`;
  });
  return `SELECT ${exprs.join(', ')} FROM ${sqlIdent(view)}`;
}

async function describeView(view: string): Promise<{ name: string; type: string }[]> {
  return (await duck.conn.runAndReadAll(`DESCRIBE ${sqlIdent(view)}`)).getRows().map((r) => ({ name: String(r[0]), type: String(r[1]) }));
}

const goldenDir = join(conformance, 'golden');
const goldenCases = have ? readdirSync(goldenDir).filter((c) => existsSync(join(goldenDir, c, 'expected'))).sort() : [];

describe.skipIf(!have)('golden tables (delta-kernel-rs, written by Spark): rows equal expected/', () => {
  test.each(goldenCases)('%s', async (c) => {
    const table = await openTable(join(goldenDir, c, 'delta'));
    const snap = await table.snapshot();
    await registerSnapshotView(duck.conn, snap, 'actual');
    await duck.conn.run(`CREATE OR REPLACE TEMP VIEW expected AS SELECT * FROM read_parquet(${sqlString(join(goldenDir, c, 'expected', '**', '*.parquet'))}, union_by_name = true)`);
    const a = await describeView('actual');
    const e = await describeView('expected');
    expect(a.map((x) => x.name).sort()).toEqual(e.map((x) => x.name).sort());
    const order = e.map((x) => x.name).sort();
    const qa = canonicalSelect('actual', a, order);
    const qe = canonicalSelect('expected', e, order);
    const missing = Number((await duck.conn.runAndReadAll(`SELECT count(*) FROM (${qe} EXCEPT ALL ${qa})`)).getRows()[0][0]);
    const extra = Number((await duck.conn.runAndReadAll(`SELECT count(*) FROM (${qa} EXCEPT ALL ${qe})`)).getRows()[0][0]);
    expect({ missing, extra }).toEqual({ missing: 0, extra: 0 });
    expect(await count('actual')).toBe(await count('expected'));
    // The log's own row count (stats minus DV cardinality) agrees with the rows scanned.
    if (snap.numRecords !== null) expect(snap.numRecords).toBe(await count('actual'));
  });
});

describe.skipIf(!have)('golden cases without expected/ (per golden README)', () => {
  const g = (c: string): string => join(goldenDir, c, 'delta');

  test('deltalog-invalid-protocol-version: refused, naming the protocol version', async () => {
    const t = await openTable(g('deltalog-invalid-protocol-version'));
    const e = await errorOf(t.snapshot());
    expect(e.code).toBe('unsupported_feature');
    expect(e.message).toContain('99');
  });

  test('no-delta-log-folder: not a Delta table', async () => {
    const e = await errorOf(openTable(g('no-delta-log-folder')));
    expect(e.code).toBe('not_a_delta_table');
    expect(e.message).toContain('_delta_log');
  });

  test('deltalog-state-reconstruction-without-metadata: refused, naming metaData', async () => {
    const t = await openTable(g('deltalog-state-reconstruction-without-metadata'));
    const e = await errorOf(t.snapshot());
    expect(e.code).toBe('metadata_missing');
    expect(e.message).toContain('metaData');
  });

  test('canonicalized-paths-normal-a: absolute and file: forms are one file; nothing read outside the root', async () => {
    const t = await openTable(g('canonicalized-paths-normal-a'));
    const latest = await t.snapshot();
    expect(latest.version).toBe(1);
    expect(latest.files).toEqual([]);
    await registerSnapshotView(duck.conn, latest, 'canon');
    expect(await count('canon')).toBe(0);
    const e = await errorOf(t.snapshot({ version: 0 }));
    expect(e.code).toBe('path_outside_table');
    expect(e.message).toContain('/some/unqualified/absolute/path');
  });

  test('delete-re-add-same-file-different-transactions: foo once (the later add) and bar', async () => {
    const t = await openTable(g('delete-re-add-same-file-different-transactions'));
    const s = await t.snapshot();
    const files = s.files.map((f) => [f.path, f.modificationTime]).sort();
    expect(files).toEqual([['bar', 1697064972263], ['foo', 1700000000000]]);
  });

  test('checkpoint: the state from the checkpoint equals the state from replaying every commit', async () => {
    const t = await openTable(g('checkpoint'));
    expect(t.log.checkpoints.has(10)).toBe(true);
    const viaCheckpoint = await t.snapshot();
    const viaCommits = await t.snapshot({ useCheckpoints: false });
    const key = (s: typeof viaCheckpoint): string[] => s.files.map((f) => `${f.path}|${f.size}|${f.numRecords}`).sort();
    expect(viaCheckpoint.version).toBe(14);
    expect(key(viaCheckpoint)).toEqual(key(viaCommits));
    expect(viaCheckpoint.files.length).toBeGreaterThan(0);
    expect(viaCheckpoint.metadata.schemaString).toBe(viaCommits.metadata.schemaString);
  });
});

// Row count at every version (number), or the documented reason it cannot be read (error code).
// Versions whose commits were cleaned up before the oldest checkpoint: version_missing. Tables
// shipped by delta-rs without their data files: data_file_missing (the log opens; the rows cannot
// be read). Unsupported reader features/protocol: unsupported_feature.
type Outcome = number | 'version_missing' | 'data_file_missing' | 'unsupported_feature' | 'metadata_missing';
const rep = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);
const deltaRs: Record<string, Outcome[]> = {
  'cdc_ict_table': [0, 4, 2, 2],
  'cdf-table': [...rep(3, 10), 9],
  'cdf-table-non-partitioned': [...rep(3, 10), 9, 11],
  'cdf-table-with-cdc-and-dvs': [1, 5, 4, 4, 5, 3, 3, 4, 5, 5, ...rep(4, 4), 6, 8, 6, 6, ...rep(6, 8), 2, 5],
  'checkpoint-cdf-table': [...rep(3, 'version_missing' as const), 9, 13, 13],
  'checkpoint-v2-table': [0, 10, 11, 21, 22, 22, 32, 33, 43, 44],
  'checkpoint_with_partitions': ['version_missing', 'version_missing', 'data_file_missing'],
  'checkpoints': [0, ...rep(12, 'data_file_missing' as const)],
  'checkpoints_vacuumed': [...rep(5, 'version_missing' as const), ...rep(8, 'data_file_missing' as const)],
  'concurrent_workers': [0],
  'delta-0.2.0': [3, 6, 3, 6],
  'delta-0.8-empty': [1, 0],
  'delta-0.8.0': [5, 4],
  'delta-0.8.0-date': [5],
  'delta-0.8.0-null-partition': [2],
  'delta-0.8.0-numeric-partition': [2],
  'delta-0.8.0-partitioned': [7],
  'delta-0.8.0-special-partition': [2],
  'delta-1.2.1-only-struct-stats': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  'delta-2.2.0-partitioned-types': [3],
  'delta-checkpoint-stats-optional': [0, 1, 2],
  'delta-live-table': ['metadata_missing', 0],
  'delta-stats-optional': [0, 1, 2],
  'golden/data-reader-array-primitives': [10],
  'http_requests': [0, 1581],
  'issue-2152': [0],
  'issue_1374': [0, 20],
  'latest_not_checkpointed': [0, ...rep(3, 'data_file_missing' as const)],
  'partition-type-primitives': [16],
  'python-0.25.5-checkpoint': [3, 6],
  'simple_commit': [0],
  'simple_table': [5, 20, 5, 5, 3],
  'simple_table_features': rep(5, 'unsupported_feature'),
  'simple_table_with_cdc': [0, 1, 1],
  'simple_table_with_checkpoint': [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  'spark-shredded-variant-preview-delta': rep(3, 'unsupported_feature'),
  'spark-variant-checkpoint': rep(3, 'unsupported_feature'),
  'spark-variant-stable-feature-checkpoint': rep(2, 'unsupported_feature'),
  'table-with-domain-metadata': [...rep(108, 'version_missing' as const), 'data_file_missing'],
  'table-with-dv-small': [10, 8],
  'table-without-dv-small': [10],
  'table_failed_last_checkpoint_update': [5, 10, 15, 20],
  'table_with_column_mapping': [5],
  'table_with_deletion_logs': [...rep(3, 100), 99, ...rep(17, 98)],
  'table_with_edge_timestamps': [2],
  'table_with_liquid_clustering': [10],
  'table_with_null_stats_in_notnull_struct': [0, 2],
  'table_with_partitioning_mapping': [0, ...rep(3, 1), 2],
  'with_checkpoint_no_last_checkpoint': [0, ...rep(3, 'data_file_missing' as const)],
};

const deltaRsDir = join(conformance, 'delta-rs');

describe.skipIf(!have)('delta-rs tables: every version opens, or fails with a named reason', () => {
  test('every delta-rs table is listed here', () => {
    const tables = readdirSync(deltaRsDir).filter((d) => existsSync(join(deltaRsDir, d, '_delta_log')));
    const nested = existsSync(join(deltaRsDir, 'golden')) ? readdirSync(join(deltaRsDir, 'golden')).map((d) => `golden/${d}`) : [];
    expect([...tables, ...nested].sort()).toEqual(Object.keys(deltaRs).sort());
  });

  test('checkpoints_tombstones (an empty folder in this copy) is not a Delta table', async () => {
    const e = await errorOf(openTable(join(deltaRsDir, 'checkpoints_tombstones')));
    expect(e.code).toBe('not_a_delta_table');
  });

  test.each(Object.keys(deltaRs))('%s', async (name) => {
    const t = await openTable(join(deltaRsDir, name));
    const expected = deltaRs[name];
    expect(t.latestVersion).toBe(expected.length - 1);
    const got: Outcome[] = [];
    for (let v = 0; v <= t.latestVersion; v++) {
      try {
        const s = await t.snapshot({ version: v });
        await registerSnapshotView(duck.conn, s, 'rs');
        const n = await count('rs');
        // Where the log has stats for every file, they agree with the rows scanned.
        if (s.numRecords !== null) expect(s.numRecords, `${name} v${v} stats vs scan`).toBe(n);
        got.push(n);
      } catch (e) {
        if (!(e instanceof LakerecError)) throw e;
        expect(e.message.length).toBeGreaterThan(10);
        got.push(e.code as Outcome);
      }
    }
    expect(got).toEqual(expected);
  });

  test('table-with-dv-small: 10 rows at version 0; version 1 deletes 2 rows by a DV (values 0 and 9)', async () => {
    const t = await openTable(join(deltaRsDir, 'table-with-dv-small'));
    const s = await t.snapshot({ version: 1 });
    expect(s.files).toHaveLength(1);
    expect(s.files[0].deletionVector?.storageType).toBe('u');
    expect(s.files[0].numRecords).toBe(8);
    await registerSnapshotView(duck.conn, s, 'dv');
    const rows = (await duck.conn.runAndReadAll('SELECT value FROM dv ORDER BY value')).getRows().map((r) => Number(r[0]));
    expect(rows).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  test('table-with-dv-small history: v1 is a DV delete of 2 rows (net), not +8 / -10', async () => {
    const { historyRows } = await import('../cli/history');
    const h = await historyRows(await openTable(join(deltaRsDir, 'table-with-dv-small')));
    expect(h.map((r) => [r.version, r.operation, r.addedRows, r.removedRows])).toEqual([[0, 'WRITE', 10, 0], [1, 'DELETE', 0, 2]]);
  });

  test('cdc_ict_table: version timestamps are the in-commit timestamps, not commitInfo.timestamp', async () => {
    const t = await openTable(join(deltaRsDir, 'cdc_ict_table'));
    const ch = await t.changes();
    expect(ch[1].commitInfo?.timestamp).toBe(1783874206883);
    expect(ch[1].timestamp).toBe(1683874206883);
    expect((await t.snapshot({ version: 1 })).timestamp).toBe(1683874206883);
  });

  test('partition-type-primitives / delta-0.8.0-null-partition: typed and null partition values', async () => {
    const t = await openTable(join(deltaRsDir, 'delta-0.8.0-null-partition'));
    const s = await t.snapshot();
    await registerSnapshotView(duck.conn, s, 'np');
    const r = (await duck.conn.runAndReadAll('SELECT count(*) FILTER (WHERE k IS NULL), count(*) FILTER (WHERE k = \'A\') FROM np')).getRows()[0];
    expect(r.map(Number)).toEqual([1, 1]);
  });

  test('table_with_column_mapping: logical names, not physical ones', async () => {
    const t = await openTable(join(deltaRsDir, 'table_with_column_mapping'));
    const s = await t.snapshot();
    expect(s.columnMapping).toBe('name');
    await registerSnapshotView(duck.conn, s, 'cm');
    const cols = (await describeView('cm')).map((c) => c.name);
    expect(cols).toEqual(s.schema.fields.map((f) => f.name));
    expect(cols.some((c) => c.startsWith('col-'))).toBe(false);
  });

  test('simple_table_features: refusal names the protocol version', async () => {
    const t = await openTable(join(deltaRsDir, 'simple_table_features'));
    const e = await errorOf(t.snapshot());
    expect(e.message).toContain('reader protocol version 5');
  });

  test('spark-variant-stable-feature-checkpoint: refusal names variantType', async () => {
    const t = await openTable(join(deltaRsDir, 'spark-variant-stable-feature-checkpoint'));
    const e = await errorOf(t.snapshot());
    expect(e.message).toContain('variantType');
  });

  test('checkpoints_vacuumed: history shows versions 5..12; 0..4 are not readable', async () => {
    const t = await openTable(join(deltaRsDir, 'checkpoints_vacuumed'));
    const v = t.versions();
    expect(v.filter((x) => x.readable).map((x) => x.version)).toEqual([5, 6, 7, 8, 9, 10, 11, 12]);
    const d = await t.versionsWithData();
    expect(d.filter((x) => x.readable).every((x) => x.dataFilesExist === false)).toBe(true);
  });

  test('with_checkpoint_no_last_checkpoint and table_failed_last_checkpoint_update: the listing finds the checkpoint', async () => {
    const a = await openTable(join(deltaRsDir, 'with_checkpoint_no_last_checkpoint'));
    expect(a.log.lastCheckpoint).toBeNull();
    expect(a.log.checkpoints.has(2)).toBe(true);
    const b = await openTable(join(deltaRsDir, 'table_failed_last_checkpoint_update'));
    expect(b.log.lastCheckpoint?.version).toBe(1);
    expect(b.warnings).toEqual([]);
    const viaCp = await b.snapshot();
    const viaCommits = await b.snapshot({ useCheckpoints: false });
    expect(viaCp.files.map((f) => f.path).sort()).toEqual(viaCommits.files.map((f) => f.path).sort());
  });
});
