// The engine on small real tables: every source format, renames/ignore, partition expressions,
// lateness, floats, naive timestamps, the baseline, and schema/counts that never open a data file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { reconcile } from './reconcile';
import { parseContract } from './contract';

const schema: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: {} },
    { name: 'name', type: 'string', nullable: true, metadata: {} },
    { name: 'price', type: 'double', nullable: true, metadata: {} },
    { name: 'ts', type: 'timestamp', nullable: true, metadata: {} },
    { name: 'dt', type: 'date', nullable: true, metadata: {} },
  ],
};
const rowsSql = (from = 1, to = 90) => `SELECT i::BIGINT AS id, 'n' || i AS name, i / 8.0 AS price,
  TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_hours((i % 3) * 24 + 5) AS ts,
  DATE '2026-08-10' + (i % 3)::INTEGER AS dt FROM range(${from}, ${to + 1}) r(i)`;
const contractText = (extra = '') => `version: 1\nname: t\nkeys: [id]\npartitioning: { column: dt }\ncolumns:\n  price: { float: exclude }\n${extra}`;

let dir: string;
let duck: Duck;

async function makeTable(name: string, build: (w: DeltaWriter) => Promise<void>): Promise<string> {
  const root = join(dir, name);
  const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck });
  try { await build(w); } finally { w.close(); }
  return root;
}

async function parquet(name: string, sql: string, format = 'parquet'): Promise<string> {
  const p = join(dir, name);
  await duck.conn.run(`COPY (${sql}) TO ${sqlString(p)} (FORMAT ${format})`);
  return p;
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof LakerecError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'ok';
}

let clean: string;
let source: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-engine-'));
  duck = await openDuck({ threads: 1 });
  clean = await makeTable('clean', async (w) => { await w.append({ sql: rowsSql() }); });
  source = await parquet('source.parquet', rowsSql());
});

afterAll(() => {
  duck?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('sources', () => {
  it('reads CSV, JSON lines, a Parquet folder and a Delta table at a version', async () => {
    const c = parseContract(contractText('timestamps: { naive_is_utc: true }\n'));
    const csv = await parquet('s.csv', rowsSql(), 'csv');
    const json = await parquet('s.json', rowsSql(), 'json');
    const folder = join(dir, 'folder');
    await duck.conn.run(`COPY (${rowsSql()}) TO ${sqlString(folder)} (FORMAT parquet, PARTITION_BY (dt))`);
    for (const s of [source, csv, json, folder]) {
      const r = await reconcile({ source: s, target: { root: clean }, contract: c, level: 'rows' });
      expect({ s, verdict: r.verdict, findings: r.findings.map((f) => f.mode) }).toEqual({ s, verdict: 'matches', findings: [] });
      expect(r.source.rows).toBe(90);
    }
    // a Delta table as the source, at a version: v1 is the good load, v2 appended it again
    const doubled = await makeTable('doubled', async (w) => { await w.append({ sql: rowsSql() }); await w.append({ sql: `SELECT * FROM (${rowsSql()}) WHERE dt = DATE '2026-08-11'` }); });
    const r = await reconcile({ source: `${doubled}@1`, target: { root: doubled }, contract: c, level: 'keys' });
    expect(r.source.kind).toBe('delta');
    expect(r.source.version).toBe(1);
    expect(r.findings.map((f) => f.mode)).toEqual(['double_load']);
    const same = await reconcile({ source: `${doubled}@1`, target: { root: doubled, version: 1 }, contract: c, level: 'rows' });
    expect(same.verdict).toBe('matches');
  });

  it('applies renames and ignore, and derives the partition with the contract expression', async () => {
    const s = await parquet('renamed.parquet', `SELECT id AS ident, name, price, ts, now() AS loaded_at FROM (${rowsSql()})`);
    const c = parseContract(contractText(`renames: { ident: id }\nignore: [loaded_at]\n`).replace('partitioning: { column: dt }', `partitioning: { column: dt, expression: "CAST(ts AT TIME ZONE 'UTC' AS DATE)" }`));
    const r = await reconcile({ source: s, target: { root: clean }, contract: c, level: 'rows' });
    expect(r.findings).toEqual([]);
    expect(r.verdict).toBe('matches');
    expect(r.partitions.map((p) => p.partition)).toEqual(['dt=2026-08-10', 'dt=2026-08-11', 'dt=2026-08-12']);
    // without the expression the partition column cannot be found on the source: a contract error
    const bad = parseContract(contractText(`renames: { ident: id }\nignore: [loaded_at]\n`));
    expect(await code(reconcile({ source: s, target: { root: clean }, contract: bad, level: 'counts' }))).toMatch(/^contract_invalid: contract:4: partition column "dt" is not in the source/);
  });

  it('refuses a naive timestamp against a zoned one unless the contract says naive is UTC', async () => {
    const s = await parquet('naive.parquet', `SELECT * REPLACE (CAST(ts AT TIME ZONE 'UTC' AS TIMESTAMP) AS ts) FROM (${rowsSql()})`);
    const strict = await reconcile({ source: s, target: { root: clean }, contract: parseContract(contractText()), level: 'schema' });
    expect(strict.findings.map((f) => f.mode)).toEqual(['schema_drift']);
    expect(strict.schema.typeChanges).toEqual([{ column: 'ts', source: 'TIMESTAMP', target: 'TIMESTAMP WITH TIME ZONE' }]);
    const utc = await reconcile({ source: s, target: { root: clean }, contract: parseContract(contractText('timestamps: { naive_is_utc: true }\n')), level: 'rows' });
    expect(utc.verdict).toBe('matches');
    // CSV text without an offset is refused, naming the column, when naive is not declared UTC
    const csv = await parquet('naive.csv', `SELECT id, name, price, strftime(ts, '%Y-%m-%d %H:%M:%S') AS ts, dt FROM (${rowsSql()})`, 'csv');
    expect(await code(reconcile({ source: csv, target: { root: clean }, contract: parseContract(contractText()), level: 'checksum' }))).toMatch(/^source_unreadable: .*column ts: a timestamp without a time zone/);
  });
});

describe('levels', () => {
  it('answers schema and counts from the log alone: they work with every data file gone', async () => {
    const gone = await makeTable('gone', async (w) => { await w.append({ sql: rowsSql() }); });
    const walk = (d: string): string[] => readdirSync(d).flatMap((f) => {
      const p = join(d, f);
      return statSync(p).isDirectory() ? (f === '_delta_log' ? [] : walk(p)) : [p];
    });
    for (const f of walk(gone).filter((p) => p.endsWith('.parquet'))) unlinkSync(f);
    const c = parseContract(contractText());
    for (const level of ['schema', 'counts'] as const) {
      const r = await reconcile({ source, target: { root: gone }, contract: c, level });
      expect(r.verdict).toBe('matches');
      expect(r.reads.targetRowsRead).toBe(0);
      expect(r.reads.targetFilesRead).toBe(0);
    }
    const counts = await reconcile({ source, target: { root: gone }, contract: c, level: 'counts' });
    expect(counts.target.rows).toBe(90);
    expect(counts.partitions.map((p) => [p.partition, p.targetRows])).toEqual([['dt=2026-08-10', 30], ['dt=2026-08-11', 30], ['dt=2026-08-12', 30]]);
    // checksum needs the data: one clear unreadable error (exit 3), not a verdict
    const e = await code(reconcile({ source, target: { root: gone }, contract: c, level: 'checksum' }));
    expect(e).not.toBe('ok');
    expect(e).not.toMatch(/^(usage|contract)/);
  });

  it('refuses a float column without a rule, and compares an excluded one by its exact sum', async () => {
    const none = parseContract('version: 1\nkeys: [id]\npartitioning: { column: dt }\n');
    expect(await code(reconcile({ source, target: { root: clean }, contract: none, level: 'checksum' }))).toMatch(/^contract_mismatch: column "price" is a float/);
    expect((await reconcile({ source, target: { root: clean }, contract: none, level: 'counts' })).verdict).toBe('matches');
    const drifted = await makeTable('drifted', async (w) => {
      await w.append({ sql: `SELECT * REPLACE (CASE WHEN id = 40 THEN price * 1.0825 ELSE price END AS price) FROM (${rowsSql()})` });
    });
    const r = await reconcile({ source, target: { root: drifted }, contract: parseContract(contractText()), level: 'checksum' });
    expect(r.findings.map((f) => [f.mode, f.level, f.evidence.partitions])).toEqual([['content_divergence', 'checksum', ['dt=2026-08-11']]]);
    expect(r.floats[0].partitions.filter((p) => !p.agree).map((p) => p.partition)).toEqual(['dt=2026-08-11']);
  });

  it('reports late-arriving partitions within the allowance and does not block; beyond it they are missing', async () => {
    const ahead = await parquet('ahead.parquet', `${rowsSql()} UNION ALL SELECT 1000 + i, 'late', 1.0, TIMESTAMPTZ '2026-08-13 01:00:00+00', DATE '2026-08-13' FROM range(5) r(i)`);
    const c = parseContract(contractText('lateness: { column: dt, allow: "1 day" }\n'));
    const r = await reconcile({ source: ahead, target: { root: clean }, contract: c, level: 'rows' });
    expect(r.findings.map((f) => [f.mode, f.blocking])).toEqual([['late_arriving', false]]);
    expect(r.verdict).toBe('matches');
    expect(r.exitCode).toBe(0);
    const far = await parquet('far.parquet', `${rowsSql()} UNION ALL SELECT 1000 + i, 'late', 1.0, TIMESTAMPTZ '2026-08-15 01:00:00+00', DATE '2026-08-15' FROM range(5) r(i)`);
    const r2 = await reconcile({ source: far, target: { root: clean }, contract: c, level: 'counts' });
    expect(r2.findings.map((f) => f.mode)).toEqual(['missing_rows']);
    expect(r2.exitCode).toBe(1);
  });
});

describe('the key diff reads only disagreeing partitions', () => {
  it('still sees a key whose copies sit in an agreeing and a disagreeing partition as one duplicated key', async () => {
    // id 4 (dt=2026-08-11, unchanged there) is loaded again into dt=2026-08-12; id 5's name changes in dt=2026-08-12.
    const root = await makeTable('cross', async (w) => {
      await w.append({ sql: `SELECT * REPLACE (CASE WHEN id = 5 THEN 'renamed' ELSE name END AS name) FROM (${rowsSql()})` });
      await w.append({ sql: `SELECT * REPLACE (DATE '2026-08-12' AS dt) FROM (${rowsSql()}) WHERE id = 4` });
    });
    const r = await reconcile({ source, target: { root }, contract: parseContract(contractText()), level: 'rows' });
    expect(r.partitions.filter((p) => p.state !== 'match').map((p) => p.partition)).toEqual(['dt=2026-08-12']);
    expect(r.keyDiff).toMatchObject({ duplicatedInTarget: 1, extra: 0, missing: 0, changed: 1, moved: 0 });
    const dup = r.rowDiffs.find((d) => d.kind === 'duplicate')!;
    expect(dup.key).toEqual({ id: '4' });
    expect(r.rowDiffs.find((d) => d.kind === 'changed')?.columns).toEqual(['name']);
    // the example row still says where the target row lives
    expect(r.rowDiffs.find((d) => d.kind === 'changed')?.targetFile).toMatch(/^dt=2026-08-12\/.*\.parquet$/);
    expect(r.rowDiffs.find((d) => d.kind === 'changed')?.targetRow).toBe(1);
  });
});

describe('baseline', () => {
  it('inherits unchanged partitions, reads only the changed one, and agrees with a cold run', async () => {
    const root = join(dir, 'based');
    const w = await DeltaWriter.create(root, { schema, partitionColumns: ['dt'], duck });
    try {
      await w.append({ sql: rowsSql() });
      // price is a float compared by exact sums: the baseline stores those sums per partition too
      const c = parseContract(contractText());
      const bpath = join(dir, 'baseline.json');
      const first = await reconcile({ source, target: { root }, contract: c, level: 'checksum', baseline: bpath, writeBaseline: bpath });
      expect(first.baseline?.refused).toMatch(/no baseline file yet/);
      expect(first.reads.targetRowsRead).toBe(90);
      expect(first.verdict).toBe('matches');
      // one partition changes on both sides: the source gains rows, the table appends them
      const more = `SELECT 500 + i AS id, 'm' AS name, 1.0::DOUBLE AS price, TIMESTAMPTZ '2026-08-11 09:00:00+00' AS ts, DATE '2026-08-11' AS dt FROM range(6) r(i)`;
      await w.append({ sql: more });
      const source2 = await parquet('source2.parquet', `${rowsSql()} UNION ALL ${more}`);
      const warm = await reconcile({ source: source2, target: { root }, contract: c, level: 'checksum', baseline: bpath });
      const cold = await reconcile({ source: source2, target: { root }, contract: c, level: 'checksum' });
      expect(warm.verdict).toBe('matches');
      expect(warm.baseline?.inherited.sort()).toEqual(['dt=2026-08-10', 'dt=2026-08-12']);
      expect(warm.reads.targetRowsRead).toBe(36);
      expect(warm.reads.targetRowsAvoided).toBe(60);
      expect(warm.reads.sourceRowsRead).toBe(96);
      expect(warm.target.checksum).toBe(cold.target.checksum);
      expect(warm.partitions.map((p) => p.targetChecksum)).toEqual(cold.partitions.map((p) => p.targetChecksum));
      expect(warm.floats).toEqual(cold.floats);
      // keys level on the baseline: a change the source does not have is still found and named
      await w.append({ sql: `SELECT * FROM (${rowsSql()}) WHERE dt = DATE '2026-08-12' AND id < 20` });
      const keys = await reconcile({ source: source2, target: { root }, contract: c, level: 'keys', baseline: bpath });
      expect(keys.findings.map((f) => f.mode)).toEqual(['double_load']);
      expect(keys.baseline?.inherited).toEqual(['dt=2026-08-10']);
      // another contract (another digest signature) inherits nothing, and says why
      const other = await reconcile({ source: source2, target: { root }, contract: { ...c, naiveIsUtc: !c.naiveIsUtc }, level: 'checksum', baseline: bpath });
      expect(other.baseline?.refused).toMatch(/changed since the baseline/);
      expect(other.reads.targetRowsAvoided).toBe(0);
      // another digest identity (md5, or DuckDB's hash() of another DuckDB version) inherits nothing, says why, re-reads
      const md5 = await reconcile({ source: source2, target: { root }, contract: c, level: 'checksum', baseline: bpath, digest: 'md5' });
      expect(first.digest).toMatch(/^duckdb-hash-v2@v\d/);
      expect(md5.baseline?.refused).toBe(`the baseline was written under digest ${first.digest} and this run uses md5-canonical-v1: its checksums are not comparable, so every partition is re-read`);
      expect(md5.notes.join('\n')).toContain(`baseline not used: the baseline was written under digest ${first.digest}`);
      expect(md5.reads.targetRowsAvoided).toBe(0);
      expect(md5.reads.targetRowsRead).toBe(md5.target.rows);
      expect(md5.partitions.every((p) => !p.inherited)).toBe(true);
      const stored = JSON.parse(readFileSync(bpath, 'utf8')) as { canonical: string; signature: string };
      const olderDuck = 'duckdb-hash-v2@v1.4.0';
      writeFileSync(bpath, JSON.stringify({ ...stored, canonical: olderDuck, signature: stored.signature.replace(first.digest, olderDuck) }));
      const upgraded = await reconcile({ source: source2, target: { root }, contract: c, level: 'checksum', baseline: bpath });
      expect(upgraded.baseline?.refused).toBe(`the baseline was written under digest ${olderDuck} and this run uses ${first.digest}: its checksums are not comparable, so every partition is re-read`);
      expect(upgraded.baseline?.inherited).toEqual([]);
      expect(upgraded.reads.targetRowsAvoided).toBe(0);
      const coldNow = await reconcile({ source: source2, target: { root }, contract: c, level: 'checksum' });
      expect(upgraded.partitions.map((p) => p.targetChecksum)).toEqual(coldNow.partitions.map((p) => p.targetChecksum));
    } finally {
      w.close();
    }
  });
});

describe('jobs', () => {
  it('stops with "cancelled" when the signal fires, before or during the pass', async () => {
    const c = parseContract(contractText());
    const before = new AbortController();
    before.abort();
    expect(await code(reconcile({ source, target: { root: clean }, contract: c, ctx: { signal: before.signal } }))).toMatch(/^cancelled: /);
    const during = new AbortController();
    const phases: string[] = [];
    const run = reconcile({
      source, target: { root: clean }, contract: c, level: 'rows',
      ctx: { signal: during.signal, progress: (p) => { phases.push(p.phase); if (p.phase === 'hashing the source') during.abort(); } },
    });
    expect(await code(run)).toMatch(/^cancelled: /);
    expect(phases).toContain('hashing the source');
    expect(phases).not.toContain('diffing keys');
  });
});

describe('one digest per run', () => {
  it('gives the same partition checksums at checksum, keys and rows level, for each digest', async () => {
    const c = parseContract(contractText());
    for (const digest of ['fast', 'md5'] as const) {
      const sums = [];
      for (const level of ['checksum', 'keys', 'rows'] as const) {
        const r = await reconcile({ source, target: { root: clean }, contract: c, level, digest });
        sums.push(r.partitions.map((p) => [p.partition, p.sourceChecksum, p.targetChecksum]));
        expect(r.verdict).toBe('matches');
      }
      expect(sums[1]).toEqual(sums[0]);
      expect(sums[2]).toEqual(sums[0]);
    }
  });
});

describe('progress', () => {
  it('reports rows done of a known total on each side, ending at the total', async () => {
    const events: { phase: string; done: number; total: number | null }[] = [];
    await reconcile({ source, target: { root: clean }, contract: parseContract(contractText()), level: 'rows', ctx: { progress: (p) => events.push(p) } });
    for (const phase of ['hashing the source', 'hashing the target']) {
      const side = events.filter((e) => e.phase === phase);
      expect(side.length).toBeGreaterThanOrEqual(2);
      expect(side.every((e) => e.total === 90)).toBe(true);
      expect(side[0].done).toBe(0);
      expect(side[side.length - 1].done).toBe(90);
      expect(side.every((e, i) => i === 0 || e.done >= side[i - 1].done)).toBe(true);
    }
  });
});

describe('without partitioning', () => {
  it('compares the whole table as one partition', async () => {
    const c = parseContract('version: 1\nkeys: [id]\ncolumns:\n  price: { float: exclude }\n');
    const ok = await reconcile({ source, target: { root: clean }, contract: c, level: 'rows' });
    expect(ok.verdict).toBe('matches');
    expect(ok.partitions.map((p) => [p.partition, p.sourceRows, p.targetRows])).toEqual([['(table)', 90, 90]]);
    const doubled = await makeTable('doubled-np', async (w) => { await w.append({ sql: rowsSql() }); await w.append({ sql: `SELECT * FROM (${rowsSql()}) WHERE id <= 10` }); });
    const counts = await reconcile({ source, target: { root: doubled }, contract: c, level: 'counts' });
    expect(counts.findings.map((f) => f.mode)).toEqual(['extra_rows']);
    const keys = await reconcile({ source, target: { root: doubled }, contract: c, level: 'keys' });
    expect(keys.findings.map((f) => [f.mode, f.evidence.counts['duplicate rows']])).toEqual([['double_load', 10]]);
  });
});
