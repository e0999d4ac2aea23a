// The metrics the docs may quote, derived from the files the measuring commands write
// (docs/experiments/detection_matrix.json from `npm run matrix`, bench.json from `npm run bench`).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = Record<string, unknown>;

function readJson(path: string): Json | null {
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function get(o: unknown, ...path: string[]): unknown {
  let cur: unknown = o;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Json)[p];
  }
  return cur;
}

export function collectMetrics(root: string, opts: { benchPath?: string } = {}): Record<string, number> {
  const m: Record<string, number> = {};
  const put = (name: string, v: unknown): void => {
    const n = num(v);
    if (n !== undefined) m[name] = n;
  };

  const matrix = readJson(join(root, 'docs', 'experiments', 'detection_matrix.json'));
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

  const bench = readJson(opts.benchPath ?? join(root, 'docs', 'experiments', 'bench.json'));
  if (bench) {
    put('bench.log_replay.ratio', get(bench, 'logReplay', 'ratio'));
    put('bench.log_replay.cpu_ratio', get(bench, 'logReplay', 'cpuRatioMedian'));
    put('bench.log_replay.add_actions', get(bench, 'logReplay', 'addActions'));
    put('bench.log_replay.peak_rss_mb', get(bench, 'logReplay', 'peakRssOursMb'));
    const perDigest = (get(bench, 'reconcile', 'perDigest') as Record<string, Json> | undefined) ?? {};
    // Groups are "level.digest"; the digest's name carries its version, the metric a stable alias.
    const alias = (d: string): string => (d.startsWith('md5') ? 'md5' : d.startsWith('duckdb-hash') ? 'fast' : d);
    for (const [group, f] of Object.entries(perDigest)) {
      const dot = group.indexOf('.');
      const name = dot < 0 ? alias(group) : `${group.slice(0, dot)}.${alias(group.slice(dot + 1))}`;
      put(`bench.reconcile.${name}.ratio_source`, f.ratioSourceMedian);
      put(`bench.reconcile.${name}.ratio_target`, f.ratioTargetMedian);
      put(`bench.reconcile.${name}.rows_per_second`, f.rowsPerSecondMedian);
    }
    put('bench.reconcile.rows', get(bench, 'reconcile', 'rows'));
    put('bench.demo.seconds', get(bench, 'demo', 'seconds'));
    put('bench.history.log_read_ratio', get(bench, 'history', 'logReadRatio'));
    put('bench.history.timeline_ms', get(bench, 'history', 'timelineMs'));
    put('bench.history.step_median_ms', get(bench, 'history', 'stepMedianMs'));
    const runs = (get(bench, 'bisect', 'runs') as Json[] | undefined) ?? [];
    const nn = runs.find((r) => typeof r.predicate === 'string' && r.predicate.startsWith('no-null-keys'));
    if (nn) {
      put('bench.bisect.no_null_keys.versions', nn.versions);
      put('bench.bisect.no_null_keys.seconds', typeof nn.ms === 'number' ? nn.ms / 1000 : undefined);
      put('bench.bisect.no_null_keys.files_read', nn.filesRead);
    }
  }
  return m;
}
