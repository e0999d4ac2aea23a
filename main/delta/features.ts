// Reader protocol support: what this reader can read, and the refusal that names what it cannot.
import { LakerecError } from '../../shared/errors';
import type { Protocol } from '../../shared/delta';

/** Reader features this reader implements (PROTOCOL.md "Valid Feature Names in Table Features"). */
export const SUPPORTED_READER_FEATURES: ReadonlySet<string> = new Set([
  'deletionVectors',
  'columnMapping',
  'timestampNtz',
  'v2Checkpoint',
  'vacuumProtocolCheck',
  // Narrower Parquet types are cast to the table schema's (wider) type on scan.
  'typeWidening',
  'typeWidening-preview',
]);

export const MAX_READER_VERSION = 3;

/** Throws `unsupported_feature` naming the protocol version or the reader features not supported. */
export function checkReaderProtocol(p: Protocol): void {
  if (!Number.isInteger(p.minReaderVersion) || p.minReaderVersion < 1) {
    throw new LakerecError('log_corrupt', `protocol has an invalid minReaderVersion (${String(p.minReaderVersion)})`);
  }
  if (p.minReaderVersion > MAX_READER_VERSION) {
    throw new LakerecError('unsupported_feature',
      `the table requires reader protocol version ${p.minReaderVersion}; this reader supports versions 1 to ${MAX_READER_VERSION}`,
      { feature: `minReaderVersion=${p.minReaderVersion}` });
  }
  if (p.minReaderVersion === 3) {
    const missing = (p.readerFeatures ?? []).filter((f) => !SUPPORTED_READER_FEATURES.has(f));
    if (missing.length > 0) {
      throw new LakerecError('unsupported_feature',
        `the table uses reader feature${missing.length > 1 ? 's' : ''} ${missing.map((f) => `"${f}"`).join(', ')}, which this reader does not support`,
        { feature: missing.join(',') });
    }
  }
}
