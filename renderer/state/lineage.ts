// The Lineage tab's state (one per client): the dbt project attached to the open table, the model
// that writes it, the verification run (progress, cancel, result) and the chosen model and column.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiClient, JobProgress } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { LineageAttachment, LineageRun } from '../../shared/lineage';
import { useClientStore } from './context';
import { createJob, errorOf, perClient, type JobStatus } from './job';

export interface LineageState {
  table: string | null;
  attachment: LineageAttachment | null;
  attachmentError: LakerecErrorData | null;
  status: JobStatus;
  progress: JobProgress<'verifyLineage'> | null;
  run: LineageRun | null;
  error: LakerecErrorData | null;
  /** The model shown in the column panel (null: the table's model). */
  model: string | null;
  column: string | null;
  load(table: string): Promise<void>;
  attach(table: string, project: string | null, model: string | null): Promise<void>;
  verify(): Promise<void>;
  cancel(): void;
  pickModel(model: string): void;
  pickColumn(column: string | null): void;
}

export function createLineageStore(client: ApiClient): StoreApi<LineageState> {
  const job = createJob<JobProgress<'verifyLineage'>>();
  return createStore<LineageState>()((set, get) => ({
    table: null,
    attachment: null,
    attachmentError: null,
    status: 'idle',
    progress: null,
    run: null,
    error: null,
    model: null,
    column: null,

    async load(table) {
      if (get().table !== table) {
        job.drop();
        set({ table, attachment: null, attachmentError: null, status: 'idle', run: null, error: null, model: null, column: null, progress: null });
      }
      try {
        const attachment = await client.invoke('lineageAttachment', { table });
        if (get().table === table) set({ attachment, attachmentError: null });
      } catch (e) {
        if (get().table === table) set({ attachmentError: errorOf(e) });
      }
    },

    async attach(table, project, model) {
      try {
        const attachment = await client.invoke('attachLineage', { table, project, model });
        set({ attachment, attachmentError: null, run: null, status: 'idle', error: null, model: null, column: null });
      } catch (e) {
        set({ attachmentError: errorOf(e) });
      }
    },

    async verify() {
      const table = get().table;
      if (!table) return;
      set({ status: 'running', progress: null, error: null });
      await job.run(({ signal, onProgress }) => client.invoke('verifyLineage', { table }, { signal, onProgress }), {
        progress: (p) => set({ progress: p }),
        done: (run) => set({ status: 'done', run, attachment: run.attachment, progress: null, model: get().model ?? run.attachment.tableModel }),
        error: (error) => set({ status: 'error', error, progress: null }),
      });
    },

    cancel() { job.cancel(); },
    pickModel: (model) => set({ model, column: null }),
    pickColumn: (column) => set({ column }),
  }));
}

export const lineageStoreFor = perClient(createLineageStore);

export function useLineage<T>(selector: (s: LineageState) => T): T {
  return useClientStore(lineageStoreFor, selector);
}
