// Z85 (ZeroMQ base-85), the encoding Delta uses for inline deletion vectors and DV file UUIDs.
import { LakerecError } from '../../shared/errors';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
const decodeTable: Int16Array = (() => {
  const t = new Int16Array(128).fill(-1);
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
})();

/** Decodes Z85 text; its length must be a multiple of 5 (every 5 characters give 4 bytes). */
export function z85Decode(text: string): Uint8Array {
  if (text.length % 5 !== 0) {
    throw new LakerecError('log_corrupt', `Z85 text of length ${text.length} is not a multiple of 5`);
  }
  const out = new Uint8Array((text.length / 5) * 4);
  for (let i = 0, o = 0; i < text.length; i += 5, o += 4) {
    let v = 0;
    for (let j = 0; j < 5; j++) {
      const c = text.charCodeAt(i + j);
      const d = c < 128 ? decodeTable[c] : -1;
      if (d < 0) throw new LakerecError('log_corrupt', `invalid Z85 character "${text[i + j]}"`);
      v = v * 85 + d;
    }
    if (v > 0xffffffff) throw new LakerecError('log_corrupt', 'Z85 group out of range');
    out[o] = (v >>> 24) & 0xff;
    out[o + 1] = (v >>> 16) & 0xff;
    out[o + 2] = (v >>> 8) & 0xff;
    out[o + 3] = v & 0xff;
  }
  return out;
}

export function z85Encode(bytes: Uint8Array): string {
  if (bytes.length % 4 !== 0) throw new LakerecError('internal', 'Z85 input must be a multiple of 4 bytes');
  let s = '';
  for (let i = 0; i < bytes.length; i += 4) {
    let v = ((bytes[i] << 24) >>> 0) + (bytes[i + 1] << 16) + (bytes[i + 2] << 8) + bytes[i + 3];
    const chunk: string[] = [];
    for (let j = 0; j < 5; j++) { chunk.unshift(alphabet[v % 85]); v = Math.floor(v / 85); }
    s += chunk.join('');
  }
  return s;
}
