// A simple windowed list: only the rows in view (plus a margin) are in the DOM, so a
// 10,000-version log scrolls like a 10-version one. Fixed row height.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useElementHeight } from './useElementHeight';

interface Props<T> {
  items: T[];
  rowHeight: number;
  /** Render one row; `style` positions it and must be applied. */
  row(item: T, index: number): ReactNode;
  /** Keep this index in view when it changes (the selection). */
  scrollTo?: number | null;
  className?: string;
  testId?: string;
  overscan?: number;
}

export function WindowedList<T>({ items, rowHeight, row, scrollTo, className, testId, overscan = 8 }: Props<T>) {
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const height = useElementHeight(ref, 400);

  useEffect(() => {
    const el = ref.current;
    if (!el || scrollTo === null || scrollTo === undefined || scrollTo < 0) return;
    const y = scrollTo * rowHeight;
    if (y < el.scrollTop) el.scrollTop = y;
    else if (y + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = y + rowHeight - el.clientHeight;
  }, [scrollTo, rowHeight]);

  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + overscan);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) rows.push(row(items[i], i));

  return (
    <div ref={ref} className={`wlist ${className ?? ''}`} data-testid={testId} data-rows={items.length} onScroll={(e) => setTop(e.currentTarget.scrollTop)}>
      <div className="wlist-inner" style={{ height: items.length * rowHeight }}>
        <div className="wlist-window" style={{ transform: `translateY(${first * rowHeight}px)` }}>{rows}</div>
      </div>
    </div>
  );
}
