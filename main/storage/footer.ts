// A Parquet file's footer (schema, row groups, column statistics) by range requests, for work that
// needs only the metadata: one suffix range that usually holds the footer, its length and the
// magic; a second range (only the footer's start the suffix missed) when the footer is larger. The whole file is never
// fetched. The footer-only file (magic, footer, length, magic) reads in DuckDB's
// parquet_schema / parquet_metadata / parquet_file_metadata as the whole file does: those read
// only the footer, and the row groups' offsets inside it are not followed.
import { LakerecError } from '../../shared/errors';
import type { Storage } from './storage';

/** Bytes of the first (suffix) range: most footers fit, so one request usually suffices. */
export const FOOTER_SUFFIX_BYTES = 64 * 1024;

const MAGIC = Buffer.from('PAR1', 'ascii');

export interface ParquetFooter {
  /** The Thrift-encoded FileMetaData. */
  footer: Buffer;
  /** The whole file's size. */
  fileSize: number;
  /** Range requests made (1 or 2). */
  ranges: number;
  /** Bytes those requests fetched. */
  bytesFetched: number;
}

/** The footer of the Parquet file at `path` (a table-relative path of `storage`), by range. */
export async function readParquetFooter(storage: Storage, path: string, what = 'data file'): Promise<ParquetFooter> {
  const meta = await storage.stat(path);
  if (!meta) throw new LakerecError('not_found', `${what} ${path} does not exist`, { path });
  const size = meta.size;
  const bad = (why: string): LakerecError =>
    new LakerecError('io_error', `${what} ${path} is not a readable Parquet file: ${why}`, { path });
  if (size < 12) throw bad(`it is ${size} bytes, shorter than a Parquet file's magic, footer length and magic (12)`);
  const suffixLen = Math.min(size, FOOTER_SUFFIX_BYTES);
  const tail = await storage.readRange(path, size - suffixLen, suffixLen);
  let bytesFetched = tail.length;
  if (tail.length !== suffixLen) throw bad(`the last ${suffixLen} bytes came back as ${tail.length}`);
  if (!tail.subarray(tail.length - 4).equals(MAGIC)) throw bad('it does not end with the Parquet magic "PAR1"');
  const footerLen = tail.readUInt32LE(tail.length - 8);
  if (footerLen + 12 > size) throw bad(`its footer length (${footerLen} bytes) is larger than the file (${size} bytes)`);
  if (footerLen + 8 <= tail.length) {
    return { footer: Buffer.from(tail.subarray(tail.length - 8 - footerLen, tail.length - 8)), fileSize: size, ranges: 1, bytesFetched };
  }
  // The second range is only the footer's start, the part the suffix did not hold.
  const missing = footerLen + 8 - tail.length;
  const head = await storage.readRange(path, size - 8 - footerLen, missing);
  bytesFetched += head.length;
  if (head.length !== missing) throw bad(`its footer came back as ${head.length} of ${missing} bytes`);
  return { footer: Buffer.concat([head, tail.subarray(0, tail.length - 8)]), fileSize: size, ranges: 2, bytesFetched };
}

/** A file of only the footer (magic, footer, length, magic): DuckDB's metadata functions read it as the whole file. */
export function footerOnlyFile(footer: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32LE(footer.length, 0);
  return Buffer.concat([MAGIC, footer, len, MAGIC]);
}
