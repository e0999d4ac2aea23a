// A step-line chart drawn as one SVG of our own (the geometry is stepchart.ts): the window's one
// chart stack, as the timeline's chart (docs/adr/0013-one-chart-stack.md). A value holds from its
// version to the next; hovering shows every series' value there; a click picks that version.
import { useMemo, useRef, useState, type MouseEvent } from 'react';
import { stepGeometry, type StepSeries } from './stepchart';
import { useElementWidth } from './useElementHeight';
import './step-chart.css';

const TICK = { fontSize: 11, fill: '#57606a' } as const;

interface Props {
  /** The x of each point (versions), ascending. */
  xs: number[];
  series: StepSeries[];
  height: number;
  log: boolean;
  logFloor?: number;
  format(n: number): string;
  formatRight?(n: number): string;
  /** How the tip shows a series' value (default: its axis's format). */
  formatTip?(n: number, series: StepSeries): string;
  selected?: number | null;
  onPick?(x: number): void;
  label: string;
}

export function StepChart({ xs, series, height, log, logFloor, format, formatRight, formatTip, selected = null, onPick, label }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const width = useElementWidth(ref);
  const g = useMemo(() => (width > 0 ? stepGeometry(xs, series, { width, height, log, logFloor, format, formatRight }) : null), [xs, series, width, height, log, logFloor, format, formatRight]);
  const [hover, setHover] = useState<number | null>(null);
  const at = (e: MouseEvent<SVGRectElement>): number => (g ? g.indexAt(e.clientX - e.currentTarget.ownerSVGElement!.getBoundingClientRect().left) : 0);
  const sel = selected === null ? -1 : xs.indexOf(selected);
  const tipX = hover === null || !g ? 0 : g.xAt(hover);
  return (
    <div className="step-chart" ref={ref} style={{ position: 'relative' }}>
      {g && (
        <svg width={width} height={height} role="img" aria-label={label} onMouseLeave={() => setHover(null)}>
          {g.leftTicks.map((t) => <line key={`g${t.value}`} x1={g.plot.left} x2={g.plot.right} y1={t.y} y2={t.y} stroke="#eef0f3" />)}
          {g.paths.map((p) => <path key={p.name} className="step-line" data-series={p.name} d={p.d} fill="none" stroke={p.color} strokeWidth={1.6} strokeDasharray={p.dashed ? '4 3' : undefined} />)}
          {sel >= 0 && (
            <g className="step-selected">
              <line x1={g.xAt(sel)} x2={g.xAt(sel)} y1={g.plot.top} y2={g.plot.bottom} stroke="#1f2328" strokeDasharray="3 3" />
              <text x={g.xAt(sel)} y={g.plot.top - 4} textAnchor="middle" fontSize={11} fill="#1f2328">v{xs[sel]}</text>
            </g>
          )}
          {hover !== null && <line x1={tipX} x2={tipX} y1={g.plot.top} y2={g.plot.bottom} stroke="#8c959f" />}
          <line x1={g.plot.left} x2={g.plot.right} y1={g.plot.bottom} y2={g.plot.bottom} stroke="#c8ced6" />
          {g.leftTicks.map((t) => <text key={`l${t.value}`} x={g.plot.left - 6} y={t.y} dy="0.35em" textAnchor="end" {...TICK}>{t.label}</text>)}
          {g.rightTicks.map((t) => <text key={`r${t.value}`} x={g.plot.right + 6} y={t.y} dy="0.35em" textAnchor="start" {...TICK}>{t.label}</text>)}
          {g.xTicks.map((t) => <text key={`x${t.x}`} x={t.x} y={g.plot.bottom + 16} textAnchor="middle" {...TICK}>{t.label}</text>)}
          {/* One hit area over the plot: the version under the pointer, without an element per version. */}
          <rect className="step-hit" x={g.plot.left - 4} y={g.plot.top} width={g.plot.right - g.plot.left + 8} height={g.plot.bottom - g.plot.top} fill="transparent"
            style={{ cursor: onPick ? 'pointer' : undefined }}
            onMouseMove={(e) => setHover(at(e))} onClick={(e) => onPick?.(xs[at(e)])} />
        </svg>
      )}
      {g && hover !== null && (
        <div className="chart-tip" data-testid="step-chart-tip" style={{ position: 'absolute', top: 4, left: Math.min(tipX + 12, Math.max(0, width - 220)), pointerEvents: 'none' }}>
          <div className="chart-tip-title">version {xs[hover]}</div>
          <table className="chart-tip-table"><tbody>
            {series.map((s) => (
              <tr key={s.name}><td><span className="op-dot" style={{ background: s.color }} />{s.name}</td>
                <td className="mono num">{formatTip ? formatTip(s.values[hover], s) : (s.axis === 'right' ? formatRight ?? format : format)(s.values[hover])}</td></tr>
            ))}
          </tbody></table>
        </div>
      )}
      <ul className="step-legend">
        {series.map((s) => <li key={s.name}><span className="step-swatch" style={{ borderTopColor: s.color, borderTopStyle: s.dashed ? 'dashed' : 'solid' }} />{s.name}</li>)}
      </ul>
    </div>
  );
}
