// The metrics the docs may quote, derived from the files the measuring commands write
// (docs/experiments/detection_matrix.json from `npm run matrix`, bench.json from `npm run bench`,
// NAME.json from `npm run experiments`, coverage.json from `npm run coverage`), plus the
// constants the code defines (a doc quoting "at most 240 bars" is tied to the constant that
// makes it true: change one and verify fails until the other follows).
//
// To add a metric: derive it here from a file a measuring command writes (or add a line to
// SOURCE_CONSTANTS), then add a claim to docs/receipts.json that quotes it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPERIMENT_NAMES } from '../experiments/markdown';

/** Constants read from the source that defines them: metric, file, and a regex with one number group. */
export const SOURCE_CONSTANTS: Array<{ metric: string; file: string; re: RegExp }> = [
  { metric: 'code.timeline.max_bars', file: 'renderer/timeline/timeline.ts', re: /export const MAX_BARS = (\d+);/ },
  { metric: 'code.api.first_page_versions', file: 'shared/api/shapes.ts', re: /export const FIRST_PAGE_VERSIONS = (\d+);/ },
  { metric: 'code.bisect.exhaustive_limit', file: 'main/bisect/search.ts', re: /export const EXHAUSTIVE_LIMIT = (\d+);/ },
  { metric: 'code.sample_lakes.default_rows', file: 'sample-lakes/build.ts', re: /export const DEFAULT_ROWS = (\d+);/ },
  { metric: 'code.e2e.long_log_versions', file: 'e2e/investigate.e2e.ts', re: /writeLongLog\(long, ([\d_]+)\)/ },
  { metric: 'code.experiments.big_rows_millions', file: 'main/experiments/cost.ts', re: /const BIG = (\d+)_000_000;/ },
  { metric: 'code.bench.quick_rows_millions', file: 'main/entries/bench.ts', re: /args\.quick \? (\d+)_000_000/ },
];

type Json = Record<string, unknown>;

function readJson(path: string): Json | null {
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function median(xs: (number | undefined)[]): number | undefined {
  const s = xs.filter((x): x is number => x !== undefined).sort((a, b) => a - b);
  if (!s.length) return undefined;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function get(o: unknown, ...path: string[]): unknown {
  let cur: unknown = o;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Json)[p];
  }
  return cur;
}

function benchMetrics(bench: Json, ns: string, put: (name: string, v: unknown) => void): void {
  put(`${ns}.log_replay.ratio`, get(bench, 'logReplay', 'ratio'));
  put(`${ns}.log_replay.cpu_ratio`, get(bench, 'logReplay', 'cpuRatioMedian'));
  put(`${ns}.log_replay.add_actions`, get(bench, 'logReplay', 'addActions'));
  put(`${ns}.log_replay.peak_rss_mb`, get(bench, 'logReplay', 'peakRssOursMb'));
  // Groups are "level.digest"; the digest's name carries its version, the metric a stable alias.
  const alias = (d: string): string => (d.startsWith('md5') ? 'md5' : d.startsWith('duckdb-hash') ? 'fast' : d);
  const perLevel = (get(bench, 'reconcile', 'perLevel') as Record<string, Json> | undefined) ?? {};
  for (const [group, f] of Object.entries(perLevel)) {
    const dot = group.indexOf('.');
    const name = dot < 0 ? alias(group) : `${group.slice(0, dot)}.${alias(group.slice(dot + 1))}`;
    put(`${ns}.reconcile.${name}.ratio`, f.ratioMedian);
    // Older bench.json files kept the CPU ratio per run only: take the median there.
    const cpu = num(f.ratioCpuMedian) ?? median(((get(bench, 'reconcile', 'runs') as Json[] | undefined) ?? [])
      .flatMap((r) => ((r.levels as Json[] | undefined) ?? []).filter((l) => `${String(l.level)}.${String(l.digest)}` === group).map((l) => num(l.ratioCpu))));
    put(`${ns}.reconcile.${name}.ratio_cpu`, cpu);
    put(`${ns}.reconcile.${name}.peak_rss_mb`, f.peakRssMbMax);
  }
  const countsMs = num(get(bench, 'reconcile', 'countsMsMedian'));
  put(`${ns}.reconcile.counts.seconds`, countsMs === undefined ? undefined : countsMs / 1000);
  const digests = (get(bench, 'reconcile', 'digests') as Json[] | undefined) ?? [];
  for (const d of digests) if (typeof d.id === 'string') { put(`${ns}.reconcile.digest.${d.id}.ratio`, d.ratio); put(`${ns}.reconcile.digest.${d.id}.ratio_cpu`, d.ratioCpu); }
  // reconcile-counts: the counts level's fixed costs (a process on the sample lake; the 300k-file log).
  put(`${ns}.reconcile_counts.ms`, get(bench, 'reconcileCounts', 'process', 'oursMs'));
  put(`${ns}.reconcile_counts.node_ms`, get(bench, 'reconcileCounts', 'process', 'nodeMs'));
  put(`${ns}.reconcile_counts.by_hand_ms`, get(bench, 'reconcileCounts', 'process', 'duckdbByHandMs'));
  put(`${ns}.reconcile_counts.ratio`, get(bench, 'reconcileCounts', 'process', 'ratio'));
  put(`${ns}.reconcile_counts.log.ratio`, get(bench, 'reconcileCounts', 'log', 'ratio'));
  put(`${ns}.reconcile_counts.log.cpu_ratio`, get(bench, 'reconcileCounts', 'log', 'cpuRatio'));
  put(`${ns}.reconcile_counts.log.files`, get(bench, 'reconcileCounts', 'log', 'files'));
  put(`${ns}.reconcile_counts.log.without_num_records`, get(bench, 'reconcileCounts', 'log', 'withoutNumRecords'));
  put(`${ns}.reconcile_counts.log.runs`, get(bench, 'reconcileCounts', 'log', 'runs'));
  put(`${ns}.reconcile_counts.rows`, get(bench, 'reconcileCounts', 'process', 'rows'));
  put(`${ns}.reconcile_counts.runs`, get(bench, 'reconcileCounts', 'process', 'runs'));
  // remote-reconcile (#29): bytes a reconcile fetched from loopback S3, beside the whole table's.
  const kib = (v: unknown): number | undefined => (num(v) === undefined ? undefined : num(v)! / 1024);
  put(`${ns}.remote_reconcile.files`, get(bench, 'remoteReconcile', 'files'));
  put(`${ns}.remote_reconcile.partitions`, get(bench, 'remoteReconcile', 'partitions'));
  put(`${ns}.remote_reconcile.baseline_kib`, kib(get(bench, 'remoteReconcile', 'baselineBytes')));
  put(`${ns}.remote_reconcile.divergent_kib`, kib(get(bench, 'remoteReconcile', 'divergentBytes')));
  for (const [key, field] of [['counts', 'counts'], ['rows', 'rowsLevel'], ['rows_with_baseline', 'rowsWithBaseline']]) {
    put(`${ns}.remote_reconcile.${key}.kib`, kib(get(bench, 'remoteReconcile', field, 'bytes')));
    put(`${ns}.remote_reconcile.${key}.data_kib`, kib(get(bench, 'remoteReconcile', field, 'dataBytes')));
    put(`${ns}.remote_reconcile.${key}.requests`, get(bench, 'remoteReconcile', field, 'requests'));
    const fr = num(get(bench, 'remoteReconcile', field, 'fraction'));
    put(`${ns}.remote_reconcile.${key}.percent`, fr === undefined ? undefined : fr * 100);
  }
  put(`${ns}.remote_reconcile.cache_peak_kib`, kib(get(bench, 'remoteReconcile', 'cachePeakBytes')));
  const cap = num(get(bench, 'remoteReconcile', 'cacheCapBytes'));
  put(`${ns}.remote_reconcile.cache_cap_mb`, cap === undefined ? undefined : cap / 1048576);
  // reconcile-keys: the rows level on a text key and a two-column key (the key hashes of keydiff.ts).
  for (const [key, field] of [['text', 'rowsTextKey'], ['pair', 'rowsPairKey']]) {
    put(`${ns}.reconcile_keys.${key}.ratio`, get(bench, 'reconcileKeys', field, 'ratioMedian'));
    put(`${ns}.reconcile_keys.${key}.ratio_cpu`, get(bench, 'reconcileKeys', field, 'ratioCpuMedian'));
  }
  // reconcile-shapes (#24): the orders shape with its documented contract, CLI end to end beside
  // the hand-written DuckDB query; the exact float sum's candidates beside a plain sum().
  for (const [section, key] of [['reconcileShapes', 'reconcile_shapes'], ['reconcileSources', 'reconcile_sources']]) {
    put(`${ns}.${key}.rows`, get(bench, section, 'rows'));
    const rowsN = num(get(bench, section, 'rows'));
    if (rowsN !== undefined) put(`${ns}.${key}.rows_millions`, rowsN / 1_000_000);
    put(`${ns}.${key}.load_average`, get(bench, section, 'loadAverage'));
    const shapeLevels = get(bench, section, 'levels');
    if (Array.isArray(shapeLevels)) {
      for (const l of shapeLevels as Json[]) {
        const k = `${ns}.${key}.${String(l.contract).replace(/\W+/g, '_')}.${String(l.level)}`;
        put(`${k}.ratio`, l.ratio);
        put(`${k}.ratio_cpu`, l.ratioCpu);
      }
    }
    const floatCands = get(bench, section, 'floatSum', 'candidates');
    if (Array.isArray(floatCands)) {
      for (const c of floatCands as Json[]) {
        put(`${ns}.${key}.float_sum.${String(c.id)}.ratio`, c.ratio);
        put(`${ns}.${key}.float_sum.${String(c.id)}.ratio_cpu`, c.ratioCpu);
      }
    }
  }

  // reconcile-tables (#24): the wide, many-files and deletion-vector shapes, CLI end to end beside
  // the hand-written DuckDB query, per shape and level.
  const tableShapes = get(bench, 'reconcileTables', 'shapes');
  if (Array.isArray(tableShapes)) {
    put(`${ns}.reconcile_tables.rounds`, get(bench, 'reconcileTables', 'rounds'));
    for (const sh of tableShapes as Json[]) {
      const k = `${ns}.reconcile_tables.${String(sh.id)}`;
      for (const f of ['rows', 'columns', 'partitions', 'files', 'filesWithDv', 'deletedRows', 'loadAverage', 'loadAverageEnd']) put(`${k}.${f.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())}`, sh[f]);
      for (const l of (sh.levels as Json[] | undefined) ?? []) {
        put(`${k}.${String(l.level)}.ratio`, l.ratio);
        put(`${k}.${String(l.level)}.ratio_cpu`, l.ratioCpu);
      }
    }
  }
  // reconcile-scale on the wide shape (60 columns): the size measured and its peak RSS.
  put(`${ns}.reconcile_scale_wide.peak_rss_mb`, get(bench, 'reconcileScaleWide', 'peakRssMb'));
  put(`${ns}.reconcile_scale_wide.spill_mb`, get(bench, 'reconcileScaleWide', 'spillPeakMb'));
  put(`${ns}.reconcile_scale_wide.columns`, get(bench, 'reconcileScaleWide', 'columns'));
  put(`${ns}.reconcile_scale_wide.rows`, get(bench, 'reconcileScaleWide', 'rows'));
  const wideMs = num(get(bench, 'reconcileScaleWide', 'ms'));
  if (wideMs !== undefined) put(`${ns}.reconcile_scale_wide.seconds`, wideMs / 1000);

  // lineage: lakerec lineage on the reference project beside DuckDB building its models once.
  for (const k of ['models', 'claimed', 'confirmed', 'notExercised', 'viaJoinsAndFilters', 'unexplained', 'oursSeconds', 'duckdbBuildSeconds', 'ratio']) put(`${ns}.lineage.${k}`, get(bench, 'lineage', k));
  // reconcile-scale: peak RSS at rows level on the largest size built (full runs only).
  put(`${ns}.reconcile_scale.peak_rss_mb`, get(bench, 'reconcileScale', 'peakRssMb'));
  put(`${ns}.reconcile_scale.spill_mb`, get(bench, 'reconcileScale', 'spillPeakMb'));
  put(`${ns}.reconcile_scale.columns`, get(bench, 'reconcileScale', 'columns'));
  const limit = /^(\d+)MB$/.exec(String(get(bench, 'reconcileScale', 'memoryLimit') ?? ''));
  if (limit) put(`${ns}.reconcile_scale.memory_limit_mb`, Number(limit[1]));
  put(`${ns}.reconcile_scale.seconds`, num(get(bench, 'reconcileScale', 'ms')) === undefined ? undefined : Number(get(bench, 'reconcileScale', 'ms')) / 1000);
  const scaleRows = get(bench, 'reconcileScale', 'rows');
  if (typeof scaleRows === 'number') put(`${ns}.reconcile_scale.rows_millions`, scaleRows / 1e6);
  put(`${ns}.reconcile.rows`, get(bench, 'reconcile', 'rows'));
  const rows = get(bench, 'reconcile', 'rows');
  if (typeof rows === 'number') put(`${ns}.reconcile.rows_millions`, rows / 1e6);
  put(`${ns}.demo.seconds`, get(bench, 'demo', 'seconds'));
  put(`${ns}.history.log_read_ratio`, get(bench, 'history', 'logReadRatio'));
  put(`${ns}.history.timeline_ms`, get(bench, 'history', 'timelineMs'));
  put(`${ns}.history.step_median_ms`, get(bench, 'history', 'stepMedianMs'));
  // timeline-ui: the same log in Chromium (absent, or { skipped }, where Chromium is missing).
  // The first paint (header + the first page of the history) from the click, cold: the goal's figure.
  put(`${ns}.timeline_ui.first_paint_ms`, get(bench, 'timelineUi', 'firstPaintMs'));
  put(`${ns}.timeline_ui.first_open_first_paint_ms`, get(bench, 'timelineUi', 'firstOpenFirstPaintMs'));
  put(`${ns}.timeline_ui.open_to_painted_ms`, get(bench, 'timelineUi', 'openToPaintedMs'));
  put(`${ns}.timeline_ui.first_open_ms`, get(bench, 'timelineUi', 'firstOpenMs'));
  put(`${ns}.timeline_ui.warm_reopen_ms`, get(bench, 'timelineUi', 'warmReopenMs'));
  put(`${ns}.timeline_ui.log_read_ms`, get(bench, 'timelineUi', 'logReadMs'));
  put(`${ns}.timeline_ui.tab_to_history_ms`, get(bench, 'timelineUi', 'tabToHistoryMs'));
  put(`${ns}.timeline_ui.tab_back_ms`, get(bench, 'timelineUi', 'tabBackMs'));
  put(`${ns}.timeline_ui.tab_trivial_ms`, get(bench, 'timelineUi', 'tabTrivialMs'));
  put(`${ns}.timeline_ui.step_median_ms`, get(bench, 'timelineUi', 'stepMedianMs'));
  put(`${ns}.timeline_ui.frame_floor_ms`, get(bench, 'timelineUi', 'frameFloorMs'));
  // Where the open goes: API calls in flight vs the page alone, and the timeline payload's size.
  put(`${ns}.timeline_ui.open_server_ms`, get(bench, 'timelineUi', 'openServerMs'));
  put(`${ns}.timeline_ui.open_page_ms`, get(bench, 'timelineUi', 'openPageMs'));
  const calls = (get(bench, 'timelineUi', 'openCalls') as Json[] | undefined) ?? [];
  const tl = calls.find((c) => c.method === 'timeline');
  if (tl && typeof tl.bytes === 'number') put(`${ns}.timeline_ui.timeline_megabytes`, tl.bytes / 1e6);
  if (tl) put(`${ns}.timeline_ui.timeline_engine_ms`, tl.engineMs);
  put(`${ns}.demo.cpu_seconds`, get(bench, 'demo', 'cpuSeconds'));
  const runs = (get(bench, 'bisect', 'runs') as Json[] | undefined) ?? [];
  const nn = runs.find((r) => typeof r.predicate === 'string' && r.predicate.startsWith('no-null-keys'));
  if (nn) {
    put(`${ns}.bisect.no_null_keys.versions`, nn.versions);
    put(`${ns}.bisect.no_null_keys.seconds`, typeof nn.ms === 'number' ? nn.ms / 1000 : undefined);
    put(`${ns}.bisect.no_null_keys.files_read`, nn.filesRead);
    put(`${ns}.bisect.no_null_keys.cpu_seconds`, typeof nn.cpuMs === 'number' ? nn.cpuMs / 1000 : undefined);
  }
  put(`${ns}.cores`, get(bench, 'cores'));
  const unique = runs.filter((r) => typeof r.predicate === 'string' && r.predicate.startsWith('unique-keys'));
  const uk = unique.find((r) => r.versions === nn?.versions) ?? null;
  if (uk) {
    put(`${ns}.bisect.unique_keys.versions`, uk.versions);
    put(`${ns}.bisect.unique_keys.files`, uk.files);
    put(`${ns}.bisect.unique_keys.rows`, uk.rows);
    put(`${ns}.bisect.unique_keys.rows_millions`, typeof uk.rows === 'number' ? uk.rows / 1e6 : undefined);
    put(`${ns}.bisect.unique_keys.cpu_seconds`, typeof uk.cpuMs === 'number' ? uk.cpuMs / 1000 : undefined);
  }
}

export function collectMetrics(root: string, opts: { benchPath?: string; matrixPath?: string; experimentsDir?: string } = {}): Record<string, number> {
  const m: Record<string, number> = {};
  const put = (name: string, v: unknown): void => {
    const n = num(v);
    if (n !== undefined) m[name] = n;
  };

  const matrix = readJson(opts.matrixPath ?? join(root, 'docs', 'experiments', 'detection_matrix.json'));
  if (matrix) {
    const rows = (get(matrix, 'scenarios') as Json[] | undefined) ?? [];
    const corruptions = rows.filter((r) => r.expectedMode !== null);
    put('matrix.scenarios', rows.length);
    put('matrix.corruptions', corruptions.length);
    put('matrix.named', corruptions.filter((r) => r.firstNames !== null).length);
    put('matrix.named_from_log', corruptions.filter((r) => r.firstNames === 'schema' || r.firstNames === 'counts').length);
    put('matrix.silent', rows.length - corruptions.length);
    put('matrix.silent_kept_silent', rows.filter((r) => r.silentAsExpected === true).length);
    put('matrix.rows', get(matrix, 'rows'));
    for (const r of rows) {
      if (typeof r.scenario === 'string' && typeof r.rowsReadToName === 'number') put(`matrix.rows_to_name.${r.scenario}`, r.rowsReadToName);
    }
  }

  // bench.*: the benchmarks as just measured (verify: a quick run into a scratch file), for the
  // ranges the docs quote. bench_published.*: the committed bench.json (the last full run), for
  // the exact figures a doc quotes from that run ("in the last full run: md5 7.8x").
  const fresh = readJson(opts.benchPath ?? join(root, 'docs', 'experiments', 'bench.json'));
  if (fresh) benchMetrics(fresh, 'bench', put);
  const published = readJson(join(root, 'docs', 'experiments', 'bench.json'));
  if (published) benchMetrics(published, 'bench_published', put);

  // Every numeric figure of every experiment: experiments.NAME.FIGURE. The published run first,
  // then the fresh one over it: what a quick re-run does not measure (the 1M-row lake, and it
  // says so in fullOnly) keeps its published value, which verify compared where it could.
  const dirs = [join(root, 'docs', 'experiments'), ...(opts.experimentsDir ? [opts.experimentsDir] : [])];
  for (const dir of dirs) {
    for (const name of EXPERIMENT_NAMES) {
      const e = readJson(join(dir, `${name}.json`));
      const figures = (e?.figures ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(figures)) put(`experiments.${name}.${k}`, v);
      for (const [k, v] of Object.entries((e?.cpuMs ?? {}) as Record<string, unknown>)) put(`experiments.${name}.cpu_ms.${k}`, v);
    }
  }

  // Coverage per folder: coverage.FOLDER.lines (unit and e2e runs together), .unit_lines (the unit
  // run alone), .branches (the unit run) (percent).
  const cov = readJson(join(root, 'docs', 'experiments', 'coverage.json'));
  for (const [folder, f] of [...Object.entries((cov?.folders ?? {}) as Record<string, Json>), ...Object.entries((cov?.parts ?? {}) as Record<string, Json>)]) {
    put(`coverage.${folder}.lines`, f.lines);
    put(`coverage.${folder}.unit_lines`, f.unitLines);
    put(`coverage.${folder}.branches`, f.branches);
  }

  for (const c of SOURCE_CONSTANTS) {
    const p = join(root, c.file);
    const hit = existsSync(p) ? c.re.exec(readFileSync(p, 'utf8')) : null;
    if (hit) put(c.metric, Number(hit[1].replace(/_/g, '')));
  }
  return m;
}
