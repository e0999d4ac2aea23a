// The proof catches what it claims to: each lossy test double fails exactly the checks its damage
// should fail, and passes the others.
import { describe, expect, it } from 'vitest';
import { runProof } from './run';
import type { ProofResult } from '../../shared/proof';
import { accessD11, profileNoLeak, sandboxDiscarded } from './checks';
import { DECLARED_SCHEMA, generateTable } from './generate';
import { profileColumn } from '../../shared/sensitivity';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arrowEngine, writeParquetArrow } from './engines/arrow';
import type { Engine } from './engines';
import { commitNewTable } from './delta-log';
import { deltaSchemaOf } from './cells';

function failed(r: ProofResult): string[] {
  return r.checks.filter((c) => c.status === 'fail').map((c) => c.name).sort();
}

const cases: [string, string, string[]][] = [
  ['lossy-nan', 'duckdb', ['fingerprints_match', 'rows_identical']],
  ['duckdb', 'lossy-nan', ['fingerprints_match', 'rows_identical']],
  ['lossy-decimal', 'arrow', ['declared_schema', 'fingerprints_match', 'rows_identical', 'schema_match']],
  ['lossy-nanos', 'duckdb', ['fingerprints_match', 'rows_identical']],
  ['lossy-tags', 'duckdb', ['sensitivity_floor', 'tags_carried']],
  ['arrow', 'lossy-sensitivity', ['sensitivity_floor']],
];

describe('a lossy engine fails exactly the checks it should', () => {
  for (const [a, b, expected] of cases) {
    it(`${a} -> ${b} fails ${expected.join(', ')}`, async () => {
      const r = await runProof({ engines: [a, b], testDoubles: true });
      expect(failed(r)).toEqual(expected);
      expect(r.passed).toBe(false);
      // All five steps still ran: the damage is in the data, not a crash.
      expect(r.steps.every((s) => s.status === 'done')).toBe(true);
    });
  }

  it('names the damage in the evidence', async () => {
    const r = await runProof({ engines: ['lossy-nan', 'arrow'], testDoubles: true });
    const fp = r.checks.find((c) => c.name === 'fingerprints_match')!;
    expect(fp.evidence.join('\n')).toMatch(/ratio\.nan: 1 expected, 0 found/);
    const rows = r.checks.find((c) => c.name === 'rows_identical')!;
    expect(rows.evidence.join('\n')).toMatch(/ratio: generated "NaN", read null/);
    // The seed's finding, named with its column.
    expect(fp.evidence.join('\n')).toMatch(/\(duckdb-sql\) ratio: NaN became null \(1 value\(s\)\)/);
  });

  it('names a timestamp unit change (nanoseconds wrap outside 1677-2262) by column', async () => {
    const r = await runProof({ engines: ['lossy-nanos', 'duckdb'], testDoubles: true });
    const fp = r.checks.find((c) => c.name === 'fingerprints_match')!.evidence.join('\n');
    expect(fp).toMatch(/seen_at: timestamp values changed \(a unit change to nanoseconds wraps values outside 1677-2262\)/);
    expect(fp).toMatch(/local_at: timestamp values changed/);
  });

  it('the arrow engine refuses to read nanosecond timestamps it cannot vouch for, by name', async () => {
    const r = await runProof({ engines: ['lossy-nanos', 'arrow'], testDoubles: true });
    expect(r.steps.map((s) => s.status)).toEqual(['done', 'done', 'failed', 'failed', 'failed']);
    expect(r.steps[2].error).toMatch(/column "seen_at" .* nanoseconds .* refuses it rather than return wrong timestamps/);
    expect(r.passed).toBe(false);
  });

  it('test doubles are refused unless asked for', async () => {
    await expect(runProof({ engines: ['lossy-nan', 'arrow'] })).rejects.toThrow(/unknown engine/);
  });
});

describe('delta_protocol fails on protocol problems', () => {
  it('a table that does not declare timestampNtz fails delta_protocol and nothing else', async () => {
    const badWriter: Engine = {
      ...arrowEngine, name: 'bad-protocol', engineInfoPrefix: 'lakerec-bad-protocol/', testOnly: true,
      async write(root, table) {
        mkdirSync(root, { recursive: true });
        const bytes = writeParquetArrow(table);
        writeFileSync(join(root, 'part-0.parquet'), bytes);
        await commitNewTable({
          root, schema: deltaSchemaOf(table.schema), engineInfo: 'lakerec-bad-protocol/test-double',
          files: [{ path: 'part-0.parquet', size: bytes.length, numRecords: table.numRows, nullCount: {} }],
          protocol: { minReaderVersion: 1, minWriterVersion: 2 },
        });
        return { version: 0, files: 1, rows: table.numRows, schema: deltaSchemaOf(table.schema) };
      },
    };
    const r = await runProof({ engines: [badWriter, 'duckdb'] });
    expect(failed(r)).toEqual(['delta_protocol']);
    expect(r.checks.find((c) => c.name === 'delta_protocol')!.evidence[0]).toMatch(/table a does not declare the feature\(s\) its schema needs: timestampNtz/);
  });

  it('an engine that cannot read timestampNtz is refused by name; the proof still reports and cleans up', async () => {
    const noNtz: Engine = { ...arrowEngine, name: 'no-ntz', engineInfoPrefix: 'lakerec-no-ntz/', readerFeatures: new Set(), testOnly: true };
    const r = await runProof({ engines: ['duckdb', noNtz] });
    expect(r.steps.map((s) => s.status)).toEqual(['done', 'done', 'failed', 'failed', 'failed']);
    expect(r.steps[2].error).toMatch(/does not support the table feature\(s\) timestampNtz/);
    const status = Object.fromEntries(r.checks.map((c) => [c.name, c.status]));
    expect(status.delta_protocol).toBe('fail');
    expect(status.sandbox_discarded).toBe('pass');
    expect(r.passed).toBe(false);
  });
});

describe('one_writer fails on a commit by another engine', () => {
  it('a table committed under another engine name fails one_writer and nothing else', async () => {
    // Writes through the arrow engine (engineInfo lakerec-arrow/...) while claiming to be "impostor".
    const impostor: Engine = { ...arrowEngine, name: 'impostor', engineInfoPrefix: 'lakerec-impostor/', testOnly: true };
    const r = await runProof({ engines: ['duckdb', impostor] });
    expect(failed(r)).toEqual(['one_writer']);
    expect(r.checks.find((c) => c.name === 'one_writer')!.evidence[0]).toMatch(/table b version 0 was committed by lakerec-arrow\/parquet-wasm-0\.8\.0/);
  });
});

describe('governance checks fail on what they guard', () => {
  it('profile_no_leak fails when a confidential column is profiled with values', () => {
    const g = generateTable();
    const emails = g.rows.map((r) => r[8] as string | null);
    const leaky = { ...profileColumn('email', 'string', null, emails) };
    const result = { profiles: [leaky] } as unknown as ProofResult;
    const secrets = emails.filter((e): e is string => e !== null);
    const c = profileNoLeak(DECLARED_SCHEMA, [leaky], { ...result, checks: [] }, secrets);
    expect(c.status).toBe('fail');
    expect(c.evidence.join('\n')).toMatch(/profile of email holds min, max, top/);
    const masked = profileColumn('email', 'string', 'confidential', emails);
    expect(Object.keys(masked).sort()).toEqual(['distinct', 'name', 'nulls', 'rows', 'sensitivity', 'type']);
    expect(profileNoLeak(DECLARED_SCHEMA, [masked], { ...result, profiles: [masked], checks: [] }, secrets).status).toBe('pass');
  });

  it('access_d11 never passes: a warning naming the missing table access control, a failure when the sandbox is open; sandbox_discarded fails on leftovers', () => {
    expect(accessD11({ path: '/x', mode: 0o755, ownerUid: 1, currentUid: 1, platform: 'linux' }).status).toBe('fail');
    expect(accessD11({ path: '/x', mode: 0o700, ownerUid: 2, currentUid: 1, platform: 'linux' }).status).toBe('fail');
    const ok = accessD11({ path: '/x', mode: 0o700, ownerUid: 1, currentUid: 1, platform: 'linux' });
    expect(ok.status).toBe('warn');
    expect(ok.summary).toMatch(/table access control/);
    expect(ok.evidence.join('\n')).toMatch(/sandbox mode 0700/);
    expect(accessD11({ path: '/x', mode: null, ownerUid: null, currentUid: null, platform: 'win32' }).status).toBe('warn');
    expect(sandboxDiscarded('/x', ['a']).status).toBe('fail');
  });
});
