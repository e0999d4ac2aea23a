// Row-by-row comparison of a read with the generated data, keyed by `id`. Values of columns at or
// above the counts-only sensitivity never appear in the differences.
import type { DataType, StructType } from '../../shared/delta';
import { columnTags, maskValue } from '../../shared/sensitivity';
import { MapCell, type Cell, type Row } from './cells';

export function cellsEqual(a: Cell, b: Cell): boolean {
  if (a === null || b === null) return a === b;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) {
    if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
    if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
    const x = typeof a === 'number' ? a : b;
    const y = typeof a === 'number' ? b : a;
    return Number.isInteger(x) && BigInt(x as number) === y;
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => cellsEqual(x, b[i]));
  }
  if (a instanceof MapCell || b instanceof MapCell) {
    return a instanceof MapCell && b instanceof MapCell && a.entries.length === b.entries.length
      && a.entries.every(([k, v], i) => cellsEqual(k, b.entries[i][0]) && cellsEqual(v, b.entries[i][1]));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && cellsEqual(a[k], b[k]));
  }
  return a === b;
}

/** A cell as text for evidence (bigint digits, NaN and infinities by name). */
export function cellText(c: Cell): string {
  return JSON.stringify(c, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    if (v instanceof MapCell) return { map: v.entries };
    if (v instanceof Uint8Array) return `0x${Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('')}`;
    return v;
  }) ?? 'undefined';
}

export interface RowComparison {
  identical: boolean;
  compared: number;
  differingRows: number;
  /** Up to 12 differences, masked by sensitivity. */
  differences: string[];
}

function typeText(t: DataType): string {
  return typeof t === 'string' ? t : t.type;
}

/**
 * Compares `actual` (columns named `actualNames`) with `expected` (the declared schema's columns),
 * matching rows by the first column (the key).
 */
export function compareRows(schema: StructType, expected: Row[], actualNames: string[], actual: Row[]): RowComparison {
  const differences: string[] = [];
  const note = (s: string): void => { if (differences.length < 12) differences.push(s); };
  const key = (r: Row): string => cellText(r[0]);
  const idx = schema.fields.map((f) => actualNames.indexOf(f.name));
  schema.fields.forEach((f, i) => { if (idx[i] < 0) note(`column ${f.name} (${typeText(f.type)}) is missing from the read`); });
  const keyIdx = idx[0];
  const byKey = new Map<string, Row>();
  if (keyIdx >= 0) for (const r of actual) byKey.set(cellText(r[keyIdx]), r);
  if (actual.length !== expected.length) note(`${actual.length} rows read, ${expected.length} generated`);
  let differing = 0;
  for (const e of expected) {
    const a = byKey.get(key(e));
    if (!a) { differing++; note(`row ${schema.fields[0].name}=${key(e)} is missing`); continue; }
    let rowDiffers = false;
    schema.fields.forEach((f, i) => {
      if (idx[i] < 0 || cellsEqual(e[i], a[idx[i]])) return;
      rowDiffers = true;
      const s = columnTags(f.metadata).sensitivity;
      note(`row ${schema.fields[0].name}=${key(e)} ${f.name}: generated ${maskValue(s, cellText(e[i]))}, read ${maskValue(s, cellText(a[idx[i]]))}`);
    });
    if (rowDiffers) differing++;
  }
  const identical = differences.length === 0 && differing === 0;
  return { identical, compared: expected.length, differingRows: differing, differences };
}
