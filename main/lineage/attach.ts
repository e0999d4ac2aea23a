// A dbt project (or DuckDB file) attached to a Delta table: which of its models writes the table.
// Found, in order, by the model the user set for the table, by a model whose configured location
// is the table's folder, or by a model named as the table's folder.
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { openDuck, sqlString, wrapDuckError } from '../engine/duck';
import { isDbtProject, loadDbtProject } from './dbt';

export interface ProjectModel { name: string; location: string | null }

/** The models of a dbt project, or the views of a DuckDB file, with their configured locations. */
export async function listModels(project: string): Promise<ProjectModel[]> {
  const root = resolve(project);
  let st;
  try { st = statSync(root); } catch { throw new LakerecError('not_found', `no such project: ${project}`); }
  if (st.isDirectory() && isDbtProject(root)) return loadDbtProject(root).models.map((m) => ({ name: m.name, location: m.location }));
  if (st.isFile()) {
    const duck = await openDuck({ threads: 1 });
    try {
      try { await duck.conn.run(`ATTACH ${sqlString(root)} AS lr_src (READ_ONLY)`); } catch (e) { throw wrapDuckError(e, `cannot open ${root} read-only`, 'source_unreadable'); }
      await duck.restrict({ files: [root] });
      const rows = (await duck.conn.runAndReadAll("SELECT view_name FROM duckdb_views() WHERE database_name = 'lr_src' AND schema_name = 'main' AND NOT internal ORDER BY view_name")).getRows();
      return rows.map((r) => ({ name: String(r[0]), location: null }));
    } finally { duck.close(); }
  }
  throw new LakerecError('usage', `${project} is neither a dbt project (a folder with dbt_project.yml) nor a DuckDB file`);
}

const real = (p: string): string => { try { return realpathSync(p); } catch { return resolve(p); } };

/** The model that writes `table`, and how it was found; null when none matches. */
export function modelForTable(models: ProjectModel[], table: string, setting: string | null): { model: string; foundBy: 'setting' | 'location' | 'name' } | null {
  if (setting !== null) {
    if (!models.some((m) => m.name === setting)) throw new LakerecError('usage', `the project has no model named ${setting}`);
    return { model: setting, foundBy: 'setting' };
  }
  const t = real(table);
  const byLocation = models.find((m) => m.location !== null && real(m.location) === t);
  if (byLocation) return { model: byLocation.name, foundBy: 'location' };
  // A sample lake keeps its table in `<lake>/table`: the lake's name is the table's.
  const names = [basename(t), ...(basename(t) === 'table' ? [basename(dirname(t))] : [])].map((n) => n.toLowerCase());
  const byName = models.find((m) => names.includes(m.name.toLowerCase()));
  return byName ? { model: byName.name, foundBy: 'name' } : null;
}
