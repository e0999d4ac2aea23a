// Every command's bad input in process (docs/cli.md's exit codes: 2 the invocation was wrong,
// 3 a side could not be read): one line on stderr, named by the command, never a trace; and the
// cheap good paths of the commands the window does not run (history, forensics, keys, laws,
// fingerprint's SQL, bisect, contract init, warehouse sql/list) on the double_load sample lake.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from './main';
import { progressPrinter } from './progress';
import type { CliIO } from './io';

const lake = resolve(__dirname, '..', '..', 'sample-lakes', 'built', 'double_load');
const table = join(lake, 'table');
const source = join(lake, 'source', 'orders.parquet');
const contract = join(lake, 'contract.yaml');
const cwd = mkdtempSync(join(tmpdir(), 'lakerec-cli-usage-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd, env: { HOME: cwd, LAKEREC_CONFIG_DIR: join(cwd, 'config'), LAKEREC_DATA_DIR: join(cwd, 'data') } };
  const code = await runCli(argv, io);
  return { code, out, err };
}

describe('the dispatcher', () => {
  it('no command: the help on stdout, exit 2; --help: exit 0; --version; an unknown command escaped on one line', async () => {
    const none = await cli();
    expect(none.code).toBe(2);
    expect(none.out).toContain('Exit codes: 0 nothing blocking, 1 a blocking finding, 2 the invocation was wrong, 3 a side could not be read.');
    expect((await cli('--help')).code).toBe(0);
    expect((await cli('--version')).out).toMatch(/^\d+\.\d+\.\d+/);
    const bad = await cli('hist\nory');
    expect([bad.code, bad.err]).toEqual([2, 'lakerec: unknown command "hist\\nory" (try lakerec --help)\n']);
    const usage = await cli('diff', '--help');
    expect([usage.code, usage.out]).toEqual([0, 'usage: lakerec diff TABLE --from V1 --to V2 [--keys K[,K2]] [--check] [--json] [--anonymous]\n']);
  });
});

// [argv, exit code, the one stderr line (after "lakerec COMMAND: ")]
const refusals: Array<[string[], number, RegExp]> = [
  [['history'], 2, /^usage: .*lakerec history TABLE/],
  [['history', table, '--jsn'], 2, /^usage: unknown flag --jsn$/],
  [['history', join(cwd, 'nowhere')], 3, /nowhere/],
  [['snapshot', table], 2, /^usage: --out FILE\.parquet is required/],
  [['snapshot', table, '--out', 'x.parquet', '--version', '1', '--timestamp', '2026-08-10T00:00:00Z'], 2, /^usage: --version and --timestamp cannot be used together$/],
  [['snapshot', table, '--out', 'x.parquet', '--version', '-1'], 2, /^usage: --version must be 0 or more$/],
  [['snapshot', table, '--out', 'x.parquet', '--timestamp', 'yesterday'], 2, /^usage: --timestamp "yesterday" is not an ISO 8601 timestamp/],
  [['forensics', table, '--since', 'soon'], 2, /^usage: --since soon: not a timestamp/],
  [['forensics', table, '--version', 'two'], 2, /--version/],
  [['reconcile', source, table], 2, /^usage: --contract FILE is required/],
  [['reconcile', source, table, '--contract', contract, '--level', 'deep'], 2, /^usage: --level must be one of schema, counts, checksum, keys, rows, got "deep"$/],
  [['reconcile', source, table, '--contract', contract, '--digest', 'sha1'], 2, /^usage: --digest must be md5 or fast, got "sha1"$/],
  [['bisect', table], 2, /^usage: --predicate is required/],
  [['bisect', table, '--predicate', 'pretty'], 2, /^usage: unknown predicate "pretty"/],
  [['diff', table, '--from', '1'], 2, /^usage: --from and --to are required/],
  [['diff', table, '--from', '1', '--to', '2', '--keys', ' , '], 2, /^usage: --keys needs at least one column name/],
  [['fingerprint', table, '--sql', 'oracle'], 2, /^usage: --sql must be one of duckdb, spark, snowflake, trino, got "oracle"$/],
  [['fingerprint', table, '--version', '-2'], 2, /^usage: --version must be 0 or more$/],
  [['mutate', source, table], 2, /^usage: --contract FILE is required/],
  [['mutate', source, table, '--contract', contract, '--only', 'gremlins'], 2, /^usage: --only: unknown mutant "gremlins"; one of /],
  [['mutate', source, table, '--contract', contract, '--levels', 'deep'], 2, /^usage: --levels: unknown level "deep"/],
  [['laws', source, table], 2, /^usage: --contract FILE is required/],
  [['proof', 'extra'], 2, /^usage: unexpected argument "extra"/],
  [['proof', '--rows', '5'], 2, /^usage: --rows must be between 6 and 20000$/],
  [['proof', '--engines', 'duckdb'], 2, /^usage: --engines takes two engines, A,B/],
  [['contract', 'make', source, table], 2, /^usage: usage: lakerec contract init SOURCE TABLE/],
  [['contract', 'init', join(cwd, 'no-source.parquet'), table], 3, /^source unreadable: the source .*no-source\.parquet does not exist$/],
  [['lineage'], 2, /^usage: .*lakerec lineage PROJECT/],
  [['build-sample-lakes', 'here'], 2, /^usage: unexpected argument "here"/],
  [['warehouse'], 2, /^usage: a warehouse command is needed; usage:/],
  [['warehouse', 'drop'], 2, /^usage: unknown warehouse command "drop"/],
  [['warehouse', 'sql', '--dialect', 'oracle'], 2, /^usage: --dialect must be one of /],
  [['warehouse', 'sql', '--dialect', 'spark', '--level', 'deep'], 2, /^usage: --level must be one of /],
  [['warehouse', 'sql', '--dialect', 'spark', '--level', 'counts'], 2, /^usage: --contract FILE is required/],
  [['warehouse', 'sql', '--dialect', 'spark', '--level', 'counts', '--contract', contract], 2, /^usage: --level counts needs the table's columns: --like TABLE/],
  [['warehouse', 'trust', join(cwd, 'no-such.yaml')], 3, /^not found: no file at .*no-such\.yaml$/],
];

describe('bad input: one line, the documented exit code', () => {
  it.each(refusals)('%j exits %i', async (argv, code, line) => {
    const r = await cli(...argv);
    expect(r.code).toBe(code);
    expect(r.err.endsWith('\n')).toBe(true);
    expect(r.err.slice(0, -1)).not.toContain('\n    at ');
    const prefix = `lakerec ${argv[0]}: `;
    expect(r.err.startsWith(prefix)).toBe(true);
    expect(r.err.slice(prefix.length).replace(/\n$/, '').split('\n')[0]).toMatch(line);
  });
});

describe('the good paths, on the double_load sample lake', () => {
  it('history: every version, the double load\'s rows counted; --json the same versions', async () => {
    const text = await cli('history', table);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/: 8 version\(s\), latest 7\n/);
    const json = JSON.parse((await cli('history', table, '--json')).out) as { latestVersion: number; versions: Array<{ version: number; readable: boolean }> };
    expect(json.latestVersion).toBe(7);
    expect(json.versions.map((v) => v.version)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(json.versions.every((v) => v.readable)).toBe(true);
  });

  it('forensics: the filters select versions; one version drills down', async () => {
    const all = JSON.parse((await cli('forensics', table, '--json')).out) as { versions: unknown[] };
    const one = JSON.parse((await cli('forensics', table, '--json', '--since', '2099-01-01T00:00:00Z')).out) as { versions: unknown[] };
    expect(all.versions.length).toBe(8);
    expect(one.versions.length).toBe(0);
    const text = await cli('forensics', table, '--evidence', '--wide');
    expect(text.code).toBe(0);
    const commit = await cli('forensics', table, '--version', '7', '--evidence');
    expect(commit.code).toBe(0);
    expect(commit.out).toContain('added');
    const commitJson = JSON.parse((await cli('forensics', table, '--version', '7', '--json')).out) as { summary: { version: number } };
    expect(commitJson.summary.version).toBe(7);
  });

  it('bisect: the double load is found at v7 (exit 1); --json says the same', async () => {
    const r = await cli('bisect', table, '--predicate', 'unique-keys', '--keys', 'order_id');
    expect(r.code).toBe(1);
    expect(r.out).toContain('v7');
    const j = JSON.parse((await cli('bisect', table, '--predicate', 'unique-keys', '--keys', 'order_id', '--json')).out) as { outcome: string; firstBad: number };
    expect([j.outcome, j.firstBad]).toEqual(['bad', 7]);
  });

  it('keys: the duplicated order ids fail the key (exit 1)', async () => {
    const r = await cli('keys', table, '--contract', contract);
    expect(r.code).toBe(1);
    const j = JSON.parse((await cli('keys', table, '--contract', contract, '--json')).out) as { summary: { keysFailed: number } };
    expect(j.summary.keysFailed).toBeGreaterThan(0);
  });

  it('fingerprint --sql prints the query; contract init writes a contract once and refuses to replace it', async () => {
    const sql = await cli('fingerprint', table, '--sql', 'duckdb');
    expect(sql.code).toBe(0);
    expect(sql.out).toMatch(/select/i);
    const out = join(cwd, 'c.yaml');
    const first = await cli('contract', 'init', source, table, '--out', out);
    expect(first.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/keys:/);
    const again = await cli('contract', 'init', source, table, '--out', out);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/exists: lakerec does not replace it/);
    mkdirSync(join(cwd, 'folder'), { recursive: true });
    expect((await cli('contract', 'init', source, table, '--out', join(cwd, 'folder'))).err).toMatch(/is a folder: name a file/);
    const stdout = await cli('contract', 'init', source, table);
    expect(stdout.out).toMatch(/keys:/);
  });

  it('warehouse sql at schema level needs no table; list; trust remembers a file', async () => {
    const r = await cli('warehouse', 'sql', '--dialect', 'spark', '--level', 'schema', '--contract', contract);
    expect(r.code).toBe(0);
    expect(r.out.length).toBeGreaterThan(0);
    const l = await cli('warehouse', 'list', '--json');
    expect(l.code).toBe(0);
    expect(JSON.parse(l.out)).toBeDefined();
    // trust records the file as it is now (its content hash); what it says is checked when used.
    writeFileSync(join(cwd, 'conn.yaml'), 'name: local\n');
    const t = await cli('warehouse', 'trust', join(cwd, 'conn.yaml'));
    expect([t.code, t.out]).toEqual([0, `trusted ${join(cwd, 'conn.yaml')} as it is now (a changed file must be trusted again)\n`]);
  });
});

describe('reconcile in process, on the double_load lake', () => {
  it('counts: exit 1, the double load named; --json the same verdict; --markdown written; LAKEREC_PROFILE marks the phases', async () => {
    const md = join(cwd, 'summary.md');
    let err = '';
    let out = '';
    const code = await runCli(['reconcile', source, table, '--contract', contract, '--level', 'counts', '--markdown', md, '--progress'], {
      out: (t) => { out += t; }, err: (t) => { err += t; }, cwd, env: { LAKEREC_PROFILE: '1' },
    });
    expect(code).toBe(1);
    expect(out).toContain('double_load');
    expect(err).toMatch(/\[lakerec\] phase cli ready at \d+ ms\n/);
    expect(err).toMatch(/\[lakerec\] phase done at \d+ ms\n/);
    expect(readFileSync(md, 'utf8')).toContain('double_load');
    const j = JSON.parse((await cli('reconcile', source, table, '--contract', contract, '--level', 'counts', '--json')).out) as { verdict: string; exitCode: number };
    expect([j.verdict, j.exitCode]).toEqual(['diverges', 1]);
  });

  it('checksum with a baseline written then used; the data laws beside it', async () => {
    const base = join(cwd, 'baseline.json');
    const first = await cli('reconcile', source, table, '--contract', contract, '--level', 'checksum', '--write-baseline', base, '--json');
    expect(first.code).toBe(1);
    const j = JSON.parse(first.out) as { laws?: { summary: { broken: number } } };
    expect(j.laws?.summary.broken).toBeGreaterThan(0);
    const second = await cli('reconcile', source, table, '--contract', contract, '--level', 'checksum', '--baseline', base);
    expect(second.code).toBe(1);
    expect(second.out).toMatch(/Data laws/);
  });

  it('--why: one key\'s rows on both sides (exit 0 when the same, 1 when not)', async () => {
    const dup = await cli('reconcile', source, table, '--contract', contract, '--why', 'order_id=1');
    expect(dup.out).toMatch(/^order_id=1: (same|differs|duplicated|missing in target|extra in target|absent)/);
    expect(dup.code).toBe(/^order_id=1: same/.test(dup.out) ? 0 : 1);
    const bad = await cli('reconcile', source, table, '--contract', contract, '--why', 'sku=x');
    expect([bad.code, bad.err]).toEqual([2, 'lakerec reconcile: usage: --why: "sku" is not a key column of the contract (order_id)\n']);
  });
});

describe('warehouse sql: the pushed SQL of each level, for each dialect', () => {
  it.each(['spark', 'snowflake', 'trino', 'duckdb'])('%s: every level, the rows of named partitions, a bisect over versions', async (dialect) => {
    for (const level of ['counts', 'checksum', 'keys', 'fingerprint']) {
      const r = await cli('warehouse', 'sql', '--dialect', dialect, '--level', level, '--contract', contract, '--like', table);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/-- .*; sql \S+\n/);
      expect(r.out.includes('not run against')).toBe(dialect !== 'duckdb');
    }
    const rows = await cli('warehouse', 'sql', '--dialect', dialect, '--level', 'rows', '--contract', contract, '--like', table, '--partitions', 'dt=2026-08-12', '--cap', '10', '--relation', 'sales.orders');
    expect(rows.code).toBe(0);
    expect(rows.out).toContain('orders');
    expect(rows.out).toContain('LIMIT 11');
    const b = await cli('warehouse', 'sql', '--dialect', dialect, '--level', 'bisect', '--contract', contract, '--like', table, '--versions', '5,6,7', '--predicate', 'unique-keys');
    // Only the dialects that read a Delta table at a version can bisect it where it lives.
    if (dialect === 'spark' || dialect === 'trino') expect([b.code, b.out]).toEqual([0, expect.stringContaining('unique-keys at version 5')]);
    else expect([b.code, b.err]).toEqual([2, `lakerec warehouse: usage: ${dialect} cannot read a Delta table at a version (no VERSION AS OF): bisect this table locally\n`]);
  });

  it('refuses what it cannot push: rows without partitions, laws without a day column, a bad predicate or version list', async () => {
    const base = ['warehouse', 'sql', '--dialect', 'spark', '--contract', contract, '--like', table];
    expect((await cli(...base, '--level', 'rows')).err).toMatch(/--level rows fetches the rows of the partitions that disagree: name them with --partitions/);
    expect((await cli(...base, '--level', 'bisect', '--predicate', 'matches-source')).err).toMatch(/--predicate must be no-null-keys, unique-keys or row-count/);
    expect((await cli(...base, '--level', 'laws')).err).toBe('lakerec warehouse: usage: the contract has no laws.day: the per-day totals need the day column\n');
    const v = await cli(...base, '--level', 'bisect', '--versions', '5,six');
    expect([v.code, v.err]).toEqual([2, 'lakerec warehouse: usage: --versions takes version numbers, got "six"\n']);
  });
});

describe('--progress on stderr', () => {
  it('elsewhere than a terminal: one line per phase and per quarter, the rest left out', () => {
    const lines: string[] = [];
    const p = progressPrinter((t) => lines.push(t), false);
    for (const done of [0, 10, 24, 25, 60, 100]) p.progress({ phase: 'hashing the target', done, total: 100 });
    p.progress({ phase: 'listing', done: 0, total: null });
    p.progress({ phase: 'scan', done: 5, total: 10, message: 'percent of the scan' });
    p.end();
    expect(lines).toEqual([
      'hashing the target: 0 / 100 rows (0%)\n', 'hashing the target: 25 / 100 rows (25%)\n', 'hashing the target: 60 / 100 rows (60%)\n',
      'hashing the target: 100 / 100 rows (100%)\n', 'listing…\n', 'scan: 50%\n',
    ]);
  });

  it('on a terminal: one line rewritten in place, cleared at the end', () => {
    const out: string[] = [];
    const p = progressPrinter((t) => out.push(t), true);
    p.progress({ phase: 'hashing', done: 4_000_000, total: 10_000_000 });
    p.end();
    p.end();
    expect(out).toEqual(['\r\x1b[2Khashing: 4,000,000 / 10,000,000 rows (40%)', '\r\x1b[2K']);
  });
});
