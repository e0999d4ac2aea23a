// `npm run bench`: every benchmark the engine issues define, each printed as our figure, the
// baseline measured in the same run, and the ratio; several runs, median. Writes
// docs/experiments/bench.json, which `npm run verify` reads for the README's receipts.
//
//   npm run bench                 full sizes (10M rows, 10,000 versions)
//   npm run bench -- --quick      the reconcile bench on 1M rows instead of 10M (ratios stay comparable)
//   npm run bench -- --only log-replay,bisect --merge   (re-measure some, keep the rest; also: history, remote-reconcile, timeline-ui, reconcile, reconcile-keys, reconcile-shapes, reconcile-sources, reconcile-tables, demo, lineage)
//   npm run bench -- --only reconcile-scale --merge [--scale-rows N] [--scale-dir D] [--scale-shape wide]   (peak RSS at 100M rows; minutes; not in --quick; D keeps the data; wide: the 60-column shape, its own section)
//
// The modules are imported dynamically so each stays its own chunk (each can also run alone).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { repoRoot } from '../engine/repo';

interface Args { quick: boolean; only: Set<string> | null; runs: number; out: string; merge: boolean; scaleRows: number | null; scaleDir: string | null; scaleShape: 'narrow' | 'wide' }

/** Every section --only may name, in the order they run. */
const BENCHES = ['log-replay', 'reconcile', 'reconcile-keys', 'reconcile-shapes', 'reconcile-sources', 'reconcile-tables', 'reconcile-counts', 'reconcile-scale', 'bisect', 'trust', 'remote-log', 'remote-reconcile', 'lineage', 'history', 'timeline-ui', 'grid', 'demo'];

function refuse(line: string): never {
  process.stderr.write(`bench: ${line}\n`);
  process.exit(2);
}

/** A whole number from a flag's value, else one line and exit 2 (a NaN would run no round and print NaN figures). */
function whole(flag: string, v: string | undefined, min: number): number {
  if (v === undefined || !/^\d+$/.test(v)) refuse(`${flag} takes a whole number${min > 0 ? ` of at least ${min}` : ''}, got "${v ?? ''}"`);
  return Math.max(min, Number(v));
}

function parse(argv: string[]): Args {
  const a: Args = { quick: false, merge: false, only: null, scaleRows: null, scaleDir: null, scaleShape: 'narrow', runs: 3, out: join(repoRoot(), 'docs', 'experiments', 'bench.json') };
  for (let i = 0; i < argv.length; i++) {
    const f = argv[i];
    if (f === '--quick') a.quick = true;
    else if (f === '--merge') a.merge = true;
    else if (f === '--only') {
      a.only = new Set((argv[++i] ?? '').split(',').filter(Boolean));
      // A typo would measure nothing and still write the file.
      const unknown = [...a.only].filter((n) => !BENCHES.includes(n));
      if (unknown.length || !a.only.size) refuse(`unknown bench ${unknown.join(', ') || '(none named)'}; one of ${BENCHES.join(', ')}`);
    } else if (f === '--runs') a.runs = whole('--runs', argv[++i], 1);
    else if (f === '--out') a.out = argv[++i] ?? refuse('--out needs a file');
    else if (f === '--scale-rows') a.scaleRows = Math.max(1000, whole('--scale-rows', argv[++i], 0));
    else if (f === '--scale-dir') a.scaleDir = argv[++i] ?? refuse('--scale-dir needs a folder');
    else if (f === '--scale-shape') {
      const v = argv[++i];
      if (v !== 'narrow' && v !== 'wide') refuse('--scale-shape is narrow or wide');
      a.scaleShape = v;
    } else refuse(`unknown flag ${f}`);
  }
  return a;
}

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const want = (name: string): boolean => !args.only || args.only.has(name);
  const results: Record<string, unknown> = {};
  const say = (s: string): void => { process.stdout.write(s + '\n'); };
  say(`lakerec bench (${args.quick ? 'quick' : 'full'}; ${cpus().length} cores, node ${process.version})`);

  if (want('log-replay')) {
    const { benchLogReplay, formatLogReplayFigures } = await import('../bench/log-replay');
    const f = await benchLogReplay({ runs: args.runs });
    say(formatLogReplayFigures(f));
    results.logReplay = f;
  }

  if (want('reconcile')) {
    const { benchReconcile, formatReconcileFigures } = await import('../bench/reconcile');
    const rows = args.quick ? 1_000_000 : 10_000_000;
    const runs: Awaited<ReturnType<typeof benchReconcile>>[] = [];
    for (let r = 0; r < (args.quick ? 1 : Math.min(args.runs, 3)); r++) {
      const f = await benchReconcile({ rows });
      say(formatReconcileFigures(f));
      runs.push(f);
    }
    // Median ratio per level and digest over the runs (each run is itself best of its rounds).
    const groupOf = (l: { level: string; digest: string }): string => `${l.level}.${l.digest}`;
    const groups = [...new Set(runs.flatMap((f) => f.levels.map(groupOf)))];
    const perLevel = Object.fromEntries(groups.map((g) => {
      const ls = runs.flatMap((f) => f.levels.filter((l) => groupOf(l) === g));
      return [g, { ratioMedian: round(median(ls.map((l) => l.ratio))), ratioCpuMedian: round(median(ls.map((l) => l.ratioCpu))), msMedian: Math.round(median(ls.map((l) => l.ms))), baseline: ls[0].baseline, goal: ls[0].goal, peakRssMbMax: Math.max(...ls.map((l) => l.peakRssMb)) }];
    }));
    const counts = runs.map((f) => f.counts).filter((c): c is NonNullable<typeof c> => c !== null);
    results.reconcile = {
      rows, runs, perLevel, peakRssMbMax: Math.max(...runs.map((f) => f.peakRssMb)),
      countsMsMedian: counts.length ? Math.round(median(counts.map((c) => c.ms))) : null,
      digests: runs[runs.length - 1]?.digests ?? null,
    };
  }

  // The rows level on a text key and on a two-column key (the bitmaps take neither; the key
  // hashes of keydiff.ts do): its own section, so --merge keeps the integer key's figures.
  if (want('reconcile-keys')) {
    const { benchReconcile, formatReconcileFigures } = await import('../bench/reconcile');
    const rows = args.quick ? 1_000_000 : 10_000_000;
    const out: Record<string, unknown> = { rows };
    for (const key of ['text', 'pair'] as const) {
      const ratios: number[] = [];
      const cpu: number[] = [];
      const ms: number[] = [];
      for (let r = 0; r < (args.quick ? 1 : Math.min(args.runs, 3)); r++) {
        const f = await benchReconcile({ rows, key, levels: ['rows'], counts: false, digests: false });
        say(formatReconcileFigures(f));
        ratios.push(f.levels[0].ratio); cpu.push(f.levels[0].ratioCpu); ms.push(f.levels[0].ms);
      }
      out[key === 'text' ? 'rowsTextKey' : 'rowsPairKey'] = { ratioMedian: round(median(ratios)), ratioCpuMedian: round(median(cpu)), msMedian: Math.round(median(ms)), baseline: 'full-outer-join diff', goal: 2, runs: ratios.length };
    }
    results.reconcileKeys = out;
  }

  // Issue #24: the orders shape with its documented contract (float tolerance, partition from ts,
  // ordering column), CLI end to end beside the hand-written DuckDB query; the exact float sum's
  // candidates beside a plain sum(). LAKEREC_BENCH_SHAPES_ROWS sets the size.
  if (want('reconcile-shapes')) {
    const { benchReconcileShapes, formatShapesFigures } = await import('../bench/reconcile-shapes');
    const rows = Number(process.env.LAKEREC_BENCH_SHAPES_ROWS ?? (args.quick ? 1_000_000 : 10_000_000));
    const f = await benchReconcileShapes({ rows, rounds: args.quick ? 1 : args.runs, say });
    say(formatShapesFigures(f));
    results.reconcileShapes = f;
  }

  // The same contract with CSV, JSON lines and Delta sources (and the float sum's candidates again).
  if (want('reconcile-sources')) {
    const { benchReconcileShapes, formatShapesFigures } = await import('../bench/reconcile-shapes');
    const rows = Number(process.env.LAKEREC_BENCH_SHAPES_ROWS ?? (args.quick ? 1_000_000 : 10_000_000));
    const f = await benchReconcileShapes({ rows, rounds: args.quick ? 1 : args.runs, say, part: 'sources' });
    say(formatShapesFigures(f));
    results.reconcileSources = f;
  }

  // The other table shapes of issue #24: wide (60 columns), 20,000 small files, deletion vectors
  // on 30% of the files; each level beside the hand-written DuckDB query, median of the rounds.
  if (want('reconcile-tables')) {
    const { benchReconcileTables, formatTablesFigures, tableShapeSizes } = await import('../bench/reconcile-tables');
    const only = process.env.LAKEREC_BENCH_TABLES ? process.env.LAKEREC_BENCH_TABLES.split(',') as ('wide' | 'files' | 'dv')[] : undefined;
    // LAKEREC_BENCH_TABLES_ROWS=wide=N,files=N,dv=N overrides the sizes (a loaded machine, a quick look).
    const sizes = tableShapeSizes(args.quick);
    for (const kv of (process.env.LAKEREC_BENCH_TABLES_ROWS ?? '').split(',').filter(Boolean)) {
      const [k, v] = kv.split('=');
      if ((k === 'wide' || k === 'files' || k === 'dv') && Number(v) >= 1000) sizes[k] = Number(v);
    }
    const f = await benchReconcileTables({ sizes, rounds: args.quick ? 1 : args.runs, say, ...(only ? { only } : {}) });
    say(formatTablesFigures(f));
    // --merge keeps the shapes of an earlier run that this one did not re-measure.
    const earlier = args.merge && existsSync(args.out) ? (JSON.parse(readFileSync(args.out, 'utf8')) as { reconcileTables?: typeof f }).reconcileTables : undefined;
    const kept = (earlier?.shapes ?? []).filter((s) => !f.shapes.some((x) => x.id === s.id));
    results.reconcileTables = { ...f, shapes: [...kept, ...f.shapes] };
  }

  if (want('reconcile-counts')) {
    // Issue #14's fixed costs: a counts-level `lakerec` process on the 5,400-row sample lake beside
    // node's own start and DuckDB's count by hand; the target-side counts on the 300k-file log.
    const { benchReconcileCounts, formatCountsFigures } = await import('../bench/reconcile-counts');
    const f = await benchReconcileCounts({ runs: Math.max(5, args.runs * 3) });
    say(formatCountsFigures(f));
    results.reconcileCounts = f;
  }

  if (want('reconcile-scale') && (args.only || !args.quick)) {
    // Issue #14: peak RSS at rows level on 100M rows x 6 columns (builds the data; several minutes).
    const { benchReconcileScale, formatScaleFigures } = await import('../bench/reconcile-scale');
    const f = await benchReconcileScale({ rows: args.scaleRows ?? 100_000_000, say, shape: args.scaleShape, ...(args.scaleDir ? { workDir: args.scaleDir } : {}) });
    say(formatScaleFigures(f));
    // The wide shape (60 columns) is its own section: --merge keeps the narrow one's figures.
    if (args.scaleShape === 'wide') results.reconcileScaleWide = f; else results.reconcileScale = f;
  }

  if (want('bisect')) {
    const { benchBisect, formatBisectFigures } = await import('../bench/bisect');
    // 10,000 versions even when quick: the figure docs quote is about that size, and it takes seconds.
    const f = await benchBisect({ versions: 10_000 });
    say(formatBisectFigures(f));
    results.bisect = f;
  }

  if (want('trust')) {
    const { benchTrust, formatTrustFigures } = await import('../bench/trust');
    const f = await benchTrust(args.quick ? { largeRows: 200_000, keyRows: 1_000_000 } : {});
    say(formatTrustFigures(f));
    results.trust = f;
  }

  if (args.only?.has('remote-log')) {
    // Issue #29 (opt-in): the 300k-add log from a loopback S3 server beside the local open, with
    // the requests it made.
    const { benchRemoteLog, formatRemoteLogFigures } = await import('../bench/remote-log');
    const f = await benchRemoteLog({ runs: args.runs });
    say(formatRemoteLogFigures(f));
    results.remoteLog = f;
  }

  if (want('remote-reconcile')) {
    // Issue #29: bytes fetched at counts and rows level from a loopback S3 server, beside the whole
    // table's bytes (the by-hand baseline), and the local cache's peak beside its cap.
    const { benchRemoteReconcile, formatRemoteReconcileFigures } = await import('../bench/remote-reconcile');
    const f = await benchRemoteReconcile();
    say(formatRemoteReconcileFigures(f));
    results.remoteReconcile = f;
  }

  if (want('lineage')) {
    // Issue #23: lakerec lineage on the reference project beside DuckDB building its models once.
    const { benchLineage, formatLineageFigures } = await import('../bench/lineage');
    const f = await benchLineage({ runs: args.runs });
    say(formatLineageFigures(f));
    results.lineage = f;
  }

  if (want('history')) {
    // Issue #12: the investigation on a 10,000-version log with 5,000 live files (log read vs
    // DuckDB read_json, timeline data after the read, stepping a version).
    const { benchHistory, formatHistoryBenchFigures } = await import('../bench/history');
    const f = await benchHistory({ versions: 10_000, liveFiles: 5_000, runs: args.runs });
    say(formatHistoryBenchFigures(f));
    results.history = f;
  }

  if (want('timeline-ui')) {
    // Issue #12 in the browser: web mode + Chromium on the same 10,000-version log as `history`
    // (open to the timeline painted, the History tab switch, an arrow-key step).
    const { benchTimelineUi, formatTimelineUiFigures } = await import('../bench/timeline-ui');
    // LAKEREC_BENCH_PROFILE=dir: also write the page's CPU profiles (the open, the way back, the steps).
    const f = await benchTimelineUi({ versions: 10_000, liveFiles: 5_000, runs: args.runs, ...(process.env.LAKEREC_BENCH_PROFILE ? { profileDir: process.env.LAKEREC_BENCH_PROFILE } : {}) });
    say(formatTimelineUiFigures(f));
    results.timelineUi = f;
  }

  if (want('grid')) {
    const { benchGrid, formatGridFigures } = await import('../bench/grid');
    const f = await benchGrid({ rows: args.quick ? 1_000_000 : 10_000_000, runs: args.runs });
    say(formatGridFigures(f));
    results.grid = f;
  }

  if (want('demo')) {
    const demo = join(repoRoot(), 'dist', 'main', 'demo.js');
    // The demo's own CPU time (user + system, DuckDB's threads included), written by a preload at
    // its exit: on a shared machine wall time swings with the neighbours, CPU time much less.
    const cpuFile = join(tmpdir(), `lakerec-demo-cpu-${process.pid}`);
    const preload = 'data:text/javascript,' + encodeURIComponent("import{writeFileSync}from'node:fs';process.on('exit',()=>{const u=process.cpuUsage();writeFileSync(process.env.LAKEREC_CPU_OUT,String((u.user+u.system)/1e3))})");
    const times: number[] = [];
    const cpuTimes: number[] = [];
    let exit: number | null = null;
    for (let r = 0; r < args.runs; r++) {
      const t0 = performance.now();
      const p = spawnSync(process.execPath, ['--import', preload, demo], { cwd: repoRoot(), encoding: 'utf8', env: { ...process.env, LAKEREC_CPU_OUT: cpuFile } });
      times.push(performance.now() - t0);
      if (existsSync(cpuFile)) { cpuTimes.push(Number(readFileSync(cpuFile, 'utf8'))); rmSync(cpuFile, { force: true }); }
      exit = p.status;
      if (p.status !== 0 && p.status !== 1) { say(`demo failed (exit ${p.status}): ${p.stderr.trim().split('\n').pop() ?? ''}`); break; }
    }
    const s = median(times) / 1000;
    const cpuS = cpuTimes.length ? median(cpuTimes) / 1000 : null;
    say(`demo: ${cpuS === null ? '?' : round(cpuS, 1)} s CPU, ${round(s, 1)} s wall (median of ${times.length}; goal < 10 s; the Python original ~20 s)`);
    results.demo = { seconds: round(s, 2), cpuSeconds: cpuS === null ? null : round(cpuS, 2), runs: times.length, exit };
  }

  // --merge keeps the sections of an earlier bench.json that this run did not re-measure.
  const earlier = args.merge && existsSync(args.out) ? JSON.parse(readFileSync(args.out, 'utf8')) as Record<string, unknown> : {};
  const doc = { ...earlier, generatedAt: new Date().toISOString(), mode: args.quick ? 'quick' : 'full', cores: cpus().length, node: process.version, ...results };
  mkdirSync(join(args.out, '..'), { recursive: true });
  writeFileSync(args.out, JSON.stringify(doc, null, 2) + '\n');
  say(`wrote ${args.out}`);
}

main().then(() => process.exit(0), (e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(3);
});
