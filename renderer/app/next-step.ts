// From a finding to the next step: "Bisect this" opens the Bisect tab with the predicate and its
// arguments filled in (the keys from the contract beside the table when there is one).
import { useCallback } from 'react';
import type { ApiClient } from '../../shared/api';
import { bisectForFinding } from '../../shared/views';
import { bisectStoreFor } from '../state/bisect';
import { useClient, useWorkbench } from '../state/context';
import { useNav } from './nav';

/** The keys of the contract beside the table (not a template's guess), or null. */
export async function contractKeys(client: ApiClient, path: string): Promise<string[] | null> {
  try {
    const c = await client.invoke('defaultContract', { path });
    if (c.origin !== 'file') return null;
    return (await client.invoke('validateContract', { text: c.text })).summary?.keys ?? null;
  } catch {
    return null;
  }
}

/** Whether a finding has a bisect to offer. */
export function canBisect(name: string): boolean {
  return bisectForFinding(name, {}, null) !== null;
}

/** `bisectThis(name, evidence, keys?)`: fill the Bisect form for that finding and open the tab. */
export function useBisectThis(): (name: string, evidence: Record<string, unknown>, keys?: string[] | null) => Promise<void> {
  const client = useClient();
  const path = useWorkbench((s) => s.table?.summary?.path ?? null);
  return useCallback(async (name, evidence, keys) => {
    const known = keys && keys.length ? keys : path ? await contractKeys(client, path) : null;
    const spec = bisectForFinding(name, evidence, known);
    if (!spec) return;
    const bisect = bisectStoreFor(client).getState();
    bisect.reset();
    bisect.setForm({
      predicate: spec.predicate,
      keys: spec.keys?.join(', ') ?? '',
      expect: spec.expect !== undefined ? String(spec.expect) : '',
      partition: spec.partition ?? '',
      source: spec.source ?? '',
    });
    useNav.getState().setScreen('bisect');
  }, [client, path]);
}
