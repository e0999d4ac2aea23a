// The claimed lineage, one construct at a time, read from DuckDB's parser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDuck, type Duck } from '../engine/duck';
import { claimLineage, type InputRelation } from './claims';
import { guardQuery, parseQuery } from './parse';

let duck: Duck;
beforeAll(async () => { duck = await openDuck({ threads: 1 }); });
afterAll(() => duck.close());

const INPUTS: InputRelation[] = [
  { name: 'orders', columns: ['id', 'customer_id', 'amount', 'status', 'ordered_at'] },
  { name: 'customers', columns: ['id', 'name', 'tier'] },
  { name: 'events', columns: ['id', 'payload', 'at'] },
];

async function claims(sql: string) {
  const p = await parseQuery(duck.conn, sql);
  if (!p.ok) throw new Error(p.reason);
  return claimLineage(p.statement, (t) => INPUTS.find((i) => i.name === t.table.toLowerCase()) ?? null);
}
/** `output <- input.column, ...` per output column, for compact expectations. */
function edges(c: Awaited<ReturnType<typeof claims>>): Record<string, string[]> {
  return Object.fromEntries(c.columns.map((x) => [x.name, x.edges.map((e) => `${e.input}.${e.column}`)]));
}
const refs = (c: Awaited<ReturnType<typeof claims>>) => c.references.map((e) => `${e.input}.${e.column}`);

describe('claimed lineage by construct', () => {
  it('plain columns, aliases and arithmetic', async () => {
    const c = await claims('select id as order_id, amount / 100 as dollars, amount * 2 + id as mix from orders');
    expect(edges(c)).toEqual({ order_id: ['orders.id'], dollars: ['orders.amount'], mix: ['orders.amount', 'orders.id'] });
    expect(c.references).toEqual([]);
    expect(c.notes).toEqual([]);
  });

  it('CTEs, nested and shadowing, followed to the inputs', async () => {
    const c = await claims(`with a as (select id, amount from orders), b as (select id as k, amount + 1 as amt from a),
      orders as (select k as id from b) select * from orders`);
    expect(edges(c)).toEqual({ id: ['orders.id'] });
  });

  it('subqueries in FROM and scalar, IN and EXISTS subqueries in expressions', async () => {
    const c = await claims(`select s.id, (select max(tier) from customers c where c.id = s.customer_id) as top,
      s.customer_id in (select id from customers) as known from (select id, customer_id from orders) s
      where exists (select 1 from customers c2 where c2.name = 'x')`);
    expect(edges(c)).toEqual({ id: ['orders.id'], top: ['customers.tier'], known: ['customers.id', 'orders.customer_id'] });
    expect(refs(c)).toEqual(['customers.id', 'customers.name', 'orders.customer_id']);
  });

  it('joins: ON conditions and WHERE are references, not edges', async () => {
    const c = await claims(`select o.id, c.name from orders o left join customers c on o.customer_id = c.id where o.status <> 'x'`);
    expect(edges(c)).toEqual({ id: ['orders.id'], name: ['customers.name'] });
    expect(refs(c)).toEqual(['customers.id', 'orders.customer_id', 'orders.status']);
  });

  it('USING: the merged column once in SELECT *, from the left side of a left join', async () => {
    const c = await claims(`select * from (select id, amount from orders) a left join (select id, name from customers) b using (id)`);
    expect(edges(c)).toEqual({ id: ['orders.id'], amount: ['orders.amount'], name: ['customers.name'] });
    expect(refs(c)).toEqual(['customers.id', 'orders.id']);
    const full = await claims(`select id from (select id from orders) a full join (select id from customers) b using (id)`);
    expect(edges(full)).toEqual({ id: ['customers.id', 'orders.id'] });
  });

  it('UNION ALL by position; UNION (distinct) makes every column a reference; UNION BY NAME by name', async () => {
    const all = await claims('select id, amount from orders union all select id, tier from customers');
    expect(edges(all)).toEqual({ id: ['customers.id', 'orders.id'], amount: ['customers.tier', 'orders.amount'] });
    expect(all.references).toEqual([]);
    const dist = await claims('select id from orders union select id from customers');
    expect(refs(dist)).toEqual(['customers.id', 'orders.id']);
    const byName = await claims('select amount, id from orders union all by name select id, name from customers');
    expect(edges(byName)).toEqual({ amount: ['orders.amount'], id: ['customers.id', 'orders.id'], name: ['customers.name'] });
  });

  it('aggregates with GROUP BY keys and ordinals, HAVING, GROUP BY ALL', async () => {
    const c = await claims('select customer_id, status, sum(amount) total, count(*) n from orders group by 1, status having count(id) > 1');
    expect(edges(c)).toEqual({ customer_id: ['orders.customer_id'], status: ['orders.status'], total: ['orders.amount'], n: [] });
    expect(refs(c)).toEqual(['orders.customer_id', 'orders.id', 'orders.status']);
    const all = await claims('select status, max(amount) m from orders group by all');
    expect(refs(all)).toEqual(['orders.status']);
  });

  it('window functions: PARTITION BY and ORDER BY are edges of the value; QUALIFY a reference', async () => {
    const c = await claims(`select id, row_number() over (partition by customer_id order by ordered_at) rn,
      sum(amount) over (order by id rows between 1 preceding and current row) run from orders qualify rn <= 2`);
    expect(edges(c)).toEqual({ id: ['orders.id'], rn: ['orders.customer_id', 'orders.ordered_at'], run: ['orders.amount', 'orders.id'] });
    expect(refs(c)).toEqual(['orders.customer_id', 'orders.ordered_at']);
  });

  it('CASE, COALESCE and casts take every argument', async () => {
    const c = await claims(`select case when status = 'paid' then amount else 0 end a, coalesce(amount, id) b, cast(ordered_at as date) d,
      amount::varchar e from orders`);
    expect(edges(c)).toEqual({ a: ['orders.amount', 'orders.status'], b: ['orders.amount', 'orders.id'], d: ['orders.ordered_at'], e: ['orders.amount'] });
  });

  it('struct fields: an input struct narrowed to its field, a built struct kept field by field', async () => {
    const c = await claims(`with s as (select id, {'amt': amount, 'st': status} as st, payload from events join orders using (id))
      select s.st.amt as a, struct_extract(st, 'st') as b, payload.kind as k, s.payload['v'] as v, payload as whole from s`);
    expect(edges(c)).toEqual({ a: ['orders.amount'], b: ['orders.status'], k: ['events.payload.kind'], v: ['events.payload.v'], whole: ['events.payload'] });
  });

  it('SELECT * with EXCLUDE, REPLACE and RENAME, and table.*', async () => {
    const c = await claims(`select * exclude (status, ordered_at) replace (amount * 2 as amount) from orders`);
    expect(edges(c)).toEqual({ id: ['orders.id'], customer_id: ['orders.customer_id'], amount: ['orders.amount'] });
    const r = await claims('select o.* exclude (status, ordered_at, customer_id) rename (amount as amt), c.name from orders o join customers c on c.id = o.customer_id');
    expect(edges(r)).toEqual({ id: ['orders.id'], amt: ['orders.amount'], name: ['customers.name'] });
  });

  it('select-list aliases used later in the same SELECT and in WHERE', async () => {
    const c = await claims('select amount * 2 as dbl, dbl + id as more from orders where dbl > 10');
    expect(edges(c)).toEqual({ dbl: ['orders.amount'], more: ['orders.amount', 'orders.id'] });
    expect(refs(c)).toEqual(['orders.amount']);
  });

  it('DISTINCT and DISTINCT ON decide rows; ORDER BY only under a LIMIT', async () => {
    expect(refs(await claims('select distinct status from orders'))).toEqual(['orders.status']);
    expect(refs(await claims('select distinct on (customer_id) id from orders order by customer_id, amount'))).toEqual(['orders.customer_id']);
    expect(refs(await claims('select id from orders order by amount'))).toEqual([]);
    expect(refs(await claims('select id from orders order by amount desc limit 3'))).toEqual(['orders.amount']);
  });

  it('lambdas do not leak their parameters as unresolved columns', async () => {
    const c = await claims('select list_transform([amount, id], x -> x + 1) l from orders');
    expect(edges(c)).toEqual({ l: ['orders.amount', 'orders.id'] });
    expect(c.notes).toEqual([]);
  });

  it('an unknown relation is a note, not a silent empty claim', async () => {
    const c = await claims('select * from nowhere');
    expect(c.notes.join(' ')).toMatch(/nowhere is not a known input/);
  });
});

describe('only one read-only query runs', () => {
  const reason = async (sql: string) => {
    const p = await parseQuery(duck.conn, sql);
    return p.ok ? guardQuery(p.statement) : p.reason;
  };
  it('refuses a second statement, DDL, COPY, ATTACH, a data-changing CTE and file-reading table functions', async () => {
    expect(await reason('select 1; select 2')).toMatch(/2 statements/);
    expect(await reason('create table x as select 1')).toMatch(/not a query/);
    expect(await reason("copy orders to 'x.csv'")).toMatch(/not a query/);
    expect(await reason("attach 'x.db'")).toMatch(/not a query/);
    expect(await reason('with d as (delete from orders returning *) select * from d')).toMatch(/cannot parse|not a query/);
    expect(await reason('select 1 into t')).toMatch(/cannot parse|not a query/);
    expect(await reason("select * from read_csv('/etc/passwd')")).toMatch(/table function read_csv/);
    expect(await reason('select * from orders')).toBeNull();
    expect(await reason('select * from range(3)')).toBeNull();
  });
});
