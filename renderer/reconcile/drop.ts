// What a drop on the Reconcile screen names as a source: a path (Electron tells it; a drag from a
// terminal or file manager may carry one as text), else the dropped file itself, which web mode
// uploads to the local engine.
import type { ApiClient } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import { droppedPath, type DropData } from '../ui/drop';

export type SourceDrop = { path: string } | { file: File } | { error: LakerecErrorData } | null;

export function sourceFromDrop(dt: DropData, client: ApiClient): SourceDrop {
  const path = droppedPath(dt, client);
  if (path) return { path };
  if (dt.files.length > 1) return { error: { code: 'usage', message: 'Drop one source file at a time.' } };
  if (dt.files.length === 1) {
    const f = dt.files[0];
    // A dropped folder arrives as a File of size 0 with no type; the browser cannot send a folder.
    if (f.size === 0 && f.type === '' && !/\.[A-Za-z0-9]+$/.test(f.name)) {
      return { error: { code: 'usage', message: `"${f.name}" looks like a folder: the browser cannot send a folder. Type or paste the Delta folder's path instead.` } };
    }
    return { file: f };
  }
  return null;
}
