// The reconcile, report, proof and run-history screens' side of the service (shared/api.ts):
// contracts checked line by line, reconcile as a job, the incident report, the round-trip proof
// with each step pushed as it runs, and the local run history every run is recorded in.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { ensureOutputDir } from '../engine/outputs';
import { basename, join } from 'node:path';
import type {
  ApiHandlers, ContractCheck, ContractText, JobProgress, ReconcileRequest,
} from '../../shared/api';
import { LakerecError, toErrorData } from '../../shared/errors';
import type { BisectResult, PredicateSpec } from '../../shared/bisect';
import type { JobContext } from '../../shared/jobs';
import type { ProofStep, RunKind } from '../../shared/proof';
import type { ReconcileResult } from '../../shared/reconcile';
import type { Sensitivity } from '../../shared/sensitivity';
import { DeltaTable } from '../delta/table';
import { engineByName, engineChoices } from '../proof/engines';
import { runProof } from '../proof/run';
import { postToDagster } from '../proof/dagster';
import { ProofQueue } from '../proof/one-at-a-time';
import { readProofSettings, SETTINGS_FILE, writeProofSettings } from '../proof/settings';
import { ContractInvalid, contractSummary, parseContract, readContractFile, type Contract } from '../reconcile/contract';
import { listConnections, localSide, warehouseSide } from '../warehouse/sides';
import { pushedReconcile } from '../warehouse/result';
import type { WarehouseSide } from '../warehouse/reconcile';
import { AcceptedContracts, sha256Of } from './contract-trust';
import { reconcile } from '../reconcile/reconcile';
import { defaultDataDir, getRun, listRuns, recordRun, type RunInput } from '../runs/store';
import { contractFileFor } from '../views/contract-file';
import { assertTableFolder, resolveUserPath, tableName } from './paths';
import { withProvenance } from '../trust/provenance';
import { checkLaws } from '../trust/laws';
import { uploadedFile } from './uploads';
import { contractTemplate } from '../views/contract-template';
import { levelIndex } from '../../shared/reconcile';
import {
  composeIncident, incidentFileName, incidentSections, renderIncidentHtml, type IncidentTrust,
} from '../incident/report';
import { maskReconcileResult, schemaSensitivity, sensitivityOf } from '../incident/mask';

export type ScreenMethods =
  | 'pickSource' | 'validateContract' | 'defaultContract' | 'acceptContract' | 'reconcile' | 'warehouseConnections' | 'exportReport'
  | 'proofEngines' | 'runProof' | 'proofSettings' | 'setProofMode' | 'listRuns' | 'getRun';

export interface ScreenServiceOptions {
  /** The run history's folder (a DuckDB file in it). */
  runsDir: string;
  /** The app-data folder (accepted contracts are remembered there; default runsDir). */
  userDataDir?: string;
  cwd: string;
  toolVersion: string;
  /** Electron: the native open dialog for a source file. */
  pickSource?: () => Promise<string | null>;
  /**
   * Electron: the native save dialog; writes `content` and returns where, or null when cancelled.
   * A path inside one of `tableRoots` is refused (the workbench never writes into a table).
   */
  saveFile?: (defaultName: string, content: string, tableRoots: string[]) => Promise<string | null>;
  /** The Trust tab's latest results for a table (mutation score, keys, laws), shown in its incident report. */
  trustFor?: (table: string) => IncidentTrust | null;
  /** The open tables the investigation keeps (one log read per table for every screen). */
  tables?: { table(root: string, ctx: JobContext): Promise<DeltaTable> };
}

interface KeptResult {
  result: ReconcileResult;
  table: string;
  source: string;
  contractText: string;
}

/**
 * Where the window keeps its run history: the folder the CLI records in too (`defaultDataDir`:
 * LAKEREC_DATA_DIR, else the app-data folder), so `lakerec proof` runs are listed in the window;
 * a user-data folder chosen explicitly (tests, a second profile) keeps its own.
 */
export function runHistoryDir(explicitUserData: string | null, env: Record<string, string | undefined> = process.env): string {
  return explicitUserData ?? defaultDataDir(env);
}

/** Records a run; a history that cannot be written never fails the run itself (null id). */
export async function recordRunQuietly(dir: string, input: RunInput, log: (line: string) => void = () => {}): Promise<string | null> {
  try {
    return (await recordRun(dir, input)).id;
  } catch (e) {
    log(`the run was not recorded in the run history: ${toErrorData(e).message}`);
    return null;
  }
}

/**
 * Runs a bisect and records it in the run history (the bisect screen's calls go through this in
 * the service, so every kind of run is kept the same way).
 */
export async function recordedBisect(runsDir: string, root: string, spec: PredicateSpec, run: () => Promise<BisectResult>, log: (line: string) => void = () => {}): Promise<BisectResult> {
  const startedAt = new Date().toISOString();
  const title = `${tableName(root)}: ${spec.predicate}${spec.keys ? ` (${spec.keys.join(', ')})` : ''}${spec.partition ? ` ${spec.partition}` : ''}`;
  try {
    const r = await run();
    await recordRunQuietly(runsDir, {
      kind: 'bisect', startedAt, title: r.firstBad !== null ? `${title} → first bad v${r.firstBad}` : title,
      status: r.outcome === 'clean' ? 'pass' : r.outcome === 'bad' ? 'found' : r.outcome,
      summary: { root, predicate: spec, outcome: r.outcome, firstBad: r.firstBad, lastGood: r.lastGood, culprit: r.culprit, examined: r.examined, result: r },
    }, log);
    return r;
  } catch (e) {
    await recordRunQuietly(runsDir, { kind: 'bisect', startedAt, title, status: failedStatus(e), summary: { root, predicate: spec, error: toErrorData(e) } }, log);
    throw e;
  }
}

/** The lossy test-double engines, offered only as the CLI offers them: LAKEREC_PROOF_TEST_ENGINES=1 (tests). */
function testDoubles(): boolean {
  return process.env.LAKEREC_PROOF_TEST_ENGINES === '1';
}

/** What a run's status word is for an error (cancelled runs are not errors). */
function failedStatus(e: unknown): string {
  return toErrorData(e).code === 'cancelled' ? 'cancelled' : 'error';
}

/** A contract's YAML checked; problems carry their line. */
export function checkContract(text: string): ContractCheck {
  if (text.trim() === '') return { ok: false, problems: [{ line: 1, message: 'The contract is empty: it needs at least `version: 1` and `keys`.' }], summary: null };
  try {
    const c = parseContract(text, 'contract');
    return { ok: true, problems: [], summary: contractSummary(c) };
  } catch (e) {
    // Every problem on its own line in the editor.
    if (e instanceof ContractInvalid) return { ok: false, problems: e.problems.map((p) => ({ line: p.line, message: p.message })), summary: null };
    const err = toErrorData(e);
    const line = typeof err.detail?.line === 'number' ? err.detail.line : null;
    // "contract:12: message" -> "message"; the line is shown beside it.
    const message = err.message.replace(/^contract:\d+:\s*/, '');
    return { ok: false, problems: [{ line, message }], summary: null };
  }
}

/** The Trust tab's results for the table; the data laws computed here when the reconcile read rows and the tab has none. */
async function trustForReport(kept: KeptResult, cached: IncidentTrust | null, cwd: string): Promise<IncidentTrust | null> {
  if (cached?.laws || levelIndex(kept.result.level) < levelIndex('checksum')) return cached;
  try {
    const laws = await checkLaws({ source: kept.source, table: kept.table, contract: parseContract(kept.contractText, 'contract'), cwd });
    return { ...cached, laws };
  } catch {
    return cached; // a law that cannot be checked leaves the report as it is
  }
}

/**
 * A reconcile with a side (or both) pushed to a warehouse connection: each side computed where it
 * lives, only partials and the disagreeing partitions' key-level rows back, the one result from
 * the local classifier (main/warehouse/result.ts), as `lakerec reconcile --warehouse` runs it.
 */
async function pushedRun(req: ReconcileRequest, contract: Contract, table: string, source: string, cwd: string, ctx: JobContext): Promise<ReconcileResult> {
  const w = req.warehouse!;
  if (req.baseline) throw new LakerecError('usage', 'A baseline is kept for local runs only: turn it off to push a side to a warehouse.');
  if (req.version !== undefined && w.side !== 'source') throw new LakerecError('usage', 'A pushed target is read at its latest version: clear the target version, or run the target locally.');
  const where = { env: process.env, cwd };
  const open = (path: string, pushed: boolean, relation: string | undefined, view: string) => (pushed ? warehouseSide(w.connection, relation ?? path, where, contract, view) : localSide(path, where.cwd, contract, view));
  const s = await open(source, w.side !== 'target', w.sourceRelation, 'lk_source');
  let t: WarehouseSide | null = null;
  try {
    t = await open(req.version !== undefined ? `${table}@${req.version}` : table, w.side !== 'source', w.targetRelation, 'lk_target');
    return await pushedReconcile({ source: s, target: t, contract, level: req.level, ctx });
  } catch (e) {
    // An engine that could not be reached or run the statement: said as such (not a folder's permissions).
    if (e instanceof LakerecError && e.code === 'io_error') throw new LakerecError('io_error', e.message, { ...(e.detail ?? {}), reason: 'warehouse' });
    throw e;
  } finally {
    await s.connector.close();
    await t?.connector.close();
  }
}

export function createScreenHandlers(o: ScreenServiceOptions, log: (line: string) => void = () => {}): Pick<ApiHandlers, ScreenMethods> {
  // Recent reconcile results, for exportReport; a window keeps a handful at most.
  const results = new Map<string, KeptResult>();
  const keep = (k: KeptResult): string => {
    const id = randomUUID();
    results.set(id, k);
    while (results.size > 8) results.delete(results.keys().next().value as string);
    return id;
  };
  const record = (kind: RunKind, input: Omit<RunInput, 'kind'>) => recordRunQuietly(o.runsDir, { kind, ...input }, log);
  const accepted = new AcceptedContracts(o.userDataDir ?? o.runsDir);
  // The proof lock and settings live beside the run history, where the CLI looks for them too.
  const settingsDir = o.runsDir;
  const proofQueue = new ProofQueue(settingsDir);

  return {
    async pickSource() {
      if (!o.pickSource) {
        throw new LakerecError('usage', 'There is no file dialog in web mode: drop the file on the window, choose it with "Upload a file…", or type its path.');
      }
      return { path: await o.pickSource() };
    },

    async validateContract({ text }) {
      return checkContract(text);
    },

    async defaultContract({ path }): Promise<ContractText> {
      const root = resolveUserPath(path, o.cwd);
      await assertTableFolder(root);
      const file = contractFileFor(root);
      if (file) {
        const text = readContractFile(file);
        const sha256 = sha256Of(text);
        return { text, origin: 'file', path: file, sha256, accepted: accepted.isAccepted(file, sha256) };
      }
      const text = await contractTemplate(root);
      return { text, origin: 'template', path: null, sha256: sha256Of(text), accepted: true };
    },

    async acceptContract({ path, sha256 }) {
      const file = resolveUserPath(path, o.cwd);
      // Only what is on disk now can be accepted: the hash must be the file's.
      if (sha256Of(readContractFile(file)) !== sha256) {
        throw new LakerecError('usage', `The contract ${file} changed since it was shown: review it again before accepting it.`, { path: file });
      }
      accepted.accept(file, sha256);
      return { accepted: true as const };
    },

    async reconcile(req: ReconcileRequest, ctx: JobContext) {
      const started = new Date().toISOString();
      const table = resolveUserPath(req.table, o.cwd);
      // `path@version` names a Delta source at a version: keep the suffix out of path resolution.
      const at = /^(.*)@(\d+)$/.exec(req.source);
      const source = at && !existsSync(req.source) ? `${resolveUserPath(at[1], o.cwd)}@${at[2]}` : resolveUserPath(req.source, o.cwd);
      const title = `${tableName(table)} ← ${basename(source)}`;
      try {
        await assertTableFolder(table);
        // A contract that came with the table runs only once the user accepted it.
        const beside = contractFileFor(table);
        if (beside) {
          const sha256 = sha256Of(req.contract);
          let fileSha: string | null = null;
          try { fileSha = sha256Of(readContractFile(beside)); } catch { /* unreadable: not the same text */ }
          if (fileSha === sha256 && !accepted.isAccepted(beside, sha256)) {
            throw new LakerecError('usage', `The contract comes from the table's folder (${beside}) and has not been accepted: review it, then press Accept. A contract from someone else's table is never run unreviewed.`, { path: beside, reason: 'contract_not_accepted' });
          }
        }
        const contract = parseContract(req.contract, 'contract');
        // The window's baselines live in the app-data folder, one per table, source and contract name.
        let baseline: string | null = null;
        if (req.baseline) {
          if (req.level === 'schema' || req.level === 'counts') throw new LakerecError('usage', 'A baseline stores checksums: choose level checksum, keys or rows to use one.');
          const dir = join(o.runsDir, 'baselines');
          ensureOutputDir(dir, 'the baselines folder');
          baseline = join(dir, `${createHash('sha256').update(`${table}\0${source}\0${contract.name}`).digest('hex').slice(0, 24)}.json`);
        }
        const plain = req.warehouse
          ? await pushedRun(req, contract, table, source, o.cwd, ctx)
          : await reconcile({
            source, target: { root: table, ...(req.version !== undefined ? { version: req.version } : {}), ...(o.tables ? { table: await o.tables.table(table, ctx) } : {}) },
            contract, level: req.level, cwd: o.cwd, ctx, baseline, writeBaseline: baseline,
          });
        // The commit behind each example row (a post-processing step over the result); an
        // uploaded source is named by its upload (name, size, sha256), not its temporary path.
        const upload = uploadedFile(source);
        const result = await withProvenance(upload ? { ...plain, source: { ...plain.source, description: upload.name, upload } } : plain, table);
        // What leaves the engine is masked as every report is (counts only for confidential columns).
        const sens: Record<string, Sensitivity> = sensitivityOf(result, await schemaSensitivity(table, result.target.version));
        const masked = maskReconcileResult(result, sens);
        const resultId = keep({ result, table, source, contractText: req.contract });
        const runId = await record('reconcile', {
          status: result.verdict === 'matches' ? 'pass' : 'fail', title, startedAt: started,
          summary: {
            table, source, level: result.level, verdict: result.verdict, exitCode: result.exitCode,
            findings: masked.findings.map((f) => ({ mode: f.mode, blocking: f.blocking, summary: f.summary })),
            sourceRows: result.source.rows, targetRows: result.target.rows, targetVersion: result.target.version,
            reads: result.reads,
            // The whole result (masked), so the Runs screen can reopen it as the run showed it.
            result: masked,
          },
        });
        return { runId, resultId, result: masked };
      } catch (e) {
        await record('reconcile', { status: failedStatus(e), title, startedAt: started, summary: { table, source, level: req.level, error: toErrorData(e) } });
        throw e;
      }
    },

    async warehouseConnections() {
      // Names and kinds only: a host, a user or a secret never reaches the window.
      const found = listConnections({ env: process.env, cwd: o.cwd });
      return { connections: found.connections.map(({ connection: c, needsTrust }) => ({ name: c.name, kind: c.kind, needsTrust })), problems: found.problems };
    },

    async exportReport({ resultId, save }, ctx) {
      const kept = results.get(resultId);
      if (!kept) {
        throw new LakerecError('usage', 'That reconcile result is no longer kept by the engine (it restarted, or eight newer runs replaced it): run the reconcile again, then export.');
      }
      const input = await composeIncident({
        result: kept.result, table: kept.table, source: kept.source, contractText: kept.contractText, toolVersion: o.toolVersion, ctx,
        trust: await trustForReport(kept, o.trustFor?.(kept.table) ?? null, o.cwd),
      });
      const html = renderIncidentHtml(input);
      const fileName = incidentFileName(input);
      let savedTo: string | null = null;
      if (save) {
        if (!o.saveFile) throw new LakerecError('usage', 'There is no save dialog in web mode: the page downloads the report instead.');
        const roots = [kept.table, ...(existsSync(kept.source) && statSync(kept.source).isDirectory() ? [kept.source] : [])];
        savedTo = await o.saveFile(fileName, html, roots);
      }
      return { html, fileName, savedTo, sections: incidentSections(input).map((s) => s.title) };
    },

    async proofEngines() {
      return { engines: engineChoices({ testDoubles: testDoubles() }) };
    },

    async proofSettings() {
      return { settings: readProofSettings(settingsDir), file: join(settingsDir, SETTINGS_FILE) };
    },

    async setProofMode({ mode }) {
      return { settings: writeProofSettings(settingsDir, { ...readProofSettings(settingsDir), mode }) };
    },

    async runProof(req, ctx) {
      const started = new Date().toISOString();
      const title = `${req.engines[0]} -> ${req.engines[1]}`;
      const order = ['generate', 'a_write', 'b_read', 'b_write', 'a_read'];
      const id = randomUUID();
      try {
        // Refuse an unknown or unavailable engine before queueing.
        for (const n of req.engines) engineByName(n, { testDoubles: testDoubles(), requireAvailable: true });
        const result = await proofQueue.run({ id, startedAt: started, engines: req.engines }, () => runProof({
          id, engines: req.engines, rows: req.rows, seed: req.seed, testDoubles: testDoubles(),
          ctx: {
            signal: ctx.signal,
            onStep: (step: ProofStep) => {
              const p: JobProgress<'runProof'> = { phase: step.title, done: order.indexOf(step.id) + (step.status === 'running' ? 0 : 1), total: order.length, data: step };
              ctx.progress?.(p);
            },
          },
        }), {
          signal: ctx.signal,
          queued: (position, blockedBy) => ctx.progress?.({
            phase: blockedBy
              ? `Queued: waiting for proof ${blockedBy.id} (${blockedBy.engines.join(' → ')}, another lakerec process) to end; one proof runs at a time`
              : `Queued: position ${position} (one proof runs at a time)`,
            done: 0, total: order.length,
          }),
        });
        const runId = await record('proof', { id: result.id, status: result.passed ? 'pass' : 'fail', title, startedAt: result.startedAt, finishedAt: result.finishedAt, summary: result });
        const dagsterUrl = readProofSettings(settingsDir).dagsterUrl;
        if (dagsterUrl) for (const e of (await postToDagster(dagsterUrl, result)).errors) log(`proof ${result.id}: ${e}`);
        return { runId, result };
      } catch (e) {
        await record('proof', { status: failedStatus(e), title, startedAt: started, summary: { engines: req.engines, error: toErrorData(e) } });
        throw e;
      }
    },

    async getRun({ id }) {
      const run = await getRun(o.runsDir, id);
      if (!run) throw new LakerecError('not_found', `No run ${id} in the run history (${o.runsDir}).`, { id });
      return { run };
    },

    async listRuns({ kind }) {
      return { runs: await listRuns(o.runsDir, { ...(kind ? { kind } : {}), withoutSummary: true, limit: 500 }) };
    },
  };
}
