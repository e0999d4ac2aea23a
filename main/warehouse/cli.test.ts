// The installed command, run as a child process: `lakerec warehouse sql|check|list|trust`,
// `reconcile --warehouse` and `fingerprint --warehouse`, through a `type: duckdb` connection (the
// one engine reachable here) and a Trino connection to a closed loopback port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSampleLakes, type BuiltLake } from '../../sample-lakes/build';
import { s3Env, s3Putter, startS3rver, uploadFolder } from '../testing/object-servers';

const bin = join(resolve(__dirname, '..', '..'), 'main', 'bin', 'lakerec.mjs');
let dir: string;
const lakes: Record<string, BuiltLake> = {};
let env: Record<string, string>;
const PASSWORD = 'pw-0f9e8d7c6b5a';

function lakerec(args: string[], extra: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env, ...extra, LAKEREC_DEBUG: '' }, timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function lakerecAsync(args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((res) => {
    const c = spawn(process.execPath, [bin, ...args], { cwd: dir, env: { ...process.env, ...env, ...extra, LAKEREC_DEBUG: '' } });
    let out = '';
    let err = '';
    c.stdout.on('data', (b: Buffer) => { out += b.toString(); });
    c.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    const timer = setTimeout(() => c.kill('SIGKILL'), 50_000);
    c.on('close', (code) => { clearTimeout(timer); res({ code, out, err }); });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-cli-wh-'));
  for (const l of await buildSampleLakes({ out: dir, rows: 120, only: ['control', 'double_load'] })) lakes[l.name] = l;
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const closed = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  writeFileSync(join(dir, 'settings.yaml'), `connections:\n  local: { type: duckdb }\n  tr: { type: trino, host: 127.0.0.1, port: ${closed}, http_scheme: http, user: ana, password: "${PASSWORD}" }\n`);
  env = { LAKEREC_SETTINGS: join(dir, 'settings.yaml'), LAKEREC_CONFIG_DIR: join(dir, 'cfg'), HOME: join(dir, 'home') };
}, 240_000);
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe('lakerec warehouse', () => {
  it('sql prints one level for a dialect, with its identity', () => {
    const r = lakerec(['warehouse', 'sql', '--dialect', 'trino', '--level', 'checksum', '--contract', lakes.control.contractPath, '--like', lakes.control.tablePath, '--relation', 'delta.sales.orders']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('lower(to_hex(md5(to_utf8(');
    expect(r.out).toContain('FROM delta.sales.orders');
    expect(r.out).toMatch(/; sql [0-9a-f]{16}\n/);
    expect(r.out).toContain('not run against trino by lakerec');
    const bad = lakerec(['warehouse', 'sql', '--dialect', 'oracle', '--level', 'counts', '--contract', lakes.control.contractPath]);
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
  });

  it('sql derives a partition column the table lacks from the contract\'s expression, in the dialect', () => {
    const contract = join(dir, 'derived-day.yaml');
    writeFileSync(contract, 'version: 1\nkeys: [order_id]\npartitioning: { column: day, expression: "date(ts AT TIME ZONE \'UTC\')" }\ncolumns:\n  amount_float: { float: { tolerance: 1.0e-9 } }\n');
    const r = lakerec(['warehouse', 'sql', '--dialect', 'spark', '--level', 'counts', '--contract', contract, '--like', lakes.control.tablePath, '--relation', 'main.sales.orders']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('date_from_unix_date(CAST((unix_micros(`ts`) - pmod(unix_micros(`ts`), 86400000000)) div 86400000000 AS INT)) AS `day` FROM main.sales.orders) lakerec_derived');
    const bad = join(dir, 'derived-month.yaml');
    writeFileSync(bad, 'version: 1\nkeys: [order_id]\npartitioning: { column: month, expression: "strftime(ts, \'%Y-%m\')" }\n');
    const refused = lakerec(['warehouse', 'sql', '--dialect', 'trino', '--level', 'counts', '--contract', bad, '--like', lakes.control.tablePath]);
    expect(refused.code).not.toBe(0);
    expect(refused.err.trim().split('\n')).toEqual([expect.stringContaining('function strftime() has no trino translation')]);
  });

  it('check on the duckdb connection: every awkward value agrees with the local engine', () => {
    const r = lakerec(['warehouse', 'check', 'local']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\d+ awkward values, \d+ figures, 0 disagree/);
    expect(r.out).toContain('exactly as lakerec does');
  });

  it('check on a warehouse that cannot be reached: exit 3, one line, no password', () => {
    const r = lakerec(['warehouse', 'check', 'tr', '--timeout-s', '20']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^lakerec warehouse: .*trino tr: the query failed: connect ECONNREFUSED/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err + r.out).not.toContain(PASSWORD);
    const l = lakerec(['warehouse', 'list']);
    expect(l.out).toContain('tr  trino (trino)  http://127.0.0.1:');
    expect(l.out).not.toContain(PASSWORD);
  });

  it('an unknown connection is a usage error', () => {
    const r = lakerec(['warehouse', 'check', 'nobody']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no warehouse connection named nobody');
  });

  it('a connection file inside a repository is refused until trusted', () => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    writeFileSync(join(repo, 'lakerec.yaml'), 'connections:\n  theirs: { type: duckdb }\n');
    const args = ['reconcile', lakes.control.sourceParquet, lakes.control.tablePath, '--contract', lakes.control.contractPath, '--warehouse', 'theirs', '--settings', join(repo, 'lakerec.yaml')];
    const r = lakerec(args);
    expect(r.code).toBe(2);
    expect(r.err).toContain('it is not used until you trust it');
    const listed = () => lakerec(['warehouse', 'list', '--settings', join(repo, 'lakerec.yaml')]).out.split('\n').find((l) => l.startsWith('theirs '));
    expect(listed()).toContain('needs trust');
    expect(lakerec(['warehouse', 'trust', join(repo, 'lakerec.yaml')]).code).toBe(0);
    expect(lakerec(args).code).toBe(0);
    // The list says what the reconcile does: a trusted file no longer needs trust.
    expect(listed()).toMatch(/^theirs  duckdb \(duckdb\)  this machine  from .*lakerec\.yaml/);
    expect(listed()).not.toContain('needs trust');
  });
});

describe('reconcile and fingerprint --warehouse', () => {
  it('control matches with the target pushed; what ran where is reported', () => {
    const r = lakerec(['reconcile', lakes.control.sourceParquet, lakes.control.tablePath, '--contract', lakes.control.contractPath, '--warehouse', 'local', '--level', 'keys', '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { verdict: string; digest: string; findings: unknown[]; pushed: { ran: { level: string; sqlId: string; where: string; bytes: number; queryId: string | null }[]; bytesTransferred: number } };
    expect(j.verdict).toBe('matches');
    expect(j.digest).toBe('md5-canonical-v1');
    expect(j.findings).toEqual([]);
    expect(j.pushed.ran.map((x) => x.level)).toEqual(['schema', 'schema', 'checksum', 'checksum', 'checksum', 'checksum', 'keys', 'keys']);
    expect(j.pushed.ran.every((x) => /^[0-9a-f]{16}$/.test(x.sqlId) && x.bytes > 0 && x.where.startsWith('duckdb'))).toBe(true);
    expect(j.pushed.bytesTransferred).toBe(j.pushed.ran.reduce((a, x) => a + x.bytes, 0));
  });

  it('double_load diverges, both sides pushed, and the disagreeing partitions are fetched key by key', () => {
    const r = lakerec(['reconcile', lakes.double_load.sourceParquet, lakes.double_load.tablePath, '--contract', lakes.double_load.contractPath, '--warehouse', 'local', '--warehouse-side', 'both', '--level', 'rows']);
    expect(r.code).toBe(1);
    // The local reconcile's wording, from the same result object.
    expect(r.out).toMatch(/^verdict: diverges/);
    expect(r.out).toMatch(/\[x\] double_load: \d+ duplicate rows? across \d+ keys?: the target holds copies of rows the source has once/);
    expect(r.out).toMatch(/partitions \d+ \([1-9]\d* disagreeing\)/);
    expect(r.out).toContain("not examined: the target's Delta log is not read");
    expect(r.out).toMatch(/what ran where \(\d+ statement\(s\), \d+ bytes of results transferred\)/);
    expect(r.out).toMatch(/ {2}rows {5}sql [0-9a-f]{16} {2}duckdb/);
  });

  it('fingerprint --warehouse equals the local fingerprint of the same table', () => {
    const r = lakerec(['fingerprint', lakes.control.tablePath, '--warehouse', 'local', '--compare', lakes.control.tablePath]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('ods-fingerprint-v1');
    expect(r.out).toContain(`the same as ${lakes.control.tablePath}`);
  });
});

describe('fingerprint --warehouse --compare takes a table location as every table argument does', () => {
  it('a file:// location is the local table (not a path under the working folder)', () => {
    const r = lakerec(['fingerprint', lakes.control.tablePath, '--warehouse', 'local', '--compare', `file://${lakes.control.tablePath}`]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`the same as file://${lakes.control.tablePath}`);
  });

  it('an s3:// location (the table uploaded to s3rver) is read through the storage layer', async () => {
    const s3 = await startS3rver(['lake']);
    try {
      await uploadFolder(lakes.control.tablePath, 'control', await s3Putter(s3.endpoint, 'lake'));
      // Not spawnSync: s3rver runs in this process and must answer while the command runs.
      const r = await lakerecAsync(['fingerprint', lakes.control.tablePath, '--warehouse', 'local', '--compare', 's3://lake/control'], s3Env(s3.endpoint) as Record<string, string>);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toContain('the same as s3://lake/control');
    } finally {
      await s3.close();
    }
  }, 60_000);
});
