// Proof that the pushed SQL is right, here: the DuckDB dialect, executed by the DuckDB connector
// over the files lakerec's snapshot lists, gives exactly the local engine's figures: on every
// sample lake (both sides: per-partition counts, checksums and float sums against reconcile's own
// result under --digest md5; key digests and key-level rows against the local canonical SQL;
// the fingerprint against the TypeScript computation over Arrow), and on every table of
// ../shared/conformance lakerec reads (skipped, saying so, when that folder is absent).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';
import { SCENARIOS } from '../../sample-lakes/scenarios';
import { compareFingerprints } from '../../shared/fingerprint';
import { LakerecError } from '../../shared/errors';
import type { ReconcileResult } from '../../shared/reconcile';
import { reconcile } from '../reconcile/reconcile';
import { loadContract, parseContract, type Contract } from '../reconcile/contract';
import { canonicalRow, compareFamily } from '../reconcile/canonical';
import { combineHalves, exactSumToNumber, toHex128 } from '../reconcile/checksum';
import type { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import { sqlIdent, sqlString } from '../engine/duck';
import { fingerprintArrow } from '../proof/fingerprint';
import { readSnapshotDuckdb } from '../proof/engines/duckdb';
import { DuckdbConnector } from './duckdb-connector';
import { records } from './connector';
import { bisectStatement, lawsStatement, partitionLabel, type PushSide } from './levels';
import { checkLaws } from '../trust/laws';
import { bisect } from '../bisect/bisect';
import { PushLog, pushedChecksum, pushedCounts, pushedFingerprint, pushedKeyDigests, pushedRows, pushedSchema } from './run';
import { hex } from './partials';
import type { WarehouseColumn } from './dialect';

/** The local engine's own SQL (canonical.ts): per-partition sum of md5_number(canonicalRow(cols)). */
async function localDigestSums(conn: DuckdbConnector, relation: string, partExpr: string, partCol: string | null, cols: WarehouseColumn[], naiveIsUtc: boolean): Promise<Map<string, { n: string; sum: string }>> {
  const text = canonicalRow(cols, naiveIsUtc);
  const r = records(await conn.query(`SELECT p, count(*) AS n, sum(CAST(d >> 64 AS UBIGINT)) AS hi, sum(CAST(d & 18446744073709551615::UHUGEINT AS UBIGINT)) AS lo FROM (SELECT CAST(${partExpr} AS VARCHAR) AS p, md5_number(${text}) AS d FROM ${relation}) GROUP BY p`));
  return new Map(r.map((x) => [partitionLabel(partCol, x.p), { n: x.n ?? '0', sum: toHex128(combineHalves(x.hi, x.lo)) }]));
}

function pushedMap(set: { partitions: Map<string, { rows: bigint; sum: bigint }> }): Map<string, { n: string; sum: string }> {
  return new Map([...set.partitions].map(([l, p]) => [l, { n: p.rows.toString(), sum: hex(p.sum) }]));
}

const sorted = <T>(m: Map<string, T>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

async function describeColumns(conn: DuckdbConnector, side: Omit<PushSide, 'columns'>): Promise<WarehouseColumn[]> {
  return pushedSchema(conn, { ...side, columns: [] }, new PushLog());
}

describe('sample lakes: the DuckDB dialect through the DuckDB connector = the local engine', () => {
  let dir: string;
  let lakes: BuiltLake[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lakerec-wh-'));
    lakes = await buildSampleLakes({ out: dir, rows: 600, only: SCENARIOS.map((s) => s.name) });
  }, 180_000);
  afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  for (const spec of SCENARIOS) {
    it(spec.name, async () => {
      const lake = lakes.find((l) => l.name === spec.name)!;
      const contract = loadContract(lake.contractPath);
      let local: ReconcileResult;
      try {
        local = await reconcile({ source: lake.sourceParquet, target: { root: lake.tablePath }, contract, level: 'checksum', digest: 'md5' });
      } catch (e) {
        // Only a lake whose run the local engine refuses is not compared (none today).
        expect(e).toBeInstanceOf(LakerecError);
        throw new Error(`${spec.name}: the local engine refused the checksum run: ${(e as Error).message}`);
      }
      const table = await openTable(lake.tablePath);
      const snapshot = await table.snapshot();
      const part = contract.partitioning;
      // The source: its Parquet file, with the partition column derived by the contract's expression where it lacks it.
      const conn = await DuckdbConnector.open('local', [{ name: 'tgt', snapshot, root: table.root }], {
        views: [{ name: 'src_raw', sql: `SELECT * FROM read_parquet(${sqlString(lake.sourceParquet)})` }],
        extraFiles: [lake.sourceParquet],
      });
      try {
        const rawSrc = await describeColumns(conn, { dialect: 'duckdb', relation: 'src_raw', contract, isSource: true });
        const srcRel = part?.expression && !rawSrc.some((c) => c.name === part.column)
          ? `(SELECT *, (${part.expression}) AS ${sqlIdent(part.column)} FROM src_raw)` : 'src_raw';
        const compared = local.schema.compared.filter((c) => !local.schema.typeChanges.some((t) => t.column === c));
        const sides: { which: 'source' | 'target'; side: PushSide }[] = [];
        let rowsSeen = 0;
        for (const which of ['target', 'source'] as const) {
          const relation = which === 'target' ? '"tgt"' : srcRel;
          const columns = await describeColumns(conn, { dialect: 'duckdb', relation, contract, isSource: which === 'source' });
          sides.push({ which, side: { dialect: 'duckdb', relation, columns, contract, compared, isSource: which === 'source' } });
        }
        for (const { which, side } of sides) {
          const log = new PushLog();
          const counts = await pushedCounts(conn, side, log);
          const rowsOf = (p: ReconcileResult['partitions'][number]) => (which === 'target' ? p.targetRows : p.sourceRows);
          const expectedCounts = new Map(local.partitions.filter((p) => rowsOf(p) > 0).map((p) => [p.partition, BigInt(rowsOf(p))]));
          expect(expectedCounts.size).toBeGreaterThan(0);
          expect(sorted(counts), `${spec.name} ${which} counts`).toEqual(sorted(expectedCounts));
          const ck = await pushedChecksum(conn, side, log);
          const expectedSums = new Map(local.partitions.filter((p) => rowsOf(p) > 0).map((p) => [p.partition, { n: String(rowsOf(p)), sum: (which === 'target' ? p.targetChecksum : p.sourceChecksum)! }]));
          expect(sorted(pushedMap(ck.partials)), `${spec.name} ${which} checksums`).toEqual(sorted(expectedSums));
          for (const f of local.floats) {
            const pushed = ck.floats.get(side.isSource ? Object.entries(contract.renames).find(([, t]) => t === f.column)?.[0] ?? f.column : f.column)!;
            for (const p of f.partitions) {
              const v = pushed.get(p.partition);
              if (v) expect(String(exactSumToNumber(v.s)), `${spec.name} ${which} ${f.column} ${p.partition}`).toBe(which === 'target' ? p.target : p.source);
            }
          }
          // Key digests and key-level rows against the local canonical SQL over the same relation.
          const keyCols = contract.keys.map((k) => side.columns.find((c) => c.name === k)!);
          const partExpr = part ? sqlIdent(part.column) : 'NULL';
          const keysLocal = await localDigestSums(conn, side.relation, partExpr, part?.column ?? null, keyCols, contract.naiveIsUtc);
          expect(sorted(pushedMap(await pushedKeyDigests(conn, side, log))), `${spec.name} ${which} key digests`).toEqual(sorted(keysLocal));
          const disagreeing = local.partitions.filter((p) => p.state !== 'match').map((p) => p.partition).slice(0, 2);
          const labels = disagreeing.length ? disagreeing : local.partitions.slice(0, 1).map((p) => p.partition);
          const pr = await pushedRows(conn, side, labels, log, 50);
          rowsSeen += pr.rows.length;
          const digestCols = [...compared].filter((c) => compareFamily(side.columns.find((x) => x.name === c)!.type, false) !== 'float').sort().map((c) => side.columns.find((x) => x.name === c)!);
          const vals = labels.map((l) => l.slice(l.indexOf('=') + 1));
          const where = part ? `CAST(${sqlIdent(part.column)} AS VARCHAR) IN (${vals.map(sqlString).join(', ')})${vals.includes('(null)') ? ` OR ${sqlIdent(part.column)} IS NULL` : ''}` : 'true';
          const lr = records(await conn.query(`SELECT CAST(${partExpr} AS VARCHAR) AS p, ${canonicalRow(keyCols, contract.naiveIsUtc)} AS k, md5(${canonicalRow(digestCols, contract.naiveIsUtc)}) AS h FROM ${side.relation} WHERE ${where} ORDER BY k, h LIMIT 50`));
          expect(pr.rows.map((x) => ({ partition: x.partition, key: x.key, digest: x.digest })), `${spec.name} ${which} rows`).toEqual(lr.map((x) => ({ partition: partitionLabel(part?.column ?? null, x.p), key: x.k, digest: x.h })));
          expect(log.ran.every((r) => r.queryId === null && r.bytes > 0)).toBe(true);
        }
        expect(rowsSeen, 'key-level rows compared on some side').toBeGreaterThan(0);
        // The fingerprint against the TypeScript computation over the snapshot's rows as Arrow.
        const fp = await pushedFingerprint(conn, sides[0].side, new PushLog());
        expect(compareFingerprints(fingerprintArrow(await readSnapshotDuckdb(snapshot)), fp), `${spec.name} fingerprint`).toEqual([]);
      } finally {
        await conn.close();
      }
    }, 120_000);
  }
});

const conformance = join(resolve(__dirname, '..', '..', '..', 'shared'), 'conformance');
const present = existsSync(conformance);
if (!present) console.log(`skipping the pushed-SQL conformance tests: ${conformance} is absent`);

function conformanceTables(): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(conformance, 'delta-rs'))) out.push(join(conformance, 'delta-rs', d));
  for (const d of readdirSync(join(conformance, 'golden'))) out.push(join(conformance, 'golden', d, 'delta'));
  return out.filter((t) => existsSync(join(t, '_delta_log')));
}

describe.skipIf(!present)('conformance tables: the DuckDB dialect = the local canonical SQL, and the fingerprint = TypeScript over Arrow', () => {
  it('every table lakerec reads', async () => {
    let compared = 0;
    const skipped: string[] = [];
    for (const t of conformanceTables()) {
      let table: DeltaTable;
      let snapshot: Awaited<ReturnType<DeltaTable['snapshot']>>;
      try {
        table = await openTable(t);
        snapshot = await table.snapshot();
      } catch (e) {
        expect(e, t).toBeInstanceOf(LakerecError);
        skipped.push(`${t}: ${(e as Error).message}`);
        continue;
      }
      let conn: DuckdbConnector;
      try {
        conn = await DuckdbConnector.open('local', [{ name: 'tgt', snapshot, root: table.root }]);
      } catch (e) {
        skipped.push(`${t}: ${(e as Error).message}`);
        continue;
      }
      try {
        const base: Omit<PushSide, 'columns' | 'contract'> = { dialect: 'duckdb', relation: '"tgt"' };
        const columns = await pushedSchema(conn, { ...base, columns: [], contract: parseContract('version: 1\nkeys: [x]\n') }, new PushLog());
        if (columns.length === 0) { skipped.push(`${t}: no columns`); continue; }
        const floats = columns.filter((c) => compareFamily(c.type, false) === 'float');
        const nonFloat = columns.filter((c) => compareFamily(c.type, false) !== 'float');
        if (nonFloat.length === 0) { skipped.push(`${t}: only float columns`); continue; }
        const partCol = snapshot.partitionColumns.find((p) => ['integer', 'string', 'date'].includes(compareFamily(columns.find((c) => c.name === p)?.type ?? '', false))) ?? null;
        const contract: Contract = parseContract([
          'version: 1',
          `keys: [${JSON.stringify(nonFloat[0].name)}]`,
          ...(partCol ? [`partitioning: { column: ${JSON.stringify(partCol)} }`] : []),
          ...(floats.length ? ['columns:', ...floats.map((f) => `  ${JSON.stringify(f.name)}: { float: exclude }`)] : []),
        ].join('\n') + '\n');
        const side: PushSide = { ...base, columns, contract };
        const log = new PushLog();
        const partExpr = partCol ? sqlIdent(partCol) : 'NULL';
        const digestCols = [...nonFloat].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        const localRows = await localDigestSums(conn, '"tgt"', partExpr, partCol, digestCols, false);
        const ck = await pushedChecksum(conn, side, log);
        expect(sorted(pushedMap(ck.partials)), `${t} checksums`).toEqual(sorted(localRows));
        expect(sorted(new Map([...await pushedCounts(conn, side, log)].map(([l, n]) => [l, n.toString()]))), `${t} counts`)
          .toEqual(sorted(new Map([...localRows].map(([l, v]) => [l, v.n]))));
        const localKeys = await localDigestSums(conn, '"tgt"', partExpr, partCol, [nonFloat[0]], false);
        expect(sorted(pushedMap(await pushedKeyDigests(conn, side, log))), `${t} key digests`).toEqual(sorted(localKeys));
        const fp = await pushedFingerprint(conn, side, log);
        expect(compareFingerprints(fingerprintArrow(await readSnapshotDuckdb(snapshot)), fp), `${t} fingerprint`).toEqual([]);
        compared++;
      } finally {
        await conn.close();
      }
    }
    console.log(`pushed SQL = local engine on ${compared} conformance tables; not compared: ${skipped.length}\n  ${skipped.join('\n  ')}`);
    expect(compared).toBeGreaterThan(40);
  }, 600_000);
});

describe("bisect's per-version statements, run by DuckDB at each version, agree with the local bisect", () => {
  let dir: string;
  let lake: BuiltLake;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lakerec-wh-bisect-'));
    [lake] = await buildSampleLakes({ out: dir, rows: 600, only: ['bisect_many_versions'] });
  }, 180_000);
  afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  it('unique-keys: the first version with a repeated key is the local first bad version', async () => {
    const local = await bisect(lake.tablePath, { predicate: 'unique-keys', keys: ['order_id'] });
    expect(local.firstBad).not.toBeNull();
    const table = await openTable(lake.tablePath);
    const latest = await table.snapshot();
    const conn = await DuckdbConnector.open('local', [{ name: 'v_latest', snapshot: latest, root: table.root }]);
    try {
      const contract = loadContract(lake.contractPath);
      const columns = await describeColumns(conn, { dialect: 'duckdb', relation: '"v_latest"', contract });
      const side: PushSide = { dialect: 'duckdb', relation: '"v_latest"', columns, contract };
      const bad: number[] = [];
      // Around the local answer: the last good version and the first bad one, and the latest.
      for (const v of [local.firstBad! - 1, local.firstBad!, latest.version]) {
        const rel = await conn.addView(`v${v}`, await table.snapshot({ version: v }));
        const st = bisectStatement(side, 'unique-keys', v, () => rel);
        const r = records(await conn.query(st.sql));
        bad.push(Number(r[0].bad));
      }
      expect(bad[0]).toBe(0);
      expect(bad[1]).toBeGreaterThan(0);
      expect(bad[2]).toBeGreaterThan(0);
    } finally {
      await conn.close();
    }
  }, 120_000);
});

describe("the data laws' per-day totals, run by DuckDB on both sides, agree with the local laws check", () => {
  let dir: string;
  let lake: BuiltLake;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lakerec-wh-laws-'));
    [lake] = await buildSampleLakes({ out: dir, rows: 600, only: ['double_load'] });
  }, 180_000);
  afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  it('double_load: the days whose row count or sum(amount) differ are the local check’s failed days', async () => {
    const contract: Contract = { ...loadContract(lake.contractPath), laws: { day: 'dt', measures: ['amount'], tolerance: null } };
    const local = await checkLaws({ source: lake.sourceParquet, table: lake.tablePath, contract, cwd: dir });
    const table = await openTable(lake.tablePath);
    const conn = await DuckdbConnector.open('local', [{ name: 'tgt', snapshot: await table.snapshot(), root: table.root }], {
      views: [{ name: 'src', sql: `SELECT * FROM read_parquet(${sqlString(lake.sourceParquet)})`, derive: { column: 'dt', expression: contract.partitioning!.expression! } }],
      extraFiles: [lake.sourceParquet],
    });
    try {
      const totals = async (relation: string, isSource: boolean) => {
        const columns = await describeColumns(conn, { dialect: 'duckdb', relation, contract, isSource });
        const r = records(await conn.query(lawsStatement({ dialect: 'duckdb', relation, columns, contract, isSource }).sql));
        return new Map(r.map((x) => [x.d, { n: x.n, m0: x.m0 }]));
      };
      const s = await totals('"src"', true);
      const t = await totals('"tgt"', false);
      const days = [...new Set([...s.keys(), ...t.keys()])].sort();
      const countBad = days.filter((d) => s.get(d)?.n !== t.get(d)?.n);
      const sumBad = days.filter((d) => s.get(d)?.m0 !== t.get(d)?.m0);
      const byLaw = new Map(local.laws.map((l) => [l.kind === 'row_count' ? 'n' : l.measure, l]));
      expect(countBad.length).toBe(byLaw.get('n')!.failedDays);
      expect(sumBad.length).toBe(byLaw.get('amount')!.failedDays);
      expect(countBad.length).toBeGreaterThan(0);
      expect(byLaw.get('amount')!.failures.map((f) => f.day)).toEqual(sumBad.slice(0, 5));
    } finally {
      await conn.close();
    }
  }, 120_000);
});
