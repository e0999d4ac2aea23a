// One small JSON list kept in an app-data folder (the recent tables, the accepted contracts and
// connection files, the lineage projects): read, filter, write, through the one output guard.
//
// The file is the user's to damage, or anyone's who can write the folder, so reading it never
// throws and never hangs: a missing file is an empty list; a file that is too big, not a regular
// file (a folder, a FIFO, a device), not JSON or not a list reads as an empty list and says so in
// one line (`problem`, and the store's `warn`); entries of the wrong shape are dropped. The next
// write replaces the file with the valid entries kept.
import { closeSync, fstatSync, openSync, readSync, constants } from 'node:fs';
import { dirname } from 'node:path';
import { ensureOutputDir, writeOutput } from './outputs';

/** Larger than any list these stores keep (500 entries of a few hundred bytes); a bigger file is not read. */
export const MAX_LIST_BYTES = 4 * 1024 * 1024;

export interface JsonListOptions<T> {
  /** The file's path. */
  file: string;
  /** How the list is named to the user ("the recent tables list"). */
  what: string;
  /** Whether one parsed entry has the store's shape; others are dropped. */
  isEntry: (v: unknown) => v is T;
  /** The most entries kept; `keep` says which end survives ('newest-last': the tail). */
  max: number;
  keep: 'first' | 'last';
  /** The list is stored under this key of an object (`{ "tables": [...] }`), else bare. */
  key?: string;
  /** File mode of a new file. */
  mode?: number;
  /** Where the one line about a damaged file goes, once per store and line (default: stderr, once per process). */
  warn?: (line: string) => void;
}

export interface JsonListRead<T> {
  entries: T[];
  /** One line naming what was wrong with the file, or null (a missing file is not a problem). */
  problem: string | null;
}

const warned = new Set<string>();
const stderrOnce = (line: string): void => {
  if (warned.has(line)) return;
  warned.add(line);
  process.stderr.write(`lakerec: ${line}\n`);
};

/** Reads at most `limit + 1` bytes of a regular file without blocking on a FIFO; null when missing. */
function readBounded(file: string, limit: number): { text: string } | { problem: string } | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    return { problem: `cannot be read (${code ?? (e as Error).message})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { problem: 'is not a regular file' };
    if (st.size > limit) return { problem: `is ${st.size} bytes, more than the ${limit} a list of this kind can hold` };
    const buf = Buffer.alloc(limit + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > limit) return { problem: `grew past ${limit} bytes while it was read` };
    }
    return { text: buf.subarray(0, n).toString('utf8') };
  } catch (e) {
    return { problem: `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  } finally {
    closeSync(fd);
  }
}

export class JsonListFile<T> {
  /** The lines already said by this store: a damaged file is named once, not at every read. */
  private readonly said = new Set<string>();

  constructor(private readonly o: JsonListOptions<T>) {}

  /** The list as stored, with one line about the file when it could not be used. */
  readWithProblem(): JsonListRead<T> {
    const got = readBounded(this.o.file, MAX_LIST_BYTES);
    if (got === null) return { entries: [], problem: null };
    const fail = (why: string): JsonListRead<T> => {
      const problem = `${this.o.what} ${this.o.file} ${why}; it is read as empty and replaced on the next change`;
      if (!this.said.has(problem)) {
        this.said.add(problem);
        (this.o.warn ?? stderrOnce)(problem);
      }
      return { entries: [], problem };
    };
    if ('problem' in got) return fail(got.problem);
    let parsed: unknown;
    try {
      parsed = JSON.parse(got.text);
    } catch {
      return fail('is not valid JSON');
    }
    const items = this.o.key === undefined ? parsed : (parsed as Record<string, unknown> | null)?.[this.o.key];
    if (!Array.isArray(items)) return fail(this.o.key === undefined ? 'is not a JSON list' : `has no "${this.o.key}" list`);
    return { entries: this.bound(items.filter((e) => this.o.isEntry(e))), problem: null };
  }

  read(): T[] {
    return this.readWithProblem().entries;
  }

  /** Writes the list (bounded to `max`), through the output guard, atomically. */
  write(list: readonly T[]): T[] {
    const kept = this.bound(list);
    ensureOutputDir(dirname(this.o.file), `the folder of ${this.o.what}`);
    const text = JSON.stringify(this.o.key === undefined ? kept : { [this.o.key]: kept }, null, 1) + '\n';
    writeOutput(this.o.file, text, { what: this.o.what, ...(this.o.mode !== undefined ? { mode: this.o.mode } : {}) });
    return kept;
  }

  /** Read, change, write: the list the change gave (bounded), as written. */
  update(change: (list: T[]) => T[]): T[] {
    return this.write(change(this.read()));
  }

  private bound(list: readonly T[]): T[] {
    if (list.length <= this.o.max) return [...list];
    return this.o.keep === 'first' ? list.slice(0, this.o.max) : list.slice(-this.o.max);
  }
}
