// The Data tab's state: which version (or which commit's added rows) the grid shows, its sort and
// filters, the pages read so far, and the errors: a filter that does not pass leaves the grid as
// it was and says why under the box; a version that cannot be read replaces the grid with which and why.
import { createStore } from 'zustand/vanilla';
import type { ApiClient } from '../../shared/api';
import type { LakerecErrorData } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import type { GridColumn, RowsRequest, SortDirection } from '../../shared/views';
import { useClientStore } from '../state/context';
import { createJob, perClient } from '../state/job';

export const PAGE_ROWS = 200;

export interface GridQuery {
  version: number | null;
  addedIn: number | null;
  sort: { column: string; direction: SortDirection } | null;
  equals: { column: string; value: string | null }[];
  where: string;
}

export interface DataState {
  path: string | null;
  query: GridQuery;
  /** The query asked for and not answered yet (a second click builds on it, not on the shown one). */
  pending: GridQuery | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  progress: Progress | null;
  /** The version could not be read (the grid says which and why). */
  error: LakerecErrorData | null;
  /** The last filter or sort refused: shown under the box, the grid unchanged. */
  filterError: LakerecErrorData | null;
  version: number | null;
  columns: GridColumn[];
  hidden: string[];
  matchingRows: number;
  totalRows: number;
  files: number;
  /** Files of the view with a deletion vector (0: none to apply). */
  deletionVectorFiles: number;
  where: string | null;
  elapsedMs: number | null;
  /** Pages read, by page index (PAGE_ROWS rows each). */
  pages: Record<number, (string | null)[][]>;

  /** Open the grid on a table at a version (null: latest), optionally only the rows a commit added. */
  open(path: string, version: number | null, addedIn?: number | null): Promise<void>;
  /** Apply a new sort or filter: the grid changes only when the engine accepts it. */
  apply(change: Partial<Pick<GridQuery, 'sort' | 'equals' | 'where'>>): Promise<void>;
  /** Make sure the page holding row `index` is read. */
  need(index: number): void;
  toggleColumn(name: string): void;
  cancel(): void;
}

const empty: GridQuery = { version: null, addedIn: null, sort: null, equals: [], where: '' };

function request(path: string, q: GridQuery, page: number): RowsRequest {
  return {
    path,
    ...(q.version !== null ? { version: q.version } : {}),
    ...(q.addedIn !== null ? { addedIn: q.addedIn } : {}),
    offset: page * PAGE_ROWS,
    limit: PAGE_ROWS,
    ...(q.sort ? { sort: q.sort } : {}),
    ...(q.equals.length ? { equals: q.equals } : {}),
    ...(q.where.trim() ? { where: q.where } : {}),
  };
}

export function createDataStore(client: ApiClient) {
  const first = createJob();
  const inflight = new Set<string>();
  let generation = 0;
  return createStore<DataState>()((set, get) => {
    /** Reads page 0 for `q`: on success the grid becomes `q`'s; on a refused filter it stays. */
    const load = async (path: string, q: GridQuery, fresh: boolean) => {
      // While it runs the grid keeps what it shows (the view draws columns when it has them).
      set({ status: 'loading', progress: null, ...(fresh ? { error: null, filterError: null } : {}) });
      await first.run(({ signal, onProgress }) => client.invoke('rows', request(path, q, 0), { signal, onProgress }), {
        progress: (progress) => set({ progress }),
        done: (p) => {
          generation++;
          set({ pending: null });
          inflight.clear();
          set({
            path, query: { ...q, version: p.version }, status: 'ready', progress: null, error: null, filterError: null,
            version: p.version, columns: p.columns, matchingRows: p.matchingRows, totalRows: p.totalRows, files: p.files, deletionVectorFiles: p.deletionVectorFiles,
            where: p.where, elapsedMs: p.elapsedMs, pages: { 0: p.rows },
            hidden: fresh ? [] : get().hidden.filter((h) => p.columns.some((c) => c.name === h)),
          });
        },
        error: (e) => {
          set({ pending: null });
          // A refused filter or sort: the message under the box, the rows that were there stay.
          const field = e.detail?.field;
          if (!fresh && e.code === 'usage' && (field === 'where' || field === 'equals' || field === 'sort')) {
            set({ status: get().columns.length ? 'ready' : 'error', progress: null, filterError: e });
          } else if (e.code === 'cancelled') {
            set({ status: get().columns.length ? 'ready' : 'idle', progress: null });
          } else {
            set({ status: 'error', progress: null, error: e, columns: [], pages: {}, version: q.version });
          }
        },
      });
    };
    return {
      path: null,
      query: empty,
      pending: null,
      status: 'idle',
      progress: null,
      error: null,
      filterError: null,
      version: null,
      columns: [],
      hidden: [],
      matchingRows: 0,
      totalRows: 0,
      files: 0,
      deletionVectorFiles: 0,
      where: null,
      elapsedMs: null,
      pages: {},

      async open(path, version, addedIn = null) {
        const q: GridQuery = { ...empty, version, addedIn: addedIn ?? null };
        set({ path, query: q, pending: null, columns: [], pages: {}, hidden: [] });
        await load(path, q, true);
      },

      async apply(change) {
        const path = get().path;
        if (!path) return;
        const next = { ...(get().pending ?? get().query), ...change };
        set({ pending: next });
        await load(path, next, false);
      },

      need(index) {
        const { path, query, pages, status } = get();
        if (!path || status !== 'ready') return;
        const page = Math.floor(index / PAGE_ROWS);
        if (pages[page]) return;
        const key = `${generation}:${page}`;
        if (inflight.has(key)) return;
        inflight.add(key);
        const gen = generation;
        void client.invoke('rows', request(path, query, page)).then(
          (p) => {
            if (gen !== generation) return;
            set({ pages: { ...get().pages, [page]: p.rows } });
          },
          () => inflight.delete(key),
        );
      },

      toggleColumn(name) {
        const hidden = get().hidden;
        set({ hidden: hidden.includes(name) ? hidden.filter((h) => h !== name) : [...hidden, name] });
      },

      cancel() {
        first.cancel();
      },
    };
  });
}

export const dataStoreFor = perClient(createDataStore);

export function useData<T>(selector: (s: DataState) => T): T {
  return useClientStore(dataStoreFor, selector);
}
