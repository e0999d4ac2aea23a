// A differential check on generated queries: seeded random compositions of the constructs the
// claims follow (CTEs, subqueries, joins with ON and USING, WHERE, GROUP BY, aggregates, windows,
// QUALIFY, UNION ALL, CASE, COALESCE, casts, SELECT * EXCLUDE), one model each, over generated
// seeds. The static lineage must explain every influence the perturbations observe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { mulberry32 } from '../../shared/random';
import { verifyLineage } from './verify';

const N = 60;

function generate(seed: number): string[] {
  const r = mulberry32(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const num = ['a.qty', 'a.price', 'a.id', 'b.score'];
  const expr = (): string => pick([
    () => `${pick(num)} * 2 + 1`,
    () => `case when a.kind = 'x' then ${pick(num)} else ${pick(num)} end`,
    () => `coalesce(${pick(num)}, ${pick(num)})`,
    () => `cast(${pick(num)} as double)`,
    () => `a.kind || '-' || cast(${pick(num)} as varchar)`,
    () => pick(num),
  ])();
  const join = () => pick([
    "from {{ ref('t_a') }} a join {{ ref('t_b') }} b on a.id = b.a_id",
    "from {{ ref('t_a') }} a left join {{ ref('t_b') }} b on a.id = b.a_id and b.score > 3",
    "from {{ ref('t_a') }} a join (select a_id as id, score from {{ ref('t_b') }}) b using (id)",
  ]);
  const out: string[] = [];
  for (let i = 0; i < N; i++) {
    const shape = pick(['plain', 'group', 'window', 'union', 'cte', 'star']);
    const where = r() < 0.5 ? ` where ${pick(num)} > ${Math.floor(r() * 20)}` : '';
    if (shape === 'plain') out.push(`select a.id, ${expr()} as e1, ${expr()} as e2 ${join()}${where}`);
    else if (shape === 'group') out.push(`select a.kind, sum(${pick(num)}) as s, count(b.score) as c, max(${expr()}) as m ${join()}${where} group by 1`);
    else if (shape === 'window') out.push(`select a.id, row_number() over (partition by a.kind order by ${pick(num)}, a.id) as rn, sum(${pick(num)}) over (partition by a.kind) as tot ${join()}${where} qualify rn <= ${1 + Math.floor(r() * 5)}`);
    else if (shape === 'union') out.push(`select a.id as k, ${expr()} as v ${join()}${where} union all select b.a_id, b.score from {{ ref('t_b') }} b`);
    else if (shape === 'cte') out.push(`with x as (select a.id, a.kind, ${expr()} as v ${join()}${where}), y as (select kind, max(v) as av from x group by kind) select x.id, x.v, y.av from x join y on x.kind = y.kind`);
    else out.push(`with x as (select * from {{ ref('t_a') }}) select * exclude (kind) replace (qty + 1 as qty) from x${where.replace(/a\.|b\.score/g, (m) => (m === 'a.' ? 'x.' : 'x.qty'))}`);
  }
  return out;
}

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-lineage-gen-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('generated queries on generated data', () => {
  it(`every one of ${N} generated models: each observed influence is claimed or a reference, none unexplained`, async () => {
    const r = mulberry32(99);
    const a = ['id,kind,qty,price', ...Array.from({ length: 60 }, (_, i) => `${i + 1},${['x', 'y', 'z'][i % 3]},${r() < 0.1 ? '' : Math.floor(r() * 30)},${Math.floor(r() * 500) / 10}`)];
    const b = ['a_id,score', ...Array.from({ length: 90 }, (_, i) => `${(i % 55) + 1},${Math.floor(r() * 10)}`)];
    const files: Record<string, string> = { 'dbt_project.yml': "name: 'gen'\n", 'seeds/t_a.csv': a.join('\n') + '\n', 'seeds/t_b.csv': b.join('\n') + '\n' };
    generate(20261201).forEach((sql, i) => { files[`models/q${String(i).padStart(3, '0')}.sql`] = sql; });
    for (const [p, t] of Object.entries(files)) { mkdirSync(dirname(join(dir, p)), { recursive: true }); writeFileSync(join(dir, p), t); }
    const res = await verifyLineage({ project: dir, rows: 200 });
    const skipped = res.models.filter((m) => m.status === 'skipped').map((m) => `${m.name}: ${m.skipReason}`);
    expect(skipped).toEqual([]);
    const gaps = res.models.flatMap((m) => m.influences.filter((x) => x.verdict === 'unexplained').map((x) => `${m.name}: ${x.output} <- ${x.input}.${x.column} (${x.by.join(',')})`));
    expect(gaps).toEqual([]);
    expect(res.totals.models).toBe(N);
    expect(res.totals.confirmed).toBeGreaterThan(res.totals.claimed * 0.7);
  }, 300_000);
});
