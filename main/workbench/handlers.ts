// The workbench screens' side of the service (shared/api.ts): rows, schema, compare, partitions.
import type { ApiHandlers } from '../../shared/api';
import { assertTableFolder, resolveUserPath } from '../app/paths';
import { diffVersions } from './diff';
import { partitionHealth } from './partitions';
import { RowsService } from './rows';
import { schemaAt, schemaHistory } from './schema-history';

export type WorkbenchMethods = 'rows' | 'schemaAt' | 'schemaHistory' | 'compareVersions' | 'partitionHealth';

export function createWorkbenchHandlers(o: { cwd: string }): Pick<ApiHandlers, WorkbenchMethods> {
  const rows = new RowsService();
  const root = async (p: string): Promise<string> => {
    const r = resolveUserPath(p, o.cwd);
    await assertTableFolder(r);
    return r;
  };
  return {
    async rows(req, ctx) {
      return rows.page(await root(req.path), req, ctx);
    },
    async schemaAt({ path, version }, ctx) {
      return schemaAt(await root(path), version, ctx);
    },
    async schemaHistory({ path }, ctx) {
      return schemaHistory(await root(path), ctx);
    },
    async compareVersions(req, ctx) {
      const d = await diffVersions(await root(req.path), { from: req.from, to: req.to, ...(req.keys?.length ? { keys: req.keys } : {}), ctx });
      return d;
    },
    async partitionHealth({ path, smallFileBytes }, ctx) {
      return partitionHealth(await root(path), smallFileBytes !== undefined ? { smallFileBytes } : {}, ctx);
    },
  };
}
