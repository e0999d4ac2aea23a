// Rows added (up) and removed (down) per version, coloured by what happened to the rows (added,
// removed, only rearranged by a compaction), optionally on a signed log scale so small commits
// show beside large ones; with markers for the
// heuristics that fired, checkpoints and versions the log can no longer produce. Long logs are
// drawn as buckets; hovering a bucket lists its versions' exact values.
import { memo, useMemo, useState } from 'react';
import {
  Bar, BarChart, CartesianGrid, Cell, ReferenceArea, ReferenceDot, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis,
  type TooltipContentProps,
} from 'recharts';
import type { HeuristicHit, VersionSummary } from '../../shared/forensics';
import { operationKind } from '../history/format';
import { bucketOf, buildBuckets, compact, formatInt, moved, niceAxis, OP_COLOURS, ROW_COLOURS, symlog, unsymlog, type Bucket } from './timeline';

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

/** Contiguous runs of buckets where `test` holds, as [firstKey, lastKey]. */
function runs(buckets: Bucket[], test: (b: Bucket) => boolean): [number, number][] {
  const out: [number, number][] = [];
  for (const b of buckets) {
    if (!test(b)) continue;
    const last = out[out.length - 1];
    if (last && last[1] === b.key - 1) last[1] = b.key;
    else out.push([b.key, b.key]);
  }
  return out;
}

// Plot geometry shared by the chart and the selection overlay (a category band per bucket).
const MARGIN = { top: 14, right: 16, bottom: 0, left: 4 };
const Y_WIDTH = 44;
const X_HEIGHT = 30;
const HEIGHT = 190;

interface BodyProps {
  buckets: Bucket[];
  log: boolean;
  versions: VersionSummary[];
  heuristics: HeuristicHit[];
  onSelect(version: number): void;
}

// The recharts tree is costly to rebuild (hundreds of bars): it is drawn once per data set, and
// the selection is an overlay on top of it, so stepping through versions stays instant.
const ChartBody = memo(function ChartBody({ buckets, log, versions, heuristics, onSelect }: BodyProps) {
  const bucketed = buckets.length < versions.length;
  // On the log scale the bars carry sign(n)·log10(1+|n|); the axis labels the rows they stand for.
  const data = useMemo(() => (log ? buckets.map((b) => ({ ...b, added: symlog(b.added), removed: symlog(b.removed) })) : buckets), [buckets, log]);
  const axis = useMemo(() => {
    let lo = 0;
    let hi = 0;
    for (const b of data) { hi = Math.max(hi, b.added); lo = Math.min(lo, b.removed); }
    if (log) {
      const top = Math.max(1, Math.ceil(hi));
      const bottom = Math.min(0, Math.floor(lo));
      const ticks: number[] = [];
      for (let t = bottom; t <= top; t++) ticks.push(t);
      return { domain: [bottom, top] as [number, number], ticks };
    }
    return niceAxis(lo, hi === 0 && lo === 0 ? 1 : hi);
  }, [data, log]);
  const [yMin, yMax] = axis.domain;
  const unreadable = useMemo(() => runs(buckets, (b) => b.unreadable), [buckets]);

  const renderTip = (p: TooltipContentProps) => {
    const idx = typeof p.activeIndex === 'number' ? p.activeIndex : Number(p.activeIndex);
    const b = Number.isFinite(idx) ? buckets[idx] : undefined;
    if (!p.active || !b) return null;
    return <BucketTip b={b} versions={versions} heuristics={heuristics} />;
  };

  return (
      <ResponsiveContainer width="100%" height={HEIGHT}>
        <BarChart
          data={data}
          stackOffset="sign"
          barCategoryGap={bucketed ? 0 : '18%'}
          margin={MARGIN}
          onClick={(s) => {
            const i = typeof s.activeTooltipIndex === 'number' ? s.activeTooltipIndex : Number(s.activeTooltipIndex);
            const b = Number.isFinite(i) ? buckets[i] : undefined;
            if (b) onSelect(b.first === b.last ? b.first : b.peak);
          }}
        >
          <CartesianGrid vertical={false} stroke="#eef0f3" />
          <XAxis
            dataKey="key"
            tickFormatter={(k: number) => { const b = buckets[k]; return b ? `v${b.first}` : ''; }}
            tick={{ fontSize: 11, fill: '#57606a' }}
            tickLine={false}
            axisLine={{ stroke: '#c8ced6' }}
            minTickGap={24}
            height={X_HEIGHT}
          />
          <YAxis
            domain={[yMin, yMax]}
            ticks={axis.ticks}
            tickFormatter={(n: number) => compact(Math.round(log ? unsymlog(n) : n))}
            tick={{ fontSize: 11, fill: '#57606a' }}
            tickLine={false}
            axisLine={false}
            width={Y_WIDTH}
            allowDataOverflow
          />
          {unreadable.map(([a, z]) => (
            <ReferenceArea key={`u${a}`} x1={a} x2={z} fill="#afb8c1" fillOpacity={0.35} stroke="none" ifOverflow="extendDomain" />
          ))}
          <ReferenceLine y={0} stroke="#8c959f" />
          {buckets.filter((b) => b.warn || b.info).map((b) => (
            <ReferenceLine key={`h${b.key}`} x={b.key} stroke={b.warn ? '#cf222e' : '#d4a72c'} strokeDasharray={b.warn ? undefined : '3 3'} strokeWidth={b.warn ? 1.5 : 1}
              label={b.warn ? { value: '⚑', position: 'top', fill: '#cf222e', fontSize: 12 } : undefined} />
          ))}
          {buckets.filter((b) => b.checkpoint).map((b) => (
            <ReferenceDot key={`c${b.key}`} x={b.key} y={yMin} r={4} fill="#8250df" stroke="#fff" ifOverflow="visible" />
          ))}
          <Tooltip content={renderTip} cursor={{ fill: 'rgba(9,105,218,0.06)' }} isAnimationActive={false} />
          <Bar dataKey="added" stackId="rows" isAnimationActive={false} minPointSize={0}>
            {buckets.map((b) => <Cell key={b.key} fill={b.rearrange ? ROW_COLOURS.rearranged : ROW_COLOURS.added} />)}
          </Bar>
          <Bar dataKey="removed" stackId="rows" isAnimationActive={false}>
            {buckets.map((b) => <Cell key={b.key} fill={b.rearrange ? ROW_COLOURS.rearranged : ROW_COLOURS.removed} fillOpacity={b.rearrange ? 0.6 : 0.85} />)}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
  );
});

function TimelineChartImpl({ versions, heuristics, selected, onSelect }: Props) {
  const buckets = useMemo(() => buildBuckets(versions, heuristics), [versions, heuristics]);
  const bucketed = buckets.length < versions.length;
  const unreadable = useMemo(() => buckets.some((b) => b.unreadable), [buckets]);
  const rearranged = useMemo(() => buckets.some((b) => b.rearrange), [buckets]);
  const [log, setLog] = useState(false);
  const sel = selected === null ? null : bucketOf(buckets, selected);
  const n = Math.max(1, buckets.length);
  const plotLeft = MARGIN.left + Y_WIDTH;
  const plotRight = MARGIN.right;
  return (
    <div className="timeline" data-testid="timeline-chart" data-buckets={buckets.length} data-bucketed={bucketed}>
      <div className="timeline-legend">
        <span className="legend-item"><span className="op-dot" style={{ background: ROW_COLOURS.added }} />rows added</span>
        <span className="legend-item"><span className="op-dot" style={{ background: ROW_COLOURS.removed }} />rows removed</span>
        {rearranged && <span className="legend-item"><span className="op-dot" style={{ background: ROW_COLOURS.rearranged }} />rows rewritten, unchanged (compaction)</span>}
        <span className="legend-item"><span className="legend-line warn" />finding (warn)</span>
        <span className="legend-item"><span className="legend-line info" />finding (info)</span>
        <span className="legend-item"><span className="legend-diamond" />checkpoint</span>
        {unreadable && <span className="legend-item"><span className="legend-hatch" />unreadable</span>}
        <label className="legend-item legend-log"><input type="checkbox" checked={log} onChange={(e) => setLog(e.target.checked)} data-testid="timeline-log" /> log scale</label>
        {bucketed && <span className="legend-note">{versions.length.toLocaleString('en-US')} versions in {buckets.length} bars of up to {buckets[0].to - buckets[0].from}: hover for exact values</span>}
      </div>
      <div className="timeline-plot">
        <ChartBody buckets={buckets} log={log} versions={versions} heuristics={heuristics} onSelect={onSelect} />
        {sel && (
          <div
            className="timeline-sel"
            data-testid="timeline-selection"
            data-version={selected ?? ''}
            style={{
              left: `calc(${plotLeft}px + (100% - ${plotLeft + plotRight}px) * ${sel.key / n})`,
              width: `max(3px, calc((100% - ${plotLeft + plotRight}px) / ${n}))`,
              top: MARGIN.top,
              height: HEIGHT - MARGIN.top - X_HEIGHT,
            }}
          />
        )}
      </div>
    </div>
  );
}

/** Re-drawn only when the data or the selection changes (not on every detail load). */
export const TimelineChart = memo(TimelineChartImpl);
