// Column tags carried in the Delta schema's field metadata, and the masking every report applies
// to them. Tags live in the log (the table's own contract), so a notebook, Databricks or Snowflake
// reading the files sees them too. Keys:
//   comment               the column's description (the key Spark uses for COMMENT)
//   lakerec.sensitivity   one of SENSITIVITY_LEVELS
//   lakerec.tags          a list of free tags, e.g. ["pii", "email"]

export const META_DESCRIPTION = 'comment';
export const META_SENSITIVITY = 'lakerec.sensitivity';
export const META_TAGS = 'lakerec.tags';

/** Weakest first. A column without a sensitivity tag is `public`. */
export const SENSITIVITY_LEVELS = ['public', 'internal', 'quasi_identifier', 'confidential', 'restricted'] as const;
export type Sensitivity = (typeof SENSITIVITY_LEVELS)[number];

export interface ColumnTags {
  description: string | null;
  /** null when the field carries no (recognised) sensitivity tag. */
  sensitivity: Sensitivity | null;
  tags: string[];
}

export function isSensitivity(v: unknown): v is Sensitivity {
  return typeof v === 'string' && (SENSITIVITY_LEVELS as readonly string[]).includes(v);
}

export function sensitivityRank(s: Sensitivity | null): number {
  return s === null ? 0 : SENSITIVITY_LEVELS.indexOf(s);
}

/** The tags of a Delta field's metadata (absent or malformed entries read as absent). */
export function columnTags(metadata: Record<string, unknown> | undefined | null): ColumnTags {
  const m = metadata ?? {};
  const d = m[META_DESCRIPTION];
  const s = m[META_SENSITIVITY];
  const t = m[META_TAGS];
  return {
    description: typeof d === 'string' ? d : null,
    sensitivity: isSensitivity(s) ? s : null,
    tags: Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [],
  };
}

/** Values of a column at or above this level never appear in any report: counts only. */
export const COUNTS_ONLY_FROM: Sensitivity = 'confidential';

export function isCountsOnly(s: Sensitivity | null): boolean {
  return sensitivityRank(s) >= sensitivityRank(COUNTS_ONLY_FROM);
}

/** What a report may show of a value of a column with sensitivity `s`. */
export function maskValue(s: Sensitivity | null, text: string): string {
  return isCountsOnly(s) ? '(masked: confidential)' : text;
}

/** A column profile as reports show it. Confidential columns keep counts only. */
export interface ColumnProfile {
  name: string;
  type: string;
  sensitivity: Sensitivity | null;
  rows: number;
  nulls: number;
  distinct: number;
  /** Absent for counts-only columns. */
  min?: string;
  max?: string;
  /** Up to 3 most frequent values with their counts; absent for counts-only columns. */
  top?: { value: string; count: number }[];
}

/** The keys a counts-only profile may hold. */
export const COUNTS_ONLY_KEYS: readonly (keyof ColumnProfile)[] = ['name', 'type', 'sensitivity', 'rows', 'nulls', 'distinct'];

/** Builds a profile from canonical text values (null = null), masking by sensitivity. */
export function profileColumn(name: string, type: string, sensitivity: Sensitivity | null, values: (string | null)[]): ColumnProfile {
  const counts = new Map<string, number>();
  let nulls = 0;
  for (const v of values) {
    if (v === null) { nulls++; continue; }
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const p: ColumnProfile = { name, type, sensitivity, rows: values.length, nulls, distinct: counts.size };
  if (isCountsOnly(sensitivity)) return p;
  const keys = [...counts.keys()].sort(compareInType(type));
  if (keys.length) { p.min = keys[0]; p.max = keys[keys.length - 1]; }
  p.top = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 3).map(([value, count]) => ({ value, count }));
  return p;
}

const textOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** An integer's digits as a BigInt, or null when the text is not one. */
function bigIntOf(s: string): bigint | null {
  return /^-?\d+$/.test(s) ? BigInt(s) : null;
}

/** A decimal's text ("-12.50") as digits at `scale` places, or null when the text is not one. */
function scaledOf(s: string, scale: number): bigint | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return null;
  const frac = (m[3] ?? '').padEnd(scale, '0');
  const v = BigInt(m[2] + frac);
  return m[1] ? -v : v;
}

/**
 * The order of a column's values in its Delta type, over their canonical text: integers and
 * timestamps (microseconds) as numbers, decimals by value, doubles as numbers (NaN above every
 * number, as Spark orders it), anything else (dates as YYYY-MM-DD, strings) as text. A value that
 * does not parse in the type sorts as text after those that do.
 */
export function compareInType(type: string): (a: string, b: string) => number {
  const t = type.toLowerCase();
  if (/^(byte|short|integer|int|long|timestamp|timestamp_ntz)$/.test(t)) {
    return (a, b) => {
      const x = bigIntOf(a);
      const y = bigIntOf(b);
      if (x === null || y === null) return x !== null ? -1 : y !== null ? 1 : textOrder(a, b);
      return x < y ? -1 : x > y ? 1 : 0;
    };
  }
  if (t.startsWith('decimal')) {
    const scaleOf = (s: string) => (s.split('.')[1] ?? '').length;
    return (a, b) => {
      const scale = Math.max(scaleOf(a), scaleOf(b));
      const x = scaledOf(a, scale);
      const y = scaledOf(b, scale);
      if (x === null || y === null) return x !== null ? -1 : y !== null ? 1 : textOrder(a, b);
      return x < y ? -1 : x > y ? 1 : 0;
    };
  }
  if (t === 'double' || t === 'float') {
    const numOf = (s: string): number | null => {
      if (s === 'NaN') return NaN;
      if (s === 'Infinity') return Infinity;
      if (s === '-Infinity') return -Infinity;
      const n = Number(s);
      return s.trim() !== '' && !Number.isNaN(n) ? n : null;
    };
    return (a, b) => {
      const x = numOf(a);
      const y = numOf(b);
      if (x === null || y === null) return x !== null ? -1 : y !== null ? 1 : textOrder(a, b);
      if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1;
      return x < y ? -1 : x > y ? 1 : 0;
    };
  }
  return textOrder;
}
