import { createContext, useContext } from 'react';
import { useStore, type StoreApi } from 'zustand';
import type { ApiClient, SampleTable } from '../../shared/api';
import type { WindowState } from './store';

export interface Workbench {
  store: StoreApi<WindowState>;
  client: ApiClient;
}

export const WorkbenchContext = createContext<Workbench | null>(null);

function useWorkbenchContext(): Workbench {
  const wb = useContext(WorkbenchContext);
  if (!wb) throw new Error('WorkbenchContext is missing');
  return wb;
}

export function useWorkbench<T>(selector: (s: WindowState) => T): T {
  return useStore(useWorkbenchContext().store, selector);
}

export function useClient(): ApiClient {
  return useWorkbenchContext().client;
}

/** A selector over one of this window's screen stores (made per client by `perClient`). */
export function useClientStore<S, T>(storeFor: (client: ApiClient) => StoreApi<S>, selector: (s: S) => T): T {
  return useStore(storeFor(useClient()), selector);
}

/** A stable empty list: a selector must not return a new array on every call. */
export const NO_SAMPLES: SampleTable[] = [];
