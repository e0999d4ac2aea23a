// The generated table: deterministic for a seed, built to break naive round trips. Fixed rows
// hold the edge values (nulls next to NaN and infinities, int64 extremes, decimal extremes,
// unicode, empty strings, dates before 1970, timestamps outside the nanosecond range 1677-2262,
// empty and null lists and maps); seeded rows fill the rest with ordinary values.
import * as A from 'apache-arrow';
import { mulberry32 } from '../../shared/random';
import type { StructType } from '../../shared/delta';
import { META_DESCRIPTION, META_SENSITIVITY, META_TAGS } from '../../shared/sensitivity';
import { arrowSchemaOf, buildTable, MapCell, tableRows, type Cell, type Row } from './cells';

export const DEFAULT_SEED = 20261129;
export const GENERATED_ROWS = 40;

const desc = (d: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ [META_DESCRIPTION]: d, ...extra });

/** The declared column schema: names, types, nullability, tags and descriptions. */
export const DECLARED_SCHEMA: StructType = {
  type: 'struct',
  fields: [
    { name: 'id', type: 'long', nullable: false, metadata: desc('Row key of the generated table') },
    { name: 'big', type: 'long', nullable: true, metadata: desc('64-bit integers incl. min and max') },
    { name: 'small', type: 'integer', nullable: true, metadata: desc('32-bit integers incl. min and max') },
    { name: 'ratio', type: 'double', nullable: true, metadata: desc('Doubles: NaN, infinities, subnormals, nulls') },
    { name: 'ratio32', type: 'float', nullable: true, metadata: desc('Floats: NaN, infinities, extremes, nulls') },
    { name: 'amount', type: 'decimal(18,2)', nullable: true, metadata: desc('Money, decimal(18,2)') },
    { name: 'precise', type: 'decimal(38,10)', nullable: true, metadata: desc('Wide decimal, decimal(38,10)') },
    { name: 'label', type: 'string', nullable: true, metadata: desc('Unicode: combining marks, emoji, RTL, empty') },
    { name: 'email', type: 'string', nullable: true, metadata: desc('Contact email of the customer', { [META_SENSITIVITY]: 'confidential', [META_TAGS]: ['pii', 'email'] }) },
    { name: 'city', type: 'string', nullable: true, metadata: desc('City of residence', { [META_SENSITIVITY]: 'quasi_identifier', [META_TAGS]: ['location'] }) },
    { name: 'active', type: 'boolean', nullable: true, metadata: desc('Booleans and nulls') },
    { name: 'born', type: 'date', nullable: true, metadata: desc('Dates, many before 1970') },
    { name: 'seen_at', type: 'timestamp', nullable: true, metadata: desc('Timestamps with time zone, before 1677 and after 2262') },
    { name: 'local_at', type: 'timestamp_ntz', nullable: true, metadata: desc('Timestamps without time zone, before 1677 and after 2262') },
    { name: 'words', type: { type: 'array', elementType: 'string', containsNull: true }, nullable: true, metadata: desc('A list of strings') },
    { name: 'counts', type: { type: 'array', elementType: 'integer', containsNull: true }, nullable: true, metadata: desc('Nested 32-bit integers') },
    {
      name: 'place', nullable: true, metadata: desc('A struct'),
      type: { type: 'struct', fields: [
        { name: 'x', type: 'integer', nullable: true, metadata: {} },
        { name: 'y', type: 'double', nullable: true, metadata: {} },
        { name: 'name', type: 'string', nullable: true, metadata: {} },
      ] },
    },
    { name: 'attrs', type: { type: 'map', keyType: 'string', valueType: 'long', valueContainsNull: true }, nullable: true, metadata: desc('A map') },
  ],
};

/** Days since 1970-01-01 of a proleptic Gregorian date (exact for any year). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Microseconds since the epoch of a UTC wall time. */
export function micros(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, us = 0): bigint {
  return BigInt(daysFromCivil(y, mo, d)) * 86_400_000_000n + BigInt(((h * 60 + mi) * 60 + s)) * 1_000_000n + BigInt(us);
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;
const F32_MAX = 3.4028234663852886e38;
const DEC18_MAX = 10n ** 18n - 1n;
const DEC38_MAX = 10n ** 38n - 1n;
/** Nanosecond readers cover 1677-09-21T00:12:43.145224Z to 2262-04-11T23:47:16.854775Z. */
const NS_MIN_US = -9_223_372_036_854_775n;
const NS_MAX_US = 9_223_372_036_854_775n;

type Fixed = Partial<Record<string, Cell>>;

/** Hand-picked rows, by column name; columns not named are null. */
const FIXED: Fixed[] = [
  { big: I64_MIN, small: I32_MIN, ratio: Number.NaN, ratio32: Number.NaN, amount: -DEC18_MAX, precise: -DEC38_MAX, label: '', email: 'ana.lópez@example.com', city: 'São Paulo', active: true, born: daysFromCivil(1, 1, 1), seen_at: NS_MIN_US - 1n, local_at: micros(1500, 1, 1), words: [], counts: [I32_MIN, I32_MAX], place: { x: I32_MIN, y: Number.NaN, name: '' }, attrs: new MapCell([]) },
  { big: I64_MAX, small: I32_MAX, ratio: Number.POSITIVE_INFINITY, ratio32: Number.POSITIVE_INFINITY, amount: DEC18_MAX, precise: DEC38_MAX, label: 'e\u0301', email: 'bjorn@example.org', city: 'Malmö', active: false, born: daysFromCivil(1900, 1, 1), seen_at: NS_MAX_US + 1n, local_at: micros(2500, 6, 30, 12, 0, 0, 1), words: ['a', null, ''], counts: [null], place: { x: null, y: null, name: null }, attrs: new MapCell([['k', null], ['', -1n]]) },
  { big: 0n, small: 0, ratio: Number.NEGATIVE_INFINITY, ratio32: Number.NEGATIVE_INFINITY, amount: 0n, precise: 0n, label: '👩‍👩‍👧‍👦', email: '', city: '', active: null, born: -1, seen_at: -1n, local_at: -1n, words: null, counts: [], place: null, attrs: null },
  { big: -1n, small: -1, ratio: null, ratio32: null, amount: 1230n, precise: 12_300_000_000n, label: 'שלום עולם', email: 'o\'brien+tag@example.net', city: 'القاهرة', active: true, born: daysFromCivil(1969, 7, 20), seen_at: micros(9999, 12, 31, 23, 59, 59, 999_999), local_at: micros(9999, 12, 31, 23, 59, 59, 999_999), words: ['שלום', '👍'], counts: [1, 2, 3], place: { x: 1, y: -0.5, name: 'مرحبا' }, attrs: new MapCell([['a', I64_MAX], ['b', I64_MIN]]) },
  { big: null, small: null, ratio: 5e-324, ratio32: F32_MAX, amount: -50n, precise: -1n, label: 'line one\nline two\ttab', email: null, city: null, active: null, born: daysFromCivil(9999, 12, 31), seen_at: micros(1, 1, 1), local_at: micros(1, 1, 1), words: [null], counts: null, place: { x: 7, y: 1e308, name: 'Zürich' }, attrs: new MapCell([['null', null]]) },
  { big: 1n, small: 1, ratio: -0.1, ratio32: -F32_MAX, amount: 1n, precise: 10n ** 28n, label: 'Ǆ ǅ ǆ ﬁ ß İ', email: 'UPPER@EXAMPLE.COM', city: 'Reykjavík', active: false, born: daysFromCivil(1677, 9, 21), seen_at: micros(1677, 9, 21), local_at: micros(2262, 4, 12), words: ['x'], counts: [0], place: { x: 0, y: 0, name: 'x' }, attrs: new MapCell([['z', 0n]]) },
];

const rng = mulberry32;

const CITIES = ['Lisboa', 'Kraków', 'Den Haag', 'Göteborg', 'Tōkyō', 'Nairobi', 'Québec', 'İstanbul'];
const WORDS = ['alpha', 'beta', 'γάμμα', 'дельта', 'エ', 'zeta'];

function seededRow(r: () => number, i: number): Record<string, Cell> {
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const maybe = <T extends Cell>(v: T): T | null => (r() < 0.1 ? null : v);
  const pick = <T>(xs: T[]): T => xs[int(0, xs.length - 1)];
  return {
    big: maybe(BigInt(int(-1e9, 1e9)) * BigInt(int(1, 1e9))),
    small: maybe(int(-1e6, 1e6)),
    ratio: maybe(Math.round((r() - 0.5) * 1e6) / 1e3),
    ratio32: maybe(Math.fround((r() - 0.5) * 100)),
    amount: maybe(BigInt(int(-1e8, 1e8))),
    precise: maybe(BigInt(int(-1e9, 1e9)) * 10_000_000_000n + BigInt(int(0, 1e9))),
    label: maybe(`row ${i} ${pick(WORDS)}`),
    email: maybe(`user${i}.${int(100, 999)}@example.com`),
    city: maybe(pick(CITIES)),
    active: maybe(r() < 0.5),
    born: maybe(int(-40_000, 20_000)),
    seen_at: maybe(BigInt(int(-3e9, 3e9)) * 1_000_000n + BigInt(int(0, 999_999))),
    local_at: maybe(BigInt(int(-3e9, 3e9)) * 1_000_000n + BigInt(int(0, 999_999))),
    words: maybe(Array.from({ length: int(0, 3) }, () => pick(WORDS))),
    counts: maybe(Array.from({ length: int(0, 3) }, () => int(-1000, 1000))),
    place: maybe({ x: int(-100, 100), y: r(), name: pick(CITIES) }),
    attrs: maybe(new MapCell(Array.from({ length: int(0, 2) }, (_, k) => [`k${k}`, BigInt(int(-100, 100))] as [Cell, Cell]))),
  };
}

export interface GeneratedTable {
  seed: number;
  schema: StructType;
  rows: Row[];
  arrow: A.Table;
}

/** The generated rows for a seed, `id` first, in the declared schema's column order. */
export function generateRows(seed = DEFAULT_SEED, count = GENERATED_ROWS): Row[] {
  const r = rng(seed);
  const rows: Row[] = [];
  for (let i = 0; i < count; i++) {
    const named: Fixed = i < FIXED.length ? FIXED[i] : seededRow(r, i);
    rows.push(DECLARED_SCHEMA.fields.map((f) => (f.name === 'id' ? BigInt(i) : (named[f.name] ?? null))));
  }
  return rows;
}

export function generateTable(seed = DEFAULT_SEED, count = GENERATED_ROWS): GeneratedTable {
  const arrow = buildTable(arrowSchemaOf(DECLARED_SCHEMA), generateRows(seed, count));
  // Rows read back from the built table: integers as bigint, exactly as every read is compared.
  return { seed, schema: DECLARED_SCHEMA, rows: tableRows(arrow), arrow };
}
