// The Partitions tab's state: partition health over every version (from the log), the version
// whose partitions the table shows, and the small-file threshold.
import { createStore } from 'zustand/vanilla';
import type { ApiClient } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import { DEFAULT_SMALL_FILE_BYTES, type PartitionHealth } from '../../shared/views';
import { useClientStore } from '../state/context';
import { createJob, perClient } from '../state/job';

export interface PartitionsState {
  path: string | null;
  smallFileBytes: number;
  health: PartitionHealth | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  progress: Progress | null;
  error: LakerecErrorData | null;
  selected: number | null;
  load(path: string, smallFileBytes?: number): Promise<void>;
  select(version: number): void;
  cancel(): void;
}

export function createPartitionsStore(client: ApiClient) {
  const job = createJob();
  return createStore<PartitionsState>()((set, get) => ({
    path: null,
    smallFileBytes: DEFAULT_SMALL_FILE_BYTES,
    health: null,
    status: 'idle',
    progress: null,
    error: null,
    selected: null,

    async load(path, smallFileBytes) {
      const small = smallFileBytes ?? get().smallFileBytes;
      const keep = get().path === path ? get().selected : null;
      set({ path, smallFileBytes: small, status: 'loading', progress: null, error: null });
      await job.run(({ signal, onProgress }) => client.invoke('partitionHealth', { path, smallFileBytes: small }, { signal, onProgress }), {
        progress: (progress) => set({ progress }),
        done: (health) => set({
          health, status: 'ready', progress: null,
          selected: keep ?? (health.versions.length ? health.versions[health.versions.length - 1].version : null),
        }),
        error: (error) => set({ status: 'error', error, progress: null }),
      });
    },

    select(version) {
      set({ selected: version });
    },

    cancel() {
      job.cancel();
    },
  }));
}

export const partitionsStoreFor = perClient(createPartitionsStore);

export function usePartitions<T>(selector: (s: PartitionsState) => T): T {
  return useClientStore(partitionsStoreFor, selector);
}
