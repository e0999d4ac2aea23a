// What a drop on the window names. Electron tells the real path of a dropped folder; a browser
// does not, but a drag from a file manager or a terminal often carries a file:// URI or a path
// as text, and that is enough.
import type { ApiClient } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';

export type DropResult = { path: string } | { error: LakerecErrorData } | null;

/** The minimal part of DataTransfer we read (a real DataTransfer in the page, a stub in tests). */
export interface DropData {
  files: ArrayLike<File>;
  getData(format: string): string;
  types: readonly string[];
}

/** The path a drop names, if any: a dropped file's real path (Electron), a file:// URI, or a path as text. */
export function droppedPath(dt: DropData, client: ApiClient): string | null {
  for (let i = 0; i < dt.files.length; i++) {
    const p = client.pathForDroppedFile(dt.files[i]);
    if (p) return p;
  }
  const uris = dt.types.includes('text/uri-list') ? dt.getData('text/uri-list') : '';
  for (const line of uris.split(/\r?\n/)) {
    const l = line.trim();
    if (l.startsWith('file://')) return l;
  }
  const text = dt.types.includes('text/plain') ? dt.getData('text/plain').trim() : '';
  if (text && !text.includes('\n') && (text.startsWith('/') || text.startsWith('~/') || text.startsWith('file://') || /^[A-Za-z]:[\\/]/.test(text))) {
    return text;
  }
  return null;
}

export function pathFromDrop(dt: DropData, client: ApiClient): DropResult {
  const path = droppedPath(dt, client);
  if (path) return { path };
  if (dt.files.length > 0) {
    const name = dt.files[0].name;
    return {
      error: {
        code: 'usage',
        message: `The browser does not tell the workbench where "${name}" is on disk. Paste the folder's full path into the field, or drag it from a file manager that shares paths.`,
      },
    };
  }
  return null;
}
