// Lineage verified by perturbation, for a dbt project or the views of a DuckDB file: each model's
// claimed lineage from DuckDB's parser, then each input column perturbed on a copy of the model's
// inputs (at most `rows` rows each), the model rerun read-only in an in-memory DuckDB whose file
// access is locked to the inputs, and every claimed edge and observed influence classified.
import type { DuckDBConnection, DuckDBType } from '@duckdb/node-api';
import { existsSync, statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import {
  PERTURBATION_KINDS, ROWS, type ColumnRef, type EdgeResult, type InfluenceResult, type LineageCounts, type LineageResult,
  type ModelClaims, type ModelInput, type ModelResult, type PerturbationKind,
} from '../../shared/lineage';
import { interruptOnAbort, openDuck, sqlIdent, sqlString, wrapDuckError } from '../engine/duck';
import { registerSnapshotView } from '../delta/scan';
import { openTable } from '../delta/open';
import { analyse, type InputRelation, type InputResolver } from './claims';
import { isDbtProject, loadDbtProject, readText, type DbtProject } from './dbt';
import { Relation, renderModel } from './jinja';
import { baseTables, cteNames, deparse, guardQuery, parseQuery, type Node } from './parse';
import { columnSeed, detect, identifyingColumns, perturbedColumn, sattolo, shiftFor, targetName, targetsOf, type ResultRows, type Shift } from './perturb';

export const DEFAULT_ROWS = 1000;
export const DEFAULT_SEED = 1729;
/** Each query's time limit: a model that runs longer is skipped with the reason. */
export const DEFAULT_QUERY_TIMEOUT_MS = 60_000;

export interface LineageOptions {
  project: string;
  model?: string;
  rows?: number;
  seed?: number;
  timeoutMs?: number;
  /** Where a dbt model's SQL comes from: dbt's compiled SQL when present (auto), or lakerec's rendering always. */
  sqlFrom?: 'auto' | 'rendered';
  /**
   * Replaces a model's claims before they are checked (the wrong-lineage tests: an edge deleted
   * or fabricated, a reference removed). Production callers pass none.
   */
  editClaims?: (model: string, claims: ModelClaims) => ModelClaims;
  ctx?: JobContext;
}

/** One model to verify, whatever the project kind. */
interface Unit {
  name: string;
  path: string | null;
  sqlFrom: ModelResult['sqlFrom'];
  sql: string | null;
  /** Why there is no SQL to run (rendering failed), or null. */
  error: string | null;
}

/** A relation the models can read, and where its rows come from. */
interface Source {
  name: string;
  kind: ModelInput['kind'];
  /** How to load it: a CSV or Parquet file, a Delta table, a table of an attached DuckDB file; null for a model. */
  load: { csv: string } | { parquet: string } | { delta: string; version: number | null } | { attached: string } | null;
  /** The names compiled SQL may use for it (schema-qualified forms), lower case. */
  schema: string | null;
  identifier: string;
}

const SEP = '\u0000';
const key = (r: ColumnRef) => r.input + SEP + r.column;
/** Two input columns (keys) of one input where one is the other or a struct field under it. */
const overlaps = (a: string, b: string) => a === b || a.startsWith(b + '.') || b.startsWith(a + '.');

export async function verifyLineage(opts: LineageOptions): Promise<LineageResult> {
  const root = resolve(opts.project);
  const rows = opts.rows ?? DEFAULT_ROWS;
  const seed = opts.seed ?? DEFAULT_SEED;
  if (!Number.isInteger(rows) || rows < 1) throw new LakerecError('usage', `--rows must be a positive whole number, got ${rows}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new LakerecError('usage', `--seed must be a whole number from 0 to 4294967295, got ${seed}`);
  if (!existsSync(root)) throw new LakerecError('not_found', `no such project: ${opts.project}`);
  const shift = shiftFor(seed);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;

  let kind: LineageResult['kind'];
  let units: Unit[];
  let sources: Source[];
  let attach: string | null = null;
  let project: DbtProject | null = null;
  const st = statSync(root);
  if (st.isDirectory() && isDbtProject(root)) {
    kind = 'dbt';
    project = loadDbtProject(root);
    sources = [
      ...project.seeds.map((s): Source => ({ name: s.name, kind: 'seed', load: { csv: s.path }, schema: null, identifier: s.name })),
      ...project.sources.map((s): Source => {
        // A source without a location that a seed of the same name fills (`dbt seed` into the
        // source's schema, as dbt Labs' newer jaffle-shop does) is read from that seed.
        const seed = s.location === null ? project!.seeds.find((x) => x.name.toLowerCase() === s.identifier.toLowerCase()) : undefined;
        return {
          name: `${s.source}.${s.table}`, kind: 'source', schema: s.schema, identifier: s.identifier,
          load: seed ? { csv: seed.path } : s.location === null ? null : sourceLoad(s.location, s.version),
        };
      }),
      ...project.models.map((m): Source => ({ name: m.name, kind: 'model', load: null, schema: null, identifier: m.alias ?? m.name })),
    ];
    units = [];
  } else if (st.isFile() && ['.duckdb', '.db', '.ddb'].includes(extname(root).toLowerCase())) {
    kind = 'duckdb';
    attach = root;
    units = [];
    sources = [];
  } else {
    throw new LakerecError('usage', `${opts.project} is neither a dbt project (a folder with dbt_project.yml) nor a DuckDB file`);
  }

  const duck = await openDuck({ threads: 1 });
  // Cancelling stops the running query too, not only the next step.
  const detach = interruptOnAbort(duck.conn, opts.ctx?.signal);
  try {
    const conn = duck.conn;
    if (attach) {
      try { await conn.run(`ATTACH ${sqlString(attach)} AS lr_src (READ_ONLY)`); } catch (e) { throw wrapDuckError(e, `cannot open ${attach} read-only`, 'source_unreadable'); }
      const found = await duckdbFileModels(conn);
      units = found.units;
      sources = found.sources;
      // The SQL script that built the file's tables, beside it with the same name (warehouse.sql):
      // each CREATE TABLE ... AS (and CREATE VIEW ... AS) in it is a model, rebuilt from the rest.
      const script = attach.slice(0, attach.length - extname(attach).length) + '.sql';
      if (existsSync(script)) {
        const scripted = await sqlScriptModels(conn, readText(script), basename(script));
        const names = new Set(scripted.map((u) => u.name.toLowerCase()));
        units = [...units.filter((u) => !names.has(u.name.toLowerCase())), ...scripted];
        sources = [...sources.filter((x) => !names.has(x.name.toLowerCase())), ...scripted.map((u): Source => ({ name: u.name, kind: 'model', load: null, schema: null, identifier: u.name }))];
      }
    }
    await duck.restrict(accessFor(sources, attach));

    // Rendering (dbt): compiled SQL when dbt left it, else lakerec's Jinja.
    const columnsKnown = new Map<string, string[]>();
    if (project) units = project.models.map((m) => unitOf(project!, m.name, opts.sqlFrom ?? 'auto', columnsKnown));

    const byName = new Map(sources.map((s) => [s.name, s]));
    const built = new Map<string, { table: string; columns: string[] }>();
    const resolver = makeResolver(sources, (name) => built.get(name)?.columns ?? []);
    // Parse every unit, find its inputs, order them.
    const parsed = new Map<string, { statement: Node } | { reason: string }>();
    const deps = new Map<string, string[]>();
    for (const u of units) {
      if (u.sql === null) { parsed.set(u.name, { reason: u.error ?? 'no SQL' }); deps.set(u.name, []); continue; }
      const p = await parseQuery(conn, u.sql);
      if (!p.ok) { parsed.set(u.name, { reason: p.reason }); deps.set(u.name, []); continue; }
      const found = inputsOf(p.statement, resolver);
      const guard = guardQuery(p.statement)
        ?? (found.unknown.length ? `it reads ${found.unknown.join(', ')}, which is no model, seed or source of the project (a file name, another database)` : null);
      parsed.set(u.name, guard ? { reason: guard } : { statement: p.statement });
      deps.set(u.name, found.inputs);
    }
    const order = topo(units.map((u) => u.name), deps);

    // Load the inputs that are not models: each copied once, at most `rows` rows (seeds whole).
    const notBuilt = new Map<string, string>();
    let n = 0;
    for (const s of sources) {
      if (s.kind === 'model') continue;
      throwIfCancelled(opts.ctx);
      const t = `lr_src_${n++}`;
      if (s.load === null) { notBuilt.set(s.name, 'the project gives no location for this source (meta.external_location, or meta.lakerec.location)'); continue; }
      try {
        await loadSource(conn, s, t, s.kind === 'seed' ? null : rows, opts.ctx);
        built.set(s.name, { table: t, columns: await columnsOfTable(conn, t) });
      } catch (e) {
        notBuilt.set(s.name, `it could not be read: ${oneLine(e)}`);
      }
    }

    // Build the models in order, on the loaded inputs; re-render a model whose Jinja needed columns.
    const unitByName = new Map(units.map((u) => [u.name, u]));
    const statements = new Map<string, Node>();
    for (const name of order) {
      throwIfCancelled(opts.ctx);
      const u = unitByName.get(name)!;
      if (project && u.sqlFrom === 'rendered') {
        for (const [k, v] of built) columnsKnown.set(k, v.columns);
        const again = unitOf(project, name, opts.sqlFrom ?? 'auto', columnsKnown);
        if (again.sql !== u.sql) {
          u.sql = again.sql; u.error = again.error;
          const p = u.sql === null ? { ok: false as const, reason: u.error ?? 'no SQL' } : await parseQuery(conn, u.sql);
          const unknown = p.ok ? inputsOf(p.statement, resolver).unknown : [];
          const why = p.ok ? guardQuery(p.statement) ?? (unknown.length ? `it reads ${unknown.join(', ')}, which is no model, seed or source of the project` : null) : p.reason;
          parsed.set(name, p.ok && why === null ? { statement: p.statement } : { reason: why ?? 'no SQL' });
        }
      }
      const p = parsed.get(name)!;
      if ('reason' in p) { notBuilt.set(name, p.reason); continue; }
      const missing = (deps.get(name) ?? []).find((d) => !built.has(d));
      if (missing) { notBuilt.set(name, `its input ${missing} was not built: ${notBuilt.get(missing) ?? 'unknown'}`); continue; }
      statements.set(name, p.statement);
      const t = `lr_model_${n++}`;
      try {
        const sql = await pointAt(conn, p.statement, resolver, (input) => built.get(input)?.table ?? null);
        await withLimit(conn, `CREATE TABLE ${sqlIdent(t)} AS ${sql}`, timeoutMs);
        built.set(name, { table: t, columns: await columnsOfTable(conn, t) });
      } catch (e) {
        throwIfCancelled(opts.ctx);
        notBuilt.set(name, `it does not run on its inputs: ${oneLine(e)}`);
      }
    }

    // Verify each model (or the one asked for).
    const wanted = opts.model === undefined ? order : order.filter((m) => m === opts.model);
    if (opts.model !== undefined && wanted.length === 0) throw new LakerecError('usage', `the project has no model named ${opts.model}; models: ${order.join(', ') || '(none)'}`);
    const results: ModelResult[] = [];
    let i = 0;
    for (const name of wanted) {
      throwIfCancelled(opts.ctx);
      report(opts.ctx, { phase: `verifying ${name}`, done: i++, total: wanted.length });
      const u = unitByName.get(name)!;
      const base: ModelResult = {
        name, path: u.path, sqlFrom: u.sqlFrom, dependsOn: deps.get(name) ?? [], status: 'skipped', skipReason: null,
        inputs: [], claims: null, edges: [], influences: [], outputRows: null, rowKey: null, runs: 0, counts: zero(),
      };
      const stmt = statements.get(name);
      if (!stmt || !built.has(name)) { results.push({ ...base, skipReason: notBuilt.get(name) ?? 'not built' }); continue; }
      try {
        results.push(await verifyModel(conn, base, stmt, resolver, built, byName, { rows, seed, shift, timeoutMs, editClaims: opts.editClaims, ctx: opts.ctx }));
      } catch (e) {
        throwIfCancelled(opts.ctx);
        if (e instanceof LakerecError && e.code === 'cancelled') throw e;
        results.push({ ...base, skipReason: `it could not be rerun: ${oneLine(e)}` });
      }
    }
    report(opts.ctx, { phase: 'verifying models', done: wanted.length, total: wanted.length });
    const totals = results.reduce((a, m) => add(a, m.counts), zero());
    return {
      project: root, kind, seed, rows, shift,
      models: results,
      totals: { ...totals, models: results.length, verified: results.filter((m) => m.status === 'verified').length, skipped: results.filter((m) => m.status === 'skipped').length },
    };
  } catch (e) {
    throwIfCancelled(opts.ctx);
    throw e;
  } finally {
    detach();
    duck.close();
  }
}

// ---- one model ----

interface RunOpts { rows: number; seed: number; shift: Shift; timeoutMs: number; editClaims?: LineageOptions['editClaims']; ctx?: JobContext }

async function verifyModel(
  conn: DuckDBConnection, base: ModelResult, statement: Node, resolver: InputResolver,
  built: Map<string, { table: string; columns: string[] }>, byName: Map<string, Source>, o: RunOpts,
): Promise<ModelResult> {
  // The copies: at most `rows` rows of each input, in a fixed order.
  const copies = new Map<string, string>();
  const inputs: ModelInput[] = [];
  let k = 0;
  for (const d of base.dependsOn) {
    const t = `lr_copy_${k++}`;
    await conn.run(`CREATE OR REPLACE TEMP TABLE ${sqlIdent(t)} AS SELECT * FROM ${sqlIdent(built.get(d)!.table)} LIMIT ${o.rows}`);
    copies.set(d, t);
    const count = Number((await conn.runAndReadAll(`SELECT count(*) FROM ${sqlIdent(t)}`)).getRows()[0][0]);
    inputs.push({ name: d, kind: byName.get(d)?.kind ?? 'table', rows: count, columns: built.get(d)!.columns });
  }
  const baseSql = await pointAt(conn, statement, resolver, (i) => copies.get(i) ?? null);
  let runs = 0;
  const baseline = await readRows(conn, baseSql, o.timeoutMs);
  // Twice: a column that differs between two runs of the same copy (now(), random(), uuid()) would
  // look changed by every perturbation; it is left out of detection, and said so.
  const again = await readRows(conn, baseSql, o.timeoutMs);
  runs += 2;
  const found = analyse(statement, resolver, baseline.names);
  const claims = o.editClaims ? o.editClaims(base.name, found.claims) : found.claims;
  const keys = identifyingColumns(baseline);
  const unstableRun = detect(baseline, again, () => true, keys);
  if (unstableRun.rows) throw new LakerecError('usage', 'it does not return the same rows twice on the same copy of its inputs');
  const unstable = unstableRun.columns;

  // Observed: (output, input, column) -> perturbation kinds that changed it.
  const observed = new Map<string, Set<PerturbationKind>>();
  const see = (output: string, ref: ColumnRef, kind: PerturbationKind) => {
    const kk = output + SEP + key(ref);
    const s = observed.get(kk) ?? new Set<PerturbationKind>();
    s.add(kind);
    observed.set(kk, s);
  };
  const claimed = new Map<string, Set<string>>(claims.columns.map((c) => [c.name, new Set(c.edges.map(key))]));
  const failures: string[] = [];
  const rowKey = keys.length ? baseline.names[keys[0]] : null;

  for (const input of base.dependsOn) {
    const copy = copies.get(input)!;
    const r = await conn.runAndReadAll(`SELECT * FROM ${sqlIdent(copy)} LIMIT 0`);
    const names = r.columnNames();
    const types = r.columnTypes();
    const count = inputs.find((x) => x.name === input)!.rows;
    const pertSql = await pointAt(conn, statement, resolver, (i) => (i === input ? 'lr_pert' : copies.get(i) ?? null));
    for (const target of targetsOf(names, types)) {
      const ref: ColumnRef = { input, column: targetName(target) };
      const colType = types[names.indexOf(target.column)] as DuckDBType;
      // Claimed dependence on this target: an edge to the column, to the field, or to a struct holding it.
      const dependsOn = (out: string) => [...(claimed.get(out) ?? [])].some((e) => overlaps(e, key(ref)));
      for (const kind of PERTURBATION_KINDS) {
        throwIfCancelled(o.ctx);
        if (kind === 'shuffle' && count < 2) continue;
        const item = perturbedColumn(target, kind, o.shift, colType);
        if (item === null) continue;
        const from = kind === 'shuffle'
          ? `${sqlIdent(copy)} b JOIN lr_perm p ON p.dst = b.rowid JOIN ${sqlIdent(copy)} v ON v.rowid = p.src`
          : `${sqlIdent(copy)} b`;
        if (kind === 'shuffle') await permTable(conn, count, columnSeed(o.seed, input, ref.column));
        await conn.run(`CREATE OR REPLACE TEMP TABLE lr_pert AS SELECT b.* REPLACE (${item} AS ${sqlIdent(target.column)}) FROM ${from} ORDER BY b.rowid`);
        let pert: ResultRows;
        try {
          pert = await readRows(conn, pertSql, o.timeoutMs);
        } catch (e) {
          throwIfCancelled(o.ctx);
          failures.push(`${kind} of ${input}.${ref.column}: ${oneLine(e)}`);
          continue;
        } finally { runs++; }
        const change = detect(baseline, pert, (out) => !dependsOn(out) && !unstable.has(out), keys.filter((k) => !unstable.has(baseline.names[k])));
        for (const c of change.columns) if (!unstable.has(c)) see(c, ref, kind);
        if (change.rows) see(ROWS, ref, kind);
      }
    }
  }

  // Classification.
  const refs = new Set(claims.references.map(key));
  const isRef = (r: ColumnRef) => [...refs].some((x) => overlaps(x, key(r)));
  const edges: EdgeResult[] = [];
  const explained = new Set<string>();
  for (const c of claims.columns) {
    for (const e of c.edges) {
      const by = new Set<PerturbationKind>();
      for (const [kk, kinds] of observed) {
        const [out, input, column] = kk.split(SEP);
        if (out === c.name && overlaps(input + SEP + column, key(e))) {
          for (const x of kinds) by.add(x);
          explained.add(kk);
        }
      }
      const list = PERTURBATION_KINDS.filter((x) => by.has(x));
      edges.push({
        output: c.name, input: e.input, column: e.column, verdict: list.length ? 'confirmed' : 'not_exercised', by: list,
        reason: list.length ? null : unstable.has(c.name) ? 'the column is not the same on two runs of the unperturbed copy (now(), random() or the like), so no change can be seen' : notExercisedReason(e, inputs, baseline),
      });
    }
  }
  const influences: InfluenceResult[] = [];
  for (const [kk, kinds] of observed) {
    if (explained.has(kk)) continue;
    const [output, input, column] = kk.split(SEP);
    influences.push({ output, input, column, verdict: isRef({ input, column }) ? 'via_joins_and_filters' : 'unexplained', by: PERTURBATION_KINDS.filter((x) => kinds.has(x)) });
  }
  const order = new Map(baseline.names.map((n, i) => [n, i]));
  influences.sort((a, b) => (order.get(a.output) ?? -1) - (order.get(b.output) ?? -1) || (a.input < b.input ? -1 : a.input > b.input ? 1 : a.column < b.column ? -1 : a.column > b.column ? 1 : 0));
  const counts: LineageCounts = {
    claimed: edges.length,
    confirmed: edges.filter((e) => e.verdict === 'confirmed').length,
    notExercised: edges.filter((e) => e.verdict === 'not_exercised').length,
    viaJoinsAndFilters: influences.filter((x) => x.verdict === 'via_joins_and_filters').length,
    unexplained: influences.filter((x) => x.verdict === 'unexplained').length,
  };
  const notes = [
    ...claims.notes,
    ...[...unstable].map((c) => `${c} differs between two runs of the unperturbed copy: left out of detection`),
    ...failures.map((f) => `a perturbation made the model fail (not counted): ${f}`),
  ];
  return { ...base, status: 'verified', inputs, claims: { ...claims, notes }, edges, influences, outputRows: baseline.rows.length, rowKey, runs, counts };
}

function notExercisedReason(e: ColumnRef, inputs: ModelInput[], baseline: ResultRows): string {
  const inp = inputs.find((x) => x.name === e.input);
  if (inp && inp.rows === 0) return `the copy of ${e.input} has no rows`;
  if (baseline.rows.length === 0) return 'the model returns no rows on this sample';
  return 'no perturbation changed it on this sample: the edge may be masked (a later COALESCE argument whose first is never NULL, a CASE branch no row takes) or absent';
}

// ---- running ----

/** Runs `work` on `conn`, interrupting it after `timeoutMs`: the one time limit of every model query. */
async function timeLimited<T>(conn: DuckDBConnection, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const timer = setTimeout(() => { try { conn.interrupt(); } catch { /* closed */ } }, timeoutMs);
  try {
    return await work();
  } catch (e) {
    throw /interrupt/i.test(oneLine(e)) ? new LakerecError('usage', `it ran longer than the time limit of ${timeoutMs / 1000} s`) : e;
  } finally { clearTimeout(timer); }
}

function readRows(conn: DuckDBConnection, sql: string, timeoutMs: number): Promise<ResultRows> {
  return timeLimited(conn, timeoutMs, async () => {
    const r = await conn.runAndReadAll(sql);
    return { names: r.columnNames(), rows: r.getRowsJson().map((row) => row.map((v) => (v === null ? null : JSON.stringify(v)))) };
  });
}

function withLimit(conn: DuckDBConnection, sql: string, timeoutMs: number): Promise<void> {
  return timeLimited(conn, timeoutMs, () => conn.run(sql).then(() => undefined));
}

async function permTable(conn: DuckDBConnection, n: number, seed: number): Promise<void> {
  const p = sattolo(n, seed);
  await conn.run('CREATE OR REPLACE TEMP TABLE lr_perm (src BIGINT, dst BIGINT)');
  for (let i = 0; i < n; i += 1000) {
    const part = p.slice(i, i + 1000).map((src, j) => `(${src}, ${i + j})`).join(', ');
    await conn.run(`INSERT INTO lr_perm VALUES ${part}`);
  }
}

/** The statement as SQL, every FROM item that names an input pointed at `table(input)`. */
async function pointAt(conn: DuckDBConnection, statement: Node, resolver: InputResolver, table: (input: string) => string | null): Promise<string> {
  const clone = JSON.parse(JSON.stringify(statement)) as Node;
  const ctes = cteNames(clone);
  for (const t of baseTables(clone)) {
    const plain = !t.schema_name && !t.catalog_name;
    const name = String(t.table_name);
    if (plain && ctes.has(name.toLowerCase())) continue;
    const hit = resolver({ catalog: String(t.catalog_name ?? ''), schema: String(t.schema_name ?? ''), table: name });
    if (!hit) continue;
    const to = table(hit.name);
    if (to === null) throw new LakerecError('internal', `no copy of ${hit.name}`);
    if (!t.alias) t.alias = name;
    t.table_name = to;
    t.schema_name = '';
    t.catalog_name = '';
  }
  return deparse(conn, clone);
}

/** The inputs a statement's FROM items name (CTEs left out), and the names that are no input. */
function inputsOf(statement: Node, resolver: InputResolver): { inputs: string[]; unknown: string[] } {
  const ctes = cteNames(statement);
  const inputs: string[] = [];
  const unknown: string[] = [];
  for (const t of baseTables(statement)) {
    const plain = !t.schema_name && !t.catalog_name;
    const name = String(t.table_name);
    if (plain && ctes.has(name.toLowerCase())) continue;
    const hit = resolver({ catalog: String(t.catalog_name ?? ''), schema: String(t.schema_name ?? ''), table: name });
    if (hit) { if (!inputs.includes(hit.name)) inputs.push(hit.name); } else {
      const full = [t.catalog_name, t.schema_name, name].filter((x) => typeof x === 'string' && x !== '').join('.');
      if (!unknown.includes(full)) unknown.push(full);
    }
  }
  return { inputs, unknown };
}

async function columnsOfTable(conn: DuckDBConnection, t: string): Promise<string[]> {
  return (await conn.runAndReadAll(`SELECT * FROM ${sqlIdent(t)} LIMIT 0`)).columnNames();
}

// ---- inputs ----

function sourceLoad(location: string, version: number | null): Source['load'] {
  if (existsSync(resolve(location, '_delta_log'))) return { delta: location, version };
  const ext = extname(location).toLowerCase();
  if (ext === '.parquet') return { parquet: location };
  return { csv: location };
}

function accessFor(sources: Source[], attach: string | null): { files: string[]; dirs: string[] } {
  const files: string[] = attach ? [attach] : [];
  const dirs: string[] = [];
  for (const s of sources) {
    const l = s.load;
    if (!l) continue;
    if ('csv' in l) files.push(l.csv);
    else if ('parquet' in l) files.push(l.parquet);
    else if ('delta' in l) dirs.push(l.delta);
  }
  return { files, dirs };
}

async function loadSource(conn: DuckDBConnection, s: Source, t: string, limit: number | null, ctx?: JobContext): Promise<void> {
  const l = s.load!;
  const lim = limit === null ? '' : ` LIMIT ${limit}`;
  if ('csv' in l) await conn.run(`CREATE TABLE ${sqlIdent(t)} AS SELECT * FROM read_csv(${sqlString(l.csv)}, header = true)${lim}`);
  else if ('parquet' in l) await conn.run(`CREATE TABLE ${sqlIdent(t)} AS SELECT * FROM read_parquet(${sqlString(l.parquet)})${lim}`);
  else if ('attached' in l) await conn.run(`CREATE TABLE ${sqlIdent(t)} AS SELECT * FROM lr_src.main.${sqlIdent(l.attached)}${lim}`);
  else {
    const table = await openTable(l.delta);
    const snap = await table.snapshot(l.version === null ? {} : { version: l.version }, ctx);
    await registerSnapshotView(conn, snap, `${t}_view`, {}, ctx);
    await conn.run(`CREATE TABLE ${sqlIdent(t)} AS SELECT * FROM ${sqlIdent(`${t}_view`)}${lim}`);
  }
}

function makeResolver(sources: Source[], columnsOf: (name: string) => string[]): InputResolver {
  return (t) => {
    const table = t.table.toLowerCase();
    const schema = t.schema.toLowerCase();
    // schema.identifier names a source; a plain name a model or seed first, then a source's identifier.
    if (schema) {
      const src = sources.find((s) => s.kind === 'source' && s.identifier.toLowerCase() === table && (s.schema?.toLowerCase() === schema || s.name.split('.')[0].toLowerCase() === schema));
      if (src) return rel(src);
    }
    const m = sources.find((s) => s.kind !== 'source' && s.identifier.toLowerCase() === table);
    if (m) return rel(m);
    const srcs = sources.filter((s) => s.kind === 'source' && s.identifier.toLowerCase() === table);
    return srcs.length === 1 ? rel(srcs[0]) : null;
  };
  function rel(s: Source): InputRelation {
    return { name: s.name, columns: columnsOf(s.name) };
  }
}

function unitOf(project: DbtProject, name: string, sqlFrom: 'auto' | 'rendered', columns: Map<string, string[]>): Unit {
  const m = project.models.find((x) => x.name === name)!;
  if (sqlFrom === 'auto' && m.compiled !== null) return { name, path: m.path, sqlFrom: 'compiled', sql: m.compiled, error: null };
  try {
    const r = renderModel({
      name: project.name,
      vars: project.vars,
      macros: project.macros,
      ref: (n) => (project.models.some((x) => x.name === n) || project.seeds.some((x) => x.name === n) ? new Relation(null, n) : null),
      source: (src, table) => {
        const s = project.sources.find((x) => x.source === src && x.table === table);
        return s ? new Relation(s.schema, s.identifier) : null;
      },
      columnsOf: (rel) => columns.get(rel.schema ? `${project.sources.find((x) => x.schema === rel.schema && x.identifier === rel.identifier)?.source}.${rel.identifier}` : rel.identifier) ?? null,
    }, name, m.raw);
    return { name, path: m.path, sqlFrom: 'rendered', sql: r.sql, error: null };
  } catch (e) {
    return { name, path: m.path, sqlFrom: 'rendered', sql: null, error: `its Jinja does not render: ${oneLine(e)}` };
  }
}

/** The views of an attached DuckDB file as models, its base tables as inputs. */
async function duckdbFileModels(conn: DuckDBConnection): Promise<{ units: Unit[]; sources: Source[] }> {
  const tables = (await conn.runAndReadAll("SELECT table_name FROM duckdb_tables() WHERE database_name = 'lr_src' AND schema_name = 'main' ORDER BY table_name")).getRows();
  const views = (await conn.runAndReadAll("SELECT view_name, sql FROM duckdb_views() WHERE database_name = 'lr_src' AND schema_name = 'main' AND NOT internal ORDER BY view_name")).getRows();
  const sources: Source[] = tables.map((r) => ({ name: String(r[0]), kind: 'table', load: { attached: String(r[0]) }, schema: null, identifier: String(r[0]) }));
  const units: Unit[] = [];
  for (const [name, text] of views) {
    const q = await viewQuery(conn, String(text));
    units.push({ name: String(name), path: null, sqlFrom: 'duckdb_view', sql: q, error: q === null ? 'its SQL could not be read back as a query' : null });
    sources.push({ name: String(name), kind: 'model', load: null, schema: null, identifier: String(name) });
  }
  return { units, sources };
}

/**
 * The statements of a SQL script, split where DuckDB's parser says one statement ends (a `;`
 * inside a string or a comment does not end one).
 */
async function splitStatements(conn: DuckDBConnection, text: string): Promise<string[]> {
  const out: string[] = [];
  let start = 0;
  for (let at = text.indexOf(';'); at >= 0; at = text.indexOf(';', at + 1)) {
    const piece = text.slice(start, at + 1);
    let n = -1;
    try { n = (await conn.extractStatements(piece)).count; } catch { continue; }
    if (n === 1) { out.push(piece.trim()); start = at + 1; } else if (n === 0) start = at + 1;
  }
  const rest = text.slice(start).trim();
  if (rest) out.push(rest);
  return out;
}

/** The tables (and views) a SQL script creates with `CREATE ... AS <query>`, as models. */
async function sqlScriptModels(conn: DuckDBConnection, text: string, file: string): Promise<Unit[]> {
  const units: Unit[] = [];
  // A scratch DuckDB with no file access names what each statement creates (its head run on SELECT 1).
  const scratch = await openDuck({ threads: 1 });
  try {
    await scratch.restrict({});
    for (const st of await splitStatements(conn, text)) {
      if ((await parseQuery(conn, st)).ok) continue; // a bare query creates nothing
      const q = await viewQuery(conn, st);
      if (q === null) continue; // not CREATE ... AS <query>: no model
      const head = st.slice(0, st.lastIndexOf(q));
      const before = new Set((await scratch.conn.runAndReadAll('SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal')).getRows().map((r) => String(r[0])));
      try { await scratch.conn.run(`${head} SELECT 1 AS x`); } catch { continue; }
      const made = (await scratch.conn.runAndReadAll('SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal')).getRows().map((r) => String(r[0])).filter((n) => !before.has(n));
      if (made.length !== 1) continue;
      units.push({ name: made[0], path: file, sqlFrom: 'sql_script', sql: q, error: null });
    }
  } finally { scratch.close(); }
  return units;
}

/**
 * The query of `CREATE VIEW v AS <query>` as DuckDB stores it: the shortest tail after an `AS`
 * that DuckDB's parser reads as one SELECT statement (the parser decides, not a pattern).
 */
export async function viewQuery(conn: DuckDBConnection, createSql: string): Promise<string | null> {
  const upper = createSql.toUpperCase();
  for (let at = upper.indexOf('AS'); at >= 0; at = upper.indexOf('AS', at + 2)) {
    if (wordChar(upper[at - 1]) || wordChar(upper[at + 2])) continue;
    let tail = createSql.slice(at + 2).trim();
    if (tail.endsWith(';')) tail = tail.slice(0, -1);
    const p = await parseQuery(conn, tail);
    if (p.ok) return tail;
  }
  return null;
}

const wordChar = (c: string | undefined) => c !== undefined && ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_' || c === '"');

function topo(names: string[], deps: Map<string, string[]>): string[] {
  const out: string[] = [];
  const state = new Map<string, number>();
  const visit = (n: string) => {
    if (state.get(n) === 2) return;
    if (state.get(n) === 1) return; // a cycle: dbt refuses it; here it is left in place and fails on build
    state.set(n, 1);
    for (const d of deps.get(n) ?? []) if (names.includes(d)) visit(d);
    state.set(n, 2);
    out.push(n);
  };
  for (const n of names) visit(n);
  return out;
}

const zero = (): LineageCounts => ({ claimed: 0, confirmed: 0, notExercised: 0, viaJoinsAndFilters: 0, unexplained: 0 });
const add = (a: LineageCounts, b: LineageCounts): LineageCounts => ({
  claimed: a.claimed + b.claimed, confirmed: a.confirmed + b.confirmed, notExercised: a.notExercised + b.notExercised,
  viaJoinsAndFilters: a.viaJoinsAndFilters + b.viaJoinsAndFilters, unexplained: a.unexplained + b.unexplained,
});

function oneLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0].trim();
}
