// A virtualised grid over a row count the engine knows: only the rows in view are in the DOM, the
// pages under them are asked for as they scroll into view. Very tall grids (millions of rows) map
// the scrollbar onto the rows proportionally, since a browser caps an element's height.
import { useEffect, useRef, useState } from 'react';
import { useElementHeight } from '../ui/useElementHeight';
import type { GridColumn, SortDirection } from '../../shared/workbench';

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
}

export function DataGrid({ columns, rowCount, rowAt, need, sort, onSort, indexes }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const height = useElementHeight(ref, 420);
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

  const template = indexes.map((i) => (columns[i].type.length > 12 || columns[i].type === 'string' ? 'minmax(160px, 1.6fr)' : 'minmax(110px, 1fr)')).join(' ');
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
    <div className="dg" role="grid" aria-rowcount={rowCount + 1} aria-colcount={indexes.length} data-testid="data-grid" data-rows={rowCount}
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
