// Connections from the files users have, trust of a file that came with a folder, secrets that
// never print, and the three real drivers' refusal, error and timeout paths against loopback
// servers (no warehouse is reachable here: a closed port, and a server that accepts and never answers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { AcceptedContracts, sha256Of } from '../engine/accepted-files';
import {
  connectionSummary, findConnection, parseDatabricksCfg, parseDbtProfiles, parseSettingsConnections, parseSnowflakeToml, redact, Secret,
  type WarehouseConnection,
} from './connections';
import { assertReadOnly } from './connector';
import { remoteConnector } from './remote';

const TOKEN = 'dapi0123456789abcdef0123456789abcdef';
const PASSWORD = 'hunter2-very-secret';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-conn-')); });
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

function noSecret(x: unknown): void {
  for (const text of [JSON.stringify(x), inspect(x, { depth: 10 }), String(x)]) {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(PASSWORD);
  }
}

describe('connection files', () => {
  it('~/.databrickscfg: profiles with a token and an http_path or warehouse_id', () => {
    const cs = parseDatabricksCfg(`[DEFAULT]\nhost = https://adb-1.azuredatabricks.net/\ntoken = ${TOKEN}\nwarehouse_id = abc123\n\n[oauth]\nhost = https://x\nauth_type = databricks-cli\n`, '/home/u/.databrickscfg');
    expect(cs.map((c) => c.name)).toEqual(['DEFAULT']);
    expect(cs[0]).toMatchObject({ kind: 'databricks', host: 'adb-1.azuredatabricks.net', httpPath: '/sql/1.0/warehouses/abc123' });
    expect(cs[0].token.reveal()).toBe(TOKEN);
    noSecret(cs);
    expect(() => parseDatabricksCfg(`[p]\nhost = h\ntoken = ${TOKEN}\n`, 'f')).toThrow(/f profile p: http_path or warehouse_id is missing/);
  });

  it("Snowflake's connections.toml", () => {
    const [c] = parseSnowflakeToml(`[prod]\naccount = "xy12345.eu-west-1"\nuser = "ana"\npassword = "${PASSWORD}"\nwarehouse = "WH"\ndatabase = "DB"\nschema = "S"\n`, '/home/u/.snowflake/connections.toml');
    expect(c).toMatchObject({ kind: 'snowflake', name: 'prod', account: 'xy12345.eu-west-1', user: 'ana', warehouse: 'WH' });
    noSecret(c);
    expect(() => parseSnowflakeToml('[x\n', 'f.toml')).toThrow(/f.toml: not valid TOML/);
  });

  it("a dbt profiles.yml target, env_var() only, and the default target under the profile's name", () => {
    const yml = `jaffle:\n  target: dev\n  outputs:\n    dev:\n      type: trino\n      host: trino.internal\n      port: 8443\n      user: ana\n      password: "{{ env_var('TRINO_PW') }}"\n      database: delta\n      schema: sales\n    ci:\n      type: databricks\n      host: h.cloud.databricks.com\n      http_path: /sql/1.0/warehouses/w\n      token: "{{ env_var('DBX_TOKEN', '${TOKEN}') }}"\n`;
    const cs = parseDbtProfiles(yml, '/home/u/.dbt/profiles.yml', { TRINO_PW: PASSWORD });
    expect(cs.map((c) => c.name)).toEqual(['jaffle.dev', 'jaffle', 'jaffle.ci']);
    expect(cs[0]).toMatchObject({ kind: 'trino', server: 'https://trino.internal:8443', catalog: 'delta', schema: 'sales' });
    noSecret(cs);
    expect(() => parseDbtProfiles(`p:\n  outputs:\n    t:\n      type: trino\n      host: "{{ var('h') }}"\n      user: u\n`, 'f', {})).toThrow(/only \{\{ env_var\('NAME'\) \}\} is understood/);
    expect(() => parseDbtProfiles(`p:\n  outputs:\n    t:\n      type: trino\n      host: h\n      user: "{{ env_var('NOPE') }}"\n`, 'f', {})).toThrow(/environment variable NOPE is not set/);
  });

  it("a lakerec settings file's connections section", () => {
    const cs = parseSettingsConnections(`connections:\n  local: { type: duckdb }\n  wh: { type: snowflake, account: a, user: u, token: "${TOKEN}" }\n`, '/home/u/.config/lakerec/settings.yaml', {});
    expect(cs.map((c) => `${c.name}:${c.kind}`)).toEqual(['local:duckdb', 'wh:snowflake']);
    noSecret(cs);
    expect(() => parseSettingsConnections('connections:\n  x: { type: oracle }\n', 'f', {})).toThrow(/f connection x: type must be databricks, snowflake, trino or duckdb/);
  });

  it('a connection file inside a repository needs trust; the home files do not', () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.snowflake'), { recursive: true });
    writeFileSync(join(home, '.snowflake', 'connections.toml'), '[mine]\naccount = "a"\nuser = "u"\n');
    expect(findConnection('mine', { home, env: {}, cwd: dir }).kind).toBe('snowflake');
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    const settings = join(repo, 'lakerec.yaml');
    const text = 'connections:\n  theirs: { type: trino, host: evil.example, user: u }\n';
    writeFileSync(settings, text);
    const accepted = new AcceptedContracts(join(dir, 'cfg'), 'accepted-connection-files.json');
    expect(() => findConnection('theirs', { home, env: {}, cwd: dir, settings, trusted: accepted })).toThrow(/comes from .*lakerec.yaml, inside a repository or table folder: it is not used until you trust it/);
    accepted.accept(settings, sha256Of(text));
    expect(findConnection('theirs', { home, env: {}, cwd: dir, settings, trusted: accepted }).kind).toBe('trino');
    // A changed file must be trusted again.
    writeFileSync(settings, text.replace('evil.example', 'worse.example'));
    expect(() => findConnection('theirs', { home, env: {}, cwd: dir, settings, trusted: accepted })).toThrow(/not used until you trust it/);
    expect(() => findConnection('nobody', { home, env: {}, cwd: dir })).toThrow(/no warehouse connection named nobody in .*connections.toml/);
  });

  it('secrets: hidden in every printed form; redact() strips them and token-shaped text from a driver line', () => {
    const s = new Secret(PASSWORD);
    expect(`${s}`).toBe('[secret]');
    noSecret({ s });
    expect(redact(`login failed for password=${PASSWORD}\nstack`, [PASSWORD])).toBe('login failed for password=[secret]');
    expect(redact(`Authorization: Bearer ${TOKEN}`, [])).not.toContain(TOKEN);
  });
});

describe('read-only by construction', () => {
  it('one SELECT, VALUES or DESCRIBE, nothing else', () => {
    expect(() => assertReadOnly('-- lakerec\nSELECT 1')).not.toThrow();
    expect(() => assertReadOnly("SELECT ';' AS x")).not.toThrow();
    expect(() => assertReadOnly('DESCRIBE TABLE t')).not.toThrow();
    expect(() => assertReadOnly('DROP TABLE t')).toThrow(/only one SELECT, VALUES or DESCRIBE/);
    expect(() => assertReadOnly('SELECT 1; DROP TABLE t')).toThrow(/one statement, not several/);
    expect(() => assertReadOnly('INSERT INTO t SELECT 1')).toThrow(/refused/);
  });
});

/** A loopback server that accepts connections and never answers; and a port nothing listens on. */
let silent: Server;
let silentPort = 0;
let closedPort = 0;
const sockets = new Set<import('node:net').Socket>();
beforeAll(async () => {
  silent = createServer((sock) => { sockets.add(sock); sock.on('close', () => sockets.delete(sock)); /* accept, say nothing */ });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  silentPort = (silent.address() as { port: number }).port;
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => (silent ? silent.close(() => r()) : r()));
});

function conn(kind: 'trino' | 'databricks' | 'snowflake', port: number): WarehouseConnection {
  const origin = { file: '/home/u/x', entry: 'test', needsTrust: false };
  if (kind === 'trino') return { kind, name: 't', origin, server: `http://127.0.0.1:${port}`, user: 'ana', password: new Secret(PASSWORD), catalog: 'delta', schema: 's' };
  if (kind === 'databricks') return { kind, name: 'd', origin, host: `127.0.0.1:${port}`, httpPath: '/sql/1.0/warehouses/w', token: new Secret(TOKEN), catalog: null, schema: null };
  return { kind, name: 's', origin, account: 'acct', user: 'ana', password: new Secret(PASSWORD), token: null, authenticator: null, warehouse: null, database: null, schema: null, role: null, accessUrl: `http://127.0.0.1:${port}` };
}

describe('the real drivers against loopback: refusal, error and timeout paths (no warehouse reachable here)', () => {
  for (const kind of ['trino', 'databricks', 'snowflake'] as const) {
    it(`${kind}: a write is refused before any connection`, async () => {
      await expect(remoteConnector(conn(kind, closedPort)).query('DELETE FROM t')).rejects.toThrow(/refused/);
    });

    it(`${kind}: nothing listening is one clear line, without the secret`, async () => {
      const c = remoteConnector(conn(kind, closedPort));
      let msg = '';
      try {
        await c.query('SELECT 1', { timeoutMs: 8_000 });
      } catch (e) {
        msg = (e as Error).message;
        expect((e as { code?: string }).code).toMatch(/io_error/);
      } finally {
        await c.close();
      }
      console.log(`${kind} refused: ${msg}`);
      expect(msg).toMatch(new RegExp(`^${kind} [tds]: `));
      expect(msg).not.toContain('\n');
      expect(msg).not.toContain(TOKEN);
      expect(msg).not.toContain(PASSWORD);
      expect(connectionSummary(conn(kind, closedPort)).where).toContain('127.0.0.1');
    }, 30_000);

    it(`${kind}: a server that never answers is cancelled at the timeout`, async () => {
      const c = remoteConnector(conn(kind, silentPort));
      const t0 = Date.now();
      await expect(c.query('SELECT 1', { timeoutMs: 700 })).rejects.toThrow(/no answer within 1 s; the statement was cancelled|could not connect|the query failed/);
      expect(Date.now() - t0).toBeLessThan(10_000);
      await c.close();
    }, 30_000);

    it(`${kind}: an abort cancels`, async () => {
      const c = remoteConnector(conn(kind, silentPort));
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      await expect(c.query('SELECT 1', { signal: ac.signal, timeoutMs: 60_000 })).rejects.toThrow(/cancelled|could not connect|the query failed/);
      await c.close();
    }, 30_000);
  }
});
