// The order-independent, composable multiset hash: per-row 128-bit digests combined by sum
// modulo 2^128 (never XOR: x ^ x = 0, so a table with every row twice would equal an empty
// one). DuckDB cannot sum UHUGEINTs without overflow, so it sums the two 64-bit halves as
// HUGEINT (exact below 2^63 rows) and JavaScript folds them with BigInt. ADR 0001.
import { sqlIdent } from '../engine/duck';

export const MOD128 = 1n << 128n;

/** Sum mod 2^128 from the sums of the halves (decimal strings or bigints, as DuckDB returns them). */
export function combineHalves(hiSum: bigint | string | null, loSum: bigint | string | null): bigint {
  const hi = BigInt(hiSum ?? 0);
  const lo = BigInt(loSum ?? 0);
  return (((hi << 64n) + lo) % MOD128 + MOD128) % MOD128;
}

export function addMod128(a: bigint, b: bigint): bigint {
  return (a + b) % MOD128;
}

export function mulMod128(a: bigint, k: bigint): bigint {
  return ((a * k) % MOD128 + MOD128) % MOD128;
}

export function toHex128(x: bigint): string {
  return x.toString(16).padStart(32, '0');
}

export function fromHex128(h: string): bigint {
  return BigInt('0x' + h);
}

/** The 16-digit form a terminal shows. */
export function shortHash(h: string | null): string {
  return h ? h.slice(0, 16) : '-';
}

// ---- exact float sums ----
// A float column the contract excludes from the digest is compared by its exact sum, which must
// not depend on row order (200 shuffles of one column give many different naive sums). Each
// double is split in SQL into an integer mantissa m and exponent e with x = m * 2^(e-52);
// DuckDB sums mantissas per exponent exactly (HUGEINT), and BigInt adds the groups.

/** SQL selecting (e, m, special) for a DOUBLE column: special is 'nan', '+inf', '-inf' or null. */
export function floatPartsSql(column: string): { e: string; m: string; special: string } {
  const x = `CAST(${sqlIdent(column)} AS DOUBLE)`;
  // floor(log2|x|) can be off by one near powers of two; the mantissa check below corrects it.
  const e0 = `GREATEST(-1022, CAST(floor(log2(abs(${x}))) AS INTEGER))`;
  const scaled = (e: string) => `(${x} * pow(2.0, (52 - (${e})) // 2) * pow(2.0, (52 - (${e})) - (52 - (${e})) // 2))`;
  const e1 = `CASE WHEN abs(${scaled(e0)}) >= 9007199254740992.0 THEN ${e0} + 1 WHEN abs(${scaled(e0)}) < 4503599627370496.0 AND ${e0} > -1022 THEN ${e0} - 1 ELSE ${e0} END`;
  const special = `CASE WHEN isnan(${x}) THEN 'nan' WHEN ${x} = 'infinity'::DOUBLE THEN '+inf' WHEN ${x} = '-infinity'::DOUBLE THEN '-inf' ELSE NULL END`;
  const finite = `(${x} IS NOT NULL AND ${x} <> 0 AND NOT isnan(${x}) AND NOT isinf(${x}))`;
  return {
    e: `CASE WHEN ${finite} THEN ${e1} ELSE NULL END`,
    m: `CASE WHEN ${finite} THEN CAST(${scaled(e1)} AS BIGINT) ELSE NULL END`,
    special,
  };
}

/** An exact sum: sum of m_e * 2^(e-52) over exponent groups, plus special-value counts. */
export interface ExactSum {
  groups: Map<number, bigint>;
  nan: number;
  posInf: number;
  negInf: number;
}

export function emptyExactSum(): ExactSum {
  return { groups: new Map(), nan: 0, posInf: 0, negInf: 0 };
}

export function addGroup(s: ExactSum, e: number, mSum: bigint): void {
  s.groups.set(e, (s.groups.get(e) ?? 0n) + mSum);
}

/** The exact sum as numerator * 2^exp2 (numerator a BigInt). */
function exactRational(s: ExactSum): { num: bigint; exp2: number } {
  if (s.groups.size === 0) return { num: 0n, exp2: 0 };
  const minE = Math.min(...s.groups.keys());
  let num = 0n;
  for (const [e, m] of s.groups) num += m << BigInt(e - minE);
  return { num, exp2: minE - 52 };
}

/** Correctly rounded double of an exact sum (what Python's math.fsum returns). */
export function exactSumToNumber(s: ExactSum): number {
  if (s.nan > 0 || (s.posInf > 0 && s.negInf > 0)) return NaN;
  if (s.posInf > 0) return Infinity;
  if (s.negInf > 0) return -Infinity;
  const { num, exp2 } = exactRational(s);
  if (num === 0n) return 0;
  const neg = num < 0n;
  let a = neg ? -num : num;
  let e = exp2;
  const bits = a.toString(2).length;
  if (bits > 64) {
    // Keep 64 bits and a sticky bit, so Number() below still rounds to nearest correctly.
    const shift = BigInt(bits - 64);
    const sticky = (a & ((1n << shift) - 1n)) !== 0n;
    a = (a >> shift) | (sticky ? 1n : 0n);
    e += bits - 64;
  }
  // Scaling by a power of two is exact in the normal range; split it to avoid overflow of 2^e.
  let v = Number(a);
  while (e > 0) { const k = Math.min(e, 1000); v *= 2 ** k; e -= k; }
  while (e < 0) { const k = Math.min(-e, 1000); v /= 2 ** k; e += k; }
  return neg ? -v : v;
}

/** Exact equality of two exact sums (not just of their roundings). */
export function exactSumsEqual(a: ExactSum, b: ExactSum): boolean {
  if (a.nan !== b.nan || a.posInf !== b.posInf || a.negInf !== b.negInf) return false;
  const ra = exactRational(a);
  const rb = exactRational(b);
  if (ra.num === 0n || rb.num === 0n) return ra.num === rb.num;
  const e = Math.min(ra.exp2, rb.exp2);
  return (ra.num << BigInt(ra.exp2 - e)) === (rb.num << BigInt(rb.exp2 - e));
}

// ---- the exact sum at DuckDB speed: one scale for the whole column ----
// Every finite double is m * 2^(e-52) with m an integer below 2^53. When the smallest nonzero
// magnitude of a column has exponent emin and the largest emax, multiplying every value by
// 2^(52-emin) makes it an integer below 2^(emax-emin+53), and the multiplication is exact (a
// power of two, no overflow, no underflow). When that integer and the sum of every row's fit in
// a HUGEINT, DuckDB sums the scaled values as HUGEINT exactly, in one aggregate with no per-row
// exponent, and the column's exact sum is that one group: (emin, sum). The bounds come from one
// min/max query first (the two-pass exponent bound); a column whose range is too wide (values
// near 1e-300 beside 1e300) keeps the exponent groups of floatPartsSql. ADR 0003.

/** The exponent e of a finite nonzero double, x = m * 2^(e-52) with m < 2^53 (subnormals: -1022). */
export function exponentOf(x: number): number {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const biased = (dv.getUint16(0) >> 4) & 0x7ff;
  return biased === 0 ? -1022 : biased - 1023;
}

/** Bit length of a non-negative integer. */
function bitLength(n: number): number {
  return n <= 0 ? 0 : Math.trunc(n).toString(2).length;
}

/**
 * The one scale for a column: the power of two S (x * 2^S is an integer for every value) and emin,
 * or null when the scaled sum of `rows` values could leave HUGEINT (the exponent groups then).
 * `lo`/`hi` are the smallest nonzero and the largest finite magnitude (null: no such value).
 */
export function floatScale(lo: number | null, hi: number | null, rows: number): { emin: number; shift: number } | null {
  if (lo === null || hi === null || lo === 0) return { emin: 52, shift: 0 };
  const emin = exponentOf(lo);
  const emax = exponentOf(hi);
  // |x * 2^S| < 2^(emax-emin+53); the sum of `rows` of them < 2^(that + bitLength(rows)) <= 2^126.
  if (emax - emin + 53 + bitLength(rows) > 126) return null;
  return { emin, shift: 52 - emin };
}

/** SQL of a DOUBLE column times 2^shift, exactly (two factors: 2^1074 is not a double). */
export function scaledSql(x: string, shift: number): string {
  const a = Math.trunc(shift / 2);
  const b = shift - a;
  const f = (k: number) => (k === 0 ? '' : ` * CAST('${2 ** k}' AS DOUBLE)`);
  return `(${x}${f(a)}${f(b)})`;
}

/** The aggregates of one column's exact sum in one scale: (ms, nan, pinf, ninf), named with suffix i. */
export function scaledSumAggregates(x: string, shift: number, i: number): string {
  return [
    // CASE, not FILTER: a filtered-out row's argument is still computed, and NaN has no HUGEINT.
    `sum(CASE WHEN isfinite(${x}) THEN CAST(${scaledSql(x, shift)} AS HUGEINT) END) AS ms${i}`,
    `count(*) FILTER (WHERE isnan(${x})) AS nan${i}`,
    `count(*) FILTER (WHERE ${x} = CAST('infinity' AS DOUBLE)) AS pinf${i}`,
    `count(*) FILTER (WHERE ${x} = CAST('-infinity' AS DOUBLE)) AS ninf${i}`,
  ].join(', ');
}

/** The bounds query's aggregates for one column: lo (smallest nonzero finite magnitude), hi (largest finite). */
export function floatBoundsAggregates(x: string, i: number): string {
  return `min(abs(${x})) FILTER (WHERE ${x} <> 0 AND isfinite(${x})) AS lo${i}, max(abs(${x})) FILTER (WHERE isfinite(${x})) AS hi${i}`;
}

/** Adds one scaled group (as DuckDB returned it) and the special counts to an exact sum. */
export function addScaled(s: ExactSum, emin: number, ms: unknown, nan: number, pinf: number, ninf: number): void {
  if (ms !== null && ms !== undefined) addGroup(s, emin, BigInt(String(ms)));
  s.nan += nan;
  s.posInf += pinf;
  s.negInf += ninf;
}
