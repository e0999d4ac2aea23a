// Lineage verified by perturbation, end to end: dbt projects written here to break it (macros,
// loops, adapter.dispatch, SELECT * chains, unions, window functions, a model with two statements,
// struct fields, a masked edge, Parquet and Delta sources, a DuckDB file's views), the
// wrong-lineage tests (the verifier must catch a deleted edge, a fabricated edge, a deleted filter
// reference), a run repeating exactly, the rendering check against compiled SQL, and the
// reference project when ../shared is present.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ModelClaims, ModelResult } from '../../shared/lineage';
import { ROWS } from '../../shared/lineage';
import { openDuck } from '../engine/duck';
import { DeltaWriter } from '../writer';
import { run as runCli } from '../cli/lineage';
import { verifyLineage } from './verify';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-lineage-test-')); });
afterAll(() => { if (!process.env.LR_KEEP) rmSync(dir, { recursive: true, force: true }); else console.log("KEPT", dir); });

function project(name: string, files: Record<string, string>): string {
  const root = join(dir, name);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}

const ORDERS_CSV = ['id,customer_id,amount,status,ordered_at',
  ...Array.from({ length: 40 }, (_, i) => `${i + 1},${(i % 7) + 1},${(i * 137) % 5000 + 100},${['placed', 'shipped', 'returned'][i % 3]},2024-0${(i % 9) + 1}-${String((i % 27) + 1).padStart(2, '0')}`)].join('\n') + '\n';
const CUSTOMERS_CSV = ['id,name', ...Array.from({ length: 7 }, (_, i) => `${i + 1},name${i + 1}`)].join('\n') + '\n';

const SHOP: Record<string, string> = {
  'dbt_project.yml': "name: 'shop'\nconfig-version: 2\nprofile: 'shop'\nvars:\n  min_amount: 0\n",
  'seeds/raw_orders.csv': ORDERS_CSV,
  'seeds/raw_customers.csv': CUSTOMERS_CSV,
  'macros/money.sql': `{% macro to_dollars(col) %}{{ return(adapter.dispatch('to_dollars')(col)) }}{% endmacro %}
{% macro default__to_dollars(col) %}({{ col }} / 100){% endmacro %}
{% macro duckdb__to_dollars(col) %}({{ col }} / 100.0){% endmacro %}
{% macro statuses() %}{% do return(['placed', 'shipped', 'returned']) %}{% endmacro %}`,
  'models/staging/stg_orders.sql': `{{ config(materialized='view') }}
select id as order_id, customer_id, {{ to_dollars('amount') }} as amount, status, cast(ordered_at as date) as ordered_at
from {{ ref('raw_orders') }} where amount >= {{ var('min_amount') }}`,
  'models/order_flags.sql': `{%- set names = statuses() %}
select order_id,
{%- for s in names %}
  case when status = '{{ s }}' then 1 else 0 end as is_{{ s }}{% if not loop.last %},{% endif %}
{%- endfor %}
from {{ ref('stg_orders') }}`,
  'models/all_orders.sql': `with a as (select * from {{ ref('stg_orders') }}), b as (select * exclude (ordered_at) replace (amount * 2 as amount) from a)
select * from b`,
  'models/ids.sql': `select order_id as id, 'order' as kind from {{ ref('stg_orders') }}
union all
select id, 'customer' as kind from {{ ref('raw_customers') }}`,
  'models/ranked.sql': `select order_id, customer_id,
  row_number() over (partition by customer_id order by amount desc, order_id) as rank_in_customer,
  sum(amount) over (partition by customer_id) as customer_total
from {{ ref('stg_orders') }}
qualify rank_in_customer <= 3`,
  'models/keys.sql': `{{ config(materialized='incremental') }}
select {{ dbt_utils.generate_surrogate_key(['order_id', 'customer_id']) }} as sk, {{ dbt.date_trunc('month', 'ordered_at') }} as month
from {{ ref('stg_orders') }}
{% if is_incremental() %} where ordered_at > (select max(month) from {{ this }}) {% endif %}`,
  'models/masked.sql': 'select order_id, coalesce(amount, customer_id) as amt from {{ ref(\'stg_orders\') }}',
  'models/customer_totals.sql': `select c.id as customer_id, c.name, count(o.order_id) as n, sum(o.amount) as total
from {{ ref('raw_customers') }} c left join {{ ref('stg_orders') }} o on o.customer_id = c.id
group by 1, 2`,
  'models/starred.sql': "select {{ dbt_utils.star(ref('stg_orders'), except=['ordered_at', 'status']) }} from {{ ref('stg_orders') }}",
  'models/replacement_scan.sql': "select * from '/etc/hostname'",
  'models/two_statements.sql': 'select 1 as x; select 2 as y',
  'models/creates.sql': 'create table t as select 1 as x',
  'models/reads_files.sql': "select * from read_csv('/etc/hostname')",
};

const edgeStrings = (m: ModelResult) => m.edges.map((e) => `${e.output}<-${e.input}.${e.column}:${e.verdict}`).sort();
const model = (r: { models: ModelResult[] }, name: string) => {
  const m = r.models.find((x) => x.name === name);
  if (!m) throw new Error(`no model ${name}`);
  return m;
};

describe('dbt projects written to break it', () => {
  let r: Awaited<ReturnType<typeof verifyLineage>>;
  beforeAll(async () => { r = await verifyLineage({ project: project('shop', SHOP) }); }, 120_000);

  it('renders macros, adapter.dispatch (duckdb__ first), return(), var and config', () => {
    const m = model(r, 'stg_orders');
    expect(m.status).toBe('verified');
    expect(m.sqlFrom).toBe('rendered');
    expect(edgeStrings(m)).toEqual([
      'amount<-raw_orders.amount:confirmed', 'customer_id<-raw_orders.customer_id:confirmed', 'order_id<-raw_orders.id:confirmed',
      'ordered_at<-raw_orders.ordered_at:confirmed', 'status<-raw_orders.status:confirmed',
    ]);
    // the WHERE on amount decides rows: NULL removes them, and the graph records the reference
    expect(m.influences).toContainEqual({ output: ROWS, input: 'raw_orders', column: 'amount', verdict: 'via_joins_and_filters', by: ['null'] });
    expect(m.counts.unexplained).toBe(0);
  });

  it('a loop over a macro\'s returned list: every generated column claimed and confirmed', () => {
    const m = model(r, 'order_flags');
    expect(m.claims!.columns.map((c) => c.name)).toEqual(['order_id', 'is_placed', 'is_shipped', 'is_returned']);
    expect(m.counts).toMatchObject({ claimed: 4, confirmed: 4, unexplained: 0 });
  });

  it('SELECT * chains with EXCLUDE and REPLACE', () => {
    const m = model(r, 'all_orders');
    expect(m.claims!.columns.map((c) => c.name)).toEqual(['order_id', 'customer_id', 'amount', 'status']);
    expect(m.counts).toMatchObject({ claimed: 4, confirmed: 4, unexplained: 0 });
  });

  it('UNION ALL: both branches feed the column', () => {
    const m = model(r, 'ids');
    expect(edgeStrings(m)).toEqual(['id<-raw_customers.id:confirmed', 'id<-stg_orders.order_id:confirmed']);
    expect(m.counts.unexplained).toBe(0);
  });

  it('window functions and QUALIFY: ORDER BY and PARTITION BY columns confirmed, QUALIFY a reference', () => {
    const m = model(r, 'ranked');
    expect(edgeStrings(m)).toContain('rank_in_customer<-stg_orders.amount:confirmed');
    expect(edgeStrings(m)).toContain('customer_total<-stg_orders.customer_id:confirmed');
    expect(m.counts.unexplained).toBe(0);
    // order_id only breaks ties of amount, and no two amounts of a customer tie on this sample: masked
    expect(m.edges.filter((e) => e.verdict === 'not_exercised').map((e) => `${e.output}<-${e.column}`)).toEqual(['rank_in_customer<-order_id']);
    expect(m.influences).toContainEqual(expect.objectContaining({ output: ROWS, column: 'amount', verdict: 'via_joins_and_filters' }));
  });

  it('dbt_utils.star: the built relation\'s columns but the excepted ones', () => {
    const m = model(r, 'starred');
    expect(m.claims!.columns.map((c) => c.name)).toEqual(['order_id', 'customer_id', 'amount']);
    expect(m.counts).toMatchObject({ claimed: 3, confirmed: 3, unexplained: 0 });
  });

  it('dbt_utils.generate_surrogate_key, dbt.date_trunc, is_incremental() false', () => {
    const m = model(r, 'keys');
    expect(edgeStrings(m)).toEqual([
      'month<-stg_orders.ordered_at:confirmed', 'sk<-stg_orders.customer_id:confirmed', 'sk<-stg_orders.order_id:confirmed',
    ]);
  });

  it('a masked edge is reported not exercised, with the reason', () => {
    const m = model(r, 'masked');
    // amount is never NULL on the sample: no perturbation of customer_id reaches the output
    const e = m.edges.find((x) => x.column === 'customer_id')!;
    expect(e.verdict).toBe('not_exercised');
    expect(e.reason).toMatch(/COALESCE/);
    // while NULL on amount makes COALESCE fall back, so amount's edge is confirmed
    expect(m.edges.find((x) => x.column === 'amount')!).toMatchObject({ verdict: 'confirmed' });
    expect(m.edges.find((x) => x.column === 'amount')!.by).toContain('null');
  });

  it('joins and GROUP BY ordinals: the join keys are references, their influence via joins', () => {
    const m = model(r, 'customer_totals');
    expect(m.counts.unexplained).toBe(0);
    expect(m.influences.some((x) => x.input === 'stg_orders' && x.column === 'customer_id' && x.verdict === 'via_joins_and_filters')).toBe(true);
    expect(m.rowKey).toBe('customer_id');
    expect(m.edges.find((e) => e.output === 'n')!.by).toEqual(['null']);
  });

  it('skips, with the reason, a model of two statements, DDL, and a file-reading table function', () => {
    expect(model(r, 'two_statements')).toMatchObject({ status: 'skipped' });
    expect(model(r, 'two_statements').skipReason).toMatch(/2 statements/);
    expect(model(r, 'creates').skipReason).toMatch(/not a query/);
    expect(model(r, 'reads_files').skipReason).toMatch(/table function read_csv/);
    // a file named in FROM (DuckDB's replacement scan) is no input of the project
    expect(model(r, 'replacement_scan').skipReason).toMatch(/reads \/etc\/hostname, which is no model, seed or source/);
    expect(r.totals.skipped).toBe(4);
  });

  it('the CLI prints the same counts, and --json the same object', async () => {
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: () => {}, cwd: dir, env: {} };
    const code = await runCli([join(dir, 'shop'), '--json'], io);
    expect(code).toBe(0);
    const j = JSON.parse(out.join('')) as typeof r;
    expect(j.totals).toEqual(r.totals);
    const text: string[] = [];
    await runCli([join(dir, 'shop'), '--model', 'stg_orders', '--markdown', join(dir, 'report.md')], { ...io, out: (t: string) => text.push(t) });
    expect(text.join('')).toMatch(/stg_orders +5 +5 +0 +\d+ +0/);
    expect(existsSync(join(dir, 'report.md'))).toBe(true);
  }, 120_000);
});

describe('a model whose edge no perturbation exercises', () => {
  it('reports not exercised when a CASE branch is taken by no row', async () => {
    const root = project('masked', {
      'dbt_project.yml': "name: 'masked'\n",
      'seeds/raw.csv': 'id,a,b\n1,10,100\n2,20,200\n3,30,300\n',
      // a CASE whose ELSE no row takes (id is never NULL or below 1): no perturbation of b reaches v
      'models/m.sql': "select id, case when id > 0 then a else b end as v from {{ ref('raw') }}",
    });
    const r = await verifyLineage({ project: root });
    const m = model(r, 'm');
    const e = m.edges.find((x) => x.column === 'b')!;
    expect(e.verdict).toBe('not_exercised');
    expect(e.reason).toMatch(/masked/);
    expect(m.edges.find((x) => x.column === 'a')!.verdict).toBe('confirmed');
  }, 60_000);
});

describe('wrong lineage is caught', () => {
  const files = {
    'dbt_project.yml': "name: 'wrong'\n",
    'seeds/raw_orders.csv': ORDERS_CSV,
    'models/stg.sql': "select id as order_id, customer_id, amount / 100 as amount, status from {{ ref('raw_orders') }} where amount >= 0",
  };
  const edit = (f: (c: ModelClaims) => ModelClaims) => (_m: string, c: ModelClaims) => f(structuredClone(c));

  it('a deleted edge is reported unexplained', async () => {
    const r = await verifyLineage({
      project: project('wrong1', files),
      editClaims: edit((c) => ({ ...c, columns: c.columns.map((x) => (x.name === 'status' ? { ...x, edges: [] } : x)) })),
    });
    const m = model(r, 'stg');
    expect(m.influences).toContainEqual(expect.objectContaining({ output: 'status', input: 'raw_orders', column: 'status', verdict: 'unexplained' }));
    expect(m.counts.unexplained).toBeGreaterThan(0);
  }, 60_000);

  it('a fabricated edge is reported not exercised', async () => {
    const r = await verifyLineage({
      project: project('wrong2', files),
      editClaims: edit((c) => ({ ...c, columns: c.columns.map((x) => (x.name === 'status' ? { ...x, edges: [...x.edges, { input: 'raw_orders', column: 'customer_id' }] } : x)) })),
    });
    const m = model(r, 'stg');
    expect(m.edges).toContainEqual(expect.objectContaining({ output: 'status', input: 'raw_orders', column: 'customer_id', verdict: 'not_exercised' }));
    expect(m.counts.notExercised).toBe(1);
  }, 60_000);

  it('a deleted filter reference is an unexplained change in row count', async () => {
    const honest = await verifyLineage({ project: project('wrong3a', files) });
    expect(model(honest, 'stg').influences).toContainEqual(expect.objectContaining({ output: ROWS, column: 'amount', verdict: 'via_joins_and_filters' }));
    const r = await verifyLineage({
      project: project('wrong3', files),
      editClaims: edit((c) => ({ ...c, references: c.references.filter((x) => x.column !== 'amount') })),
    });
    expect(model(r, 'stg').influences).toContainEqual(expect.objectContaining({ output: ROWS, input: 'raw_orders', column: 'amount', verdict: 'unexplained' }));
  }, 60_000);

  it('the CLI exits 0 when nothing is unexplained', async () => {
    const root = project('gap', {
      'dbt_project.yml': "name: 'gap'\n",
      'seeds/raw.csv': 'id,a\n1,10\n2,20\n3,30\n',
      'models/m.sql': "select id, a from {{ ref('raw') }} where a > 0",
    });
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: () => {}, cwd: dir, env: {} };
    expect(await runCli([root], io)).toBe(0);
    expect(out.join('')).toMatch(/0 unexplained/);
  }, 60_000);
});

describe('a run repeats exactly', () => {
  it('the same seed gives the same result, another seed another shift', async () => {
    const root = project('repeat', SHOP);
    const a = await verifyLineage({ project: root, seed: 42, rows: 25 });
    const b = await verifyLineage({ project: root, seed: 42, rows: 25 });
    expect(b).toEqual(a);
    const c = await verifyLineage({ project: root, seed: 43, rows: 25 });
    expect(c.seed).toBe(43);
    expect(c.shift).not.toEqual(a.shift);
    expect(model(a, 'stg_orders').inputs[0].rows).toBe(25);
  }, 180_000);
});

describe('structs, Parquet, Delta at a version, a DuckDB file', () => {
  it('perturbs each field of a struct from a Parquet source, and reads a Delta source at the chosen version', async () => {
    const root = project('lake', {
      'dbt_project.yml': "name: 'lake'\n",
      'models/sources.yml': `version: 2
sources:
  - name: app
    tables:
      - name: events
        meta: { external_location: 'data/events.parquet' }
  - name: lake
    tables:
      - name: orders
        meta: { lakerec: { location: 'data/orders', version: 1 } }
`,
      'models/flat.sql': "select id, payload.kind as kind, payload.v * 2 as v2 from {{ source('app', 'events') }}",
      'models/delta_orders.sql': "select order_id, amount * 2 as dbl from {{ source('lake', 'orders') }}",
    });
    mkdirSync(join(root, 'data'), { recursive: true });
    const duck = await openDuck();
    try {
      await duck.conn.run(`COPY (SELECT i AS id, {'kind': 'k' || (i % 3), 'v': i * 10} AS payload FROM range(1, 21) t(i)) TO '${join(root, 'data/events.parquet')}' (FORMAT parquet)`);
    } finally { duck.close(); }
    const w = await DeltaWriter.create(join(root, 'data/orders'), {
      schema: { type: 'struct', fields: [{ name: 'order_id', type: 'long', nullable: false, metadata: {} }, { name: 'amount', type: 'double', nullable: true, metadata: {} }] },
    });
    await w.append({ sql: 'SELECT i::BIGINT AS order_id, (i * 1.5)::DOUBLE AS amount FROM range(0, 10) t(i)' });
    await w.append({ sql: 'SELECT i::BIGINT AS order_id, (i * 1.5)::DOUBLE AS amount FROM range(10, 30) t(i)' });
    w.close();
    const r = await verifyLineage({ project: root });
    const flat = model(r, 'flat');
    expect(edgeStrings(flat)).toEqual(['id<-app.events.id:confirmed', 'kind<-app.events.payload.kind:confirmed', 'v2<-app.events.payload.v:confirmed']);
    expect(flat.counts.unexplained).toBe(0);
    const d = model(r, 'delta_orders');
    expect(d.status).toBe('verified');
    // version 1 holds the first append's 10 rows; the latest (2) holds 30
    expect(d.inputs[0]).toMatchObject({ name: 'lake.orders', kind: 'source', rows: 10 });
    expect(d.counts).toMatchObject({ claimed: 2, confirmed: 2, unexplained: 0 });
  }, 120_000);

  it('verifies the views of a DuckDB file over its tables, read only', async () => {
    const file = join(dir, 'warehouse.duckdb');
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const inst = await DuckDBInstance.create(file);
    const c = await inst.connect();
    await c.run('CREATE TABLE orders AS SELECT i AS id, i % 4 AS customer_id, i * 3 AS amount FROM range(1, 30) t(i)');
    await c.run('CREATE VIEW totals AS SELECT customer_id, sum(amount) AS total FROM orders GROUP BY customer_id');
    await c.run('CREATE VIEW big AS SELECT * FROM totals WHERE total > 100');
    c.closeSync();
    inst.closeSync();
    const r = await verifyLineage({ project: file });
    expect(r.kind).toBe('duckdb');
    expect(r.models.map((m) => m.name)).toEqual(['totals', 'big']);
    expect(edgeStrings(model(r, 'totals'))).toEqual(['customer_id<-orders.customer_id:confirmed', 'total<-orders.amount:confirmed']);
    expect(model(r, 'big').counts).toMatchObject({ claimed: 2, confirmed: 2, unexplained: 0 });
    expect(model(r, 'big').sqlFrom).toBe('duckdb_view');
  }, 60_000);

  it('reads the CREATE TABLE AS statements of the SQL script beside a DuckDB file as models, rebuilt from its other tables', async () => {
    const file = join(dir, 'built.duckdb');
    const script = [
      "-- built by hand; a ';' in a comment or 'a;string' does not end a statement",
      'CREATE TABLE raw AS SELECT i AS id, i % 3 AS grp, i * 1.5 AS amt FROM range(1, 40) t(i);',
      "CREATE OR REPLACE TABLE per_grp AS SELECT grp, sum(amt) AS total, 'a;b' AS tag FROM raw GROUP BY grp;",
      'CREATE VIEW top AS SELECT grp, total FROM per_grp WHERE total > 10;',
      'SELECT 1;',
    ].join('\n');
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const inst = await DuckDBInstance.create(file);
    const c = await inst.connect();
    await c.run(script);
    c.closeSync();
    inst.closeSync();
    writeFileSync(join(dir, 'built.sql'), script);
    const r = await verifyLineage({ project: file });
    // raw's CREATE reads range() only: a model of no input; per_grp and top are rebuilt from it
    const per = model(r, 'per_grp');
    expect(per.sqlFrom).toBe('sql_script');
    expect(per.dependsOn).toEqual(['raw']);
    expect(edgeStrings(per)).toEqual(['grp<-raw.grp:confirmed', 'total<-raw.amt:confirmed']);
    expect(model(r, 'top').dependsOn).toEqual(['per_grp']);
    expect(model(r, 'top').counts).toMatchObject({ claimed: 2, confirmed: 2, unexplained: 0 });
  }, 60_000);
});

describe('rendering check: lakerec\'s own rendering against dbt\'s compiled SQL', () => {
  it('gives the same lineage, edge for edge and reference for reference', async () => {
    const files: Record<string, string> = { ...SHOP };
    for (const k of ['models/two_statements.sql', 'models/creates.sql', 'models/reads_files.sql', 'models/replacement_scan.sql']) delete files[k];
    // target/compiled as dbt-duckdb writes it: relations fully qualified, Jinja expanded.
    const q = (m: string) => `"shop"."main"."${m}"`;
    files['target/compiled/shop/models/staging/stg_orders.sql'] = `select id as order_id, customer_id, (amount / 100.0) as amount, status, cast(ordered_at as date) as ordered_at
from ${q('raw_orders')} where amount >= 0`;
    files['target/compiled/shop/models/order_flags.sql'] = `select order_id,
  case when status = 'placed' then 1 else 0 end as is_placed,
  case when status = 'shipped' then 1 else 0 end as is_shipped,
  case when status = 'returned' then 1 else 0 end as is_returned
from ${q('stg_orders')}`;
    files['target/compiled/shop/models/all_orders.sql'] = `with a as (select * from ${q('stg_orders')}), b as (select * exclude (ordered_at) replace (amount * 2 as amount) from a)
select * from b`;
    files['target/compiled/shop/models/ids.sql'] = `select order_id as id, 'order' as kind from ${q('stg_orders')}
union all
select id, 'customer' as kind from ${q('raw_customers')}`;
    files['target/compiled/shop/models/ranked.sql'] = `select order_id, customer_id,
  row_number() over (partition by customer_id order by amount desc, order_id) as rank_in_customer,
  sum(amount) over (partition by customer_id) as customer_total
from ${q('stg_orders')}
qualify rank_in_customer <= 3`;
    files['target/compiled/shop/models/keys.sql'] = `select md5(cast(coalesce(cast(order_id as TEXT), '_dbt_utils_surrogate_key_null_') || '-' || coalesce(cast(customer_id as TEXT), '_dbt_utils_surrogate_key_null_') as TEXT)) as sk,
  date_trunc('month', ordered_at) as month
from ${q('stg_orders')}`;
    files['target/compiled/shop/models/starred.sql'] = `select "order_id",\n  "customer_id",\n  "amount" from ${q('stg_orders')}`;
    files['target/compiled/shop/models/masked.sql'] = `select order_id, coalesce(amount, customer_id) as amt from ${q('stg_orders')}`;
    files['target/compiled/shop/models/customer_totals.sql'] = `select c.id as customer_id, c.name, count(o.order_id) as n, sum(o.amount) as total
from ${q('raw_customers')} c left join ${q('stg_orders')} o on o.customer_id = c.id
group by 1, 2`;
    const root = project('compiled', files);
    const compiled = await verifyLineage({ project: root });
    const rendered = await verifyLineage({ project: root, sqlFrom: 'rendered' });
    expect(compiled.models.every((m) => m.sqlFrom === 'compiled')).toBe(true);
    expect(rendered.models.every((m) => m.sqlFrom === 'rendered')).toBe(true);
    const lineage = (r: typeof compiled) => r.models.map((m) => ({
      name: m.name,
      edges: m.claims!.columns.flatMap((c) => c.edges.map((e) => `${c.name}<-${e.input}.${e.column}`)),
      refs: m.claims!.references.map((e) => `${e.input}.${e.column}`),
    }));
    expect(lineage(rendered)).toEqual(lineage(compiled));
    expect(compiled.totals.claimed).toBeGreaterThan(20);
  }, 180_000);
});

const JAFFLE = resolve(__dirname, '../../../shared/lineage/jaffle_shop');
describe.skipIf(!existsSync(JAFFLE))('the reference project (../shared/lineage/jaffle_shop)', () => {
  it('5 models, 31 claimed column edges, all confirmed, none unexplained', async () => {
    const r = await verifyLineage({ project: JAFFLE });
    expect(r.totals).toMatchObject({ models: 5, verified: 5, claimed: 31, confirmed: 31, notExercised: 0, unexplained: 0 });
    expect(r.models.map((m) => m.name).sort()).toEqual(['customers', 'orders', 'stg_customers', 'stg_orders', 'stg_payments']);
  }, 120_000);
});
if (!existsSync(JAFFLE)) console.warn(`lineage: the reference project is absent (${JAFFLE}); its test is skipped`);

describe('sources', () => {
  it('a source filled by a seed of the same name is read from it; a source with no data skips its models with the reason', async () => {
    const root = project('seeded-sources', {
      'dbt_project.yml': "name: 'ss'\nseeds:\n  ss:\n    +schema: raw\n",
      'seeds/jaffle-data/raw_items.csv': 'id,sku,price\n1,a,100\n2,b,250\n3,c,75\n',
      'models/staging/__sources.yml': 'version: 2\nsources:\n  - name: ecom\n    schema: raw\n    tables:\n      - name: raw_items\n      - name: raw_stores\n',
      'models/staging/stg_items.sql': "select id as item_id, sku, {{ dbt.safe_cast('price', dbt.type_numeric()) }} / 100 as price from {{ source('ecom', 'raw_items') }}",
      'models/staging/stg_stores.sql': "select * from {{ source('ecom', 'raw_stores') }}",
    });
    const r = await verifyLineage({ project: root });
    expect(model(r, 'stg_items')).toMatchObject({ status: 'verified', counts: { claimed: 3, confirmed: 3, unexplained: 0 } });
    expect(model(r, 'stg_items').inputs[0]).toMatchObject({ name: 'ecom.raw_items', kind: 'source', rows: 3 });
    expect(model(r, 'stg_stores').skipReason).toMatch(/ecom.raw_stores was not built: the project gives no location/);
  }, 60_000);
});

describe('dbt\'s manifest', () => {
  it('reads compiled_code from target/manifest.json, relations named by their alias', async () => {
    const root = project('manifest', {
      'dbt_project.yml': "name: 'mf'\n",
      'seeds/raw.csv': 'id,a\n1,10\n2,20\n3,30\n',
      'models/base.sql': "{{ config(alias='base_v2') }} select id, a from {{ ref('raw') }}",
      'models/top.sql': "select id, a + 1 as b from {{ ref('base') }}",
      'target/manifest.json': JSON.stringify({ nodes: {
        'model.mf.base': { resource_type: 'model', name: 'base', alias: 'base_v2', original_file_path: 'models/base.sql', compiled_code: 'select id, a from "db"."main"."raw"' },
        'model.mf.top': { resource_type: 'model', name: 'top', alias: 'top', original_file_path: 'models/top.sql', compiled_code: 'select id, a + 1 as b from "db"."main"."base_v2"' },
      } }),
    });
    const r = await verifyLineage({ project: root });
    expect(r.models.map((m) => [m.name, m.sqlFrom, m.dependsOn])).toEqual([['base', 'compiled', ['raw']], ['top', 'compiled', ['base']]]);
    expect(edgeStrings(model(r, 'top'))).toEqual(['b<-base.a:confirmed', 'id<-base.id:confirmed']);
  }, 60_000);
});

describe('a model that is not the same twice', () => {
  it('leaves a column computed from random() out of detection, with a note, and verifies the rest', async () => {
    const root = project('unstable', {
      'dbt_project.yml': "name: 'un'\n",
      'seeds/raw.csv': 'id,a\n1,10\n2,20\n3,30\n',
      'models/m.sql': "select id, a * 2 as a2, random() + a as noisy from {{ ref('raw') }}",
    });
    const m = model(await verifyLineage({ project: root }), 'm');
    expect(m.counts.unexplained).toBe(0);
    expect(m.edges.find((e) => e.output === 'a2')!.verdict).toBe('confirmed');
    expect(m.edges.find((e) => e.output === 'noisy')!.reason).toMatch(/not the same on two runs/);
    expect(m.claims!.notes.join(' ')).toMatch(/noisy differs between two runs/);
  }, 60_000);
});

describe('time limit and cancel', () => {
  const files = {
    'dbt_project.yml': "name: 'slow'\n",
    'seeds/raw.csv': 'id,a\n1,10\n2,20\n',
    'models/fast.sql': "select id, a from {{ ref('raw') }}",
    'models/slow.sql': "select id, (select count(*) from range(100000000000) t(x) where x % 7 = a) as n from {{ ref('raw') }}",
  };
  it('a model over the time limit is skipped with the reason; the others run', async () => {
    const r = await verifyLineage({ project: project('slow', files), timeoutMs: 300 });
    expect(model(r, 'slow').skipReason).toMatch(/longer than the time limit of 0.3 s/);
    expect(model(r, 'fast').status).toBe('verified');
  }, 60_000);
  it('cancel stops the running query and ends the run as cancelled', async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    const p = verifyLineage({ project: project('slow2', files), ctx: { signal: ac.signal } });
    setTimeout(() => ac.abort(), 400);
    await expect(p).rejects.toMatchObject({ code: 'cancelled' });
    expect(Date.now() - t0).toBeLessThan(20_000);
  }, 60_000);
});

describe('hostile projects: one clear line, a documented exit code', () => {
  const cli = async (args: string[]) => {
    const err: string[] = [];
    const { runCli: main } = await import('../cli/main');
    const code = await main(['lineage', ...args], { out: () => {}, err: (t: string) => err.push(t), cwd: dir, env: {} });
    return { code, err: err.join('') };
  };
  it('refuses a path that is neither a dbt project nor a DuckDB file, bad YAML, a bad --rows', async () => {
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    expect(await cli([join(dir, 'notes.txt')])).toMatchObject({ code: 2 });
    const bad = project('badyaml', { 'dbt_project.yml': 'name: [unclosed\n' });
    const r = await cli([bad]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not valid YAML/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect((await cli([bad, '--rows', '0'])).code).toBe(2);
    expect((await cli([join(dir, 'nowhere')])).code).toBe(3);
  });
  it('a model that ref()s nothing known, or whose Jinja fails, is skipped with the reason', async () => {
    const root = project('badrefs', {
      'dbt_project.yml': "name: 'badrefs'\n",
      'seeds/raw.csv': 'id\n1\n',
      'models/a.sql': "select * from {{ ref('missing') }}",
      'models/b.sql': '{% if %}',
      'models/c.sql': "select id from {{ ref('a') }}",
      'models/d.sql': "select {{ env_var('SECRET') }} as s from {{ ref('raw') }}",
    });
    const r = await verifyLineage({ project: root });
    expect(model(r, 'a').skipReason).toMatch(/ref\('missing'\) names no model or seed/);
    expect(model(r, 'b').skipReason).toMatch(/does not render/);
    expect(model(r, 'd').skipReason).toMatch(/env_var\('SECRET'\) has no default/);
  });
});
