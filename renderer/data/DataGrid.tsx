// A virtualised grid over a row count the engine knows: only the rows in view are in the DOM, the
// pages under them are asked for as they scroll into view. Very tall grids (millions of rows) map
// the scrollbar onto the rows proportionally, since a browser caps an element's height.
import { useEffect, useRef, useState } from 'react';
import { useElementHeight, useElementWidth } from '../ui/useElementHeight';
import type { GridColumn, SortDirection } from '../../shared/views';

export const ROW_HEIGHT = 28;
/** Tallest scroll area drawn (px); beyond it the scrollbar is proportional. */
const MAX_SCROLL = 8_000_000;

interface Props {
  columns: GridColumn[];
  rowCount: number;
  rowAt(index: number): (string | null)[] | null;
  /** Ask for the rows from `first` to `last` (inclusive) to be read. */
  need(first: number, last: number): void;
  sort: { column: string; direction: SortDirection } | null;
  onSort(column: string): void;
  /** Index of each shown column in the row arrays. */
  indexes: number[];
  /** The rows are an earlier query's (the last one was refused): drawn dimmed and marked. */
  stale?: boolean;
}

/** A column's least width and its share of the room left over (long and text types get more). */
function weightOf(c: GridColumn): { min: number; grow: number } {
  return c.type.length > 12 || c.type === 'string' ? { min: 160, grow: 1.6 } : { min: 110, grow: 1 };
}

/**
 * The one set of column widths (whole pixels) the header and every row are laid out with: each
 * column's least width, and the room the grid has beyond them shared by weight. Computed here, not
 * left to each CSS grid, since a header and a row with different contents would size their own
 * `fr` tracks differently.
 */
export function columnWidths(cols: GridColumn[], available: number): number[] {
  const w = cols.map(weightOf);
  const least = w.reduce((n, x) => n + x.min, 0);
  const spare = Math.max(0, Math.floor(available) - least);
  const grow = w.reduce((n, x) => n + x.grow, 0) || 1;
  const out = w.map((x) => x.min + Math.floor((spare * x.grow) / grow));
  // The pixels rounding left over go to the last column, so the rows fill the grid exactly.
  if (out.length && spare > 0) out[out.length - 1] += Math.floor(available) - least - out.reduce((n, x, i) => n + x - w[i].min, 0);
  return out;
}

const columnTemplate = (widths: number[]): string => widths.map((px) => `${px}px`).join(' ');

export function DataGrid({ columns, rowCount, rowAt, need, sort, onSort, indexes, stale = false }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const height = useElementHeight(ref, 420);
  const width = useElementWidth(ref);
  useEffect(() => {
    if (ref.current) ref.current.scrollTop = 0;
    setTop(0);
  }, [rowCount]);

  const bodyHeight = Math.max(0, height - ROW_HEIGHT);
  const visible = Math.ceil(bodyHeight / ROW_HEIGHT) + 1;
  const full = rowCount * ROW_HEIGHT;
  const scrollHeight = Math.min(full, MAX_SCROLL);
  const maxTop = Math.max(1, scrollHeight - bodyHeight);
  const maxFirst = Math.max(0, rowCount - visible + 1);
  const first = full <= MAX_SCROLL ? Math.floor(top / ROW_HEIGHT) : Math.min(maxFirst, Math.floor((top / maxTop) * maxFirst));
  const last = Math.min(rowCount - 1, first + visible);
  useEffect(() => {
    if (rowCount > 0) need(first, last);
  }, [first, last, rowCount, need]);

  const template = columnTemplate(columnWidths(indexes.map((i) => columns[i]), width));
  const offset = full <= MAX_SCROLL ? first * ROW_HEIGHT : top;
  const rows = [];
  for (let r = first; r <= last; r++) {
    const row = rowAt(r);
    rows.push(
      <div className="dg-row" role="row" aria-rowindex={r + 2} key={r} style={{ gridTemplateColumns: template }} data-testid="grid-row">
        {indexes.map((i) => {
          const v = row ? row[i] : undefined;
          const c = columns[i];
          return (
            <div role="gridcell" key={c.name} className={`dg-cell${v === null ? ' dg-null' : ''}${c.masked ? ' dg-masked' : ''}${/^(long|integer|short|byte|double|float|decimal)/.test(c.type) ? ' num' : ''}`} title={v ?? undefined}>
              {v === undefined ? <span className="dg-pending">…</span> : v === null ? 'null' : v}
            </div>
          );
        })}
      </div>,
    );
  }

  return (
    <div className={`dg${stale ? ' dg-stale' : ''}`} role="grid" aria-rowcount={rowCount + 1} aria-colcount={indexes.length} data-testid="data-grid" data-rows={rowCount}
      data-stale={stale ? 'true' : undefined} aria-describedby={stale ? 'stale-result' : undefined}
      ref={ref} onScroll={(e) => setTop(e.currentTarget.scrollTop)}>
      <div className="dg-head" role="row" aria-rowindex={1} style={{ gridTemplateColumns: template }}>
        {indexes.map((i) => {
          const c = columns[i];
          const dir = sort?.column === c.name ? sort.direction : null;
          return (
            <div role="columnheader" key={c.name} className="dg-hcell" aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}>
              <button type="button" className="dg-sort" disabled={c.masked} data-testid={`sort-${c.name}`}
                title={c.masked ? 'Confidential: values are masked and cannot be sorted on' : `Sort by ${c.name}`}
                onClick={() => onSort(c.name)}>
                <span className="dg-name">{c.name}</span>
                <span className="dg-type">{c.type}{c.partition ? ' · partition' : ''}</span>
                {c.masked && <span className="pill pill-warn dg-badge">masked</span>}
                {dir && <span className="dg-dir" aria-hidden="true">{dir === 'asc' ? '▲' : '▼'}</span>}
              </button>
            </div>
          );
        })}
      </div>
      <div className="dg-body" style={{ height: scrollHeight }}>
        <div style={{ transform: `translateY(${offset}px)` }}>{rows}</div>
      </div>
    </div>
  );
}
