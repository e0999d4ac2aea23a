// The polars engine (Rust Polars through nodejs-polars): every pair with duckdb and arrow runs the
// 12 checks end to end with the sandbox discarded; what Polars changes is named by column; a
// deliberately lossy Polars write is caught by the check that should catch it; and where the
// native module cannot load, asking for polars is refused in one line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { ProofResult } from '../../shared/proof';
import { columnCells } from './cells';
import { duckdbEngine } from './engines/duckdb';
import { mapsAsEntries, polarsAvailability, readParquetPolars, tryLoad, unavailableLine } from './engines/polars';
import { generateTable } from './generate';
import { runProof } from './run';

const avail = polarsAvailability();
if (!avail.available) console.log(`skipping the polars engine's proofs: ${avail.reason}`);

function failed(r: ProofResult): string[] {
  return r.checks.filter((c) => c.status === 'fail').map((c) => c.name).sort();
}
function evidence(r: ProofResult, name: string): string {
  return r.checks.find((c) => c.name === name)!.evidence.join('\n');
}

// Polars has no map type: whatever it writes, `attrs` (map<string,long>) is in its file as a list
// of key/value structs, so every pair where Polars writes fails these three, naming attrs.
const MAP_LOST = ['declared_schema', 'rows_identical', 'schema_match'];

describe.skipIf(!avail.available)('round-trip proofs with polars', () => {
  const pairs: [string, string, string[]][] = [
    ['polars', 'duckdb', MAP_LOST],
    ['polars', 'arrow', MAP_LOST],
    ['arrow', 'polars', MAP_LOST],
    ['polars', 'polars', MAP_LOST],
    // Polars reading DuckDB's MAP column turns its null maps into empty lists: the nulls differ.
    ['duckdb', 'polars', [...MAP_LOST, 'fingerprints_match'].sort()],
  ];
  for (const [a, b, want] of pairs) {
    it(`${a} -> ${b}: 12 checks, every step run, the sandbox discarded; fails exactly ${want.join(', ')}`, async () => {
      const r = await runProof({ engines: [a, b] });
      expect(r.checks).toHaveLength(12);
      expect(r.steps.map((s) => s.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
      expect(failed(r)).toEqual(want);
      expect(r.checks.find((c) => c.name === 'access_d11')!.status).toBe('warn');
      expect(r.checks.find((c) => c.name === 'sandbox_discarded')!.status).toBe('pass');
      expect(existsSync(r.sandbox)).toBe(false);
      // The finding names the column and what changed.
      expect(evidence(r, 'schema_match')).toMatch(/attrs is array<struct<key:string,value:long>>, declared map<string,long> \(nested type changed: the map became a list of key\/value structs\)/);
      expect(evidence(r, 'rows_identical')).toMatch(/attrs: generated \{"map"/);
      if (want.includes('fingerprints_match')) expect(evidence(r, 'fingerprints_match')).toMatch(/b_read \(typescript-arrow\) attrs: 6 null map\(s\) generated, 0 found/);
      // Polars committed under its own name.
      expect(evidence(r, 'one_writer')).toMatch(/engineInfo lakerec-polars\/nodejs-polars-0\.25\.2/);
    }, 60_000);
  }

  it('when Polars reads a map, the change back to the log\'s map type is named in schema_match', async () => {
    const r = await runProof({ engines: ['arrow', 'polars'] });
    expect(evidence(r, 'schema_match')).toMatch(/polars's read of table a changed attrs: Polars read the map as array<struct<key:string,value:long>> \(Polars has no map type\); rebuilt as the log's map<string,long>/);
    // ... and with that, Polars' read of a equals the generated data's fingerprint.
    expect(r.steps.find((s) => s.id === 'b_read')!.differences).toEqual([]);
  }, 60_000);

  it('a Polars write that turns NaN into null (fill_nan(null)) is caught by fingerprints_match, naming the columns', async () => {
    const r = await runProof({ engines: ['arrow', 'lossy-polars-nan'], testDoubles: true });
    expect(failed(r)).toEqual([...MAP_LOST, 'fingerprints_match'].sort());
    expect(evidence(r, 'fingerprints_match')).toMatch(/b_write \(duckdb-sql\) ratio: NaN became null \(1 value\(s\)\)/);
    expect(evidence(r, 'fingerprints_match')).toMatch(/ratio32: NaN became null/);
    expect(evidence(r, 'rows_identical')).toMatch(/ratio: generated "NaN", read null/);
  }, 60_000);

  it('a Polars write that narrows a decimal is caught by schema_match and fingerprints_match as a decimal re-inferred', async () => {
    const r = await runProof({ engines: ['arrow', 'lossy-polars-decimal'], testDoubles: true });
    expect(failed(r)).toEqual([...MAP_LOST, 'fingerprints_match'].sort());
    expect(evidence(r, 'schema_match')).toMatch(/precise is decimal\(38,2\), declared decimal\(38,10\) \(decimal re-inferred\)/);
    expect(evidence(r, 'fingerprints_match')).toMatch(/precise\.hash/);
  }, 60_000);

  it('finding: nodejs-polars 0.25.2 imports a null Arrow map as an empty list; the engine hands it the list itself', async () => {
    const pl = (tryLoad('nodejs-polars') as { pl: typeof import('nodejs-polars') }).pl;
    const g = generateTable();
    const viaMap = A.tableFromIPC(new Uint8Array(pl.readIPCStream(Buffer.from(A.tableToIPC(g.arrow, 'stream'))).writeIPCStream()));
    expect(g.arrow.getChild('attrs')!.nullCount).toBe(6);
    expect(viaMap.getChild('attrs')!.nullCount).toBe(0);
    const viaList = A.tableFromIPC(new Uint8Array(pl.readIPCStream(Buffer.from(A.tableToIPC(mapsAsEntries(g.arrow), 'stream'))).writeIPCStream()));
    expect(viaList.getChild('attrs')!.nullCount).toBe(6);
  });

  it('finding: Polars reads the null maps of a DuckDB-written Parquet file as empty lists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lakerec-polars-find-'));
    try {
      const g = generateTable();
      await duckdbEngine.write(join(dir, 't'), g.arrow);
      const file = readdirSync(join(dir, 't')).find((f) => f.endsWith('.parquet'))!;
      const t = readParquetPolars(new Uint8Array(readFileSync(join(dir, 't', file))));
      const i = t.schema.fields.findIndex((f) => f.name === 'attrs');
      expect(columnCells(t, i).filter((c) => c === null)).toHaveLength(0);
      const words = t.schema.fields.findIndex((f) => f.name === 'words');
      // A list column of the same file keeps its nulls: the loss is the map's.
      expect(columnCells(t, words).filter((c) => c === null).length).toBe(g.arrow.getChild('words')!.nullCount);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  it('an INT96 timestamp outside 1677-2262 (Spark\'s default) is refused by name by the polars engine', async () => {
    const root = join(__dirname, '..', '..', '..', 'shared', 'conformance', 'delta-rs', 'table_with_edge_timestamps');
    if (!existsSync(root)) { console.log(`skipping: ${root} is absent`); return; }
    const { polarsEngine } = await import('./engines/polars');
    const e = await polarsEngine.read(root).then(() => null, (x: unknown) => x as { code: string; message: string; detail?: Record<string, unknown> });
    expect(e?.code).toBe('unsupported_feature');
    expect(e?.message).toMatch(/column "BIG_DATE" .* read by the polars engine as nanoseconds \(an INT96 timestamp\), which only cover 1677-09-21 to 2262-04-11/);
    expect(e?.detail?.feature).toBe('int96Timestamps');
  });
});

const conformance = join(__dirname, '..', '..', '..', 'shared', 'conformance');

describe.skipIf(!avail.available || !existsSync(conformance))('the polars engine on real tables with deletion vectors', () => {
  it('applies deletion vectors as the protocol says: its rows and fingerprint equal our reader\'s (DuckDB SQL)', async () => {
    const { polarsEngine } = await import('./engines/polars');
    const { fingerprintArrow } = await import('./fingerprint');
    const { compareFingerprints } = await import('../../shared/fingerprint');
    let checked = 0;
    for (const root of [join(conformance, 'delta-rs', 'table-with-dv-small'), join(conformance, 'golden', 'dv-partitioned-with-checkpoint', 'delta')]) {
      if (!existsSync(root)) continue;
      const viaDuck = (await duckdbEngine.read(root)).table;
      const viaPolars = await polarsEngine.read(root);
      // Not vacuous: the DVs delete rows the files still hold.
      const { openTable } = await import('../delta/open');
      const snap = await (await openTable(root)).snapshot();
      expect(snap.files.some((f) => f.deletionVector)).toBe(true);
      const stored = snap.files.reduce((n, f) => n + (f.stats?.numRecords ?? 0), 0);
      expect(viaPolars.table.numRows).toBeLessThan(stored);
      expect(viaPolars.table.numRows).toBe(viaDuck.numRows);
      expect(compareFingerprints(fingerprintArrow(viaDuck), fingerprintArrow(viaPolars.table))).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('where nodejs-polars cannot load', () => {
  it('the refusal is one line naming the module and how to install it', () => {
    const r = tryLoad('nodejs-polars-that-is-not-installed');
    expect('error' in r).toBe(true);
    const line = unavailableLine((r as { error: string }).error);
    expect(line).not.toMatch(/\n/);
    expect(line).toMatch(/^the polars engine is not available here: nodejs-polars 0\.25\.2 could not load its native module \(Cannot find module 'nodejs-polars-that-is-not-installed'/);
    expect(line).toMatch(/npm i --no-save --force nodejs-polars-linux-x64-gnu@0\.25\.2/);
  });
});

describe('the installed command where nodejs-polars cannot load', () => {
  const repo = join(__dirname, '..', '..');
  // A preload that makes every require of nodejs-polars fail, as on a machine without its build.
  const blocker = join(tmpdir(), `lakerec-block-polars-${process.pid}.cjs`);
  const run = (args: string[]) => {
    writeFileSync(blocker, "const M = require('module'); const load = M._load; M._load = function (r, ...a) { if (String(r).startsWith('nodejs-polars')) throw new Error(\"Cannot find module '\" + r + \"' (blocked by the test)\"); return load.call(this, r, ...a); };\n");
    const dataDir = mkdtempSync(join(tmpdir(), 'lakerec-nopolars-'));
    try {
      return spawnSync(process.execPath, ['--require', blocker, join(repo, 'main', 'bin', 'lakerec.mjs'), ...args], { encoding: 'utf8', env: { ...process.env, LAKEREC_DATA_DIR: dataDir } });
    } finally { rmSync(dataDir, { recursive: true, force: true }); }
  };

  it('the other engines still run, and asking for polars is refused in one line (exit 2)', () => {
    const ok = run(['proof', '--engines', 'duckdb,arrow']);
    expect(ok.status, ok.stderr).toBe(0);
    const refused = run(['proof', '--engines', 'polars,duckdb']);
    expect(refused.status).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^lakerec proof: usage: the polars engine is not available here: nodejs-polars 0\.25\.2 could not load its native module \(Cannot find module 'nodejs-polars' \(blocked by the test\)\)/);
    rmSync(blocker, { force: true });
  }, 120_000);
});
