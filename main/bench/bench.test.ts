// Each bench at a tiny size: the figures come out, and the bench's own checks hold (ours and the
// same-run baseline found the same thing: a ratio of two different answers would mean nothing).
import { describe, expect, it } from 'vitest';
import { benchReconcile, formatReconcileFigures, rowsSql, schemaFor } from './reconcile';
import { benchHistory, formatHistoryBenchFigures } from './history';
import { benchGrid, formatGridFigures } from './grid';
import { benchBisect, formatBisectFigures } from './bisect';
import { benchLineage, formatLineageFigures, referenceProject } from './lineage';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { benchLogReplay, findTableRoot, formatLogReplayFigures } from './log-replay';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('the reconcile bench, 600 rows', () => {
  it('every level names the divergent partition, and rows and keys count what the hand-written diff counts', async () => {
    const f = await benchReconcile({ rows: 600, runs: 1, counts: false });
    expect(f.levels.map((l) => [l.level, l.verdict, l.findings])).toEqual([
      ['rows', 'diverges', ['content_divergence']], ['keys', 'diverges', ['content_divergence']], ['checksum', 'diverges', []], ['checksum', 'diverges', []],
    ]);
    expect(f.levels.map((l) => l.digest)[3]).toMatch(/md5/);
    expect(f.levels.every((l) => l.ms > 0 && l.baselineMs > 0)).toBe(true);
    // ADR 0001's digest candidates, each over the same rows per partition as the baseline.
    expect(f.digests?.map((d) => [d.id, d.stable])).toEqual([['baseline', false], ['fast', false], ['md5', true], ['sha256', true], ['composition', true], ['node_udf', true]]);
    expect(f.digests?.[0].ratio).toBe(1);
    const text = formatReconcileFigures(f);
    expect(text).toContain('digest   md5 of canonical text (md5-canonical-v1): ');
    expect(text).toContain('600-row Parquet source vs 600-row Delta table');
    expect(text).toContain('full-outer-join diff');
  });

  it('the text and the two-column keys give the same answer as the int key', async () => {
    for (const key of ['text', 'pair'] as const) {
      const f = await benchReconcile({ rows: 600, runs: 1, counts: false, digests: false, key, levels: ['rows'] });
      expect(f.key).toBe(key);
      expect(f.levels.map((l) => l.verdict)).toEqual(['diverges']);
    }
  });

  it('the divergent rows are 1% of one partition, the text key a string', () => {
    expect(rowsSql(10, true)).toContain("'changed-' || i");
    expect(rowsSql(10, false)).not.toContain('changed-');
    expect(schemaFor('text').fields.find((x) => x.name === 'id')?.type).toBe('string');
    expect(schemaFor('int').fields.find((x) => x.name === 'id')?.type).toBe('long');
  });
});

describe('the history bench, 60 versions', () => {
  it('reads the log DuckDB reads, and keeps the live files it wrote', async () => {
    const f = await benchHistory({ versions: 60, liveFiles: 20, runs: 1 });
    expect(f.versions).toBe(60);
    expect(f.liveFiles).toBe(20);
    expect(formatHistoryBenchFigures(f)).toContain('history (60 versions, 20 live files; median of 1)');
  });
});

describe('the grid bench, 2,000 rows', () => {
  it('pages and counts what DuckDB counts over the same files', async () => {
    const f = await benchGrid({ rows: 2000, runs: 1 });
    expect(f.rows).toBe(2000);
    expect(f.files).toBe(10);
    expect(formatGridFigures(f)).toContain('first page of 2,000 rows (10 files)');
  });
});

describe('the bisect bench, 120 versions', () => {
  it('finds the version where each table went bad, the first without reading a data file', async () => {
    const f = await benchBisect({ versions: 120, wide: { versions: 30, rowsPerVersion: 50 }, largeLogInput: join(tmpdir(), 'lakerec-no-such-archive.tar.zst') });
    expect(f.runs.map((r) => [r.predicate, r.firstBad, r.expectedFirstBad])).toEqual([
      ['no-null-keys --keys k', 78, 78], ['unique-keys --keys k', 93, 93], ['unique-keys --keys k', 23, 23],
    ]);
    expect(f.runs[0].filesRead).toBe(0);
    expect(f.forensicsVersions).toBe(120);
    expect(f.largeLog.input).toBeNull();
    const text = formatBisectFigures(f);
    expect(text).toContain('first bad v78 (expected v78)');
    expect(text).toMatch(/forensics on the large log skipped: .*lakerec-no-such-archive.tar.zst is absent/);
  });
});

describe('the lineage bench', () => {
  it('says why it measured nothing when the project is absent', async () => {
    const f = await benchLineage({ project: join(tmpdir(), 'lakerec-no-such-project'), runs: 1 });
    expect(f.models).toBeNull();
    expect(formatLineageFigures(f)).toMatch(/^lineage: skipped: the reference project is absent \(.*lakerec-no-such-project\)$/);
  });

  it.skipIf(!existsSync(join(referenceProject(), 'dbt_project.yml')))('verifies the reference project with nothing unexplained, DuckDB building the same models', async () => {
    const f = await benchLineage({ runs: 1 });
    expect(f.skipped).toBeNull();
    expect(f.models).toBeGreaterThan(0);
    expect(f.confirmed).toBeGreaterThan(0);
    expect(f.unexplained).toBe(0);
    expect(f.duckdbBuildSeconds).toBeGreaterThan(0);
    expect(formatLineageFigures(f)).toContain(`${f.models} models`);
  });
});

describe('the log-replay bench, on an archive of the control sample lake', () => {
  it('replays the log DuckDB reads (the same add actions), per partition; an absent archive is said', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lakerec-bench-replay-test-'));
    try {
      const lake = join(__dirname, '..', '..', 'sample-lakes', 'built', 'control', 'table');
      cpSync(join(lake, '_delta_log'), join(dir, 'src', 'orders', '_delta_log'), { recursive: true });
      expect(findTableRoot(join(dir, 'src'))).toBe(join(dir, 'src', 'orders'));
      expect(findTableRoot(join(dir, 'src', 'orders', '_delta_log'))).toBeNull();
      const archive = join(dir, 'log.tar.zst');
      execFileSync('tar', ['--zstd', '-cf', archive, '-C', join(dir, 'src'), 'orders']);
      const f = await benchLogReplay({ input: archive, runs: 1 });
      expect(f.input).toBe(archive);
      expect(f.partitions).toBe(6);
      expect(f.addActions).toBeGreaterThanOrEqual(f.activeFiles);
      expect(f.rowsFromStats).toBe(5400);
      expect(formatLogReplayFigures(f)).toContain(`${f.addActions}`);
      const none = await benchLogReplay({ input: join(dir, 'absent.tar.zst') });
      expect(none.skippedReason).toBe(`${join(dir, 'absent.tar.zst')} is absent`);
      expect(formatLogReplayFigures(none)).toMatch(/absent/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
