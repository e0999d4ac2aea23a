// The counts level's reading of the log (issue 25): one parser and one evaluator of a commit's
// predicate, shared with forensics; partitionValues looked up by physical name under column mapping.
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { declaredPredicate, evaluatePredicate } from '../delta/predicate';
import { declaredPredicate as forensicsPredicate } from '../forensics/helpers';
import { parseContract } from './contract';
import { predicateCovers } from '../forensics/removals';
import { reconcile } from './reconcile';

let duck: Duck;
let dir: string;

beforeAll(async () => {
  duck = await openDuck({ threads: 1 });
  dir = mkdtempSync(join(tmpdir(), 'lakerec-log-truth-'));
});
afterAll(() => {
  duck?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a commit's predicate: one parser, one evaluator", () => {
  const spark = { predicate: JSON.stringify(["dt = '2026-08-10' OR dt = '2026-08-11'", "region = 'eu'"]) };

  it('parenthesises each part: (a OR b) AND (c)', () => {
    expect(declaredPredicate(spark)).toBe("(dt = '2026-08-10' OR dt = '2026-08-11') AND (region = 'eu')");
    expect(declaredPredicate({ replaceWhere: "dt >= '2026-08-10'" })).toBe("dt >= '2026-08-10'");
    expect(declaredPredicate({ predicate: ['a OR b'] })).toBe('a OR b');
    expect(declaredPredicate({ predicate: [] })).toBeNull();
    expect(declaredPredicate({})).toBeNull();
    // forensics uses the same parser
    expect(forensicsPredicate).toBe(declaredPredicate);
  });

  it('evaluates the combination as the commit meant it', async () => {
    const p = declaredPredicate(spark)!;
    const cols = [{ name: 'dt', type: 'DATE' }, { name: 'region', type: 'VARCHAR' }];
    // dt matches the first alternative, region is not 'eu': the commit did not cover this row. Read
    // without the parentheses (a OR b AND c) it would.
    expect(await evaluatePredicate(duck.conn, p, cols, [['2026-08-10', 'us'], ['2026-08-11', 'eu'], ['2026-08-12', 'eu'], [null, 'eu']])).toEqual([false, true, false, false]);
    // Over the partition column alone (the counts level), a predicate naming another column cannot be evaluated.
    expect(await predicateCovers(duck.conn, p, 'dt', 'DATE', '2026-08-10')).toBeNull();
    expect(await predicateCovers(duck.conn, declaredPredicate({ predicate: JSON.stringify(["dt = '2026-08-10' OR dt = '2026-08-11'", "dt <> '2026-08-11'"]) })!, 'dt', 'DATE', '2026-08-11')).toBe(false);
    // The log is someone else's SQL: anything but a scalar expression over the columns is not run.
    expect(await evaluatePredicate(duck.conn, `(SELECT count(*) FROM read_csv(${sqlString('/etc/passwd')})) > 0`, cols, [['2026-08-10', 'eu']])).toBeNull();
  });
});

const mapped = resolve(__dirname, '..', '..', '..', 'shared', 'conformance', 'delta-rs', 'table_with_partitioning_mapping');
const haveShared = existsSync(join(mapped, '_delta_log'));
if (!haveShared) process.stdout.write('log-truth.test: column-mapping case SKIPPED: ../shared/conformance is absent\n');

describe.skipIf(!haveShared)('counts level under column mapping', () => {
  it('finds the commit that removed a partition by its physical partitionValues key', async () => {
    // newid is the logical name of the partition column; the log's partitionValues say "id".
    const root = join(dir, 'mapped');
    cpSync(mapped, root, { recursive: true });
    writeFileSync(join(root, '_delta_log', '00000000000000000005.json'), [
      JSON.stringify({ commitInfo: { timestamp: 1742865500000, operation: 'DELETE', operationParameters: { predicate: JSON.stringify(['(newid = 1)']) } } }),
      JSON.stringify({ remove: { path: 'id=1/part-00000-d480fbfc-9bf7-406a-b3e9-e2e1a89a6073.c000.snappy.parquet', deletionTimestamp: 1742865500000, dataChange: true, extendedFileMetadata: true, partitionValues: { id: '1' }, size: 673, stats: JSON.stringify({ numRecords: 1 }) } }),
    ].join('\n') + '\n');
    const source = join(dir, 'source.parquet');
    await duck.conn.run(`COPY (SELECT * FROM (VALUES (1, 'Initial data'), (2, 'Additional data')) t(newid, description)) TO ${sqlString(source)} (FORMAT parquet)`);
    const contract = parseContract('version: 1\nname: m\nkeys: [description]\npartitioning: { column: newid }\n');
    const r = await reconcile({ source, target: { root }, contract, level: 'counts' });
    expect(r.verdict).toBe('diverges');
    const text = JSON.stringify(r.findings);
    // The removal is found in newid=1 (not in a partition "null"), and the commit is named.
    expect(r.findings.flatMap((f) => f.evidence.partitions)).toContain('newid=1');
    expect(text).toMatch(/removed by version 5 \(DELETE/);
    expect(text).not.toMatch(/newid=null/);
  });
});
