// A source file dropped anywhere on the window (on the timeline, the history, …) while a table is
// open is the source of truth for that table: the window switches to Reconcile and takes it.
// A folder, or a file of another kind, is left to the window's open-a-table drop.
import { SOURCE_FILE_PATTERN, type ApiClient } from '../../shared/api';
import type { DropData } from '../ui/drop';
import { sourceFromDrop } from './drop';
import { reconcileStoreFor } from '../state/reconcile';

export function routeSourceDrop(dt: DropData, client: ApiClient, showReconcile: () => void): boolean {
  const f = dt.files.length === 1 ? dt.files[0] : null;
  const text = dt.types.includes('text/plain') ? dt.getData('text/plain').trim() : '';
  const named = f?.name ?? text.split(/[\\/]/).pop() ?? '';
  if (!SOURCE_FILE_PATTERN.test(named)) return false;
  const r = sourceFromDrop(dt, client);
  if (!r) return false;
  const store = reconcileStoreFor(client);
  const st = store.getState();
  if ('path' in r) st.setSourcePath(r.path, 'drop');
  else if ('file' in r) void st.uploadSource(r.file);
  else store.setState({ sourceError: r.error });
  showReconcile();
  return true;
}
