// The claimed column lineage of one query, read from DuckDB's syntax tree (json_serialize_sql):
// for each output column, the input columns its values are computed from (edges), and for the
// query as a whole the input columns that decide which rows there are (references: join
// conditions and USING, WHERE, GROUP BY, HAVING, QUALIFY, DISTINCT, ORDER BY under a LIMIT).
//
// Scopes are followed as the binder does: CTEs (nearest definition wins), subqueries in FROM and
// in expressions (correlated ones see the outer scope), joins with USING and NATURAL (the merged
// column), SELECT * with EXCLUDE, REPLACE and RENAME, table.*, select-list aliases in WHERE,
// GROUP BY, HAVING and QUALIFY, GROUP BY ordinals and GROUP BY ALL, set operations by position
// (UNION BY NAME by name), struct fields (s.f, s['f'], struct_extract) narrowed when the struct
// comes straight from an input, struct_pack's fields kept apart. Window functions count their
// PARTITION BY and ORDER BY columns as edges of the window's value.
import type { ColumnRef, ModelClaims } from '../../shared/lineage';
import { child, isNode, nodes, str, type Node } from './parse';

/** An input relation a query may name: its lineage name and its columns in order. */
export interface InputRelation {
  name: string;
  columns: string[];
}

/** Finds the input a FROM item names (a BASE_TABLE that is not a CTE), or null when it is none. */
export type InputResolver = (table: { catalog: string; schema: string; table: string }) => InputRelation | null;

const SEP = '\u0000';
type Deps = Set<string>;

interface RCol {
  name: string;
  deps: Deps;
  /** The input column (dep key) this column is exactly, when it is a plain pass-through; else null. */
  pass: string | null;
  /** Fields of a struct built in the query (struct_pack / {...}), else null. */
  fields: Map<string, RCol> | null;
}
interface Rel { cols: RCol[]; opaque?: boolean }
interface Entry { alias: string; rel: Rel; hidden: Set<string> }
interface Scope {
  entries: Entry[];
  /** USING / NATURAL join columns, visible unqualified once. */
  merged: Map<string, RCol>;
  /** Select-list aliases (and lambda parameters), consulted after the FROM columns. */
  aliases: Map<string, RCol>;
  parent: Scope | null;
}
interface CteEnv {
  defs: Map<string, Node>;
  cache: Map<string, Rel>;
  busy: Set<string>;
  parent: CteEnv | null;
  /** Per CTE, the environment its body sees: the CTEs defined before it (a non-recursive WITH). */
  before: Map<string, CteEnv>;
}

const lc = (s: string) => s.toLowerCase();
const col = (name: string, deps: Deps = new Set(), pass: string | null = null, fields: Map<string, RCol> | null = null): RCol => ({ name, deps, pass, fields });
const union = (...xs: Deps[]): Deps => { const o = new Set<string>(); for (const x of xs) for (const d of x) o.add(d); return o; };
const emptyScope = (parent: Scope | null): Scope => ({ entries: [], merged: new Map(), aliases: new Map(), parent });

/** Aggregate functions, to tell GROUP BY ALL's keys from its aggregates. */
const AGGREGATES = new Set([
  'sum', 'count', 'count_star', 'min', 'max', 'avg', 'mean', 'median', 'mode', 'any_value', 'first', 'last', 'arg_min', 'arg_max',
  'argmin', 'argmax', 'min_by', 'max_by', 'string_agg', 'group_concat', 'list', 'array_agg', 'bool_and', 'bool_or', 'bit_and', 'bit_or',
  'bit_xor', 'stddev', 'stddev_pop', 'stddev_samp', 'variance', 'var_pop', 'var_samp', 'corr', 'covar_pop', 'covar_samp', 'quantile',
  'quantile_cont', 'quantile_disc', 'approx_count_distinct', 'approx_quantile', 'product', 'fsum', 'sumkahan', 'kahan_sum', 'histogram',
  'entropy', 'kurtosis', 'skewness', 'regr_slope', 'regr_intercept', 'bitstring_agg', 'favg', 'geomean', 'listagg',
]);

class Analyzer {
  readonly refs: Deps = new Set();
  readonly notes: string[] = [];
  /** The FROM items that name an input (not a CTE), for the runner to point at its copies. */
  readonly tables = new Map<Node, InputRelation>();
  constructor(private readonly resolveInput: InputResolver) {}

  note(s: string): void { if (!this.notes.includes(s)) this.notes.push(s); }

  // ---- query nodes ----
  query(node: Node, env: CteEnv | null, outer: Scope | null): Rel {
    const map = child(node, 'cte_map');
    const defs = new Map<string, Node>();
    for (const e of nodes(map?.map)) {
      const q = child(child(e, 'value') ?? {}, 'query');
      const qn = q ? child(q, 'node') : null;
      if (typeof e.key === 'string' && qn) defs.set(lc(e.key), qn);
    }
    let here: CteEnv | null = env;
    if (defs.size) {
      const cache = new Map<string, Rel>();
      const busy = new Set<string>();
      const before = new Map<string, CteEnv>();
      const seen = new Map<string, Node>();
      for (const [k, v] of defs) {
        before.set(k, { defs: new Map(seen), cache, busy, parent: env, before });
        seen.set(k, v);
      }
      here = { defs, cache, busy, parent: env, before };
    }
    switch (node.type) {
      case 'SELECT_NODE': return this.select(node, here, outer);
      case 'SET_OPERATION_NODE': return this.setop(node, here, outer);
      default:
        this.note(`a ${String(node.type)} is not analysed; its columns carry no claimed lineage`);
        return { cols: [], opaque: true };
    }
  }

  private cte(name: string, env: CteEnv | null): Rel | null {
    for (let e = env; e; e = e.parent) {
      const def = e.defs.get(name);
      if (!def) continue;
      const hit = e.cache.get(name);
      if (hit) return hit;
      if (e.busy.has(name)) {
        this.note(`the recursive CTE ${name} is not analysed`);
        return { cols: [], opaque: true };
      }
      e.busy.add(name);
      // A CTE sees the CTEs defined before it (and itself only when recursive, refused above).
      const rel = this.query(def, e.before.get(name) ?? e, null);
      e.busy.delete(name);
      e.cache.set(name, rel);
      return rel;
    }
    return null;
  }

  private setop(node: Node, env: CteEnv | null, outer: Scope | null): Rel {
    const branches = nodes(node.children).length ? nodes(node.children) : [child(node, 'left'), child(node, 'right')].filter(isNode);
    const rels = branches.map((b) => this.query(b, env, outer));
    const kind = str(node, 'setop_type');
    const all = node.setop_all === true;
    const first = rels[0] ?? { cols: [] };
    let out: RCol[];
    if (kind === 'UNION_BY_NAME') {
      const names: string[] = [];
      for (const r of rels) for (const c of r.cols) if (!names.some((n) => lc(n) === lc(c.name))) names.push(c.name);
      out = names.map((n) => col(n, union(...rels.map((r) => r.cols.find((c) => lc(c.name) === lc(n))?.deps ?? new Set<string>()))));
    } else if (kind === 'EXCEPT' || kind === 'INTERSECT') {
      // Values come from the first branch; the others decide which of its rows stay.
      out = first.cols.map((c) => col(c.name, new Set(c.deps), c.pass, c.fields));
      for (const r of rels.slice(1)) for (const c of r.cols) for (const d of c.deps) this.refs.add(d);
    } else {
      out = first.cols.map((c, i) => col(c.name, union(...rels.map((r) => r.cols[i]?.deps ?? new Set<string>())), rels.length === 1 ? c.pass : null));
    }
    if (!all || kind === 'EXCEPT' || kind === 'INTERSECT') for (const c of out) for (const d of c.deps) this.refs.add(d);
    this.modifiers(node, out, emptyScope(outer), env);
    return { cols: out };
  }

  private select(node: Node, env: CteEnv | null, outer: Scope | null): Rel {
    const scope = this.from(child(node, 'from_table'), env, outer);
    const out: RCol[] = [];
    const items = nodes(node.select_list);
    const itemCols: RCol[][] = [];
    for (const item of items) {
      const cols = item.class === 'STAR' && item.columns !== true ? this.star(item, scope, env) : [this.named(item, scope, env)];
      itemCols.push(cols);
      for (const c of cols) {
        out.push(c);
        if (c.name) scope.aliases.set(lc(c.name), c);
      }
    }
    // WHERE after the select list: FROM columns first, then select-list aliases (as DuckDB binds).
    const where = child(node, 'where_clause');
    if (where) this.addRefs(this.expr(where, scope, env).deps);
    // GROUP BY: ordinals name select items; the keys decide the rows.
    const groups = nodes(node.group_expressions);
    for (const g of groups) {
      const ord = ordinal(g);
      if (ord !== null && itemCols[ord - 1]) for (const c of itemCols[ord - 1]) this.addRefs(c.deps);
      else this.addRefs(this.expr(g, scope, env).deps);
    }
    if (groups.length === 0 && node.aggregate_handling === 'FORCE_AGGREGATES') {
      items.forEach((item, i) => { if (!hasAggregate(item)) for (const c of itemCols[i] ?? []) this.addRefs(c.deps); });
    }
    const having = child(node, 'having');
    if (having) this.addRefs(this.expr(having, scope, env).deps);
    const qualify = child(node, 'qualify');
    if (qualify) this.addRefs(this.expr(qualify, scope, env).deps);
    this.modifiers(node, out, scope, env);
    return { cols: out };
  }

  /** DISTINCT, DISTINCT ON, and ORDER BY under a LIMIT decide which rows there are. */
  private modifiers(node: Node, out: RCol[], scope: Scope, env: CteEnv | null): void {
    const mods = nodes(node.modifiers);
    const limited = mods.some((m) => m.type === 'LIMIT_MODIFIER' || m.type === 'LIMIT_PERCENT_MODIFIER');
    for (const m of mods) {
      if (m.type === 'DISTINCT_MODIFIER') {
        const on = nodes(m.distinct_on_targets);
        if (on.length === 0) for (const c of out) this.addRefs(c.deps);
        else for (const t of on) this.addRefs(this.orderTarget(t, out, scope, env));
      } else if (m.type === 'ORDER_MODIFIER' && limited) {
        for (const o of nodes(m.orders)) {
          const e = child(o, 'expression');
          if (e) this.addRefs(this.orderTarget(e, out, scope, env));
        }
      }
    }
  }

  private orderTarget(e: Node, out: RCol[], scope: Scope, env: CteEnv | null): Deps {
    const ord = ordinal(e);
    if (ord !== null) return out[ord - 1]?.deps ?? new Set();
    if (e.class === 'COLUMN_REF') {
      const names = (e.column_names as string[]) ?? [];
      if (names.length === 1) {
        const hit = out.find((c) => lc(c.name) === lc(names[0]));
        if (hit) return hit.deps;
      }
    }
    return this.expr(e, scope, env).deps;
  }

  private addRefs(d: Deps): void { for (const x of d) this.refs.add(x); }

  // ---- FROM ----
  private from(t: Node | null, env: CteEnv | null, outer: Scope | null): Scope {
    const scope = emptyScope(outer);
    if (!t) return scope;
    switch (t.type) {
      case 'EMPTY_FROM': case 'EMPTY': return scope;
      case 'BASE_TABLE': {
        const name = str(t, 'table_name');
        const plain = !str(t, 'schema_name') && !str(t, 'catalog_name');
        let rel = plain ? this.cte(lc(name), env) : null;
        if (!rel) {
          const input = this.resolveInput({ catalog: str(t, 'catalog_name'), schema: str(t, 'schema_name'), table: name });
          if (input) {
            this.tables.set(t, input);
            rel = { cols: input.columns.map((c) => { const k = input.name + SEP + c; return col(c, new Set([k]), k); }) };
          } else {
            this.note(`the relation ${[str(t, 'catalog_name'), str(t, 'schema_name'), name].filter(Boolean).join('.')} is not a known input; its columns carry no claimed lineage`);
            rel = { cols: [], opaque: true };
          }
        }
        scope.entries.push({ alias: lc(str(t, 'alias') || name), rel: renamed(rel, t), hidden: new Set() });
        return scope;
      }
      case 'SUBQUERY': {
        const sub = child(t, 'subquery');
        const qn = sub ? child(sub, 'node') : null;
        const rel = qn ? this.query(qn, env, outer) : { cols: [] };
        scope.entries.push({ alias: lc(str(t, 'alias')), rel: renamed(rel, t), hidden: new Set() });
        return scope;
      }
      case 'JOIN': return this.join(t, env, outer);
      case 'TABLE_FUNCTION': {
        const fn = child(t, 'function');
        const name = fn ? lc(str(fn, 'function_name')) : '';
        const args = fn ? nodes(fn.children) : [];
        const deps = union(...args.map((a) => this.expr(a, outer ?? emptyScope(null), env).deps));
        const rel: Rel = { cols: [col(name, name === 'unnest' ? deps : new Set())] };
        scope.entries.push({ alias: lc(str(t, 'alias') || name), rel: renamed(rel, t), hidden: new Set() });
        return scope;
      }
      default:
        this.note(`a ${String(t.type)} in FROM is not analysed; its columns carry no claimed lineage`);
        scope.entries.push({ alias: lc(str(t, 'alias')), rel: { cols: [], opaque: true }, hidden: new Set() });
        return scope;
    }
  }

  private join(t: Node, env: CteEnv | null, outer: Scope | null): Scope {
    const left = this.from(child(t, 'left'), env, outer);
    // The right side may refer to the left (LATERAL).
    const right = this.from(child(t, 'right'), env, { ...left, parent: outer });
    const scope: Scope = { entries: [...left.entries, ...right.entries], merged: new Map([...left.merged, ...right.merged]), aliases: new Map(), parent: outer };
    const joinType = str(t, 'join_type');
    let using = (t.using_columns as string[] | undefined) ?? [];
    if (str(t, 'ref_type') === 'NATURAL') {
      const leftNames = new Set(visible(left).map((c) => lc(c.name)));
      using = visible(right).map((c) => c.name).filter((n) => leftNames.has(lc(n)));
    }
    for (const k of using) {
      const l = this.lookup([k], left);
      const r = this.lookup([k], right);
      if (!l || !r) { this.note(`the USING column ${k} was not found on both sides`); continue; }
      this.addRefs(l.deps);
      this.addRefs(r.deps);
      const m = joinType === 'RIGHT' ? r : joinType === 'FULL' || joinType === 'OUTER' ? col(k, union(l.deps, r.deps)) : l;
      scope.merged.set(lc(k), col(k, m.deps, m.pass, m.fields));
      for (const e of right.entries) e.hidden.add(lc(k));
    }
    const cond = child(t, 'condition');
    if (cond) this.addRefs(this.expr(cond, scope, env).deps);
    if (joinType === 'SEMI' || joinType === 'ANTI') return { ...left, parent: outer };
    return scope;
  }

  // ---- names ----
  private lookup(names: string[], scope: Scope): RCol | null {
    for (let s: Scope | null = scope; s; s = s.parent) {
      const hit = this.lookupHere(names, s);
      if (hit) return hit;
    }
    return null;
  }

  private lookupHere(names: string[], s: Scope): RCol | null {
    const a = lc(names[0] ?? '');
    // alias.column[.field...] (and catalog.schema.table.column spellings ending in alias.column)
    for (let i = 0; i + 1 < names.length; i++) {
      const e = s.entries.find((x) => x.alias === lc(names[i]));
      if (!e) continue;
      const c = e.rel.cols.find((x) => lc(x.name) === lc(names[i + 1]));
      if (c) return narrow(c, names.slice(i + 2));
    }
    // column[.field...]
    const m = s.merged.get(a);
    if (m) return narrow(m, names.slice(1));
    for (const e of s.entries) {
      const c = e.rel.cols.find((x) => lc(x.name) === a);
      if (c) return narrow(c, names.slice(1));
    }
    const al = s.aliases.get(a);
    if (al) return narrow(al, names.slice(1));
    // a whole row: the alias of a FROM item
    if (names.length === 1) {
      const e = s.entries.find((x) => x.alias === a);
      if (e) return col(a, union(...e.rel.cols.map((c) => c.deps)));
    }
    return null;
  }

  private opaqueIn(scope: Scope): boolean {
    for (let s: Scope | null = scope; s; s = s.parent) if (s.entries.some((e) => e.rel.opaque)) return true;
    return false;
  }

  // ---- select items ----
  private named(item: Node, scope: Scope, env: CteEnv | null): RCol {
    const c = this.expr(item, scope, env);
    const alias = str(item, 'alias');
    const name = alias || (item.class === 'COLUMN_REF' ? last(item.column_names) : c.name);
    return { ...c, name };
  }

  private star(item: Node, scope: Scope, env: CteEnv | null): RCol[] {
    const rel = lc(str(item, 'relation_name'));
    const exclude = new Set<string>();
    for (const x of (item.exclude_list as unknown[]) ?? []) if (typeof x === 'string') exclude.add(lc(x));
    for (const x of nodes(item.qualified_exclude_list)) if (typeof x.column === 'string') exclude.add(lc(x.column));
    const replace = new Map<string, Node>();
    for (const r of nodes(item.replace_list)) { const v = child(r, 'value'); if (typeof r.key === 'string' && v) replace.set(lc(r.key), v); }
    const rename = new Map<string, string>();
    for (const r of nodes(item.rename_list)) {
      const k = r.key; const v = r.value;
      const from = isNode(k) ? (typeof k.column === 'string' ? k.column : '') : typeof k === 'string' ? k : '';
      if (from && typeof v === 'string') rename.set(lc(from), v);
    }
    const out: RCol[] = [];
    const seen = new Set<string>();
    const push = (c: RCol) => {
      const k = lc(c.name);
      if (exclude.has(k)) return;
      const rep = replace.get(k);
      const base = rep ? { ...this.expr(rep, scope, env), name: c.name } : c;
      out.push({ ...base, name: rename.get(k) ?? c.name });
    };
    if (rel) {
      const e = scope.entries.find((x) => x.alias === rel);
      if (!e) { this.note(`${rel}.* names no FROM item`); return out; }
      if (e.rel.opaque) this.note(`${rel}.* over a relation that is not analysed`);
      for (const c of e.rel.cols) push(c);
      return out;
    }
    // USING columns first, once, as DuckDB lists them.
    for (const [k, m] of scope.merged) { seen.add(k); push(m); }
    for (const e of scope.entries) {
      if (e.rel.opaque) this.note('SELECT * over a relation that is not analysed');
      for (const c of e.rel.cols) {
        const k = lc(c.name);
        if (e.hidden.has(k) || seen.has(k)) continue;
        push(c);
      }
    }
    return out;
  }

  // ---- expressions ----
  expr(e: Node, scope: Scope, env: CteEnv | null): RCol {
    switch (e.class) {
      case 'COLUMN_REF': {
        const names = ((e.column_names as unknown[]) ?? []).map(String);
        const hit = this.lookup(names, scope);
        if (hit) return hit;
        if (!this.opaqueIn(scope)) this.note(`the column ${names.join('.')} was not resolved`);
        return col(last(names));
      }
      case 'CONSTANT': case 'PARAMETER': case 'DEFAULT': return col('');
      case 'SUBQUERY': {
        const sub = child(e, 'subquery');
        const qn = sub ? child(sub, 'node') : null;
        const rel = qn ? this.query(qn, env, scope) : { cols: [] };
        const deps = str(e, 'subquery_type') === 'EXISTS' || str(e, 'subquery_type') === 'NOT_EXISTS'
          ? new Set<string>() : union(...rel.cols.slice(0, 1).map((c) => c.deps));
        const ch = child(e, 'child');
        return col('', ch ? union(deps, this.expr(ch, scope, env).deps) : deps);
      }
      case 'STAR': {
        const cols = this.star(e, scope, env);
        return col('', union(...cols.map((c) => c.deps)));
      }
      case 'LAMBDA': {
        const inner: Scope = { ...emptyScope(scope) };
        for (const p of lambdaParams(child(e, 'lhs'))) inner.aliases.set(lc(p), col(p));
        const body = child(e, 'expr');
        return col('', body ? this.expr(body, inner, env).deps : new Set());
      }
      case 'FUNCTION': case 'OPERATOR': {
        const fn = lc(str(e, 'function_name'));
        const args = nodes(e.children);
        if ((fn === 'struct_pack' || fn === 'row') && !e.filter) {
          const fields = new Map<string, RCol>();
          args.forEach((a, i) => { const c = this.expr(a, scope, env); fields.set(lc(str(a, 'alias') || (a.class === 'COLUMN_REF' ? last(a.column_names) : `v${i + 1}`)), c); });
          return col(fn, union(...[...fields.values()].map((c) => c.deps)), null, fields);
        }
        const extract = fn === 'struct_extract' || e.type === 'STRUCT_EXTRACT' || e.type === 'ARRAY_EXTRACT' || fn === 'array_extract';
        if (extract && args.length === 2 && args[1].class === 'CONSTANT') {
          const key = constantString(args[1]);
          if (key !== null) {
            const base = this.expr(args[0], scope, env);
            if (base.fields || base.pass) return narrow(base, [key]);
          }
        }
        return this.generic(e, scope, env, fn || lc(String(e.type)));
      }
      default: return this.generic(e, scope, env, '');
    }
  }

  /** The union of every nested expression's inputs (CASE, CAST, windows, comparisons, ...). */
  private generic(e: Node, scope: Scope, env: CteEnv | null, name: string): RCol {
    const deps = new Set<string>();
    const visit = (v: unknown): void => {
      if (Array.isArray(v)) { for (const x of v) visit(x); return; }
      if (!isNode(v)) return;
      if (typeof v.class === 'string') { for (const d of this.expr(v, scope, env).deps) deps.add(d); return; }
      for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) visit(x);
    };
    for (const [k, v] of Object.entries(e)) if (k !== 'value' && typeof v === 'object' && v !== null) visit(v);
    return col(name, deps);
  }
}

function visible(s: Scope): RCol[] {
  const out: RCol[] = [...s.merged.values()];
  for (const e of s.entries) for (const c of e.rel.cols) if (!e.hidden.has(lc(c.name)) && !s.merged.has(lc(c.name))) out.push(c);
  return out;
}

/** Column aliases of a FROM item (`AS t(a, b)`), applied by position. */
function renamed(rel: Rel, t: Node): Rel {
  const names = ((t.column_name_alias as unknown[]) ?? []).map(String);
  if (names.length === 0) return rel;
  return { ...rel, cols: rel.cols.map((c, i) => (i < names.length ? { ...c, name: names[i] } : c)) };
}

/** A struct column narrowed to a field: a built struct's field, an input struct's field as its own input column. */
function narrow(c: RCol, path: string[]): RCol {
  let cur = c;
  for (const f of path) {
    const k = lc(f);
    const byField = cur.fields?.get(k);
    if (byField) cur = byField;
    else if (cur.pass) { const p = `${cur.pass}.${f}`; cur = col(f, new Set([p]), p); }
    else cur = col(f, cur.deps);
  }
  return cur;
}

function ordinal(e: Node): number | null {
  if (e.class !== 'CONSTANT') return null;
  const v = child(e, 'value');
  const t = v ? child(v, 'type') : null;
  const id = t ? str(t, 'id') : '';
  if (!v || !/INT/.test(id)) return null;
  const n = Number(v.value);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

function constantString(e: Node): string | null {
  const v = child(e, 'value');
  return v && typeof v.value === 'string' ? v.value : null;
}

function hasAggregate(e: unknown): boolean {
  if (Array.isArray(e)) return e.some(hasAggregate);
  if (!isNode(e)) return false;
  if (e.class === 'SUBQUERY' || e.class === 'WINDOW') return false;
  if (e.class === 'FUNCTION' && AGGREGATES.has(lc(str(e, 'function_name')))) return true;
  return Object.values(e).some((v) => typeof v === 'object' && v !== null && hasAggregate(v));
}

function lambdaParams(lhs: Node | null): string[] {
  if (!lhs) return [];
  if (lhs.class === 'COLUMN_REF') return [last(lhs.column_names)];
  return nodes(lhs.children).flatMap((c) => lambdaParams(c));
}

function last(v: unknown): string {
  return Array.isArray(v) && v.length ? String(v[v.length - 1]) : '';
}

function toRef(k: string): ColumnRef {
  const i = k.indexOf(SEP);
  return { input: k.slice(0, i), column: k.slice(i + 1) };
}
const byRef = (a: ColumnRef, b: ColumnRef) => (a.input === b.input ? (a.column < b.column ? -1 : a.column > b.column ? 1 : 0) : a.input < b.input ? -1 : 1);

/**
 * The claimed lineage of one SELECT statement's tree. `outputNames`, when given (the names DuckDB
 * gives the result columns), replaces the analysis's own names position by position.
 */
export function claimLineage(statement: Node, resolveInput: InputResolver, outputNames?: string[]): ModelClaims {
  return analyse(statement, resolveInput, outputNames).claims;
}

/** The claims and the FROM items that name inputs. */
export function analyse(statement: Node, resolveInput: InputResolver, outputNames?: string[]): { claims: ModelClaims; tables: Map<Node, InputRelation> } {
  const a = new Analyzer(resolveInput);
  const node = child(statement, 'node');
  const rel = node ? a.query(node, null, null) : { cols: [] };
  if (outputNames && outputNames.length !== rel.cols.length) {
    a.note(`the analysis found ${rel.cols.length} output columns where DuckDB returns ${outputNames.length}`);
  }
  const columns = (outputNames ?? rel.cols.map((c) => c.name)).map((name, i) => ({
    name,
    edges: [...(rel.cols[i]?.deps ?? [])].map(toRef).sort(byRef),
  }));
  return { claims: { columns, references: [...a.refs].map(toRef).sort(byRef), notes: a.notes }, tables: a.tables };
}
