// What the proofs found, pinned: each fact docs/roundtrip-proof.md states about the two Parquet
// implementations is measured here, so the page cannot drift from what the engines do.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LakerecError } from '../../shared/errors';
import { tableRows } from './cells';
import { openDuck, sqlString, type Duck } from '../engine/duck';
import { arrowEngine, readParquetArrow } from './engines/arrow';
import { duckdbEngine } from './engines/duckdb';
import { generateTable } from './generate';

const g = generateTable();
let dir: string;
let duck: Duck;
const parquetOf = (root: string): string => join(root, readdirSync(root).find((f) => f.endsWith('.parquet'))!);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-proof-findings-'));
  await duckdbEngine.write(join(dir, 'duck'), g.arrow);
  await arrowEngine.write(join(dir, 'arrow'), g.arrow);
  duck = await openDuck({ threads: 1 });
});
afterAll(() => { duck.close(); rmSync(dir, { recursive: true, force: true }); });

async function repetition(file: string, column: string): Promise<string> {
  const r = await duck.conn.runAndReadAll(`SELECT repetition_type FROM parquet_schema(${sqlString(file)}) WHERE name = ${sqlString(column)}`);
  return String(r.getRows()[0][0]);
}

describe('what the proofs found', () => {
  it('DuckDB writes a NOT NULL column as OPTIONAL; parquet-wasm writes it REQUIRED', async () => {
    expect(await repetition(parquetOf(join(dir, 'duck')), 'id')).toBe('OPTIONAL');
    expect(await repetition(parquetOf(join(dir, 'arrow')), 'id')).toBe('REQUIRED');
  });

  it("DuckDB's read_parquet reports every column nullable, even a REQUIRED one", async () => {
    const r = await duck.conn.runAndReadAll(`DESCRIBE SELECT id FROM read_parquet(${sqlString(parquetOf(join(dir, 'arrow')))})`);
    expect(String(r.getRowObjects()[0].null)).toBe('YES');
  });

  it('parquet-wasm keeps the column tags in the file (ARROW:schema); DuckDB does not, so they travel only in the log', async () => {
    const kv = async (file: string): Promise<string[]> => (await duck.conn.runAndReadAll(`SELECT decode(key) FROM parquet_kv_metadata(${sqlString(file)})`)).getRows().map((r) => String(r[0]));
    expect(await kv(parquetOf(join(dir, 'duck')))).not.toContain('ARROW:schema');
    expect(await kv(parquetOf(join(dir, 'arrow')))).toContain('ARROW:schema');
    const fromFile = readParquetArrow(new Uint8Array(readFileSync(parquetOf(join(dir, 'arrow')))));
    expect(fromFile.schema.fields.find((f) => f.name === 'email')!.metadata.get('lakerec.sensitivity')).toBe('confidential');
    const fromDuckFile = readParquetArrow(new Uint8Array(readFileSync(parquetOf(join(dir, 'duck')))));
    expect(fromDuckFile.schema.fields.find((f) => f.name === 'email')!.metadata.size).toBe(0);
  });

  it("apache-arrow's getters lose microseconds beyond 2255 and the scale of decimals; the proof reads buffers", () => {
    const ts = g.arrow.getChild('local_at')!;
    // 9999-12-31T23:59:59.999999 as float milliseconds rounds into the year 10000.
    expect(ts.get(3)).toBe(253402300800000);
    expect(g.rows[3][13]).toBe(253402300799999999n);
    // 2500-06-30T12:00:00.000001: one microsecond becomes two thousandths of a millisecond.
    expect(ts.get(1)).toBe(16740820800000.002);
    // decimal(38,10) 1.23 prints as its unscaled integer.
    expect(String(g.arrow.getChild('precise')!.get(3))).toBe('12300000000');
  });

});

// Spark's INT96 timestamps, from the conformance tables in ../shared (skipped when absent).
const edge = resolve(__dirname, '..', '..', '..', 'shared', 'conformance', 'delta-rs', 'table_with_edge_timestamps');
if (!existsSync(edge)) console.log(`skipping the INT96 finding: ${edge} is absent`);

describe.skipIf(!existsSync(edge))('what the proofs found on a table Spark wrote', () => {
  it('parquet-wasm reads an INT96 9999-12-31 as 1816-03-29 (nanoseconds wrap); DuckDB reads it right; the arrow engine refuses', async () => {
    const file = join(edge, readdirSync(edge).find((f) => f.startsWith('part-00000'))!);
    const raw = readParquetArrow(new Uint8Array(readFileSync(file)));
    expect(String(raw.schema.fields[0].type)).toBe('Timestamp<NANOSECOND>');
    const wrapped = tableRows(raw)[0][0] as bigint;
    expect(new Date(Number(wrapped / 1000n)).toISOString().slice(0, 10)).toBe('1816-03-29');
    const d = await duck.conn.runAndReadAll(`SELECT CAST(BIG_DATE AS VARCHAR) FROM read_parquet(${sqlString(file)})`);
    expect(String(d.getRows()[0][0])).toBe('9999-12-31 00:00:00');
    const refused = await arrowEngine.read(edge).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(LakerecError);
    expect((refused as LakerecError).code).toBe('unsupported_feature');
    expect((refused as LakerecError).message).toMatch(/column "BIG_DATE" .* nanoseconds \(an INT96 timestamp\)/);
  });
});
