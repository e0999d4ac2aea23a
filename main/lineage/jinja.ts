// dbt's Jinja rendered by lakerec, for a project with no compiled SQL: nunjucks (Jinja's
// JavaScript sibling) with the context dbt gives a model. ADR 0011 lists where this differs from
// dbt's own Jinja. Rendering reads no environment variable without a default, runs no query and
// opens no connection: a macro that needs the warehouse (run_query, statement) is an error that
// names it.
import nunjucks from 'nunjucks';
import { LakerecError } from '../../shared/errors';

/** A relation as dbt's Jinja shows it: printed as a quoted identifier. */
export class Relation {
  constructor(readonly schema: string | null, readonly identifier: string) {}
  get name(): string { return this.identifier; }
  get table(): string { return this.identifier; }
  get database(): string { return 'memory'; }
  toString(): string {
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    return this.schema ? `${q(this.schema)}.${q(this.identifier)}` : q(this.identifier);
  }
  render(): string { return this.toString(); }
  include(): Relation { return this; }
}

export interface RenderProject {
  name: string;
  /** Project vars (dbt_project.yml `vars`, global and this project's). */
  vars: Record<string, unknown>;
  /** Macro files' text, in a stable order. */
  macros: { path: string; text: string }[];
  /** The relation a ref names, or null when the project has no such model or seed. */
  ref(name: string): Relation | null;
  /** The relation a source table names, or null. */
  source(source: string, table: string): Relation | null;
  /** A relation's columns when known (dbt_utils.star, adapter.get_columns_in_relation), else null. */
  columnsOf(rel: Relation): string[] | null;
}

export interface Rendered {
  sql: string;
  /** What config() set (materialized, alias, ...). */
  config: Record<string, unknown>;
  refs: string[];
  sources: [string, string][];
}

class ReturnSignal {
  constructor(readonly value: unknown) {}
}

/** `{% do expr %}`: evaluates an expression for its effect (dbt's `do return(...)`, `do list.append(x)`). */
class DoExtension {
  tags = ['do'];
  parse(parser: { nextToken(): { value: string }; parseSignature(a: null, b: boolean): unknown; advanceAfterBlockEnd(v: string): void }, nodes: { CallExtension: new (ext: unknown, name: string, args: unknown) => unknown }): unknown {
    const tok = parser.nextToken();
    const args = parser.parseSignature(null, true);
    parser.advanceAfterBlockEnd(tok.value);
    return new nodes.CallExtension(this, 'run', args);
  }
  run(): string { return ''; }
}

let compatInstalled = false;

const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;
/** Keyword arguments as nunjucks passes them: a trailing object marked __keywords. */
function kwargs(args: unknown[]): { pos: unknown[]; kw: Record<string, unknown> } {
  const last = args[args.length - 1];
  if (typeof last === 'object' && last !== null && (last as { __keywords?: boolean }).__keywords) {
    const kw = { ...(last as Record<string, unknown>) };
    delete kw.__keywords;
    return { pos: args.slice(0, -1), kw };
  }
  return { pos: args, kw: {} };
}
const s = (v: unknown) => String(v);
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/**
 * The dbt.* macros lakerec renders itself, as dbt-duckdb's implementations write them. A project
 * macro of the same name (or a duckdb__/default__ one reached by adapter.dispatch) wins.
 */
function builtinDbtMacros(): Record<string, (...a: unknown[]) => string> {
  return {
    date_trunc: (datepart, date) => `date_trunc('${s(datepart)}', ${s(date)})`,
    dateadd: (datepart, interval, from) => `date_add(${s(from)}, interval (${s(interval)}) ${s(datepart)})`,
    datediff: (first, second, datepart) => `date_diff('${s(datepart)}', ${s(first)}::timestamp, ${s(second)}::timestamp)`,
    safe_cast: (field, type) => `try_cast(${s(field)} as ${s(type)})`,
    cast: (field, type) => `cast(${s(field)} as ${s(type)})`,
    hash: (field) => `md5(cast(${s(field)} as varchar))`,
    concat: (fields) => asList(fields).map(s).join(' || '),
    split_part: (str, delim, part) => `string_split(${s(str)}, ${s(delim)})[${s(part)}]`,
    string_literal: (v) => quote(s(v)),
    current_timestamp: () => 'now()',
    type_string: () => 'varchar',
    type_int: () => 'integer',
    type_bigint: () => 'bigint',
    type_float: () => 'double',
    type_numeric: () => 'numeric(28,6)',
    type_timestamp: () => 'timestamp',
    type_boolean: () => 'boolean',
    cast_bool_to_text: (field) => `cast(${s(field)} as varchar)`,
    any_value: (e) => `any_value(${s(e)})`,
    bool_or: (e) => `bool_or(${s(e)})`,
    listagg: (measure, delim, orderBy) => `string_agg(${s(measure)}, ${delim === undefined ? "','" : s(delim)}${orderBy ? ` order by ${s(orderBy)}` : ''})`,
    escape_single_quotes: (v) => s(v).replace(/'/g, "''"),
    last_day: (date, datepart) => `last_day(date_trunc('${s(datepart)}', ${s(date)}))`,
  };
}

/** Renders one model's SQL. Throws LakerecError('usage') naming what could not be rendered. */
export function renderModel(project: RenderProject, modelName: string, text: string): Rendered {
  if (!compatInstalled) { nunjucks.installJinjaCompat(); compatInstalled = true; }
  const env = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: false });
  env.addExtension('do', new DoExtension());
  (env as unknown as { addTest(n: string, f: (v: unknown) => boolean): void }).addTest('none', (v: unknown) => v === null || v === undefined);
  env.addFilter('as_bool', (v: unknown) => v === true || v === 'true' || v === 'True');
  env.addFilter('as_number', (v: unknown) => Number(v));
  env.addFilter('as_text', (v: unknown) => String(v));

  const config: Record<string, unknown> = {};
  const refs: string[] = [];
  const sources: [string, string][] = [];
  const macros = new Map<string, (...a: unknown[]) => unknown>();
  const dbt = builtinDbtMacros();

  const fail = (msg: string): never => { throw new LakerecError('usage', `${modelName}: ${msg}`); };
  const lookupMacro = (name: string): ((...a: unknown[]) => unknown) | null => macros.get(name) ?? null;
  const dispatch = (name: unknown) => {
    const n = s(name);
    const f = lookupMacro(`duckdb__${n}`) ?? lookupMacro(`default__${n}`) ?? (dbt[`duckdb__${n}`] ?? dbt[n] ?? null);
    if (!f) fail(`adapter.dispatch('${n}') found neither duckdb__${n} nor default__${n}`);
    return f;
  };
  const dbtUtils = {
    generate_surrogate_key: (fields: unknown) => {
      const parts = asList(fields).map((f) => `coalesce(cast(${s(f)} as varchar), '_dbt_utils_surrogate_key_null_')`);
      return `md5(cast(${parts.join(" || '-' || ")} as varchar))`;
    },
    surrogate_key: (...fields: unknown[]) => {
      const list = fields.length === 1 && Array.isArray(fields[0]) ? fields[0] : fields;
      return `md5(cast(${list.map((f) => `coalesce(cast(${s(f)} as varchar), '')`).join(" || '-' || ")} as varchar))`;
    },
    star: (...args: unknown[]) => {
      const { pos, kw } = kwargs(args);
      const rel = (pos[0] ?? kw.from) as unknown;
      if (!(rel instanceof Relation)) return fail('dbt_utils.star needs a relation (ref or source)');
      const except = new Set(asList(pos[1] ?? kw.except ?? []).map((x) => s(x).toLowerCase()));
      const cols = project.columnsOf(rel as Relation);
      const alias = pos[2] ?? kw.relation_alias;
      const prefix = kw.prefix ? s(kw.prefix) : '';
      const suffix = kw.suffix ? s(kw.suffix) : '';
      if (!cols) {
        // Before the relation is built: DuckDB's own star with EXCLUDE says the same.
        if (prefix || suffix) return fail(`dbt_utils.star(${s(rel)}) with a prefix or suffix needs the relation's columns, not known before it is built`);
        const ex = [...except].map((c) => `"${c}"`).join(', ');
        return `${alias ? `${s(alias)}.` : ''}*${ex ? ` EXCLUDE (${ex})` : ''}`;
      }
      return cols.filter((c) => !except.has(c.toLowerCase()))
        .map((c) => `${alias ? `${s(alias)}.` : ''}"${c}"${prefix || suffix ? ` as "${prefix}${c}${suffix}"` : ''}`).join(',\n  ');
    },
    ...Object.fromEntries(Object.entries(dbt).filter(([k]) => ['date_trunc', 'dateadd', 'datediff', 'safe_cast', 'concat', 'hash', 'split_part', 'current_timestamp', 'any_value', 'listagg'].includes(k))),
  };

  const self = project.ref(modelName) ?? new Relation(null, modelName);
  const globals: Record<string, unknown> = {
    ref: (...a: unknown[]) => {
      const { pos } = kwargs(a);
      const name = s(pos[pos.length - 1]);
      const r = project.ref(name);
      if (!r) return fail(`ref('${name}') names no model or seed of the project`);
      if (!refs.includes(name)) refs.push(name);
      return r;
    },
    source: (src: unknown, table: unknown) => {
      const r = project.source(s(src), s(table));
      if (!r) return fail(`source('${s(src)}', '${s(table)}') is not declared in the project's YAML`);
      if (!sources.some(([a, b]) => a === s(src) && b === s(table))) sources.push([s(src), s(table)]);
      return r;
    },
    config: (...a: unknown[]) => { Object.assign(config, kwargs(a).kw); return ''; },
    var: (name: unknown, dflt?: unknown) => {
      const k = s(name);
      if (Object.prototype.hasOwnProperty.call(project.vars, k)) return project.vars[k];
      if (dflt !== undefined) return dflt;
      return fail(`var('${k}') is not set in dbt_project.yml and has no default`);
    },
    env_var: (name: unknown, dflt?: unknown) => (dflt !== undefined ? dflt : fail(`env_var('${s(name)}') has no default; lakerec does not read the environment into SQL`)),
    is_incremental: () => false,
    should_full_refresh: () => true,
    this: self,
    target: { name: 'dev', type: 'duckdb', schema: 'main', database: 'memory', threads: 1, profile_name: project.name },
    project_name: project.name,
    model: { name: modelName, unique_id: `model.${project.name}.${modelName}` },
    execute: true,
    flags: { FULL_REFRESH: true, WHICH: 'run' },
    log: () => '',
    print: () => '',
    return: (v: unknown) => { throw new ReturnSignal(v); },
    run_query: () => fail('run_query needs a warehouse; lakerec renders without one'),
    statement: () => fail('the statement block needs a warehouse; lakerec renders without one'),
    exceptions: {
      raise_compiler_error: (msg: unknown) => fail(`raise_compiler_error: ${s(msg)}`),
      warn: () => '',
    },
    adapter: {
      dispatch,
      quote: (v: unknown) => `"${s(v).replace(/"/g, '""')}"`,
      get_relation: (...a: unknown[]) => {
        const { pos, kw } = kwargs(a);
        return project.ref(s(pos[2] ?? kw.identifier)) ?? null;
      },
      get_columns_in_relation: (rel: unknown) => (rel instanceof Relation ? (project.columnsOf(rel) ?? []).map((name) => ({ name, column: name, quoted: `"${name}"` })) : []),
    },
    dbt: new Proxy(dbt, {
      get: (t, k: string) => lookupMacro(k) ?? t[k] ?? (() => fail(`dbt.${k} is not a macro lakerec renders`)),
    }),
    dbt_utils: new Proxy(dbtUtils as Record<string, unknown>, {
      get: (t, k: string) => lookupMacro(k) ?? t[k] ?? (() => fail(`dbt_utils.${k} is not a macro lakerec renders`)),
    }),
  };
  for (const [k, v] of Object.entries(dbt)) globals[k] = v;
  for (const [k, v] of Object.entries(globals)) env.addGlobal(k, v);

  // Project macros, each callable by name from every model and macro; `return(x)` ends the macro with x.
  for (const m of project.macros) {
    let exported: Record<string, unknown> = {};
    try {
      const t = new nunjucks.Template(m.text, env, m.path);
      (t as unknown as { getExported(cb: (err: Error | null, ex: unknown) => void): void }).getExported((err, ex) => { if (err) throw err; exported = ex as Record<string, unknown>; });
    } catch (e) {
      fail(`the macro file ${m.path} does not render: ${firstLine(e)}`);
    }
    for (const [name, f] of Object.entries(exported)) {
      if (typeof f !== 'function') continue;
      const wrapped = function (this: unknown, ...a: unknown[]): unknown {
        try { return (f as (...x: unknown[]) => unknown).apply(this, a); } catch (e) {
          if (e instanceof ReturnSignal) return e.value;
          const cause = (e as { cause?: unknown }).cause;
          if (cause instanceof ReturnSignal) return cause.value;
          throw e;
        }
      };
      macros.set(name, wrapped);
      env.addGlobal(name, wrapped);
    }
  }

  let sql: string;
  try {
    sql = env.renderString(text, {});
  } catch (e) {
    if (e instanceof LakerecError) throw e;
    const inner = findLakerecError(e);
    if (inner) throw inner;
    return fail(`the model does not render: ${firstLine(e)}`);
  }
  return { sql, config, refs, sources };
}

function findLakerecError(e: unknown): LakerecError | null {
  for (let x: unknown = e, i = 0; x && i < 5; x = (x as { cause?: unknown }).cause, i++) if (x instanceof LakerecError) return x;
  const msg = e instanceof Error ? e.message : '';
  const m = /LakerecError: (.*)/.exec(msg);
  return m ? new LakerecError('usage', m[1].split('\n')[0]) : null;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 2).join(' ');
}
