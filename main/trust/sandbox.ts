// The mutation sandbox: a private temp folder (0700) holding a NEW Delta log whose first version
// references the user's data files read-only, by absolute path, so a 100 GB table is not copied.
// Each mutant is its own table in the sandbox (the same version 0, hard-linked), written on top
// through the ordinary writer. Only the sandbox tables are opened with outside paths allowed; the
// user's table is read with the reader's defaults. The folder is removed at the end, on error, on
// cancel, and (if the process dies first) at process exit or on SIGINT/SIGTERM.
import { createHash, randomUUID } from 'node:crypto';
import {
  closeSync, copyFileSync, linkSync, mkdirSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync, writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LakerecError } from '../../shared/errors';
import type { AddFile, DeletionVectorDescriptor } from '../../shared/delta';
import { deletionVectorLocation } from '../delta/dv';
import { localPathOf } from '../delta/scan';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import type { Snapshot } from '../delta/types';
import { makeTempDir, removeTempDir } from '../engine/tempdirs';

const V0 = '00000000000000000000.json';
export const SANDBOX_PREFIX = 'lakerec-mutate-';

// ---- one mutation run per table ----
function lockPath(realRoot: string): string {
  const dir = join(tmpdir(), 'lakerec-locks');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, createHash('sha256').update(realRoot).digest('hex').slice(0, 32) + '.lock');
}
function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** Takes the table's mutation lock (across processes); throws `usage` when another run holds it. */
export function lockTable(root: string): () => void {
  const real = realpathSync(root);
  const path = lockPath(real);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try { rmSync(path, { force: true }); } catch { /* already gone */ }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new LakerecError('io_error', `cannot take the mutation lock ${path}: ${(e as Error).message}`);
      const pid = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) {
        throw new LakerecError('usage', `a mutation run on ${real} is already in progress (process ${pid}); one run at a time per table`, { path: real });
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new LakerecError('usage', `a mutation run on ${real} is already in progress; one run at a time per table`, { path: real });
}

// ---- the sandbox ----

export interface Sandbox {
  dir: string;
  /** Files of the user's snapshot the sandbox's version 0 references. */
  filesReferenced: number;
  /** A fresh table (version 0 only) for one mutant; returns its root. */
  newTable(name: string): string;
  /** Removes one mutant's table. */
  dropTable(root: string): void;
  /** The table version 0 alone (the unmutated baseline). */
  baseRoot: string;
  remove(): void;
}

function absoluteDv(dv: DeletionVectorDescriptor, root: string): DeletionVectorDescriptor {
  if (dv.storageType === 'i') return dv;
  const loc = deletionVectorLocation(dv, root);
  if (!loc || loc.absolute === null) throw new LakerecError('unsupported_feature', `deletion vector "${dv.pathOrInlineDv}" is not on a local path; the sandbox cannot reference it`);
  return { ...dv, storageType: 'p', pathOrInlineDv: pathToFileURL(loc.absolute).href };
}

/** Version 0 of the sandbox table: the user's protocol and metadata, an add per snapshot file (absolute path, DV carried over). */
export function sandboxLog(snapshot: Snapshot, now = Date.now()): string {
  const lines: string[] = [];
  lines.push(JSON.stringify({
    commitInfo: {
      timestamp: now, operation: 'CREATE TABLE', operationParameters: { mutationSandboxOf: snapshot.root, version: String(snapshot.version) },
      engineInfo: 'lakerec/0.1.0 (mutation sandbox)', isBlindAppend: true, txnId: randomUUID(),
    },
  }));
  lines.push(JSON.stringify({ protocol: snapshot.protocol }));
  lines.push(JSON.stringify({ metaData: { ...snapshot.metadata, id: randomUUID(), createdTime: now } }));
  for (const f of snapshot.files) {
    // The reader's adds may be getter-based (their fields on the prototype): toJSON gives them all.
    const plain = JSON.parse(JSON.stringify(f.add, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as AddFile;
    const add: AddFile = {
      ...plain,
      path: pathToFileURL(localPathOf(snapshot, f)).href,
      dataChange: true,
      ...(f.deletionVector ? { deletionVector: absoluteDv(f.deletionVector, snapshot.root) } : {}),
    };
    lines.push(JSON.stringify({ add }, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  }
  return lines.join('\n') + '\n';
}

/** Builds the sandbox over the user's table at `version` (read with the reader's defaults: no outside paths). */
export async function createSandbox(userRoot: string, version?: number): Promise<{ sandbox: Sandbox; snapshot: Snapshot; table: DeltaTable }> {
  const table = await openTable(userRoot);
  const snapshot = await table.snapshot(version === undefined ? {} : { version });
  // One name and one cleanup for every temp folder (main/engine/tempdirs.ts): removed at the end,
  // on error, at exit and on SIGINT/SIGTERM, and by the next start after a SIGKILL.
  const dir = makeTempDir('mutate');
  try {
    const base = join(dir, 'base');
    mkdirSync(join(base, '_delta_log'), { recursive: true });
    writeFileSync(join(base, '_delta_log', V0), sandboxLog(snapshot));
    let n = 0;
    const sandbox: Sandbox = {
      dir,
      filesReferenced: snapshot.files.length,
      baseRoot: base,
      newTable(name) {
        const root = join(dir, `${String(++n).padStart(2, '0')}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`);
        mkdirSync(join(root, '_delta_log'), { recursive: true });
        // Version 0 is shared (a large log is not rewritten per mutant); the writer only adds files.
        try { linkSync(join(base, '_delta_log', V0), join(root, '_delta_log', V0)); } catch { copyFileSync(join(base, '_delta_log', V0), join(root, '_delta_log', V0)); }
        return root;
      },
      dropTable(root) {
        rmSync(root, { recursive: true, force: true });
      },
      remove() {
        removeTempDir(dir);
      },
    };
    return { sandbox, snapshot, table };
  } catch (e) {
    removeTempDir(dir);
    throw e;
  }
}
