// A source file uploaded in web mode is kept in the launch's upload sandbox under a temporary
// path that is gone when the server stops, so a report must not name that path. The upload route
// writes a record beside the file (its name as the user's browser sent it); the engine, in its own
// process, recognises an upload by that record and by where it sits, and re-reads the file to say
// its size and sha256 from the bytes actually reconciled, not from what the record claims.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { writeOutput } from '../engine/outputs';
import { basename, dirname, join } from 'node:path';
import type { UploadedFile } from '../../shared/reconcile';

/** The record beside an uploaded file (in the file's own `u-` folder). */
export const UPLOAD_RECORD = '.lakerec-upload.json';
/** The sandbox folder's name starts so (makeTempDir('uploads')). */
const SANDBOX_PREFIX = 'lakerec-uploads-';

export function writeUploadRecord(file: string, rec: UploadedFile): void {
  writeOutput(join(dirname(file), UPLOAD_RECORD), JSON.stringify(rec) + '\n', { what: 'the upload record', mode: 0o600 });
}

/** sha256 of a file's bytes, read in chunks (an upload can be 256 MB). */
export function sha256OfFile(path: string): string {
  const h = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

/**
 * The uploaded file a source path is, or null when it is not an upload: the path sits in a `u-`
 * folder of a launch's upload sandbox beside a record naming it. Size and sha256 are the file's now.
 */
export function uploadedFile(source: string): UploadedFile | null {
  const dir = dirname(source);
  if (!basename(dir).startsWith('u-') || !basename(dirname(dir)).startsWith(SANDBOX_PREFIX)) return null;
  const recPath = join(dir, UPLOAD_RECORD);
  if (!existsSync(recPath)) return null;
  let rec: unknown;
  try { rec = JSON.parse(readFileSync(recPath, 'utf8')); } catch { return null; }
  const name = (rec as { name?: unknown } | null)?.name;
  if (typeof name !== 'string' || name !== basename(source)) return null;
  const st = statSync(source);
  if (!st.isFile()) return null;
  return { name, bytes: st.size, sha256: sha256OfFile(source) };
}
