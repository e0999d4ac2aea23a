// Cost per level: rows read, bytes of the files opened and CPU time of each of the five levels,
// on the control lake at the sample size and (full run) on a 1M-row lake built by the real bin.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LEVELS } from '../../shared/reconcile';
import { openTarget } from '../reconcile/sides';
import { reconcile } from '../reconcile/reconcile';
import { readScenario, type BuiltLake } from '../../sample-lakes/build';
import { repoRoot } from '../engine/repo';
import { cpu, lake } from './lakes';
import { fmt, type Experiment, type ExperimentContext, type ExperimentTable, type Figure } from './types';

const BIG = 1_000_000;

function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, f.name);
    if (f.isDirectory()) n += dirBytes(p);
    else if (f.isFile()) n += statSync(p).size;
  }
  return n;
}

/** The control lake at 1M rows, built by `node main/bin/lakerec.mjs build-sample-lakes` (the product's builder, through its CLI). */
function buildBig(ctx: ExperimentContext): BuiltLake {
  const out = join(ctx.dir, 'big');
  const bin = join(repoRoot(), 'main', 'bin', 'lakerec.mjs');
  const r = spawnSync(process.execPath, [bin, 'build-sample-lakes', '--rows', String(BIG), '--seed', String(ctx.seed), '--only', 'control', '--out', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build-sample-lakes --rows ${BIG} failed (exit ${r.status}): ${r.stderr.trim()}`);
  const dir = join(out, 'control');
  const meta = readScenario(dir);
  return { name: 'control', dir, tablePath: join(dir, meta.table), contractPath: join(dir, meta.contract), sourceParquet: join(dir, meta.source.parquet), sourceCsv: join(dir, meta.source.csv), meta };
}

interface LevelCost { level: string; targetRows: number; sourceRows: number; logBytes: number; targetDataBytes: number; sourceBytes: number; cpuMs: number }

async function costs(l: BuiltLake): Promise<LevelCost[]> {
  const t = await openTarget(l.tablePath);
  const dataBytes = t.snapshot.files.reduce((a, f) => a + f.size, 0);
  const logBytes = dirBytes(join(l.tablePath, '_delta_log'));
  const sourceBytes = statSync(l.sourceParquet).size;
  const out: LevelCost[] = [];
  // One warm-up run, so the first level does not carry DuckDB's start-up.
  await reconcile({ source: l.sourceParquet, target: { root: l.tablePath }, contract: l.contractPath, level: 'schema' });
  for (const level of LEVELS) {
    const stop = cpu();
    const r = await reconcile({ source: l.sourceParquet, target: { root: l.tablePath }, contract: l.contractPath, level });
    const ms = stop();
    const fileShare = r.reads.targetFilesTotal === 0 ? 0 : r.reads.targetFilesRead / r.reads.targetFilesTotal;
    out.push({
      level, targetRows: r.reads.targetRowsRead, sourceRows: r.reads.sourceRowsRead, logBytes,
      targetDataBytes: Math.round(dataBytes * fileShare), sourceBytes: r.reads.sourceRowsRead > 0 ? sourceBytes : 0, cpuMs: ms,
    });
  }
  return out;
}

function table(caption: string, c: LevelCost[]): ExperimentTable {
  return {
    caption,
    columns: ['level', 'target rows read', 'source rows read', 'log bytes', 'target data bytes opened', 'source bytes opened'],
    rows: c.map((x) => [x.level, x.targetRows, x.sourceRows, x.logBytes, x.targetDataBytes, x.sourceBytes]),
  };
}

export const costPerLevel: Experiment = {
  name: 'cost_per_level',
  async run(ctx) {
    const small = await costs(await lake(ctx, 'control'));
    const big = ctx.full ? await costs(buildBig(ctx)) : null;
    const figures: Record<string, Figure> = {};
    const cpuMs: Record<string, number> = {};
    const put = (tag: string, c: LevelCost[]): void => {
      for (const x of c) {
        figures[`${tag}.${x.level}.target_rows`] = x.targetRows;
        figures[`${tag}.${x.level}.source_rows`] = x.sourceRows;
        figures[`${tag}.${x.level}.target_data_bytes`] = x.targetDataBytes;
        cpuMs[`${tag}.${x.level}`] = x.cpuMs;
      }
      const base = c.find((x) => x.level === 'schema')!.cpuMs || 1;
      for (const x of c) cpuMs[`${tag}.${x.level}.vs_schema`] = Math.round((10 * x.cpuMs) / base) / 10;
    };
    put('sample', small);
    if (big) put('1m', big);
    const logOnly = small.filter((x) => x.targetRows === 0).map((x) => x.level);
    const on = big ? ` on the ${fmt(big[2].targetRows)}-row lake` : '';
    const cpuLine = (tag: string, c: LevelCost[]) => `${tag}: ${c.map((x) => `${x.level} ${fmt(x.cpuMs)} ms`).join(', ')}`;
    return {
      name: this.name,
      title: 'Cost per level',
      question: 'What does each level read, and what does it cost?',
      method: `The real reconcile at each of the five levels on the control lake (${fmt(ctx.rows)} rows)${big ? ` and on a ${fmt(BIG)}-row control lake built by \`node main/bin/lakerec.mjs build-sample-lakes --rows ${BIG} --only control\`` : ''}. Rows read come from the result's read counters; bytes are the sizes of the files a level opens (the whole _delta_log, the target data files it reads, the source file), not the bytes DuckDB actually fetched from them; CPU time is the process's user+system time around the call (DuckDB's threads included).`,
      lakes: { rows: ctx.rows, seed: ctx.seed },
      figures: { ...figures, log_only_levels: logOnly.join(', ') },
      tables: [table(`control lake, ${fmt(ctx.rows)} rows`, small), ...(big ? [table(`control lake, ${fmt(BIG)} rows`, big)] : [])],
      findings: [
        `On the target side ${logOnly.join(' and ')} read ${logOnly.length === 2 ? 'no data file' : 'no data'}: ${fmt(small[0].logBytes)} bytes of log${big ? ` (${fmt(big[0].logBytes)}${on})` : ''}.`,
        `The three deepest levels read the same ${fmt(small[2].targetRows)} target rows${big ? ` (${fmt(big[2].targetRows)}${on})` : ''}.`,
        `CPU time (one run each; published, not compared): ${cpuLine('sample', small)}${big ? `; ${cpuLine(`${fmt(big[2].targetRows)} rows`, big)}` : ''}.`,
      ],
      contradicted: small[1].sourceRows > 0 ? [
        `"Two levels never open a Parquet file" holds for the target only: the source has no log, so counts re-reads it in full (${fmt(small[1].sourceRows)} source rows${big ? `, ${fmt(big[1].sourceRows)}${on}` : ''}).`,
      ] : [],
      cpuMs,
      fullOnly: big ? Object.keys(figures).filter((k) => k.startsWith('1m.')) : [],
    };
  },
};
