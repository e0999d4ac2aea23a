// The workbench screens' side of the service (shared/api.ts): rows, schema, compare, partitions,
// and the contract checked against both sides' columns.
import { existsSync } from 'node:fs';
import type { ApiHandlers, ContractCheck } from '../../shared/api';
import type { DiffResult } from '../../shared/views';
import { assertTableFolder, resolveUserPath } from './paths';
import { maskReconcileResult, schemaSensitivity, sensitivityOf } from '../incident/mask';
import { checkContract } from './screens';
import { openDuck } from '../engine/duck';
import { parseContract } from '../reconcile/contract';
import { openSource, openTarget } from '../reconcile/sides';
import { contractColumnProblems } from '../views/contract-columns';
import { diffVersions } from '../views/diff';
import { partitionHealth } from '../views/partitions';
import { RowsService } from '../views/rows';
import { schemaAt, schemaHistory } from '../views/schema-history';
import type { InvestigationCache } from './investigate';
import type { DeltaTable } from '../delta/table';

/** A comparison as it leaves the engine: confidential values masked, as in every report. */
export async function maskDiff(d: DiffResult, table?: DeltaTable): Promise<DiffResult> {
  return { ...d, result: maskReconcileResult(d.result, sensitivityOf(d.result, await schemaSensitivity(table ?? d.path, d.to))) };
}

export type ViewsMethods = 'rows' | 'schemaAt' | 'schemaHistory' | 'compareVersions' | 'partitionHealth' | 'checkContractColumns';

/**
 * The contract checked as text, then against both sides' columns and key types (every problem,
 * with its line). When a side cannot be read, the text check stands: running says why, in words.
 */
export async function checkContractColumns(text: string, table: string, sourceSpec: string, cwd: string, version?: number): Promise<ContractCheck> {
  const parsed = checkContract(text);
  if (!parsed.ok) return parsed;
  const contract = parseContract(text, 'contract');
  let target;
  try {
    target = await openTarget(table, version);
  } catch {
    // A side that cannot be read is the run's error to report, in words; the text check stands.
    return parsed;
  }
  const duck = await openDuck({ threads: 1, memoryLimit: '512MB' });
  try {
    const src = await openSource(duck.conn, sourceSpec, cwd, contract, target, 'lakerec_contract_src');
    const problems = contractColumnProblems(contract, text, src.rawColumns, target.columns, { sourceTyped: src.kind === 'parquet' || src.kind === 'delta' });
    return { ok: problems.length === 0, problems, summary: parsed.summary };
  } catch {
    return parsed;
  } finally {
    duck.close();
  }
}

/** `tables`: the service's open tables, so schema history and partition health reuse the history the
 *  investigation screens built (the log read once per open table). */
export function createViewsHandlers(o: { cwd: string; tables?: InvestigationCache }): Pick<ApiHandlers, ViewsMethods> {
  const rows = new RowsService();
  const root = async (p: string): Promise<string> => {
    const r = resolveUserPath(p, o.cwd);
    await assertTableFolder(r);
    return r;
  };
  return {
    async rows(req, ctx) {
      const r = await root(req.path);
      return rows.page(r, req, ctx, await o.tables?.table(r, ctx));
    },
    async schemaAt({ path, version }, ctx) {
      const r = await root(path);
      return schemaAt(r, version, ctx, await o.tables?.table(r, ctx));
    },
    async schemaHistory({ path }, ctx) {
      const r = await root(path);
      return schemaHistory(r, ctx, await o.tables?.table(r, ctx));
    },
    async compareVersions(req, ctx) {
      const r = await root(req.path);
      const table = await o.tables?.table(r, ctx);
      return maskDiff(await diffVersions(r, { from: req.from, to: req.to, ...(req.keys?.length ? { keys: req.keys } : {}), ctx, ...(table ? { table } : {}) }), table);
    },
    async checkContractColumns({ text, table, source, version }) {
      const at = /^(.*)@(\d+)$/.exec(source);
      const src = at && !existsSync(source) ? `${resolveUserPath(at[1], o.cwd)}@${at[2]}` : resolveUserPath(source, o.cwd);
      return checkContractColumns(text, await root(table), src, o.cwd, version);
    },
    async partitionHealth({ path, smallFileBytes }, ctx) {
      const r = await root(path);
      return partitionHealth(r, smallFileBytes !== undefined ? { smallFileBytes } : {}, ctx, await o.tables?.table(r, ctx));
    },
  };
}
