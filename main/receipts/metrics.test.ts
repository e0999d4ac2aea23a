import { describe, it, expect, afterEach } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectMetrics } from './metrics';
import { checkRepo } from './check';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

function repo(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'lakerec-receipts-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return root;
}

const matrix = {
  rows: 5400,
  scenarios: [
    { scenario: 'double_load', expectedMode: 'double_load', firstNames: 'counts', rowsReadToName: 0, silentAsExpected: null },
    { scenario: 'stale_rows', expectedMode: 'stale_rows', firstNames: 'keys', rowsReadToName: 5400, silentAsExpected: null },
    { scenario: 'control', expectedMode: null, firstNames: null, rowsReadToName: null, silentAsExpected: true },
  ],
};
const bench = {
  logReplay: { ratio: 3.2, cpuRatioMedian: 2.4 },
  reconcile: { perLevel: { 'checksum.md5-canonical-v1': { ratioMedian: 7.8, ratioCpuMedian: 6.1 }, 'rows.duckdb-hash-v2@v1.5.6': { ratioMedian: 2.5, peakRssMbMax: 900 } }, countsMsMedian: 410 },
  bisect: { runs: [{ predicate: 'no-null-keys --keys k', versions: 10000, ms: 480, filesRead: 0 }] },
  demo: { seconds: 1.1 },
  timelineUi: { openToPaintedMs: 420.5, tabToHistoryMs: 38, tabTrivialMs: 12, stepMedianMs: 21.4 },
};

describe('metrics from the measuring commands', () => {
  it('derives the matrix summary and the benchmark ratios, digests by stable alias', () => {
    const m = collectMetrics(repo({ 'docs/experiments/detection_matrix.json': matrix, 'docs/experiments/bench.json': bench }));
    expect(m).toMatchObject({
      'matrix.scenarios': 3, 'matrix.corruptions': 2, 'matrix.named': 2, 'matrix.named_from_log': 1, 'matrix.silent_kept_silent': 1,
      'bench.log_replay.cpu_ratio': 2.4, 'bench.reconcile.checksum.md5.ratio': 7.8, 'bench.reconcile.checksum.md5.ratio_cpu': 6.1, 'bench.reconcile.rows.fast.ratio': 2.5,
      'bench.reconcile.rows.fast.peak_rss_mb': 900, 'bench.reconcile.counts.seconds': 0.41,
      'bench.bisect.no_null_keys.seconds': 0.48, 'bench.bisect.no_null_keys.files_read': 0, 'bench.demo.seconds': 1.1,
      'bench.timeline_ui.open_to_painted_ms': 420.5, 'bench.timeline_ui.tab_to_history_ms': 38, 'bench.timeline_ui.tab_trivial_ms': 12, 'bench.timeline_ui.step_median_ms': 21.4,
    });
  });

  it('has no timeline-ui metrics when that section was skipped (no Chromium)', () => {
    const m = collectMetrics(repo({ 'docs/experiments/bench.json': { ...bench, timelineUi: { skipped: 'no Chromium' } } }));
    expect(Object.keys(m).filter((k) => k.includes('timeline_ui'))).toEqual([]);
  });

  it('fails a document whose quoted figure went stale, naming file and line', () => {
    const root = repo({
      'docs/experiments/detection_matrix.json': matrix,
      'docs/receipts.json': { claims: [{ metric: 'matrix.named', phrase: 'All {n} corruptions are named', files: ['README.md'] }] },
      'README.md': '# x\n\nAll 3 corruptions are named.\n',
    });
    const { violations } = checkRepo(root, collectMetrics(root));
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ file: 'README.md', line: 3, measured: 2 });
  });
});
