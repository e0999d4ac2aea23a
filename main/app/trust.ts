// The Trust tab's engine side: mutation score, keys, laws for the open table, the chosen source and
// the contract being edited. Each a job (progress, cancel); a mutation run is kept in the run history.
import type { ApiHandlers, JobProgress, TrustRequest } from '../../shared/api';
import { toErrorData } from '../../shared/errors';
import type { JobContext } from '../../shared/jobs';
import { parseContract } from '../reconcile/contract';
import { recordRun } from '../runs/store';
import { checkLaws } from '../trust/laws';
import { verifyKeys } from '../trust/keys';
import { runMutation } from '../trust/mutate';
import { assertTableFolder, resolveUserPath, tableName } from './paths';
import type { IncidentTrust } from '../incident/report';

export type TrustMethods = 'mutationScore' | 'verifyKeys' | 'checkLaws';

/** The latest Trust results per table, for that table's incident report (a few tables at most). */
export class TrustResults {
  private readonly byTable = new Map<string, IncidentTrust>();
  get(table: string): IncidentTrust | null {
    return this.byTable.get(table) ?? null;
  }
  put(table: string, patch: IncidentTrust): void {
    // Read before the delete (the delete only moves the table to the newest place).
    const merged = { ...this.byTable.get(table), ...patch };
    this.byTable.delete(table);
    this.byTable.set(table, merged);
    while (this.byTable.size > 4) this.byTable.delete(this.byTable.keys().next().value as string);
  }
}

export function createTrustHandlers(o: { runsDir: string; cwd: string; log?: (line: string) => void; results?: TrustResults }): Pick<ApiHandlers, TrustMethods> {
  const sides = async (req: TrustRequest) => {
    const table = resolveUserPath(req.table, o.cwd);
    await assertTableFolder(table);
    const at = /^(.*)@(\d+)$/.exec(req.source);
    const source = at ? `${resolveUserPath(at[1], o.cwd)}@${at[2]}` : resolveUserPath(req.source, o.cwd);
    return { table, source, contract: parseContract(req.contract, 'contract') };
  };
  return {
    async mutationScore(req, ctx: JobContext) {
      const startedAt = new Date().toISOString();
      const { table, source, contract } = await sides(req);
      const title = `${tableName(table)}: mutation score`;
      const record = async (status: string, summary: unknown): Promise<string | null> => {
        try {
          return (await recordRun(o.runsDir, { kind: 'mutate', status, title, startedAt, summary })).id;
        } catch (e) {
          o.log?.(`the run was not recorded in the run history: ${toErrorData(e).message}`);
          return null;
        }
      };
      try {
        const result = await runMutation({
          source, table, contract, cwd: o.cwd, ...(req.version !== undefined ? { version: req.version } : {}),
          ...(req.levels ? { levels: req.levels } : {}), ...(req.only ? { only: req.only } : {}), ...(req.seed !== undefined ? { seed: req.seed } : {}),
          ctx: { signal: ctx.signal, progress: (p) => ctx.progress?.(p) },
          onMutant: (mutant, index, total) => {
            const p: JobProgress<'mutationScore'> = { phase: 'mutation testing', done: index + 1, total, message: mutant.corruption, data: { kind: 'mutant', index, total, mutant } };
            ctx.progress?.(p);
          },
        });
        o.results?.put(table, { mutation: result });
        const runId = await record(result.overall.survived > 0 ? 'survivors' : 'pass', result);
        return { runId, result };
      } catch (e) {
        await record(toErrorData(e).code === 'cancelled' ? 'cancelled' : 'error', { table, source, error: toErrorData(e) });
        throw e;
      }
    },
    async verifyKeys(req, ctx) {
      const { table, source, contract } = await sides(req);
      const r = await verifyKeys({ table, source, contract, cwd: o.cwd, ...(req.version !== undefined ? { version: req.version } : {}), ctx });
      o.results?.put(table, { keys: r });
      return r;
    },
    async checkLaws(req, ctx) {
      const { table, source, contract } = await sides(req);
      const r = await checkLaws({ table, source, contract, cwd: o.cwd, ...(req.version !== undefined ? { version: req.version } : {}), ctx });
      o.results?.put(table, { laws: r });
      return r;
    },
  };
}
