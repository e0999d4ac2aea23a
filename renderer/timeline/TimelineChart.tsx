// Rows added (up) and removed (down) per version, coloured by what happened to the rows (added,
// removed, only rearranged by a compaction), optionally on a signed log scale so small commits
// show beside large ones; with markers for the heuristics that fired, checkpoints and versions
// the log can no longer produce. Long logs are drawn as buckets; hovering a bucket lists its
// versions' exact values.
//
// Drawn as one SVG of our own, not recharts: a 10,000-version log is at most MAX_BARS buckets,
// and the bars of one colour are one <path>, so opening the timeline (and coming back to its tab)
// creates a few hundred plain elements instead of recharts' component tree per bar (issue #12:
// that tree was most of the page's time to paint the timeline). The geometry is pure
// (chartGeometry in timeline.ts) and unit-tested.
import { memo, useEffect, useMemo, useRef, useState, type PointerEvent } from 'react';
import type { HeuristicHit, VersionSummary } from '../../shared/forensics';
import { operationKind } from '../ui/format';
import { useElementWidth } from '../ui/useElementHeight';
import { brushZoom, bucketOf, buildBuckets, bucketsFor, chartGeometry, moved, OP_COLOURS, ROW_COLOURS, zoomAround, type Bucket, type ChartGeometry, type ChartZoom } from './timeline';
import { formatInt } from '../ui/format';

interface Props {
  versions: VersionSummary[];
  heuristics: HeuristicHit[];
  selected: number | null;
  onSelect(version: number): void;
}

function sign(n: number | null, s: '+' | '−'): string {
  return n === null ? '?' : n === 0 ? '0' : `${s}${formatInt(n)}`;
}

function BucketTip({ b, versions, heuristics }: { b: Bucket; versions: VersionSummary[]; heuristics: HeuristicHit[] }) {
  const inside = versions.slice(b.from, b.to);
  const top = inside.length > 8 ? [...inside].sort((x, y) => moved(y) - moved(x)).slice(0, 8).sort((x, y) => x.version - y.version) : inside;
  const hits = heuristics.filter((h) => h.version >= b.first && h.version <= b.last);
  return (
    <div className="chart-tip" data-testid="timeline-tip">
      <div className="chart-tip-title">
        {b.first === b.last ? `Version ${b.first}` : `Versions ${b.first}–${b.last} (${b.to - b.from})`}
      </div>
      {b.first !== b.last && (
        <div className="chart-tip-sum mono">
          <span className="add">+{formatInt(b.added)}</span> <span className="remove">−{formatInt(-b.removed)}</span> rows in all
          {inside.length > top.length && <span className="muted"> · the {top.length} largest:</span>}
        </div>
      )}
      <table className="chart-tip-table">
        <tbody>
          {top.map((v) => (
            <tr key={v.version}>
              <td className="mono strong">v{v.version}</td>
              <td><span className="op-dot" style={{ background: OP_COLOURS[operationKind(v.operation)] }} />{v.operation ?? 'no commitInfo'}</td>
              <td className="mono add num">{sign(v.addedRows, '+')}</td>
              <td className="mono remove num">{sign(v.removedRows, '−')}</td>
              <td className="muted">{v.readable ? '' : 'unreadable'}{v.hasCheckpoint ? ' checkpoint' : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {hits.slice(0, 4).map((h, i) => (
        <div key={i} className={`chart-tip-hit ${h.severity}`}>⚑ v{h.version} {h.name}</div>
      ))}
      {hits.length > 4 && <div className="muted">and {hits.length - 4} more findings</div>}
    </div>
  );
}

const HEIGHT = 190;
const TICK = { fontSize: 11, fill: '#57606a' } as const;

/** The static drawing: re-rendered only when the data, the scale or the width changes. */
const Plot = memo(function Plot({ g, buckets, onHover, onPick }: { g: ChartGeometry; buckets: Bucket[]; onHover(k: number | null): void; onPick(b: Bucket): void }) {
  const top = g.plot.top;
  const h = g.plot.bottom - g.plot.top;
  return (
    <svg className="timeline-svg" width={g.width} height={HEIGHT} role="img" aria-label="Rows added and removed per version" onMouseLeave={() => onHover(null)}>
      {g.yTicks.map((t) => <line key={`g${t.value}`} x1={g.plot.left} x2={g.plot.right} y1={t.y} y2={t.y} stroke="#eef0f3" />)}
      {g.unreadable.map((u) => (
        <rect key={`u${u.x}`} className="timeline-unreadable" x={u.x} y={top} width={u.width} height={h} fill="#afb8c1" fillOpacity={0.35} />
      ))}
      {g.paths.map((p) => p.d && <path key={p.key} className="timeline-bars" data-kind={p.key} d={p.d} fill={p.fill} fillOpacity={p.opacity} />)}
      <line className="timeline-ref-line" data-kind="zero" x1={g.plot.left} x2={g.plot.right} y1={g.zeroY} y2={g.zeroY} stroke="#8c959f" />
      {g.marks.map((m) => (
        <g key={`h${m.key}`} className="timeline-ref-line" data-kind={m.warn ? 'warn' : 'info'}>
          <line x1={m.x} x2={m.x} y1={top} y2={g.plot.bottom} stroke={m.warn ? '#cf222e' : '#d4a72c'} strokeWidth={m.warn ? 1.5 : 1} strokeDasharray={m.warn ? undefined : '3 3'} />
          {m.warn && <text x={m.x} y={top - 3} textAnchor="middle" fill="#cf222e" fontSize={12}>⚑</text>}
        </g>
      ))}
      {g.checkpoints.map((x) => <circle key={`c${x}`} className="timeline-checkpoint" cx={x} cy={g.plot.bottom} r={4} fill="#8250df" stroke="#fff" />)}
      <line x1={g.plot.left} x2={g.plot.right} y1={g.plot.bottom} y2={g.plot.bottom} stroke="#c8ced6" />
      {g.yTicks.map((t) => <text key={`y${t.value}`} x={g.plot.left - 6} y={t.y} dy="0.35em" textAnchor="end" {...TICK}>{t.label}</text>)}
      {g.xTicks.map((t) => <text key={`x${t.key}`} x={t.x} y={g.plot.bottom + 16} textAnchor="middle" {...TICK}>{t.label}</text>)}
      {/* One hit area per bucket, over the whole plot height: hover shows its tip, a click opens it. */}
      {buckets.map((b) => (
        <rect key={b.key} className="timeline-hit" data-testid="timeline-bucket" data-first={b.first} data-last={b.last}
          x={g.plot.left + b.key * g.band} y={top} width={g.band} height={h} fill="transparent"
          onMouseEnter={() => onHover(b.key)} onClick={() => onPick(b)} />
      ))}
    </svg>
  );
});

/** A drag shorter than this (px) is a click on a bar, not a brush. */
const BRUSH_MIN = 6;

function TimelineChartImpl({ versions: all, heuristics, selected, onSelect }: Props) {
  // Zoom: the chart shows versions [from, to) of the log; drag over the plot to zoom to a range
  // (a brush), the buttons zoom in and out around the selected version. Deep enough, every bar is
  // one version and a click opens that commit.
  const [zoom, setZoom] = useState<ChartZoom>(null);
  useEffect(() => setZoom(null), [all]);
  const versions = useMemo(() => (zoom ? all.slice(zoom.from, zoom.to) : all), [all, zoom]);
  const buckets = useMemo(() => (zoom ? buildBuckets(versions, heuristics) : bucketsFor(versions, heuristics)), [zoom, versions, heuristics]);
  const bucketed = buckets.length < versions.length;
  const unreadable = useMemo(() => buckets.some((b) => b.unreadable), [buckets]);
  const rearranged = useMemo(() => buckets.some((b) => b.rearrange), [buckets]);
  const [log, setLog] = useState(false);
  const [hover, setHover] = useState<number | null>(null);
  const plotRef = useRef<HTMLDivElement>(null);
  const width = useElementWidth(plotRef);
  const g = useMemo(() => (width > 0 ? chartGeometry(buckets, { width, height: HEIGHT, log, bucketed }) : null), [buckets, width, log, bucketed]);
  // A brush that just ended: the click the browser sends after it is not a pick.
  const brushed = useRef(false);
  const pick = useMemo(() => (b: Bucket) => {
    if (brushed.current) { brushed.current = false; return; }
    onSelect(b.first === b.last ? b.first : b.peak);
  }, [onSelect]);
  const sel = selected === null || !g ? null : bucketOf(buckets, selected)?.key ?? null;
  const hovered = hover === null ? undefined : buckets[hover];
  const [brush, setBrush] = useState<{ x0: number; x1: number } | null>(null);
  const xOf = (e: PointerEvent<HTMLDivElement>) => e.clientX - e.currentTarget.getBoundingClientRect().left;
  const keyAt = (x: number) => (g ? Math.floor((x - g.plot.left) / g.band) : 0);
  const endBrush = (e: PointerEvent<HTMLDivElement>) => {
    if (!brush) return;
    setBrush(null);
    const x1 = xOf(e);
    if (Math.abs(x1 - brush.x0) < BRUSH_MIN) return;
    brushed.current = true;
    setHover(null);
    setZoom(brushZoom(buckets, zoom, keyAt(brush.x0), keyAt(x1), all.length));
  };
  // Zoom in and out around the selected version when it is shown, else around the middle.
  const centre = (() => {
    const at = selected === null ? -1 : versions.findIndex((v) => v.version === selected);
    return (zoom?.from ?? 0) + (at >= 0 ? at : versions.length / 2);
  })();
  const shownFirst = versions[0]?.version;
  const shownLast = versions[versions.length - 1]?.version;
  return (
    <div className="timeline" data-testid="timeline-chart" data-buckets={buckets.length} data-bucketed={bucketed}
      data-zoomed={zoom !== null} data-first={shownFirst ?? ''} data-last={shownLast ?? ''}>
      <div className="timeline-legend">
        <span className="legend-item"><span className="op-dot" style={{ background: ROW_COLOURS.added }} />rows added</span>
        <span className="legend-item"><span className="op-dot" style={{ background: ROW_COLOURS.removed }} />rows removed</span>
        {rearranged && <span className="legend-item"><span className="op-dot" style={{ background: ROW_COLOURS.rearranged }} />rows rewritten, unchanged (compaction)</span>}
        <span className="legend-item"><span className="legend-line warn" />finding (warn)</span>
        <span className="legend-item"><span className="legend-line info" />finding (info)</span>
        <span className="legend-item"><span className="legend-diamond" />checkpoint</span>
        {unreadable && <span className="legend-item"><span className="legend-hatch" />unreadable</span>}
        <label className="legend-item legend-log"><input type="checkbox" checked={log} onChange={(e) => setLog(e.target.checked)} data-testid="timeline-log" /> log scale</label>
        {all.length > 1 && (
          <span className="legend-item timeline-zoom" data-testid="timeline-zoom">
            <button type="button" className="btn btn-small btn-quiet" data-testid="timeline-zoom-in" aria-label="Zoom in on the chart"
              disabled={versions.length <= 8} onClick={() => setZoom(zoomAround(all.length, zoom, centre, 0.25))}>+</button>
            <button type="button" className="btn btn-small btn-quiet" data-testid="timeline-zoom-out" aria-label="Zoom out"
              disabled={zoom === null} onClick={() => setZoom(zoomAround(all.length, zoom, centre, 4))}>−</button>
            {zoom !== null && <button type="button" className="btn btn-small btn-quiet" data-testid="timeline-zoom-reset" onClick={() => setZoom(null)}>All versions</button>}
            <span className="muted" data-testid="timeline-zoom-range">
              {zoom ? `v${shownFirst}–v${shownLast} (${versions.length.toLocaleString('en-US')} of ${all.length.toLocaleString('en-US')})` : 'drag over the chart to zoom'}
            </span>
          </span>
        )}
        {bucketed && <span className="legend-note">{versions.length.toLocaleString('en-US')} versions in {buckets.length} bars of up to {buckets[0].to - buckets[0].from}: hover for exact values</span>}
      </div>
      <div className="timeline-plot" ref={plotRef} style={{ height: HEIGHT }}
        onPointerDown={(e) => { if (e.button === 0 && g) { brushed.current = false; setBrush({ x0: xOf(e), x1: xOf(e) }); } }}
        onPointerMove={(e) => { if (brush) setBrush({ ...brush, x1: xOf(e) }); }}
        onPointerUp={endBrush}
        onPointerLeave={() => setBrush(null)}>
        {g && <Plot g={g} buckets={buckets} onHover={setHover} onPick={pick} />}
        {brush && Math.abs(brush.x1 - brush.x0) >= BRUSH_MIN && (
          <div className="timeline-brush" data-testid="timeline-brush"
            style={{ left: Math.min(brush.x0, brush.x1), width: Math.abs(brush.x1 - brush.x0), top: g?.plot.top ?? 0, height: g ? g.plot.bottom - g.plot.top : HEIGHT }} />
        )}
        {g && hovered && !brush && (
          <div className="timeline-cursor" style={{ left: g.plot.left + hovered.key * g.band, width: Math.max(1, g.band), top: g.plot.top, height: g.plot.bottom - g.plot.top }} />
        )}
        {g && sel !== null && (
          <div
            className="timeline-sel"
            data-testid="timeline-selection"
            data-version={selected ?? ''}
            style={{ left: g.plot.left + sel * g.band, width: Math.max(3, g.band), top: g.plot.top, height: g.plot.bottom - g.plot.top }}
          />
        )}
        {g && hovered && !brush && (
          // Beside the bucket, on the side with room.
          <div className="timeline-tipbox" style={hovered.key * g.band + g.plot.left < g.width / 2
            ? { left: g.plot.left + (hovered.key + 1) * g.band + 10 }
            : { right: g.width - (g.plot.left + hovered.key * g.band) + 10 }}>
            <BucketTip b={hovered} versions={versions} heuristics={heuristics} />
          </div>
        )}
      </div>
    </div>
  );
}

/** Re-drawn only when the data or the selection changes (not on every detail load). */
export const TimelineChart = memo(TimelineChartImpl);
