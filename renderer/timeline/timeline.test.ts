import { describe, expect, it } from 'vitest';
import { NO_WHO, type HeuristicHit, type VersionSummary } from '../../shared/forensics';
import { bucketOf, bucketsFor, buildBuckets, CHART_MARGIN, chartGeometry, MAX_BARS, niceAxis } from './timeline';

function version(v: number, added: number | null, removed: number | null, op = 'WRITE'): VersionSummary {
  return {
    version: v, timestamp: v * 1000, when: '', operation: op, operationParameters: {}, writer: null, who: NO_WHO, timestampSource: 'commitInfo', rewrittenFiles: 0, isolationLevel: null, isBlindAppend: null,
    readVersion: null, addedFiles: 1, removedFiles: removed ? 1 : 0, addedRows: added, removedRows: removed, dvDeletedRows: 0, addedBytes: 0,
    removedBytes: 0, tableRows: null, tableFiles: 0, partitions: [], rearrangeOnly: false, hasCommitFile: true, hasCheckpoint: v % 100 === 0,
    readable: v >= 10, protocolChanged: false, metadataChanged: false,
  };
}

const hit = (v: number, severity: 'warn' | 'info'): HeuristicHit => ({ name: 'duplicate_batch', version: v, message: '', severity, evidence: {} });

describe('timeline buckets', () => {
  it('draws one bar per version for a short log', () => {
    const vs = [version(0, 10, 0, 'CREATE TABLE'), version(1, 5, 3, 'DELETE'), version(2, 7, 0)];
    const b = buildBuckets(vs, [hit(1, 'warn')]);
    expect(b.map((x) => [x.first, x.last, x.added, x.removed, x.kind, x.warn])).toEqual([
      [0, 0, 10, -0, 'create', false], [1, 1, 5, -3, 'delete', true], [2, 2, 7, -0, 'write', false],
    ]);
  });

  it('buckets 10,000 versions into at most MAX_BARS bars that keep every row and every marker', () => {
    const vs = Array.from({ length: 10_000 }, (_, i) => version(i, i % 7, i % 3 === 0 ? 2 : 0));
    const b = buildBuckets(vs, [hit(4321, 'warn'), hit(9999, 'info')]);
    expect(b.length).toBeLessThanOrEqual(MAX_BARS);
    expect(b.reduce((n, x) => n + x.added, 0)).toBe(vs.reduce((n, v) => n + (v.addedRows ?? 0), 0));
    expect(b.reduce((n, x) => n - x.removed, 0)).toBe(vs.reduce((n, v) => n + (v.removedRows ?? 0), 0));
    expect(b.reduce((n, x) => n + (x.to - x.from), 0)).toBe(10_000);
    const warned = bucketOf(b, 4321)!;
    expect(warned.warn).toBe(true);
    expect(warned.peak).toBe(4321); // a click on the bucket opens the suspect, not the biggest write
    expect(bucketOf(b, 9999)!.info).toBe(true);
    expect(b[0].unreadable).toBe(true);
    expect(b[b.length - 1].unreadable).toBe(false);
    expect(b.filter((x) => x.checkpoint).length).toBe(100);
    for (let v = 0; v < 10_000; v += 997) expect(bucketOf(b, v)!.first).toBeLessThanOrEqual(v);
  });

  it('flags unknown rows instead of counting them as zero silently', () => {
    expect(buildBuckets([version(0, null, null)], [])[0].unknownRows).toBe(true);
  });

  it('rounds the axis', () => {
    expect(niceAxis(-36, 900)).toEqual({ domain: [-250, 1000], ticks: [-250, 0, 250, 500, 750, 1000] });
  });
});

describe('bars coloured by what happened to the rows', () => {
  it('marks a bucket that only rearranged rows (compaction), and a signed log scale that inverts', async () => {
    const { buildBuckets, symlog, unsymlog } = await import('./timeline');
    const v = (n: number, operation: string, addedRows: number, removedRows: number, rearrangeOnly: boolean): VersionSummary => ({ ...version(n, addedRows, removedRows, operation), readable: true, rearrangeOnly });
    const b = buildBuckets([v(0, 'WRITE', 10, 0, false), v(1, 'OPTIMIZE', 10, 10, true), v(2, 'WRITE', 0, 10, false)], []);
    expect(b.map((x) => x.rearrange)).toEqual([false, true, false]);
    expect(b[2].removed).toBe(-10); // an overwrite's removed rows are removed rows, whatever the operation
    for (const n of [0, 1, 9, 1000, -5, -123456]) expect(unsymlog(symlog(n))).toBeCloseTo(n, 6);
    expect(symlog(-999)).toBeCloseTo(-3, 6);
  });
});

describe('timeline chart geometry', () => {
  const vs = [version(0, 100, 0, 'CREATE TABLE'), version(1, 0, 40, 'DELETE'), version(2, 50, 0), version(3, null, null)];
  vs[2] = { ...vs[2], readable: false };
  const buckets = buildBuckets(vs, [hit(1, 'warn'), hit(2, 'info')]);
  const g = chartGeometry(buckets, { width: 464, height: 190, log: false, bucketed: false });

  it('places each bucket in its band, added above the zero line and removed below it', () => {
    expect(g.band).toBe((464 - CHART_MARGIN.right - CHART_MARGIN.left) / 4);
    const added = g.paths.find((p) => p.key === 'added')!.d;
    const removed = g.paths.find((p) => p.key === 'removed')!.d;
    expect(added.match(/M/g)).toHaveLength(2); // v0 and v2; v1 added nothing, v3 has no stats
    expect(removed.match(/M/g)).toHaveLength(1); // v1
    // Every added bar ends on the zero line; the removed one starts there.
    for (const m of added.matchAll(/M[\d.]+ ([\d.]+)h[\d.]+v([\d.]+)/g)) expect(Number(m[1]) + Number(m[2])).toBeCloseTo(g.zeroY, 1);
    expect(Number(/M[\d.]+ ([\d.]+)/.exec(removed)![1])).toBeCloseTo(g.zeroY, 1);
    expect(g.zeroY).toBeGreaterThan(g.plot.top);
    expect(g.zeroY).toBeLessThan(g.plot.bottom);
  });

  it('marks findings at their bucket centre, warn apart from info, and unreadable and checkpoint buckets', () => {
    expect(g.marks).toEqual([{ key: 1, x: g.plot.left + 1.5 * g.band, warn: true }, { key: 2, x: g.plot.left + 2.5 * g.band, warn: false }]);
    expect(g.unreadable.length).toBeGreaterThan(0);
    expect(g.checkpoints).toEqual([g.plot.left + 0.5 * g.band]); // v0 (version % 100 === 0)
    expect(g.xTicks[0]).toMatchObject({ key: 0, label: 'v0' });
    expect(g.yTicks.map((t) => t.label)).toContain('0');
  });

  it('labels the log scale in rows', () => {
    const lg = chartGeometry(buckets, { width: 464, height: 190, log: true, bucketed: false });
    expect(lg.yTicks.map((t) => t.label)).toEqual(['-99', '-9', '0', '9', '99', '999']);
  });

  it('keeps the buckets of one versions array (a remount of the tab reuses them)', () => {
    const hs = [hit(1, 'warn')];
    expect(bucketsFor(vs, hs)).toBe(bucketsFor(vs, hs));
    expect(bucketsFor(vs, [])).not.toBe(bucketsFor(vs, hs));
  });
});

describe('timeline zoom', () => {
  it('zooms around a version, stays inside the log, and returns to every version', async () => {
    const { zoomAround } = await import('./timeline');
    expect(zoomAround(10_000, null, 5000, 0.5)).toEqual({ from: 2500, to: 7500 });
    expect(zoomAround(10_000, { from: 0, to: 100 }, 0, 0.5)).toEqual({ from: 0, to: 50 });
    expect(zoomAround(10_000, { from: 9900, to: 10_000 }, 9999, 0.5)).toEqual({ from: 9950, to: 10_000 });
    expect(zoomAround(10_000, { from: 2500, to: 7500 }, 5000, 2)).toBeNull();
    expect(zoomAround(10_000, { from: 0, to: 10 }, 3, 0.1)).toEqual({ from: 0, to: 8 }); // no narrower than 8 versions
  });

  it('a brush over buckets selects their versions; over one bucket of a 10,000-version log it reaches one bar per version', async () => {
    const { brushZoom } = await import('./timeline');
    const vs = Array.from({ length: 10_000 }, (_x, i) => version(i, 10, 0));
    const all = buildBuckets(vs, []);
    const z = brushZoom(all, null, 100, 100, vs.length)!;
    expect(z).toEqual({ from: all[100].from, to: all[100].to });
    const shown = vs.slice(z.from, z.to);
    const inner = buildBuckets(shown, []);
    expect(inner.length).toBe(shown.length); // one bar per version: a commit is reachable from the chart
    const z2 = brushZoom(inner, z, 3, 12, vs.length)!;
    expect(z2).toEqual({ from: z.from + 3, to: z.from + 13 });
    expect(brushZoom(all, null, 0, all.length - 1, vs.length)).toBeNull();
  });
});
