// A dbt project folder as lineage reads it: dbt_project.yml, the models' SQL files, seeds (CSV),
// sources (YAML, with a location lakerec can read: meta.external_location, or meta.lakerec
// {location, version} for a Delta table at a chosen version), macros, and, when dbt has run,
// target/manifest.json and target/compiled. Read only; a file that is not a regular file, or is
// over the size limit, is refused by name.
import { existsSync, fstatSync, lstatSync, openSync, closeSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { LakerecError } from '../../shared/errors';

export interface DbtModel {
  name: string;
  /** Relative to the project root. */
  path: string;
  raw: string;
  /** dbt's compiled SQL for it (target/manifest.json or target/compiled), when present. */
  compiled: string | null;
  /**
   * Where the model writes its table, when its YAML says (config.location, as dbt-duckdb's external
   * materialization names it, or meta.lakerec.table), resolved against the project; else null.
   */
  location: string | null;
  /** The relation name dbt gave it (the manifest's alias, from config(alias=...)), when it differs from its name. */
  alias: string | null;
}
export interface DbtSeed { name: string; path: string }
export interface DbtSource {
  source: string;
  table: string;
  /** The relation name the compiled SQL uses (identifier, else the table's name). */
  identifier: string;
  schema: string;
  /** A CSV or Parquet file, or a Delta table folder; null when the project gives none. */
  location: string | null;
  /** A Delta table's version to read (null: the latest). */
  version: number | null;
}
export interface DbtProject {
  root: string;
  name: string;
  vars: Record<string, unknown>;
  models: DbtModel[];
  seeds: DbtSeed[];
  sources: DbtSource[];
  macros: { path: string; text: string }[];
  /** Whether target/manifest.json was read. */
  manifest: boolean;
}

const MAX_FILE = 8 * 1024 * 1024;
const MAX_FILES = 20_000;

/** A regular file's text, at most MAX_FILE bytes; anything else is refused with one line. */
export function readText(path: string): string {
  const st = lstatSync(path);
  if (!st.isFile()) throw new LakerecError('not_a_regular_file', `${path} is not a regular file`);
  if (st.size > MAX_FILE) throw new LakerecError('usage', `${path} is larger than ${MAX_FILE} bytes`);
  const fd = openSync(path, 'r');
  try {
    if (!fstatSync(fd).isFile()) throw new LakerecError('not_a_regular_file', `${path} is not a regular file`);
    return readFileSync(fd, 'utf8');
  } finally { closeSync(fd); }
}

/** Files under `dir` ending in `ext`, sorted; symbolic links are not followed. */
function walk(dir: string, ext: string, out: string[] = []): string[] {
  if (!existsSync(dir) || !lstatSync(dir).isDirectory()) return out;
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (out.length >= MAX_FILES) throw new LakerecError('usage', `more than ${MAX_FILES} files under ${dir}`);
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, ext, out);
    else if (e.isFile() && e.name.toLowerCase().endsWith(ext)) out.push(p);
  }
  return out;
}

function yamlOf(path: string): unknown {
  try {
    return parseYaml(readText(path), { maxAliasCount: 100 });
  } catch (e) {
    if (e instanceof LakerecError) throw e;
    throw new LakerecError('usage', `${path} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
}

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strs = (v: unknown, dflt: string[]): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : dflt);

/** Whether `dir` holds a dbt project. */
export function isDbtProject(dir: string): boolean {
  return existsSync(join(dir, 'dbt_project.yml'));
}

export function loadDbtProject(dirIn: string): DbtProject {
  const root = resolve(dirIn);
  const cfg = obj(yamlOf(join(root, 'dbt_project.yml')));
  const name = typeof cfg.name === 'string' ? cfg.name : basename(root);
  const inside = (p: string): string => {
    const abs = resolve(root, p);
    if (abs !== root && !abs.startsWith(root + sep)) throw new LakerecError('usage', `dbt_project.yml names a folder outside the project: ${p}`);
    return abs;
  };
  const modelDirs = strs(cfg['model-paths'] ?? cfg['source-paths'], ['models']).map(inside);
  const seedDirs = strs(cfg['seed-paths'] ?? cfg['data-paths'], ['seeds']).map(inside);
  const macroDirs = strs(cfg['macro-paths'], ['macros']).map(inside);
  const targetDir = inside(typeof cfg['target-path'] === 'string' ? cfg['target-path'] : 'target');

  // vars: global ones, then this project's scope.
  const varsCfg = obj(cfg.vars);
  const vars: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(varsCfg)) if (k !== name) vars[k] = v;
  Object.assign(vars, obj(varsCfg[name]));

  const models: DbtModel[] = [];
  for (const d of modelDirs) for (const f of walk(d, '.sql')) models.push({ name: basename(f, extname(f)), path: relative(root, f), raw: readText(f), compiled: null, location: null, alias: null });
  const dup = models.find((m, i) => models.findIndex((x) => x.name === m.name) !== i);
  if (dup) throw new LakerecError('usage', `two models are named ${dup.name}; dbt names a model by its file`);

  const seeds: DbtSeed[] = [];
  for (const d of seedDirs) for (const f of walk(d, '.csv')) seeds.push({ name: basename(f, '.csv'), path: f });

  const sources: DbtSource[] = [];
  for (const d of modelDirs) {
    for (const f of [...walk(d, '.yml'), ...walk(d, '.yaml')]) {
      const doc = obj(yamlOf(f));
      for (const mm of list(doc.models)) {
        const m = obj(mm);
        const model = models.find((x) => x.name === m.name);
        const loc = obj(m.config).location ?? obj(obj(m.meta).lakerec).table;
        if (model && typeof loc === 'string') model.location = isAbsolute(loc) ? loc : resolve(root, loc);
      }
      for (const src of list(doc.sources)) {
        const s = obj(src);
        const sname = String(s.name ?? '');
        const schema = typeof s.schema === 'string' ? s.schema : sname;
        for (const t of list(s.tables)) {
          const tt = obj(t);
          const meta = { ...obj(s.meta), ...obj(tt.meta) };
          const lk = obj(meta.lakerec);
          const loc = typeof lk.location === 'string' ? lk.location : typeof meta.external_location === 'string' ? meta.external_location : null;
          const table = String(tt.name ?? '');
          sources.push({
            source: sname, table, schema,
            identifier: typeof tt.identifier === 'string' ? tt.identifier : table,
            location: loc === null ? null : isAbsolute(loc) ? loc : resolve(root, loc),
            version: typeof lk.version === 'number' ? lk.version : null,
          });
        }
      }
    }
  }

  const macros: { path: string; text: string }[] = [];
  for (const d of macroDirs) for (const f of walk(d, '.sql')) macros.push({ path: relative(root, f), text: readText(f) });

  // dbt's own compilation, when it ran: the manifest's compiled_code, else target/compiled/<project>/<path>.
  let manifest = false;
  const manifestPath = join(targetDir, 'manifest.json');
  const byPath = new Map(models.map((m) => [m.path.split(sep).join('/'), m]));
  if (existsSync(manifestPath)) {
    let doc: unknown;
    try { doc = JSON.parse(readText(manifestPath)); } catch (e) {
      throw new LakerecError('usage', `${manifestPath} is not valid JSON: ${(e as Error).message.split('\n')[0]}`);
    }
    manifest = true;
    for (const n of Object.values(obj(obj(doc).nodes))) {
      const node = obj(n);
      if (node.resource_type !== 'model') continue;
      const m = byPath.get(String(node.original_file_path ?? '')) ?? models.find((x) => x.name === node.name);
      const code = node.compiled_code ?? node.compiled_sql;
      if (m && typeof code === 'string') m.compiled = code;
      if (m && typeof node.alias === 'string' && node.alias !== m.name) m.alias = node.alias;
    }
  }
  for (const m of models) {
    if (m.compiled !== null) continue;
    const p = join(targetDir, 'compiled', name, m.path);
    if (existsSync(p)) m.compiled = readText(p);
  }
  return { root, name, vars, models, seeds, sources, macros, manifest };
}
