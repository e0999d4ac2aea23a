// The measured height of a scrolling element, kept current as it is resized: what a windowed
// list needs to know how many rows are in view.
import { useEffect, useState, type RefObject } from 'react';

export function useElementHeight(ref: RefObject<HTMLElement | null>, initial: number): number {
  const [height, setHeight] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    setHeight(el.clientHeight);
    return () => ro.disconnect();
  }, [ref]);
  return height;
}
