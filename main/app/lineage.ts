// The Lineage tab's engine side: a dbt project (or DuckDB file) attached to a table, a setting per
// table kept in the app-data folder (lineage-projects.json), the model that writes the table, and
// the project's lineage verified by perturbation (a job) for the tab and the commit panel.
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { JsonListFile } from '../engine/json-list';
import type { ApiHandlers } from '../../shared/api';
import { LakerecError, toErrorData } from '../../shared/errors';
import type { LineageAttachment } from '../../shared/lineage';
import { listModels, modelForTable } from '../lineage/attach';
import { verifyLineage } from '../lineage/verify';
import { resolveUserPath } from './paths';

export type LineageMethods = 'lineageAttachment' | 'attachLineage' | 'verifyLineage';
export const LINEAGE_PROJECTS_FILE = 'lineage-projects.json';
const MAX_ENTRIES = 500;

interface Entry { table: string; project: string; model: string | null }

const real = (p: string): string => { try { return realpathSync(p); } catch { return resolve(p); } };

/** The per-table settings: which project is attached to which table, and its model. */
export class LineageProjects {
  private readonly store: JsonListFile<Entry>;
  constructor(userDataDir: string, warn?: (line: string) => void) {
    this.store = new JsonListFile<Entry>({
      file: join(userDataDir, LINEAGE_PROJECTS_FILE), what: 'the lineage settings', max: MAX_ENTRIES, keep: 'last', mode: 0o600,
      isEntry: (v): v is Entry => {
        const e = v as Entry | null;
        return typeof e?.table === 'string' && typeof e?.project === 'string' && (e.model === null || typeof e.model === 'string');
      },
      ...(warn ? { warn } : {}),
    });
  }
  get(table: string): Entry | null {
    const t = real(table);
    return this.store.read().find((e) => e.table === t) ?? null;
  }
  set(table: string, project: string | null, model: string | null): void {
    const t = real(table);
    this.store.update((list) => [...list.filter((e) => e.table !== t), ...(project !== null ? [{ table: t, project, model }] : [])]);
  }
}

export function createLineageHandlers(o: { userDataDir: string; cwd: string }): Pick<ApiHandlers, LineageMethods> {
  const settings = new LineageProjects(o.userDataDir);
  const attachment = async (tableIn: string): Promise<LineageAttachment> => {
    const table = resolveUserPath(tableIn, o.cwd);
    const e = settings.get(table);
    const none: LineageAttachment = { table, project: null, model: null, tableModel: null, foundBy: null, models: [], problem: null };
    if (!e) return none;
    const base = { ...none, project: e.project, model: e.model };
    try {
      const models = await listModels(e.project);
      const found = modelForTable(models, table, e.model);
      return {
        ...base, models: models.map((m) => m.name), tableModel: found?.model ?? null, foundBy: found?.foundBy ?? null,
        problem: found ? null : 'no model of the project writes this table: none is configured with its location or named as its folder; pick one',
      };
    } catch (err) {
      return { ...base, problem: toErrorData(err).message };
    }
  };
  return {
    lineageAttachment: async (req) => attachment(req.table),
    async attachLineage(req) {
      const table = resolveUserPath(req.table, o.cwd);
      const project = req.project === null ? null : resolveUserPath(req.project, o.cwd);
      if (project !== null) {
        // Refused before it is kept: a path that is no project, or a model it does not have.
        const models = await listModels(project);
        if (req.model !== null && !models.some((m) => m.name === req.model)) throw new LakerecError('usage', `the project has no model named ${req.model}`);
      }
      settings.set(table, project, req.model);
      return attachment(table);
    },
    async verifyLineage(req, ctx) {
      const a = await attachment(req.table);
      if (a.project === null) throw new LakerecError('usage', 'no dbt project is attached to this table');
      if (a.problem !== null && a.models.length === 0) throw new LakerecError('usage', a.problem);
      const result = await verifyLineage({
        project: a.project, ...(req.rows !== undefined ? { rows: req.rows } : {}), ...(req.seed !== undefined ? { seed: req.seed } : {}),
        ctx: { signal: ctx.signal, progress: (p) => ctx.progress?.(p) },
      });
      return { attachment: a, result };
    },
  };
}
