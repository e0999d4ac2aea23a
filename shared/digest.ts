// What a digest identity means, in words. A result, a baseline and a report carry the identity
// ("md5-canonical-v1", "duckdb-hash-v2@v1.5.6"); this is the one place that turns it into the
// sentence a reader sees, so a report names the algorithm that ran, never a fixed text.

/** Bumped whenever the canonical text of any type changes (baselines record it). */
export const CANONICAL_VERSION = 'md5-canonical-v1';

/** v2: h1 = hash of the per-column hashes, h2 = hash(h1) (v1 hashed the columns twice). */
export const FAST_DIGEST = 'duckdb-hash-v2';

/** How the row digest and the checksum of a run were made, from the digest identity. */
export function describeDigest(identity: string): string {
  if (identity === CANONICAL_VERSION) {
    return "md5 of each row's canonical bytes (docs/adr/0003), the 128-bit digests summed mod 2^128; stable across DuckDB versions and machines";
  }
  const at = identity.indexOf('@');
  const algo = at < 0 ? identity : identity.slice(0, at);
  const duck = at < 0 ? null : identity.slice(at + 1);
  if (algo === FAST_DIGEST) {
    return `DuckDB ${duck ? `${duck}'s ` : ''}hash() of each column's canonically typed value, combined per row into a 64-bit hash h1 with hash(h1) as the lower 64 bits, the 128-bit values summed mod 2^128; `
      + 'comparable only under the same DuckDB version';
  }
  return `a digest this build does not describe (${identity}); its checksums compare only with checksums of the same identity`;
}
