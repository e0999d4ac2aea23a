// Per-partition partials of the pushed checksum: row count and the row digests' sum mod 2^128,
// tagged with the digest identity they were computed under. Partials of one identity add exactly
// (ADR 0001: addition is commutative and associative), wherever they were computed; partials of
// different identities never add: the only way to combine two is addPartials(), which refuses.
import { LakerecError } from '../../shared/errors';
import { CANONICAL_VERSION } from '../reconcile/canonical';
import { MOD128, toHex128 } from '../reconcile/checksum';

/** The pushed digest: md5 of ADR 0003's canonical text, read as a little-endian 128-bit integer. */
export const PUSHED_DIGEST = CANONICAL_VERSION;

export interface Partial {
  /** Partition label as the local engine writes it ("dt=2026-08-10", "(table)"). */
  partition: string;
  rows: bigint;
  /** Sum mod 2^128 of the row digests. */
  sum: bigint;
}

export interface PartialSet {
  digest: string;
  /** Where they were computed ("duckdb (local engine)", "warehouse prod (trino)"). */
  where: string;
  partitions: Map<string, Partial>;
}

/** Sum mod 2^128 from the four 32-bit limb sums (limb j weighs 2^(32j)); each exact and non-negative. */
export function combineLimbs(limbs: readonly (bigint | string | number | null)[]): bigint {
  if (limbs.length !== 4) throw new LakerecError('io_error', `a checksum partial has ${limbs.length} limb sums, not 4`);
  let s = 0n;
  limbs.forEach((l, j) => {
    const v = exactInteger(l, `limb ${j}`);
    if (v < 0n) throw new LakerecError('io_error', `a checksum partial's limb ${j} sum is negative (${v})`);
    s += v << BigInt(32 * j);
  });
  return s % MOD128;
}

/** An exact integer from what a driver returns (bigint, a safe number, a decimal string "12" or "12.0"); null is 0 (an empty sum). */
export function exactInteger(v: bigint | string | number | null | undefined, what: string): bigint {
  if (v === null || v === undefined) return 0n;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new LakerecError('io_error', `${what} came back as an inexact number (${v}); the connector must return it as text`);
    return BigInt(v);
  }
  const m = /^\s*(-?\d+)(?:\.0*)?\s*$/.exec(v);
  if (!m) throw new LakerecError('io_error', `${what} is not an exact integer (${v.slice(0, 40)})`);
  return BigInt(m[1]);
}

export function emptyPartials(digest: string, where: string): PartialSet {
  return { digest, where, partitions: new Map() };
}

/** Adds one partition's partial into a set (the same partition from two reads adds up). */
export function addPartial(set: PartialSet, p: Partial): void {
  const cur = set.partitions.get(p.partition);
  set.partitions.set(p.partition, cur ? { partition: p.partition, rows: cur.rows + p.rows, sum: (cur.sum + p.sum) % MOD128 } : p);
}

/**
 * The sum of two partial sets (e.g. a side split over two engines). Refused, never coerced, when
 * their digest identities differ: two sums of different digests are not comparable numbers.
 */
export function addPartials(a: PartialSet, b: PartialSet): PartialSet {
  if (a.digest !== b.digest) {
    throw new LakerecError('usage', `cannot add checksum partials of different digests: ${a.digest} (${a.where}) and ${b.digest} (${b.where}); run both under ${PUSHED_DIGEST} (--digest md5)`);
  }
  const out = emptyPartials(a.digest, a.where === b.where ? a.where : `${a.where} + ${b.where}`);
  for (const p of a.partitions.values()) addPartial(out, p);
  for (const p of b.partitions.values()) addPartial(out, p);
  return out;
}

/** Whether two sets may be compared, and the line that says why not. */
export function comparable(a: PartialSet, b: PartialSet): string | null {
  return a.digest === b.digest ? null : `the two sides' checksums were computed under different digests (${a.digest} and ${b.digest}): not comparable`;
}

export function tableSum(set: PartialSet): { rows: bigint; sum: bigint } {
  let rows = 0n;
  let sum = 0n;
  for (const p of set.partitions.values()) { rows += p.rows; sum = (sum + p.sum) % MOD128; }
  return { rows, sum };
}

export const hex = toHex128;
