// Writing deletion vectors (PROTOCOL.md "Deletion Vector Format"): row indexes as a 64-bit
// RoaringBitmap in the portable serialisation, prefixed by Delta's magic number, stored in a DV
// file (`deletion_vector_<uuid>.bin`: a format version byte, then per DV a 4-byte big-endian size,
// the bitmap and a 4-byte big-endian CRC-32 of it), addressed by a UUID-relative descriptor.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DeletionVectorDescriptor } from '../../shared/delta';
import { DV_MAGIC } from '../delta/dv';
import { z85Encode } from '../delta/z85';

const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;

const CRC_TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One 32-bit portable RoaringBitmap (array containers up to 4096 values, bitsets above). */
function roaring32(values: number[]): Uint8Array {
  const containers = new Map<number, number[]>();
  for (const v of values) {
    const key = v >>> 16;
    const list = containers.get(key);
    if (list) list.push(v & 0xffff);
    else containers.set(key, [v & 0xffff]);
  }
  const keys = [...containers.keys()].sort((a, b) => a - b);
  const size = keys.length;
  const header = 8 + 4 * size + 4 * size;
  const bodies = keys.map((k) => {
    const low = containers.get(k)!;
    if (low.length <= 4096) {
      const b = new Uint8Array(2 * low.length);
      const dv = new DataView(b.buffer);
      low.forEach((x, i) => dv.setUint16(2 * i, x, true));
      return b;
    }
    const b = new Uint8Array(8192);
    for (const x of low) b[x >>> 3] |= 1 << (x & 7);
    return b;
  });
  const out = new Uint8Array(header + bodies.reduce((s, b) => s + b.length, 0));
  const view = new DataView(out.buffer);
  view.setUint32(0, SERIAL_COOKIE_NO_RUNCONTAINER, true);
  view.setUint32(4, size, true);
  let offset = header;
  keys.forEach((k, i) => {
    view.setUint16(8 + 4 * i, k, true);
    view.setUint16(8 + 4 * i + 2, containers.get(k)!.length - 1, true);
    view.setUint32(8 + 4 * size + 4 * i, offset, true);
    out.set(bodies[i], offset);
    offset += bodies[i].length;
  });
  return out;
}

/** Delta's serialised DV: magic number, bucket count, then per high-32-bit bucket its 32-bit bitmap. */
export function encodeDeletionVectorBitmap(rows: number[]): Uint8Array {
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const buckets = new Map<number, number[]>();
  for (const r of sorted) {
    if (!Number.isSafeInteger(r) || r < 0) throw new RangeError(`row index ${r} cannot be in a deletion vector`);
    const hi = Math.floor(r / 4294967296);
    const lo = r % 4294967296;
    const list = buckets.get(hi);
    if (list) list.push(lo);
    else buckets.set(hi, [lo]);
  }
  const parts = [...buckets.keys()].sort((a, b) => a - b).map((hi) => ({ hi, bytes: roaring32(buckets.get(hi)!) }));
  const out = new Uint8Array(12 + parts.reduce((s, p) => s + 4 + p.bytes.length, 0));
  const view = new DataView(out.buffer);
  view.setUint32(0, DV_MAGIC, true);
  view.setBigUint64(4, BigInt(parts.length), true);
  let pos = 12;
  for (const p of parts) {
    view.setUint32(pos, p.hi, true);
    out.set(p.bytes, pos + 4);
    pos += 4 + p.bytes.length;
  }
  return out;
}

/**
 * Writes the DVs of one commit into one new DV file at the table root; returns a descriptor per
 * input (same order) and the file's absolute path.
 */
export function writeDeletionVectorFile(root: string, dvs: number[][]): { descriptors: DeletionVectorDescriptor[]; file: string } {
  const uuid = randomUUID();
  const file = join(root, `deletion_vector_${uuid}.bin`);
  const chunks: Uint8Array[] = [Uint8Array.of(1)];
  let offset = 1;
  const descriptors: DeletionVectorDescriptor[] = [];
  const uuidBytes = Uint8Array.from(uuid.replace(/-/g, '').match(/../g)!.map((h) => parseInt(h, 16)));
  const pathOrInlineDv = z85Encode(uuidBytes);
  for (const rows of dvs) {
    const bitmap = encodeDeletionVectorBitmap(rows);
    const frame = new Uint8Array(4 + bitmap.length + 4);
    const view = new DataView(frame.buffer);
    view.setUint32(0, bitmap.length, false);
    frame.set(bitmap, 4);
    view.setUint32(4 + bitmap.length, crc32(bitmap), false);
    chunks.push(frame);
    descriptors.push({ storageType: 'u', pathOrInlineDv, offset, sizeInBytes: bitmap.length, cardinality: new Set(rows).size });
    offset += frame.length;
  }
  const all = new Uint8Array(offset);
  let p = 0;
  for (const c of chunks) { all.set(c, p); p += c.length; }
  writeFileSync(file, all);
  return { descriptors, file };
}
