// Trust benchmarks (figures, not tests): a mutation run over all modes at all five levels on the
// 5,400-row sample lake (goal < 30 s) with the detection matrix's agreement on the same lakes; on a
// larger table, the time per mutant beside one plain reconcile; key verification on 10M rows beside
// DuckDB's own count(*), count(DISTINCT k), count(k) over the same files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { StructType } from '../../shared/delta';
import { buildSampleLakes, DEFAULT_SEED } from '../../sample-lakes/build';
import { SCENARIOS } from '../../sample-lakes/scenarios';
import { openDuck, sqlString } from '../engine/duck';
import { openTable } from '../delta/open';
import { DeltaWriter } from '../writer/writer';
import { reconcile } from '../reconcile/reconcile';
import { runMatrix } from '../reconcile/matrix';
import { verifyKeys } from '../trust/keys';
import { runMutation } from '../trust/mutate';

export interface TrustBenchFigures {
  sample: { rows: number; mutants: number; levels: number; seconds: number; score: number | null; agreeWithMatrix: number; comparedWithMatrix: number; disagreements: string[] };
  large: { rows: number; plainReconcileSeconds: number; perMutantSeconds: Record<string, number>; medianPerMutantSeconds: number };
  keys: { rows: number; oursSeconds: number; duckdbSeconds: number; ratio: number; status: string };
}

const f = (name: string, type: string, nullable = true): StructType['fields'][number] => ({ name, type, nullable, metadata: {} });
const schema: StructType = { type: 'struct', fields: [f('id', 'long', false), f('customer_id', 'long'), f('amount', 'decimal(18,2)'), f('label', 'string'), f('ts', 'timestamp'), f('updated_at', 'timestamp'), f('dt', 'date')] };
function rowsSql(n: number): string {
  return `SELECT i::BIGINT AS id, (i % 99991)::BIGINT AS customer_id, (i * 0.01)::DECIMAL(18,2) AS amount, ['Café', 'plain', 'Zürich'][1 + i % 3] AS label,
    TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_microseconds((i % 6) * 86400000000 + (i % 86400) * 1000000) AS ts,
    TIMESTAMPTZ '2026-08-10 00:00:00+00' + to_microseconds((i % 6) * 86400000000 + (i % 86400) * 1000000 + 60000000) AS updated_at,
    DATE '2026-08-10' + (i % 6)::INTEGER AS dt FROM range(${n}) r(i)`;
}
const median = (xs: number[]): number => { const s = [...xs].sort((a, b) => a - b); const m = Math.floor(s.length / 2); return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const r2 = (x: number): number => Math.round(x * 100) / 100;

export async function benchTrust(opts: { largeRows?: number; keyRows?: number } = {}): Promise<TrustBenchFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'lakerec-bench-trust-'));
  try {
    // ---- the 5,400-row sample, all modes, all levels; and the matrix on the same lakes ----
    const lakes = await buildSampleLakes({ out: join(dir, 'lakes'), rows: 5400, seed: DEFAULT_SEED, only: ['control', ...SCENARIOS.map((s) => s.name)] });
    const control = lakes.find((l) => l.name === 'control')!;
    let t = performance.now();
    const m = await runMutation({ source: control.sourceParquet, table: control.tablePath, contract: control.contractPath });
    const sampleSeconds = (performance.now() - t) / 1000;
    const scenarioLakes = lakes.filter((l) => l.meta.kind === 'scenario' && m.mutants.some((x) => x.corruption === l.name && x.status === 'run'));
    const matrix = await runMatrix(scenarioLakes.map((l) => ({ name: l.name, title: l.meta.title, expectedMode: l.meta.expectedMode, tablePath: l.tablePath, sourcePath: l.sourceParquet, contractPath: l.contractPath })), { rows: 5400, seed: DEFAULT_SEED });
    const disagreements: string[] = [];
    for (const row of matrix.scenarios) {
      const mu = m.mutants.find((x) => x.corruption === row.scenario)!;
      if (mu.firstNotices !== row.firstNotices || mu.firstNames !== row.firstNames) disagreements.push(`${row.scenario}: matrix ${row.firstNotices}/${row.firstNames}, mutant ${mu.firstNotices}/${mu.firstNames}`);
    }

    // ---- a larger table: time per mutant beside one plain reconcile ----
    const n = opts.largeRows ?? 1_000_000;
    const duck = await openDuck();
    const large = join(dir, 'large');
    const src = join(dir, 'large.parquet');
    try {
      await duck.conn.run(`COPY (${rowsSql(n)}) TO ${sqlString(src)} (FORMAT parquet)`);
      (await DeltaWriter.create(large, { schema, partitionColumns: ['dt'], duck, data: { sql: rowsSql(n) } })).close();
    } finally {
      duck.close();
    }
    const contract = join(dir, 'large.yaml');
    writeFileSync(contract, `version: 1\nname: large\nkeys: [id]\npartitioning:\n  column: dt\n  expression: "date(ts AT TIME ZONE 'UTC')"\nordering: updated_at\n`);
    t = performance.now();
    await reconcile({ source: src, target: { root: large }, contract });
    const plain = (performance.now() - t) / 1000;
    const lm = await runMutation({ source: src, table: large, contract, levels: ['rows'] });
    const perMutant = Object.fromEntries(lm.mutants.filter((x) => x.status === 'run').map((x) => [x.corruption, r2(x.ms / 1000)]));

    // ---- keys on 10M rows beside DuckDB ----
    const k = opts.keyRows ?? 10_000_000;
    const kt = join(dir, 'keys');
    const d2 = await openDuck();
    let duckSeconds = Infinity;
    try {
      (await DeltaWriter.create(kt, { schema, partitionColumns: [], duck: d2, data: { sql: rowsSql(k) } })).close();
      const kTable = await openTable(kt);
      const files = (await kTable.snapshot()).files.map((x) => kTable.storage.describe(x.path));
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        await d2.conn.runAndReadAll(`SELECT count(*), count(DISTINCT id), count(id) FROM read_parquet([${files.map(sqlString).join(', ')}])`);
        duckSeconds = Math.min(duckSeconds, (performance.now() - t0) / 1000);
      }
    } finally {
      d2.close();
    }
    const kc = join(dir, 'keys.yaml');
    writeFileSync(kc, 'version: 1\nname: keys\nkeys: [id]\n');
    let ours = Infinity;
    let status = '';
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const r = await verifyKeys({ table: kt, contract: kc });
      ours = Math.min(ours, (performance.now() - t0) / 1000);
      status = r.keys[0]?.status ?? 'none';
    }
    return {
      sample: { rows: 5400, mutants: m.mutants.length, levels: m.levels.length, seconds: r2(sampleSeconds), score: m.overall.score, agreeWithMatrix: matrix.scenarios.length - disagreements.length, comparedWithMatrix: matrix.scenarios.length, disagreements },
      large: { rows: n, plainReconcileSeconds: r2(plain), perMutantSeconds: perMutant, medianPerMutantSeconds: r2(median(Object.values(perMutant))) },
      keys: { rows: k, oursSeconds: r2(ours), duckdbSeconds: r2(duckSeconds), ratio: r2(ours / duckSeconds), status },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatTrustFigures(f: TrustBenchFigures): string {
  return [
    `mutation, ${f.sample.rows} rows: ${f.sample.mutants} mutants x ${f.sample.levels} levels in ${f.sample.seconds} s (goal < 30 s), score ${f.sample.score === null ? 'n/a' : Math.round(f.sample.score * 100) + '%'}; agrees with the detection matrix on ${f.sample.agreeWithMatrix} of ${f.sample.comparedWithMatrix} modes${f.sample.disagreements.length ? ` (${f.sample.disagreements.join('; ')})` : ''}`,
    `mutation, ${f.large.rows.toLocaleString('en-US')} rows at level rows: one plain reconcile ${f.large.plainReconcileSeconds} s; per mutant median ${f.large.medianPerMutantSeconds} s (${Object.entries(f.large.perMutantSeconds).map(([k, v]) => `${k} ${v}`).join(', ')})`,
    `keys, ${f.keys.rows.toLocaleString('en-US')} rows: ${f.keys.oursSeconds} s, DuckDB count(*)/count(distinct)/count ${f.keys.duckdbSeconds} s, ratio ${f.keys.ratio} (goal <= 2), key ${f.keys.status}`,
  ].join('\n');
}
