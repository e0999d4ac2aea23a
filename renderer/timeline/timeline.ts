// The timeline's data: one bar per version, or, for long logs, a fixed number of buckets of
// consecutive versions (sums per bucket; the exact per-version values stay available for hover
// and selection). Pure functions, unit-tested.
import type { HeuristicHit, VersionSummary } from '../../shared/forensics';
import { compact, operationKind } from '../ui/format';

export type OpKind = ReturnType<typeof operationKind>;

/** Above this many versions the chart draws buckets instead of one bar per version. */
export const MAX_BARS = 240;

export const OP_COLOURS: Record<OpKind, string> = {
  create: '#0969da',
  write: '#2da44e',
  delete: '#cf222e',
  merge: '#bf8700',
  maintenance: '#8250df',
  schema: '#bc4c00',
  other: '#8c959f',
};

export const OP_LABELS: Record<OpKind, string> = {
  create: 'create / replace',
  write: 'write / append',
  delete: 'delete',
  merge: 'merge / update',
  maintenance: 'optimize / vacuum / restore',
  schema: 'schema / properties',
  other: 'other / no commitInfo',
};

export interface Bucket {
  /** Index in the chart (category key). */
  key: number;
  first: number;
  last: number;
  /** Versions in the bucket (their count; indices into the versions array: [from, to)). */
  from: number;
  to: number;
  added: number;
  /** Negative: removed rows drawn below the axis. */
  removed: number;
  /** Some version in the bucket has rows unknown (no stats). */
  unknownRows: boolean;
  /** The operation kind that moved the most rows in the bucket (its colour). */
  kind: OpKind;
  /** The version that moved the most rows (what a click on the bucket opens). */
  peak: number;
  warn: boolean;
  info: boolean;
  checkpoint: boolean;
  unreadable: boolean;
  /** Every version in the bucket that moved rows only rearranged them (OPTIMIZE, dataChange false): no row changed. */
  rearrange: boolean;
}

/** Bars are coloured by what happened to the rows, whatever the operation was called. */
export const ROW_COLOURS = { added: '#2da44e', removed: '#cf222e', rearranged: '#8250df' } as const;

/** Signed log scale for rows (added above, removed below): sign(n) * log10(1 + |n|). */
export function symlog(n: number): number {
  return Math.sign(n) * Math.log10(1 + Math.abs(n));
}

export function unsymlog(y: number): number {
  return Math.sign(y) * (10 ** Math.abs(y) - 1);
}

export function moved(v: VersionSummary): number {
  return (v.addedRows ?? 0) + (v.removedRows ?? 0);
}

export function buildBuckets(versions: VersionSummary[], heuristics: HeuristicHit[], maxBars = MAX_BARS): Bucket[] {
  const n = versions.length;
  if (n === 0) return [];
  const per = Math.max(1, Math.ceil(n / maxBars));
  const warnAt = new Set<number>();
  const infoAt = new Set<number>();
  for (const h of heuristics) (h.severity === 'warn' ? warnAt : infoAt).add(h.version);
  const out: Bucket[] = [];
  for (let from = 0, key = 0; from < n; from += per, key++) {
    const to = Math.min(n, from + per);
    let added = 0;
    let removed = 0;
    let unknownRows = false;
    let warn = false;
    let info = false;
    let checkpoint = false;
    let unreadable = false;
    let peak = versions[from].version;
    let peakMoved = -1;
    let rearrange = true;
    const byKind = new Map<OpKind, number>();
    for (let i = from; i < to; i++) {
      const v = versions[i];
      added += v.addedRows ?? 0;
      removed += v.removedRows ?? 0;
      if ((v.addedRows === null && v.addedFiles > 0) || (v.removedRows === null && v.removedFiles > 0)) unknownRows = true;
      if (warnAt.has(v.version)) warn = true;
      if (infoAt.has(v.version)) info = true;
      if (v.hasCheckpoint) checkpoint = true;
      if (!v.readable) unreadable = true;
      const m = moved(v);
      if (m > 0 && !v.rearrangeOnly) rearrange = false;
      // A warning outranks a larger ordinary change: a click on the bucket opens the suspect.
      const rank = m + (warnAt.has(v.version) ? Number.MAX_SAFE_INTEGER / 2 : 0);
      if (rank > peakMoved) {
        peakMoved = rank;
        peak = v.version;
      }
      const k = operationKind(v.operation);
      byKind.set(k, (byKind.get(k) ?? 0) + m + 1);
    }
    let kind: OpKind = 'other';
    let best = -1;
    for (const [k, m] of byKind) if (m > best) { best = m; kind = k; }
    out.push({ key, first: versions[from].version, last: versions[to - 1].version, from, to, added, removed: -removed, unknownRows, kind, peak, warn, info, checkpoint, unreadable, rearrange: rearrange && added + removed > 0 });
  }
  return out;
}

/** The bucket holding `version` (versions sorted ascending), or null. */
export function bucketOf(buckets: Bucket[], version: number): Bucket | null {
  let lo = 0;
  let hi = buckets.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = buckets[mid];
    if (version < b.first) hi = mid - 1;
    else if (version > b.last) lo = mid + 1;
    else return b;
  }
  return null;
}

/** A round axis: bounds and ticks on a 1/2/5 step covering [lo, hi] (lo <= 0 <= hi). */
export function niceAxis(lo: number, hi: number, count = 4): { domain: [number, number]; ticks: number[] } {
  const span = Math.max(1, hi - lo);
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const a = Math.floor(lo / step) * step;
  const z = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let t = a; t <= z + step / 2; t += step) ticks.push(Math.round(t));
  return { domain: [a, z], ticks };
}

// The buckets of a versions array, kept while that array is alive: the forensics result is
// immutable in the store, so coming back to the Timeline tab (a remount) reuses them.
const bucketCache = new WeakMap<VersionSummary[], { heuristics: HeuristicHit[]; buckets: Bucket[] }>();

export function bucketsFor(versions: VersionSummary[], heuristics: HeuristicHit[]): Bucket[] {
  const hit = bucketCache.get(versions);
  if (hit && hit.heuristics === heuristics) return hit.buckets;
  const buckets = buildBuckets(versions, heuristics);
  bucketCache.set(versions, { heuristics, buckets });
  return buckets;
}

/** Where everything of the timeline chart goes, in pixels of a `width` x `height` SVG. */
export interface ChartGeometry {
  width: number;
  plot: { left: number; right: number; top: number; bottom: number };
  /** The width of one bucket's band. */
  band: number;
  zeroY: number;
  yTicks: { value: number; y: number; label: string }[];
  xTicks: { key: number; x: number; label: string }[];
  /** The bars, one path per colour: added, removed, and rows only rearranged (above and below). */
  paths: { key: 'added' | 'removed' | 'rearranged-up' | 'rearranged-down'; d: string; fill: string; opacity: number }[];
  /** Runs of unreadable buckets, as x ranges. */
  unreadable: { x: number; width: number }[];
  /** A finding's line at its bucket's centre (warn outranks info in one bucket). */
  marks: { key: number; x: number; warn: boolean }[];
  /** Buckets with a checkpoint: the x of their dot on the axis. */
  checkpoints: number[];
}

/** Margins around the plot: room for the y labels at the left, the x labels below, the ⚑ above. */
export const CHART_MARGIN = { top: 14, right: 16, bottom: 30, left: 48 } as const;
/** A bar is at most this wide (a log of three versions is not three slabs). */
const MAX_BAR = 56;

const px = (n: number): string => String(Math.round(n * 100) / 100);

export function chartGeometry(buckets: Bucket[], opts: { width: number; height: number; log: boolean; bucketed: boolean }): ChartGeometry {
  const { width, height, log, bucketed } = opts;
  const plot = { left: CHART_MARGIN.left, right: Math.max(CHART_MARGIN.left + 1, width - CHART_MARGIN.right), top: CHART_MARGIN.top, bottom: height - CHART_MARGIN.bottom };
  const n = Math.max(1, buckets.length);
  const band = (plot.right - plot.left) / n;
  // On the log scale the bars stand for sign(n)·log10(1+|n|); the axis labels the rows they stand for.
  const up = (b: Bucket) => (log ? symlog(b.added) : b.added);
  const down = (b: Bucket) => (log ? symlog(b.removed) : b.removed);
  let lo = 0;
  let hi = 0;
  for (const b of buckets) { hi = Math.max(hi, up(b)); lo = Math.min(lo, down(b)); }
  let domain: [number, number];
  let ticks: number[];
  if (log) {
    const top = Math.max(1, Math.ceil(hi));
    const bottom = Math.min(0, Math.floor(lo));
    ticks = [];
    for (let t = bottom; t <= top; t++) ticks.push(t);
    domain = [bottom, top];
  } else {
    ({ domain, ticks } = niceAxis(lo, hi === 0 && lo === 0 ? 1 : hi));
  }
  const [yMin, yMax] = domain;
  const yOf = (v: number) => plot.top + ((yMax - Math.max(yMin, Math.min(yMax, v))) / (yMax - yMin || 1)) * (plot.bottom - plot.top);
  const zeroY = yOf(0);
  // One bar per version: a gap between bars (18% of the band each side); buckets touch.
  const barW = Math.min(MAX_BAR, bucketed ? band : band * 0.64);
  const d = { added: '', removed: '', 'rearranged-up': '', 'rearranged-down': '' };
  const rect = (x: number, y0: number, y1: number) => `M${px(x)} ${px(Math.min(y0, y1))}h${px(barW)}v${px(Math.abs(y1 - y0))}h${px(-barW)}Z`;
  for (const b of buckets) {
    const x = plot.left + b.key * band + (band - barW) / 2;
    const a = up(b);
    const r = down(b);
    if (a > 0) d[b.rearrange ? 'rearranged-up' : 'added'] += rect(x, yOf(a), zeroY);
    if (r < 0) d[b.rearrange ? 'rearranged-down' : 'removed'] += rect(x, zeroY, yOf(r));
  }
  const unreadable: { x: number; width: number }[] = [];
  for (const b of buckets) {
    if (!b.unreadable) continue;
    const last = unreadable[unreadable.length - 1];
    const x = plot.left + b.key * band;
    if (last && Math.abs(last.x + last.width - x) < 1e-6) last.width += band;
    else unreadable.push({ x, width: band });
  }
  const centre = (b: Bucket) => plot.left + (b.key + 0.5) * band;
  // x labels (v<first>): as many as fit with a gap of 24 px between them.
  const longest = buckets.reduce((m, b) => Math.max(m, String(b.first).length + 1), 2);
  const every = Math.max(1, Math.ceil((longest * 6.5 + 24) / Math.max(band, 1e-6)));
  const xTicks: ChartGeometry['xTicks'] = [];
  for (let k = 0; k < buckets.length; k += every) xTicks.push({ key: k, x: centre(buckets[k]), label: `v${buckets[k].first}` });
  return {
    width,
    plot,
    band,
    zeroY,
    yTicks: ticks.map((t) => ({ value: t, y: yOf(t), label: compact(Math.round(log ? unsymlog(t) : t)) })),
    xTicks,
    paths: [
      { key: 'added', d: d.added, fill: ROW_COLOURS.added, opacity: 1 },
      { key: 'rearranged-up', d: d['rearranged-up'], fill: ROW_COLOURS.rearranged, opacity: 1 },
      { key: 'removed', d: d.removed, fill: ROW_COLOURS.removed, opacity: 0.85 },
      { key: 'rearranged-down', d: d['rearranged-down'], fill: ROW_COLOURS.rearranged, opacity: 0.6 },
    ],
    unreadable,
    marks: buckets.filter((b) => b.warn || b.info).map((b) => ({ key: b.key, x: centre(b), warn: b.warn })),
    checkpoints: buckets.filter((b) => b.checkpoint).map(centre),
  };
}

/** The versions the chart shows when zoomed: indices [from, to) into the versions array; null is all of them. */
export type ChartZoom = { from: number; to: number } | null;

/** Zoomed in no further than this many versions (a bar per version long before). */
const MIN_ZOOM = 8;

/**
 * The window `factor` times as wide as the current one (0.5 zooms in, 2 out), kept around the
 * version at index `centre` and inside [0, n); null once it covers every version.
 */
export function zoomAround(n: number, zoom: ChartZoom, centre: number, factor: number): ChartZoom {
  const cur = zoom ?? { from: 0, to: n };
  const width = Math.max(Math.min(MIN_ZOOM, n), Math.round((cur.to - cur.from) * factor));
  if (width >= n) return null;
  const from = Math.max(0, Math.min(n - width, Math.round(centre - width / 2)));
  return { from, to: from + width };
}

/** The window a brush over the buckets `k0`..`k1` (either order) of the shown versions selects, as indices into all versions. */
export function brushZoom(buckets: Bucket[], zoom: ChartZoom, k0: number, k1: number, n: number): ChartZoom {
  if (!buckets.length) return zoom;
  const clamp = (k: number) => Math.max(0, Math.min(buckets.length - 1, k));
  const a = buckets[clamp(Math.min(k0, k1))];
  const b = buckets[clamp(Math.max(k0, k1))];
  const offset = zoom?.from ?? 0;
  const from = offset + a.from;
  const to = offset + b.to;
  if (to - from >= n) return null;
  if (to - from < MIN_ZOOM) return zoomAround(n, { from, to }, (from + to) / 2, MIN_ZOOM / Math.max(1, to - from));
  return { from, to };
}
