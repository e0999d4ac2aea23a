// Named warehouse connections, from the files users already have: ~/.databrickscfg profiles,
// Snowflake's connections.toml, a dbt profiles.yml target, and the `connections` section of a
// lakerec settings file. A secret is held as a Secret: it prints, serialises and inspects as
// "[secret]", and only a connector's constructor reveals it. A connection file inside a git
// repository or a table folder came with that folder, from whoever wrote it: it is not used
// until the user trusts it (path and content hash, as contracts found beside a table are).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { LakerecError } from '../../shared/errors';
import { createHash } from 'node:crypto';
import type { Dialect } from './dialect';

const HIDDEN = '[secret]';

/** A credential: never printed, serialised or inspected; reveal() is for a driver's constructor only. */
export class Secret {
  readonly #value: string;
  constructor(value: string) { this.#value = value; }
  reveal(): string { return this.#value; }
  toString(): string { return HIDDEN; }
  toJSON(): string { return HIDDEN; }
  [Symbol.for('nodejs.util.inspect.custom')](): string { return HIDDEN; }
}

export type WarehouseKind = 'databricks' | 'snowflake' | 'trino' | 'duckdb';

export interface ConnectionOrigin {
  file: string;
  /** "~/.databrickscfg profile prod", "profiles.yml jaffle.dev". */
  entry: string;
  /** The file lives in a git repository or a table folder: it needs the user's trust. */
  needsTrust: boolean;
}

interface Base { name: string; origin: ConnectionOrigin }
export interface DatabricksConnection extends Base { kind: 'databricks'; host: string; httpPath: string; token: Secret; catalog: string | null; schema: string | null }
export interface SnowflakeConnection extends Base {
  kind: 'snowflake'; account: string; user: string; password: Secret | null; token: Secret | null; authenticator: string | null;
  warehouse: string | null; database: string | null; schema: string | null; role: string | null; accessUrl: string | null;
}
export interface TrinoConnection extends Base { kind: 'trino'; server: string; user: string; password: Secret | null; catalog: string | null; schema: string | null }
export interface DuckdbConnection extends Base { kind: 'duckdb' }
export type WarehouseConnection = DatabricksConnection | SnowflakeConnection | TrinoConnection | DuckdbConnection;

export const DIALECT_OF: Record<WarehouseKind, Dialect> = { databricks: 'spark', snowflake: 'snowflake', trino: 'trino', duckdb: 'duckdb' };

/** Every secret of a connection (to strip from any error line a driver produces). */
export function secretsOf(c: WarehouseConnection): string[] {
  const s: (Secret | null)[] = c.kind === 'databricks' ? [c.token] : c.kind === 'snowflake' ? [c.password, c.token] : c.kind === 'trino' ? [c.password] : [];
  return s.filter((x): x is Secret => x !== null).map((x) => x.reveal()).filter((x) => x.length > 0);
}

/** A driver's error as one line with every secret (and anything shaped like a bearer token) removed. */
export function redact(message: string, secrets: string[]): string {
  let m = message.split('\n')[0];
  for (const s of secrets) if (s.length >= 4) m = m.split(s).join(HIDDEN);
  return m.replace(/(bearer|token|password|pwd|secret)(["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi, `$1$2${HIDDEN}`).replace(/dapi[0-9a-f]{20,}/gi, HIDDEN);
}

// ---- where a file lives ----

/** A file inside a git repository or a Delta table folder came with that folder. */
export function cameWithAFolder(file: string): boolean {
  let d = dirname(resolve(file));
  for (;;) {
    if (existsSync(join(d, '.git')) || existsSync(join(d, '_delta_log'))) return true;
    const up = dirname(d);
    if (up === d) return false;
    d = up;
  }
}

function origin(file: string, entry: string): ConnectionOrigin {
  return { file: resolve(file), entry, needsTrust: cameWithAFolder(file) };
}

// ---- readers ----

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : typeof v === 'number' ? String(v) : null);

function required(v: string | null, what: string, where: string): string {
  if (v === null) throw new LakerecError('usage', `${where}: ${what} is missing`);
  return v;
}

/** dbt's `{{ env_var('NAME') }}` (and the two-argument default form); any other Jinja is refused. */
export function dbtValue(v: unknown, where: string, env: Record<string, string | undefined>): string | null {
  const s = str(v);
  if (s === null || !s.includes('{{')) return s;
  const m = /^\s*\{\{\s*env_var\(\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*(?:,\s*['"]([^'"]*)['"]\s*)?\)\s*\}\}\s*$/.exec(s);
  if (!m) throw new LakerecError('usage', `${where}: only {{ env_var('NAME') }} is understood in a dbt profile value`);
  const val = env[m[1]] ?? m[2];
  if (val === undefined) throw new LakerecError('usage', `${where}: environment variable ${m[1]} is not set`);
  return val;
}

/** ~/.databrickscfg: INI sections of host, token, and http_path or warehouse_id. */
export function parseDatabricksCfg(text: string, file: string): DatabricksConnection[] {
  const out: DatabricksConnection[] = [];
  const sections = new Map<string, Record<string, string>>();
  let cur: Record<string, string> | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const sec = /^\[([^\]]+)\]$/.exec(line);
    if (sec) { cur = {}; sections.set(sec[1].trim(), cur); continue; }
    const kv = /^([A-Za-z0-9_.-]+)\s*=\s*(.*)$/.exec(line);
    if (kv && cur) cur[kv[1].toLowerCase()] = kv[2].trim();
  }
  for (const [profile, v] of sections) {
    if (!v.host || !v.token) continue; // not a SQL-capable profile (OAuth, Azure CLI): skipped
    const where = `${file} profile ${profile}`;
    const httpPath = v.http_path ?? (v.warehouse_id ? `/sql/1.0/warehouses/${v.warehouse_id}` : null);
    out.push({
      kind: 'databricks', name: profile, origin: origin(file, `profile ${profile}`),
      host: v.host.replace(/^https?:\/\//, '').replace(/\/+$/, ''), httpPath: required(httpPath, 'http_path or warehouse_id', where), token: new Secret(v.token),
      catalog: v.catalog ?? null, schema: v.schema ?? null,
    });
  }
  return out;
}

/** Snowflake's connections.toml: one table per connection. */
export function parseSnowflakeToml(text: string, file: string): SnowflakeConnection[] {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new LakerecError('usage', `${file}: not valid TOML (${(e as Error).message.split('\n')[0]})`);
  }
  const out: SnowflakeConnection[] = [];
  for (const [name, v] of Object.entries(doc)) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
    out.push(snowflakeFrom(name, v as Record<string, unknown>, origin(file, `connection ${name}`), (x) => str(x)));
  }
  return out;
}

function snowflakeFrom(name: string, v: Record<string, unknown>, o: ConnectionOrigin, val: (x: unknown) => string | null): SnowflakeConnection {
  const where = `${o.file} ${o.entry}`;
  const password = val(v.password);
  const token = val(v.token);
  return {
    kind: 'snowflake', name, origin: o,
    account: required(val(v.account), 'account', where), user: required(val(v.user), 'user', where),
    password: password === null ? null : new Secret(password), token: token === null ? null : new Secret(token),
    authenticator: val(v.authenticator), warehouse: val(v.warehouse), database: val(v.database), schema: val(v.schema), role: val(v.role),
    accessUrl: val(v.access_url ?? v.accessUrl),
  };
}

function yamlDoc(text: string, file: string): unknown {
  try {
    return parseYaml(text);
  } catch (e) {
    throw new LakerecError('usage', `${file}: not valid YAML (${(e as Error).message.split('\n')[0]})`);
  }
}

/** A dbt profiles.yml: each profile's targets, named `profile.target` (the default target also as `profile`). */
export function parseDbtProfiles(text: string, file: string, env: Record<string, string | undefined> = process.env): WarehouseConnection[] {
  const doc = yamlDoc(text, file);
  const out: WarehouseConnection[] = [];
  if (typeof doc !== 'object' || doc === null) return out;
  for (const [profile, p] of Object.entries(doc as Record<string, unknown>)) {
    if (profile === 'config' || typeof p !== 'object' || p === null) continue;
    const outputs = (p as { outputs?: unknown }).outputs;
    const def = str((p as { target?: unknown }).target);
    if (typeof outputs !== 'object' || outputs === null) continue;
    for (const [target, t] of Object.entries(outputs as Record<string, unknown>)) {
      if (typeof t !== 'object' || t === null) continue;
      const o = origin(file, `dbt ${profile}.${target}`);
      const where = `${file} ${profile}.${target}`;
      const val = (x: unknown) => dbtValue(x, where, env);
      const c = dbtConnection(`${profile}.${target}`, t as Record<string, unknown>, o, val, where);
      if (!c) continue;
      out.push(c);
      if (target === def) out.push({ ...c, name: profile });
    }
  }
  return out;
}

function dbtConnection(name: string, t: Record<string, unknown>, o: ConnectionOrigin, val: (x: unknown) => string | null, where: string): WarehouseConnection | null {
  switch (val(t.type)) {
    case 'databricks': {
      const token = required(val(t.token), 'token', where);
      return { kind: 'databricks', name, origin: o, host: required(val(t.host), 'host', where).replace(/^https?:\/\//, ''), httpPath: required(val(t.http_path), 'http_path', where), token: new Secret(token), catalog: val(t.catalog), schema: val(t.schema) };
    }
    case 'snowflake': return snowflakeFrom(name, t, o, val);
    case 'trino': {
      const scheme = val(t.http_scheme) ?? 'https';
      const port = val(t.port) ?? (scheme === 'http' ? '8080' : '443');
      const password = val(t.password);
      return { kind: 'trino', name, origin: o, server: `${scheme}://${required(val(t.host), 'host', where)}:${port}`, user: required(val(t.user), 'user', where), password: password === null ? null : new Secret(password), catalog: val(t.database) ?? val(t.catalog), schema: val(t.schema) };
    }
    case 'duckdb': return { kind: 'duckdb', name, origin: o };
    default: return null;
  }
}

/** A lakerec settings file's `connections:` section: name -> { type: databricks|snowflake|trino|duckdb, ... } (dbt's field names). */
export function parseSettingsConnections(text: string, file: string, env: Record<string, string | undefined> = process.env): WarehouseConnection[] {
  const doc = yamlDoc(text, file);
  const conns = (doc as { connections?: unknown } | null)?.connections;
  if (conns === undefined || conns === null) return [];
  if (typeof conns !== 'object' || Array.isArray(conns)) throw new LakerecError('usage', `${file}: connections must be a map of name to connection`);
  const out: WarehouseConnection[] = [];
  for (const [name, t] of Object.entries(conns as Record<string, unknown>)) {
    if (typeof t !== 'object' || t === null) throw new LakerecError('usage', `${file}: connection ${name} must be a map`);
    const where = `${file} connection ${name}`;
    const c = dbtConnection(name, t as Record<string, unknown>, origin(file, `connection ${name}`), (x) => dbtValue(x, where, env), where);
    if (!c) throw new LakerecError('usage', `${where}: type must be databricks, snowflake, trino or duckdb`);
    out.push(c);
  }
  return out;
}

// ---- finding a connection by name ----

export interface ConnectionFiles {
  settings?: string | null;
  home?: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** The files looked in, in order: the settings file, ~/.databrickscfg, Snowflake's, dbt's. */
export function connectionFiles(o: ConnectionFiles): { file: string; read: (text: string, file: string) => WarehouseConnection[] }[] {
  const home = o.home ?? homedir();
  const env = o.env ?? process.env;
  const cwd = o.cwd ?? process.cwd();
  const out: { file: string; read: (text: string, file: string) => WarehouseConnection[] }[] = [];
  const settings = o.settings ?? env.LAKEREC_SETTINGS ?? join(home, '.config', 'lakerec', 'settings.yaml');
  out.push({ file: resolve(cwd, settings), read: (t, f) => parseSettingsConnections(t, f, env) });
  out.push({ file: env.DATABRICKS_CONFIG_FILE ?? join(home, '.databrickscfg'), read: parseDatabricksCfg });
  out.push({ file: join(env.SNOWFLAKE_HOME ?? join(home, '.snowflake'), 'connections.toml'), read: parseSnowflakeToml });
  out.push({ file: join(env.DBT_PROFILES_DIR ? resolve(cwd, env.DBT_PROFILES_DIR) : join(home, '.dbt'), 'profiles.yml'), read: (t, f) => parseDbtProfiles(t, f, env) });
  return out;
}

const MAX_FILE_BYTES = 1024 * 1024;

/** The connection of that name from the first file that has it; refused when its file needs trust the user has not given. */
/** What remembers the files a user trusted (main/app/contract-trust.ts's AcceptedContracts). */
export interface TrustedFiles { isAccepted(path: string, sha256: string): boolean }

export function findConnection(name: string, o: ConnectionFiles & { trusted?: TrustedFiles | null } = {}): WarehouseConnection {
  const looked: string[] = [];
  for (const { file, read } of connectionFiles(o)) {
    if (!existsSync(file)) continue;
    looked.push(file);
    if (statSync(file).size > MAX_FILE_BYTES) throw new LakerecError('usage', `${file} is larger than 1 MB; a connection file is short`);
    const text = readFileSync(file, 'utf8');
    const c = read(text, file).find((x) => x.name === name);
    if (!c) continue;
    if (c.origin.needsTrust && !(o.trusted?.isAccepted(file, createHash('sha256').update(text).digest('hex')) ?? false)) {
      throw new LakerecError('usage', `connection ${name} comes from ${file}, inside a repository or table folder: it is not used until you trust it (lakerec warehouse trust ${file})`);
    }
    return c;
  }
  throw new LakerecError('usage', `no warehouse connection named ${name}${looked.length ? ` in ${looked.join(', ')}` : ' (no connection file found: a lakerec settings file, ~/.databrickscfg, ~/.snowflake/connections.toml or ~/.dbt/profiles.yml)'}`);
}


/** What the report and the window may show of a connection: no secret, ever. */
export function connectionSummary(c: WarehouseConnection): { name: string; kind: WarehouseKind; dialect: Dialect; where: string; from: string } {
  const where = c.kind === 'databricks' ? `https://${c.host}${c.httpPath}` : c.kind === 'snowflake' ? (c.accessUrl ?? `${c.account}.snowflakecomputing.com`) : c.kind === 'trino' ? c.server : 'this machine';
  return { name: c.name, kind: c.kind, dialect: DIALECT_OF[c.kind], where, from: `${c.origin.file} (${c.origin.entry})` };
}
