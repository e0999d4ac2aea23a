import { DuckDBInstance } from '@duckdb/node-api';
const N = Number(process.argv[2] ?? 2000000);
const dir = '/tmp/h14/dg' + N;
import { existsSync, mkdirSync } from 'node:fs';
const i = await DuckDBInstance.create(':memory:', { threads: '2' }); const c = await i.connect();
await c.run("SET TimeZone='UTC'");
const gen = `SELECT i::BIGINT AS id, (i % 1000)::INTEGER AS qty, (i * 0.01)::DECIMAL(18,2) AS amount, 'cust-' || (i % 99991) AS customer,
    DATE '2026-08-10' + (i % 6)::INTEGER AS dt, TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_microseconds((i % 6) * 86400000000 + (i % 86400) * 1000000) AS ts FROM range(${N}) r(i)`;
if (!existsSync(dir)) { mkdirSync(dir, { recursive: true }); await c.run(`COPY (${gen}) TO '${dir}/s.parquet' (FORMAT parquet)`); }
const src = `read_parquet('${dir}/s.parquet')`;
const t = async (name, sql) => { let best = 1e9; for (let k = 0; k < 3; k++) { const t0 = performance.now(); await c.runAndReadAll(sql); best = Math.min(best, performance.now() - t0); } console.log(name.padEnd(40), best.toFixed(0), 'ms'); return best; };
const canon = `concat(CASE WHEN amount IS NULL THEN 'N' ELSE 'V' END, CAST(amount AS VARCHAR), '|', CASE WHEN customer IS NULL THEN 'N|' ELSE 'V' END, CAST(strlen(customer) AS VARCHAR), CASE WHEN customer IS NOT NULL THEN ':' END, customer, CASE WHEN dt IS NULL THEN 'N' ELSE 'V' END, CAST(dt AS VARCHAR), '|', CASE WHEN id IS NULL THEN 'N' ELSE 'V' END, CAST(id AS VARCHAR), '|', CASE WHEN qty IS NULL THEN 'N' ELSE 'V' END, CAST(qty AS VARCHAR), '|', CASE WHEN ts IS NULL THEN 'N' ELSE 'V' END, CAST(epoch_us(ts) AS VARCHAR), '|')`;
const base = await t('count(*)', `SELECT count(*) FROM ${src}`);
const h = await t('sum(hash(cols))', `SELECT sum(hash(id, qty, amount, customer, dt, ts)::HUGEINT) FROM ${src}`);
await t('fast: 2 hashes typed', `SELECT sum(hash(id::BIGINT, qty::BIGINT, amount::DECIMAL(38,2), customer, dt, epoch_us(ts))::HUGEINT), sum(hash(epoch_us(ts), dt, customer, amount::DECIMAL(38,2), qty::BIGINT, id::BIGINT, 'lakerec')::HUGEINT) FROM ${src}`);
await t('fast: 1 hash typed', `SELECT sum(hash(id::BIGINT, qty::BIGINT, amount::DECIMAL(38,2), customer, dt, epoch_us(ts))::HUGEINT) FROM ${src}`);
await t('md5_number(canonical)', `SELECT sum(md5_number_upper(${canon})::HUGEINT), sum(md5_number_lower(${canon})::HUGEINT) FROM ${src}`);
await t('md5 canonical once', `SELECT sum((d >> 64)::HUGEINT), sum((d & 18446744073709551615::UHUGEINT)::HUGEINT) FROM (SELECT md5_number(${canon}) d FROM ${src})`);
await t('canonical text only (strlen)', `SELECT sum(strlen(${canon})) FROM ${src}`);
await t('sha256(canonical)', `SELECT count(sha256(${canon})) FROM ${src}`);

await t('1 hash typed + hash(h1)', `SELECT sum(h1::HUGEINT), sum(hash(h1)::HUGEINT) FROM (SELECT hash(id::BIGINT, qty::BIGINT, amount::DECIMAL(38,2), customer, dt, epoch_us(ts)) h1 FROM ${src})`);
await t('1 hash, amount as decimal18', `SELECT sum(hash(id::BIGINT, qty::BIGINT, amount::DECIMAL(18,2), customer, dt, epoch_us(ts))::HUGEINT) FROM ${src}`);
await t('1 hash untyped + hash(h1)', `SELECT sum(h1::HUGEINT), sum(hash(h1)::HUGEINT) FROM (SELECT hash(id, qty, amount, customer, dt, ts) h1 FROM ${src})`);
await t('group by dt: hash + hash(h1)', `SELECT dt, count(*), sum(h1::HUGEINT), sum(hash(h1)::HUGEINT) FROM (SELECT dt, hash(id::BIGINT, qty::BIGINT, amount::DECIMAL(38,2), customer, dt, epoch_us(ts)) h1 FROM ${src}) GROUP BY dt`);
await t('group by dt: sum(hash)', `SELECT dt, sum(hash(id, qty, amount, customer, dt, ts)::HUGEINT) FROM ${src} GROUP BY dt`);
await t('group by dt: sum(hash) UBIGINT wrap?', `SELECT dt, sum(hash(id, qty, amount, customer, dt, ts)) FROM ${src} GROUP BY dt`);
