// Deletion vectors (PROTOCOL.md "Deletion Vector Format"): a 64-bit RoaringBitmap in the portable
// serialisation, prefixed by Delta's magic number, stored inline (Z85) or in a DV file at an offset
// (4-byte big-endian size, the bitmap, a 4-byte big-endian CRC-32 of the bitmap).
import * as zlib from 'node:zlib';
import { join } from 'node:path';
import { LakerecError } from '../../shared/errors';
import type { DeletionVectorDescriptor } from '../../shared/delta';
import { canonicalisePath } from './paths';
import { z85Decode } from './z85';
import { LIMIT_KNOBS, LocalStorage, type Storage } from '../storage';

export const DV_MAGIC = 1681511377;
const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;
const SERIAL_COOKIE = 12347;
const NO_OFFSET_THRESHOLD = 4;

function corrupt(msg: string): LakerecError {
  return new LakerecError('log_corrupt', `deletion vector: ${msg}`);
}

/** What a decoded DV may hold: checked on the container headers BEFORE any row is expanded. */
export interface DvBounds {
  /** The descriptor's cardinality: the decoded count must equal it. */
  cardinality?: number;
  /** The data file's row count (stats numRecords), when known: every row index must be below it. */
  numRecords?: number | null;
  /** The most rows one DV may expand to (ReadLimits.dvRows). */
  maxRows?: number;
}

const popcount32 = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

/**
 * Walks one 32-bit portable RoaringBitmap at `pos`, validating every container (keys strictly
 * ascending, array values strictly ascending, runs ascending, non-overlapping and inside their
 * 65,536-value container, bitmap popcount = header cardinality). With `out` it also pushes
 * `high + value` for every member. Returns the position after it and, in `walk.count` / `walk.max`,
 * the members counted from the headers and the largest.
 */
const walk = { count: 0, max: -1 };
function walkRoaring32(view: DataView, pos: number, high: number, out: number[] | null): number {
  const need = (n: number): void => { if (pos + n > view.byteLength) throw corrupt('bitmap truncated'); };
  need(4);
  const cookie = view.getUint32(pos, true);
  let size: number;
  let runBitmap: Uint8Array | null = null;
  if ((cookie & 0xffff) === SERIAL_COOKIE) {
    size = (cookie >>> 16) + 1;
    pos += 4;
    const n = Math.ceil(size / 8);
    need(n);
    runBitmap = new Uint8Array(view.buffer, view.byteOffset + pos, n);
    pos += n;
  } else if (cookie === SERIAL_COOKIE_NO_RUNCONTAINER) {
    need(8);
    size = view.getUint32(pos + 4, true);
    pos += 8;
  } else {
    throw corrupt(`unknown RoaringBitmap cookie ${cookie}`);
  }
  // At most 65,536 containers (one per 16-bit key), each with a 4-byte header.
  if (size > 65536) throw corrupt(`${size} containers in one bitmap (at most 65,536)`);
  need(4 * size);
  const keys = new Uint32Array(size);
  const cards = new Uint32Array(size);
  for (let i = 0; i < size; i++) {
    keys[i] = view.getUint16(pos + 4 * i, true);
    cards[i] = view.getUint16(pos + 4 * i + 2, true) + 1;
    if (i > 0 && keys[i] <= keys[i - 1]) throw corrupt(`container keys out of order (${keys[i - 1]} then ${keys[i]})`);
  }
  pos += 4 * size;
  if (runBitmap === null || size >= NO_OFFSET_THRESHOLD) { need(4 * size); pos += 4 * size; } // offset header: not needed
  for (let i = 0; i < size; i++) {
    const base = high + keys[i] * 65536;
    const card = cards[i];
    const isRun = runBitmap !== null && (runBitmap[i >>> 3] & (1 << (i & 7))) !== 0;
    let last = -1;
    if (isRun) {
      need(2);
      const nRuns = view.getUint16(pos, true);
      pos += 2;
      need(4 * nRuns);
      let members = 0;
      for (let r = 0; r < nRuns; r++) {
        const start = view.getUint16(pos + 4 * r, true);
        const len = view.getUint16(pos + 4 * r + 2, true);
        if (start + len > 65535) throw corrupt(`a run container's run ${start}+${len} overflows its 65,536 values`);
        if (start <= last) throw corrupt('a run container\'s runs overlap or are out of order');
        last = start + len;
        members += len + 1;
        if (out) for (let v = start; v <= last; v++) out.push(base + v);
      }
      if (members !== card) throw corrupt(`a run container holds ${members} values, its header says ${card}`);
      pos += 4 * nRuns;
    } else if (card <= 4096) {
      need(2 * card);
      for (let k = 0; k < card; k++) {
        const v = view.getUint16(pos + 2 * k, true);
        if (v <= last) throw corrupt('an array container\'s values are out of order');
        last = v;
        if (out) out.push(base + v);
      }
      pos += 2 * card;
    } else {
      need(8192);
      let members = 0;
      for (let w = 0; w < 2048; w++) {
        let word = view.getUint32(pos + 4 * w, true);
        if (word !== 0) last = w * 32 + 31 - Math.clz32(word);
        members += popcount32(word);
        if (out) {
          while (word !== 0) {
            const t = word & -word;
            out.push(base + w * 32 + (31 - Math.clz32(t)));
            word ^= t;
          }
        }
      }
      if (members !== card) throw corrupt(`a bitmap container holds ${members} values, its header says ${card}`);
      pos += 8192;
    }
    walk.count += card;
    if (last >= 0) walk.max = base + last;
  }
  return pos;
}

function walkBitmap(bytes: Uint8Array, out: number[] | null): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12) throw corrupt('too short');
  const magic = view.getUint32(0, true);
  if (magic !== DV_MAGIC) throw corrupt(`wrong magic number ${magic} (expected ${DV_MAGIC})`);
  const buckets = view.getBigUint64(4, true);
  // Each bucket takes at least 8 bytes (its key and a cookie).
  if (buckets > BigInt(Math.floor((bytes.byteLength - 12) / 8))) throw corrupt(`${buckets} buckets do not fit in ${bytes.byteLength} bytes`);
  let pos = 12;
  let prevKey = -1;
  walk.count = 0;
  walk.max = -1;
  for (let b = 0; b < Number(buckets); b++) {
    if (pos + 4 > bytes.byteLength) throw corrupt('bitmap truncated');
    const key = view.getUint32(pos, true);
    if (key & 0x80000000) throw corrupt('bucket key has its high bit set');
    if (key <= prevKey) throw corrupt('bucket keys out of order');
    // Row indexes above 2^53 cannot be held exactly (no Parquet file has that many rows).
    if (key >= 2 ** 21) throw corrupt(`bucket key ${key} names rows beyond 2^53`);
    prevKey = key;
    pos += 4;
    pos = walkRoaring32(view, pos, key * 4294967296, out);
  }
}

/**
 * Decodes Delta's serialised DV (magic number + 64-bit portable RoaringBitmap) to sorted row
 * indexes. The bitmap is validated and its members counted from the container headers first; the
 * count is checked against the bounds (the descriptor's cardinality, the file's rows, the row
 * limit) before a single row is expanded, so memory is bounded by the file's rows.
 */
export function decodeDeletionVectorBitmap(bytes: Uint8Array, bounds: DvBounds = {}): number[] {
  walkBitmap(bytes, null);
  const count = walk.count;
  const max = walk.max;
  if (bounds.cardinality !== undefined && count !== bounds.cardinality) {
    throw corrupt(`the bitmap holds ${count} rows but the descriptor says cardinality ${bounds.cardinality}`);
  }
  if (typeof bounds.numRecords === 'number' && max >= bounds.numRecords) {
    throw corrupt(`the bitmap deletes row ${max}, but the data file has ${bounds.numRecords} rows (stats numRecords)`);
  }
  const maxRows = bounds.maxRows ?? Infinity;
  if (count > maxRows) {
    throw new LakerecError('limit_exceeded',
      `a deletion vector deletes ${count} rows, over the limit of ${maxRows} rows for one deletion vector; if it is genuine, raise it with ${LIMIT_KNOBS.dvRows}=<rows>`,
      { rows: count, limit: maxRows });
  }
  const out: number[] = [];
  walkBitmap(bytes, out);
  return out;
}

/** Where a file-based DV lives, as a raw log path (for the outside-root check) and on disk. */
export function deletionVectorLocation(dv: DeletionVectorDescriptor, root: string): { raw: string; key: string; absolute: string | null; outside: boolean } | null {
  if (dv.storageType === 'i') return null;
  if (dv.storageType === 'u') {
    const s = dv.pathOrInlineDv;
    if (s.length < 20) throw corrupt(`"${s}" is too short for a UUID-relative DV path`);
    const prefix = s.slice(0, s.length - 20);
    const u = z85Decode(s.slice(s.length - 20));
    const hex = Array.from(u, (b) => b.toString(16).padStart(2, '0')).join('');
    const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const rel = prefix ? `${prefix}/deletion_vector_${uuid}.bin` : `deletion_vector_${uuid}.bin`;
    const c = canonicalisePath(rel, root);
    return { raw: rel, key: c.key, absolute: c.absolute ?? join(root, rel), outside: c.outside };
  }
  if (dv.storageType === 'p') {
    const c = canonicalisePath(dv.pathOrInlineDv, root);
    return { raw: dv.pathOrInlineDv, key: c.key, absolute: c.absolute, outside: c.outside };
  }
  throw new LakerecError('unsupported_feature', `unknown deletion vector storage type "${String(dv.storageType)}"`, { feature: 'deletionVectors' });
}

/** The storage path of a DV file: table-relative inside the root, the absolute path outside it. */
export function dvStoragePath(loc: { key: string; absolute: string | null; outside: boolean }): string | null {
  return loc.outside ? loc.absolute : loc.key;
}

export interface ReadDvOptions {
  allowOutsidePaths?: boolean;
  /** The data file's row count (its add's stats numRecords), when known: bounds the decode. */
  numRecords?: number | null;
}

/**
 * Reads and decodes the row indexes a DV descriptor deletes (sorted, 0-based), through the store
 * (a table root string: the local folder). A DV file is read by range: its 4-byte size, the
 * bitmap, its CRC-32.
 */
export async function readDeletionVector(dv: DeletionVectorDescriptor, store: Storage | string, opts: ReadDvOptions = {}): Promise<number[]> {
  const storage = typeof store === 'string' ? new LocalStorage(store, { allowOutsidePaths: opts.allowOutsidePaths }) : store;
  const allowOutside = opts.allowOutsidePaths ?? storage.allowOutsidePaths;
  const bounds: DvBounds = { cardinality: dv.cardinality, numRecords: opts.numRecords, maxRows: storage.limits.dvRows };
  if (typeof dv.cardinality !== 'number' || !Number.isSafeInteger(dv.cardinality) || dv.cardinality < 0) {
    throw corrupt(`cardinality ${String(dv.cardinality)} is not a row count`);
  }
  if (typeof dv.sizeInBytes !== 'number' || !Number.isSafeInteger(dv.sizeInBytes) || dv.sizeInBytes < 0) {
    throw corrupt(`sizeInBytes ${String(dv.sizeInBytes)} is not a size`);
  }
  if (dv.sizeInBytes > storage.limits.dvBytes) {
    throw new LakerecError('limit_exceeded',
      `a deletion vector of ${dv.sizeInBytes} bytes is over the ${storage.limits.dvBytes}-byte limit; if it is genuine, raise it with ${LIMIT_KNOBS.dvBytes}=<MB>`,
      { size: dv.sizeInBytes, limit: storage.limits.dvBytes });
  }
  if (dv.storageType === 'i') {
    const bytes = z85Decode(dv.pathOrInlineDv).subarray(0, dv.sizeInBytes);
    return decodeDeletionVectorBitmap(bytes, bounds);
  }
  const loc = deletionVectorLocation(dv, storage.root);
  if (!loc || loc.absolute === null) {
    throw new LakerecError('path_outside_table', `deletion vector path "${dv.pathOrInlineDv}" is not a local path`, { path: dv.pathOrInlineDv });
  }
  if (loc.outside && !allowOutside) {
    throw new LakerecError('path_outside_table', `deletion vector "${loc.raw}" resolves outside the table root (${loc.absolute}); allow outside paths for this table to read it`, { path: loc.raw });
  }
  const path = dvStoragePath(loc) as string;
  const offset = dv.offset ?? 1;
  if (!Number.isSafeInteger(offset) || offset < 0) throw corrupt(`offset ${String(dv.offset)} is not a position`);
  let body: Buffer;
  try {
    body = await storage.readRange(path, offset, 4 + dv.sizeInBytes + 4);
  } catch (e) {
    if (e instanceof LakerecError && e.code === 'not_found') {
      throw new LakerecError('data_file_missing', `deletion vector file ${loc.raw} does not exist`, { path: loc.raw });
    }
    throw e;
  }
  // Messages name the file and offsets, never its bytes.
  if (body.length < 4) throw corrupt(`${loc.raw}: nothing at offset ${offset}`);
  const size = body.readUInt32BE(0);
  if (size !== dv.sizeInBytes) throw corrupt(`${loc.raw}: the size at offset ${offset} does not match the log's sizeInBytes ${dv.sizeInBytes}`);
  if (body.length < size + 8) throw corrupt(`${loc.raw}: truncated`);
  const data = body.subarray(4, 4 + size);
  const crc = body.readUInt32BE(4 + size);
  const crc32 = (zlib as { crc32?: (d: Uint8Array) => number }).crc32;
  if (crc32 && crc32(data) >>> 0 !== crc) throw corrupt(`${loc.raw}: checksum mismatch at offset ${offset}`);
  return decodeDeletionVectorBitmap(data, bounds);
}

/** The DV's identity for reconciliation (protocol: path + deletionVector.uniqueId). */
export function dvUniqueId(dv: DeletionVectorDescriptor | null | undefined): string {
  if (!dv) return '';
  return dv.offset !== undefined && dv.offset !== null ? `${dv.storageType}${dv.pathOrInlineDv}@${dv.offset}` : `${dv.storageType}${dv.pathOrInlineDv}`;
}
