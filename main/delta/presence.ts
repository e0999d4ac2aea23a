// Whether a table's data files still exist: one meaning, one function, for every caller (forensics'
// data_files_missing, bisect's unreadable versions, the timeline's "data files exist"). A file is
// present when its store's listing of the file's folder holds it (the store's own list(): regular
// files on disk, objects under the prefix remotely); each folder is listed once, so 300,000 files
// in 100 partition folders cost 100 listings, on disk or on S3. A file outside the table root is
// not checked unless outside paths are allowed (then one stat): its presence is `null`, unknown.
import type { Storage } from '../storage';
import { storageOf } from '../storage';
import { LakerecError } from '../../shared/errors';
import type { FileEntry, History } from './history';

export type Presence = (f: Pick<FileEntry, 'path' | 'outside'>) => Promise<boolean | null>;

/** A presence checker over a store (listings cached for the checker's life). */
export function presenceOf(storage: Storage): Presence {
  const listings = new Map<string, Promise<Set<string> | null>>();
  const listed = (dir: string): Promise<Set<string> | null> => {
    let p = listings.get(dir);
    if (!p) {
      p = storage.list(dir).then((l) => (l ? new Set(l.map((m) => m.path)) : null), () => null);
      listings.set(dir, p);
    }
    return p;
  };
  return async (f) => {
    if (f.outside) {
      // An outside file's path is the absolute path or URL the log names: the store stats it, or refuses.
      if (!storage.allowOutsidePaths) return null;
      try { return (await storage.stat(f.path)) !== null; } catch { return null; }
    }
    const slash = f.path.lastIndexOf('/');
    const names = await listed(slash < 0 ? '' : f.path.slice(0, slash));
    return names !== null && names.has(f.path);
  };
}

/** The presence checker for the store a history was read from. */
export function historyPresence(h: History): Presence {
  const s = storageOf(h);
  if (!s) throw new LakerecError('internal', `the history of ${h.root} was not read through a store, so its files cannot be checked`);
  return presenceOf(s);
}

/** Presence of many entries (by id), a few listings in flight at a time. */
export async function presenceById(h: History, files: FileEntry[]): Promise<Map<number, boolean | null>> {
  const check = historyPresence(h);
  const out = new Map<number, boolean | null>();
  for (const f of files) if (!out.has(f.id)) out.set(f.id, await check(f));
  return out;
}
