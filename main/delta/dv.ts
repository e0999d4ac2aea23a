// Deletion vectors (PROTOCOL.md "Deletion Vector Format"): a 64-bit RoaringBitmap in the portable
// serialisation, prefixed by Delta's magic number, stored inline (Z85) or in a DV file at an offset
// (4-byte big-endian size, the bitmap, a 4-byte big-endian CRC-32 of the bitmap).
import { closeSync, openSync, readSync } from 'node:fs';
import * as zlib from 'node:zlib';
import { join } from 'node:path';
import { LakerecError } from '../../shared/errors';
import type { DeletionVectorDescriptor } from '../../shared/delta';
import { canonicalisePath } from './paths';
import { z85Decode } from './z85';

export const DV_MAGIC = 1681511377;
const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;
const SERIAL_COOKIE = 12347;
const NO_OFFSET_THRESHOLD = 4;

function corrupt(msg: string): LakerecError {
  return new LakerecError('log_corrupt', `deletion vector: ${msg}`);
}

/**
 * Parses one 32-bit portable RoaringBitmap starting at `pos`; pushes `high + value` for every
 * member and returns the position after it.
 */
function readRoaring32(view: DataView, pos: number, high: number, out: number[]): number {
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
  need(4 * size);
  const keys: number[] = [];
  const cards: number[] = [];
  for (let i = 0; i < size; i++) {
    keys.push(view.getUint16(pos + 4 * i, true));
    cards.push(view.getUint16(pos + 4 * i + 2, true) + 1);
  }
  pos += 4 * size;
  if (runBitmap === null || size >= NO_OFFSET_THRESHOLD) pos += 4 * size; // offset header: not needed
  for (let i = 0; i < size; i++) {
    const base = high + keys[i] * 65536;
    const isRun = runBitmap !== null && (runBitmap[i >>> 3] & (1 << (i & 7))) !== 0;
    if (isRun) {
      need(2);
      const nRuns = view.getUint16(pos, true);
      pos += 2;
      need(4 * nRuns);
      for (let r = 0; r < nRuns; r++) {
        const start = view.getUint16(pos + 4 * r, true);
        const len = view.getUint16(pos + 4 * r + 2, true);
        for (let v = start; v <= start + len; v++) out.push(base + v);
      }
      pos += 4 * nRuns;
    } else if (cards[i] <= 4096) {
      need(2 * cards[i]);
      for (let k = 0; k < cards[i]; k++) out.push(base + view.getUint16(pos + 2 * k, true));
      pos += 2 * cards[i];
    } else {
      need(8192);
      for (let w = 0; w < 2048; w++) {
        let word = view.getUint32(pos + 4 * w, true);
        while (word !== 0) {
          const t = word & -word;
          out.push(base + w * 32 + (31 - Math.clz32(t)));
          word ^= t;
        }
      }
      pos += 8192;
    }
  }
  return pos;
}

/** Decodes Delta's serialised DV (magic number + 64-bit portable RoaringBitmap) to sorted row indexes. */
export function decodeDeletionVectorBitmap(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12) throw corrupt('too short');
  const magic = view.getUint32(0, true);
  if (magic !== DV_MAGIC) throw corrupt(`wrong magic number ${magic} (expected ${DV_MAGIC})`);
  const buckets = view.getBigUint64(4, true);
  if (buckets > 0xffffffffn) throw corrupt('too many buckets');
  let pos = 12;
  const out: number[] = [];
  for (let b = 0; b < Number(buckets); b++) {
    if (pos + 4 > bytes.byteLength) throw corrupt('bitmap truncated');
    const key = view.getUint32(pos, true);
    if (key & 0x80000000) throw corrupt('bucket key has its high bit set');
    pos += 4;
    pos = readRoaring32(view, pos, key * 4294967296, out);
  }
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

export interface ReadDvOptions {
  allowOutsidePaths?: boolean;
}

/** Reads and decodes the row indexes a DV descriptor deletes (sorted, 0-based). */
export function readDeletionVector(dv: DeletionVectorDescriptor, root: string, opts: ReadDvOptions = {}): number[] {
  let rows: number[];
  if (dv.storageType === 'i') {
    const bytes = z85Decode(dv.pathOrInlineDv).subarray(0, dv.sizeInBytes);
    rows = decodeDeletionVectorBitmap(bytes);
  } else {
    const loc = deletionVectorLocation(dv, root);
    if (!loc || loc.absolute === null) {
      throw new LakerecError('path_outside_table', `deletion vector path "${dv.pathOrInlineDv}" is not a local path`, { path: dv.pathOrInlineDv });
    }
    if (loc.outside && !opts.allowOutsidePaths) {
      throw new LakerecError('path_outside_table', `deletion vector "${loc.raw}" resolves outside the table root (${loc.absolute}); allow outside paths for this table to read it`, { path: loc.raw });
    }
    rows = readDvFile(loc.absolute, dv.offset ?? 1, dv.sizeInBytes);
  }
  if (rows.length !== dv.cardinality) {
    throw corrupt(`decoded ${rows.length} rows but the descriptor says cardinality ${dv.cardinality}`);
  }
  return rows;
}

function readDvFile(file: string, offset: number, sizeInBytes: number): number[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new LakerecError(code === 'ENOENT' ? 'data_file_missing' : 'io_error', `deletion vector file ${file} cannot be read (${code ?? 'error'})`, { path: file });
  }
  try {
    const head = Buffer.alloc(4);
    if (readSync(fd, head, 0, 4, offset) !== 4) throw corrupt(`${file}: nothing at offset ${offset}`);
    const size = head.readUInt32BE(0);
    if (size !== sizeInBytes) throw corrupt(`${file}: size at offset ${offset} is ${size}, the log says ${sizeInBytes}`);
    const body = Buffer.alloc(size + 4);
    if (readSync(fd, body, 0, size + 4, offset + 4) !== size + 4) throw corrupt(`${file}: truncated`);
    const data = body.subarray(0, size);
    const crc = body.readUInt32BE(size);
    const crc32 = (zlib as { crc32?: (d: Uint8Array) => number }).crc32;
    if (crc32 && crc32(data) >>> 0 !== crc) throw corrupt(`${file}: checksum mismatch at offset ${offset}`);
    return decodeDeletionVectorBitmap(data);
  } finally {
    closeSync(fd);
  }
}

/** The DV's identity for reconciliation (protocol: path + deletionVector.uniqueId). */
export function dvUniqueId(dv: DeletionVectorDescriptor | null | undefined): string {
  if (!dv) return '';
  return dv.offset !== undefined && dv.offset !== null ? `${dv.storageType}${dv.pathOrInlineDv}@${dv.offset}` : `${dv.storageType}${dv.pathOrInlineDv}`;
}
