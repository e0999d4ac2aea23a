import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../shared/api';
import type { DropData } from '../ui/drop';
import { sourceFromDrop } from './drop';
import { routeSourceDrop } from './route-drop';
import { reconcileStoreFor } from '../state/reconcile';

const web: ApiClient = {
  invoke: () => Promise.reject(new Error('unused')),
  pathForDroppedFile: () => null,
  uploadFile: (f) => Promise.resolve({ path: `/sandbox/u-1/${f.name}` }),
};
const desktop: ApiClient = { ...web, pathForDroppedFile: () => '/data/orders.parquet' };
const drop = (types: Record<string, string>, files: File[] = []): DropData => ({
  files,
  types: Object.keys(types),
  getData: (f) => types[f] ?? '',
});
const file = (name: string, bytes = 'x', type = 'application/octet-stream') => new File([bytes], name, { type });

describe('sourceFromDrop', () => {
  it('takes the real path where the transport knows it (Electron)', () => {
    expect(sourceFromDrop(drop({}, [file('orders.parquet')]), desktop)).toEqual({ path: '/data/orders.parquet' });
  });
  it('takes a path carried as text, else the file itself (web mode uploads it)', () => {
    expect(sourceFromDrop(drop({ 'text/uri-list': 'file:///data/o.csv' }), web)).toEqual({ path: 'file:///data/o.csv' });
    const f = file('orders.csv');
    expect(sourceFromDrop(drop({}, [f]), web)).toEqual({ file: f });
  });
  it('refuses two files and a folder a browser cannot send', () => {
    const two = sourceFromDrop(drop({}, [file('a.csv'), file('b.csv')]), web);
    expect(two && 'error' in two && two.error.message).toMatch(/one source file/);
    const folder = sourceFromDrop(drop({}, [file('orders_folder', '', '')]), web);
    expect(folder && 'error' in folder && folder.error.message).toMatch(/looks like a folder/);
  });
});

describe('routeSourceDrop', () => {
  it('sends a source file to Reconcile and leaves folders to the window', async () => {
    let shown = 0;
    expect(routeSourceDrop(drop({}, [file('orders')]), web, () => shown++)).toBe(false);
    expect(routeSourceDrop(drop({ 'text/plain': '/data/table' }), web, () => shown++)).toBe(false);
    expect(routeSourceDrop(drop({}, [file('orders.parquet')]), web, () => shown++)).toBe(true);
    expect(shown).toBe(1);
    const store = reconcileStoreFor(web);
    await expect.poll(() => store.getState().source).toEqual({ path: '/sandbox/u-1/orders.parquet', label: 'orders.parquet', via: 'upload' });
  });
});
