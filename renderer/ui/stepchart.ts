// The geometry of a step-line chart (a value holds from its version to the next): pure, so it is
// unit-tested and the component only draws it. One chart stack for the window: SVG drawn by the
// page, as the timeline is (docs/adr/0013-one-chart-stack.md).

export interface StepSeries {
  name: string;
  color: string;
  /** One value per x, in order. */
  values: number[];
  /** The right-hand axis (its own linear scale); the left one by default. */
  axis?: 'left' | 'right';
  dashed?: boolean;
}

export interface StepOptions {
  width: number;
  height: number;
  /** The left axis on a log scale (values under its floor drawn at the floor). */
  log: boolean;
  /** The floor of the log scale (1 for counts, 0.001 for MB). */
  logFloor?: number;
  format(n: number): string;
  formatRight?(n: number): string;
}

export interface Tick { y: number; label: string; value: number }

export interface StepGeometry {
  plot: { left: number; right: number; top: number; bottom: number };
  /** The x of the i-th point (the start of its step). */
  xAt(i: number): number;
  /** The index of the point whose step holds at pixel x (clamped to the data). */
  indexAt(x: number): number;
  paths: { name: string; color: string; dashed: boolean; d: string }[];
  leftTicks: Tick[];
  rightTicks: Tick[];
  xTicks: { x: number; label: string }[];
}

/** About five round steps from 0 to at least max. */
export function linearTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = 0; v < max + step / 2; v += step) out.push(Number(v.toPrecision(12)));
  if (out[out.length - 1] < max) out.push(Number((out[out.length - 1] + step).toPrecision(12)));
  return out;
}

/** Powers of ten from the floor to at least max. */
export function logTicks(floor: number, max: number): number[] {
  const out: number[] = [];
  let v = 10 ** Math.floor(Math.log10(floor));
  const top = Math.max(max, floor * 10);
  while (v < top * 1.0000001) { out.push(Number(v.toPrecision(12))); v *= 10; }
  if (out[out.length - 1] < top) out.push(Number((out[out.length - 1] * 10).toPrecision(12)));
  return out;
}

export function stepGeometry(xs: number[], series: StepSeries[], o: StepOptions): StepGeometry {
  const hasRight = series.some((s) => s.axis === 'right');
  const plot = { left: 62, right: o.width - (hasRight ? 48 : 18), top: 18, bottom: o.height - 22 };
  const n = xs.length;
  const span = Math.max(1, plot.right - plot.left);
  const band = n > 1 ? span / (n - 1) : span;
  const xAt = (i: number): number => (n > 1 ? plot.left + i * band : plot.left);
  const indexAt = (x: number): number => (n <= 1 ? 0 : Math.max(0, Math.min(n - 1, Math.floor((x - plot.left) / band + 0.5))));

  const maxOf = (axis: 'left' | 'right'): number => {
    let m = 0;
    for (const s of series) if ((s.axis ?? 'left') === axis) for (const v of s.values) if (v > m) m = v;
    return m;
  };
  const h = plot.bottom - plot.top;
  const floor = o.logFloor ?? 1;
  const leftMax = maxOf('left');
  const leftValues = o.log ? logTicks(floor, leftMax) : linearTicks(leftMax);
  const leftTop = leftValues[leftValues.length - 1];
  const yLeft = o.log
    ? (v: number): number => plot.bottom - ((Math.log10(Math.max(v, floor)) - Math.log10(leftValues[0])) / (Math.log10(leftTop) - Math.log10(leftValues[0]))) * h
    : (v: number): number => plot.bottom - (v / leftTop) * h;
  const rightValues = hasRight ? linearTicks(maxOf('right')) : [];
  const rightTop = rightValues[rightValues.length - 1] ?? 1;
  const yRight = (v: number): number => plot.bottom - (v / rightTop) * h;

  const r = (v: number): string => (Math.round(v * 10) / 10).toString();
  const paths = series.map((s) => {
    const y = s.axis === 'right' ? yRight : yLeft;
    let d = '';
    for (let i = 0; i < s.values.length; i++) {
      const yy = r(y(s.values[i]));
      d += i === 0 ? `M${r(xAt(0))},${yy}` : `V${yy}`;
      d += `H${r(i + 1 < n ? xAt(i + 1) : n > 1 ? xAt(i) : plot.right)}`;
    }
    return { name: s.name, color: s.color, dashed: s.dashed === true, d };
  });
  const every = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(span / 60))));
  const xTicks: StepGeometry['xTicks'] = [];
  for (let i = 0; i < n; i += every) xTicks.push({ x: xAt(i), label: String(xs[i]) });
  return {
    plot, xAt, indexAt, paths,
    leftTicks: leftValues.map((v) => ({ value: v, y: yLeft(v), label: o.format(v) })),
    rightTicks: rightValues.map((v) => ({ value: v, y: yRight(v), label: (o.formatRight ?? o.format)(v) })),
    xTicks,
  };
}
