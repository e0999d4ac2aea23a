// The measured height or width of an element, kept current as it is resized: what a windowed
// list needs to know how many rows are in view, and what a chart needs to lay out its bars.
import { useEffect, useLayoutEffect, useState, type RefObject } from 'react';

type Measure = (el: HTMLElement) => number;

function useMeasured(ref: RefObject<HTMLElement | null>, initial: number, measure: Measure, useEffectKind: typeof useEffect): number {
  const [value, setValue] = useState(initial);
  useEffectKind(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setValue(measure(el)));
    ro.observe(el);
    setValue(measure(el));
    return () => ro.disconnect();
  }, [ref]);
  return value;
}

const clientHeight: Measure = (el) => el.clientHeight;
const clientWidth: Measure = (el) => el.clientWidth;

export function useElementHeight(ref: RefObject<HTMLElement | null>, initial: number): number {
  return useMeasured(ref, initial, clientHeight, useEffect);
}

/** The measured width of an element (0 until it is laid out), kept current as it is resized. */
export function useElementWidth(ref: RefObject<HTMLElement | null>): number {
  // Measured before the first paint (a layout effect): the chart is drawn in the same frame as the rest.
  return useMeasured(ref, 0, clientWidth, useLayoutEffect);
}
