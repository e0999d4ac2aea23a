// Mutation testing of a contract on the user's own table: each corruption the sample lakes know is
// injected into a sandbox over the table's files (main/trust/sandbox.ts) through the ordinary
// writer (injectCorruption), the contract is run at each level exactly as the detection matrix
// runs it (reconcileCell / judgeCells), and the score says how much of it the contract catches.
// A survivor gets the contract change that would catch it, checked by rerunning the mutant.
import { existsSync } from 'node:fs';
import { LakerecError } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import { LEVELS, levelIndex, type FindingMode, type Level } from '../../shared/reconcile';
import { percentText, type LevelScore, type MutantLevel, type MutantResult, type MutationResult, type Suggestion } from '../../shared/trust';
import { openDuck, sqlIdent, type Duck } from '../engine/duck';
import { registerSnapshotView } from '../delta/scan';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import type { Snapshot } from '../delta/types';
import { DeltaWriter } from '../writer/writer';
import { CORRUPTIONS, EXPECTED_MODE, injectCorruption, type Corruption, type CorruptionTarget } from '../writer/corrupt';
import { contractError, loadContract, type Contract } from '../reconcile/contract';
import { judgeCells, reconcileCell, type MatrixCell } from '../reconcile/matrix';
import { createSandbox, lockTable, type Sandbox } from './sandbox';

export const DEFAULT_SEED = 1729;

export interface MutateOptions {
  source: string;
  table: string;
  version?: number;
  contract: Contract | string;
  seed?: number;
  only?: string[];
  levels?: Level[];
  cwd?: string;
  ctx?: JobContext;
  /** Each mutant as it finishes (the window's progress rows). */
  onMutant?: (m: MutantResult, index: number, total: number) => void;
}

const ORDERING_NAME = /(updated|modified|changed|version|revision|^rev$|_rev$|ingested|loaded)/i;
const NUMERIC = /^(long|integer|short|byte|decimal\(.*\)|double|float)$/;

/** Columns the partition expression reads (identifiers that are columns of the table). */
function expressionColumns(expr: string, columns: string[]): string[] {
  const ids = new Set(expr.match(/"[^"]+"|[A-Za-z_][A-Za-z0-9_]*/g)?.map((x) => x.replace(/^"|"$/g, '')) ?? []);
  return columns.filter((c) => ids.has(c));
}

interface Plan {
  target: CorruptionTarget;
  /** Where the table's own data says the partition date comes from (timezone shift). */
  timestampColumn: string | null;
  /** The column ordering two versions of a row: the contract's, or one the table suggests. */
  ordering: string | null;
  orderingFromContract: boolean;
  partitionColumn: string | null;
}

/** What the corruptions aim at, from the contract and, where it says nothing, from the table's own data. */
async function planFor(duck: Duck, snapshot: Snapshot, contract: Contract, view: string, seed: number): Promise<Plan> {
  const fields = snapshot.schema.fields;
  const names = fields.map((f) => f.name);
  const typeOf = (n: string) => fields.find((f) => f.name === n)?.type;
  const cp = contract.partitioning?.column ?? null;
  const partitionColumn = cp && snapshot.partitionColumns.includes(cp) ? cp : (snapshot.partitionColumns[0] ?? null);
  let timestampColumn: string | null = null;
  const isTs = (n: string) => typeOf(n) === 'timestamp' || typeOf(n) === 'timestamp_ntz';
  if (partitionColumn && typeOf(partitionColumn) === 'date') {
    const fromExpr = contract.partitioning?.expression ? expressionColumns(contract.partitioning.expression, names).filter(isTs) : [];
    const candidates = [...fromExpr, ...names.filter((n) => isTs(n) && !fromExpr.includes(n))];
    for (const c of candidates) {
      // The table's own rows decide: every row's partition date is this column's UTC date.
      const utc = typeOf(c) === 'timestamp' ? `CAST(timezone('UTC', ${sqlIdent(c)}) AS DATE)` : `CAST(${sqlIdent(c)} AS DATE)`;
      const r = await duck.conn.runAndReadAll(`SELECT count(*) FILTER (WHERE ${utc} IS DISTINCT FROM ${sqlIdent(partitionColumn)}), count(${sqlIdent(c)}) FROM ${sqlIdent(view)}`);
      const [bad, nonNull] = r.getRows()[0].map(Number);
      if (bad === 0 && nonNull > 0) { timestampColumn = c; break; }
    }
  }
  let ordering = contract.ordering && names.includes(contract.ordering) ? contract.ordering : null;
  const orderingFromContract = ordering !== null;
  if (!ordering) {
    ordering = names.find((n) => !contract.keys.includes(n) && n !== partitionColumn && n !== timestampColumn && ORDERING_NAME.test(n)
      && (isTs(n) || typeOf(n) === 'date' || (typeof typeOf(n) === 'string' && NUMERIC.test(String(typeOf(n)))))) ?? null;
  }
  return {
    target: { keys: contract.keys, partitionColumn, ordering, timestampColumn, seed },
    timestampColumn, ordering, orderingFromContract, partitionColumn,
  };
}

function withContract(c: Contract, patch: Partial<Contract>): Contract {
  return { ...c, ...patch, sha256: null, name: `${c.name} (suggested)` };
}

/** Contract changes that could catch or name this corruption, most specific first. */
function candidateChanges(c: Corruption, contract: Contract, plan: Plan, changedIgnored: string[]): { change: string; yaml: string; contract: Contract }[] {
  const out: { change: string; yaml: string; contract: Contract }[] = [];
  const pc = plan.partitionColumn;
  // Names as the contract's YAML and SQL need them: plain when they are plain, else quoted.
  const plain = (n: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n);
  const y = (n: string) => (plain(n) ? n : JSON.stringify(n));
  // Always quoted: a plain-looking name may be a keyword (`at`), which the expression check refuses.
  const expr = plan.timestampColumn ? `date(${sqlIdent(plan.timestampColumn)} AT TIME ZONE 'UTC')` : null;
  const partitioned = (withExpr: boolean) => {
    if (!pc) return;
    if (!contract.partitioning) {
      const e = withExpr ? expr : null;
      out.push({
        change: `add partitioning on ${pc}${e ? ` with the expression ${e}` : ''}`,
        yaml: `partitioning:\n  column: ${y(pc)}${e ? `\n  expression: ${JSON.stringify(e)}` : ''}`,
        contract: withContract(contract, { partitioning: { column: pc, expression: e } }),
      });
    } else if (withExpr && expr && !contract.partitioning.expression && contract.partitioning.column === pc) {
      out.push({
        change: `add partitioning.expression ${expr} (how the source's ${pc} is derived)`,
        yaml: `partitioning:\n  column: ${y(pc)}\n  expression: ${JSON.stringify(expr)}`,
        contract: withContract(contract, { partitioning: { column: pc, expression: expr } }),
      });
    }
  };
  switch (c) {
    case 'stale_rows':
      if (!contract.ordering && plan.ordering) {
        out.push({ change: `add ordering: ${plan.ordering} (which of two versions of a row is newer)`, yaml: `ordering: ${y(plan.ordering)}`, contract: withContract(contract, { ordering: plan.ordering }) });
      }
      break;
    case 'timezone_partition_shift':
      partitioned(true);
      break;
    case 'partition_wipe':
    case 'overwrite_too_wide':
      partitioned(true);
      break;
    default:
      break;
  }
  if (changedIgnored.length > 0) {
    out.push({
      change: `stop ignoring ${changedIgnored.join(', ')} (the corruption changed ${changedIgnored.length === 1 ? 'it' : 'them'})`,
      yaml: `ignore: [${contract.ignore.filter((x) => !changedIgnored.includes(x)).map(y).join(', ')}]`,
      contract: withContract(contract, { ignore: contract.ignore.filter((x) => !changedIgnored.includes(x)) }),
    });
  }
  const excluded = Object.entries(contract.floats).filter(([col, r]) => r === 'exclude' && changedIgnored.includes(col)).map(([col]) => col);
  if (excluded.length > 0 || (c === 'recomputed_double' && Object.values(contract.floats).some((r) => r === 'exclude'))) {
    const cols = excluded.length > 0 ? excluded : Object.entries(contract.floats).filter(([, r]) => r === 'exclude').map(([col]) => col);
    const floats = { ...contract.floats };
    for (const col of cols) floats[col] = { tolerance: 1e-9 };
    out.push({
      change: `compare ${cols.join(', ')} within a tolerance instead of excluding ${cols.length === 1 ? 'it' : 'them'}`,
      yaml: `columns:\n${cols.map((col) => `  ${y(col)}: { float: { tolerance: 1.0e-9 } }`).join('\n')}`,
      contract: withContract(contract, { floats }),
    });
  }
  return out;
}

function outcomeOf(cell: MatrixCell, expected: FindingMode | null): MutantLevel['outcome'] {
  if (expected && cell.modes.includes(expected)) return 'named';
  return cell.verdict === 'diverges' ? 'caught' : 'survived';
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);

/** Runs the mutation score. The user's table is only read; the sandbox is removed whatever happens. */
export async function runMutation(opts: MutateOptions): Promise<MutationResult> {
  const started = Date.now();
  const ctx = opts.ctx;
  const cwd = opts.cwd ?? process.cwd();
  const contract = typeof opts.contract === 'string' ? loadContract(opts.contract) : opts.contract;
  if (contract.keys.length === 0) throw contractError(contract, 'keys', 'mutation testing needs the contract\'s keys (missing field "keys")');
  const levels = [...new Set(opts.levels ?? [...LEVELS])].sort((a, b) => levelIndex(a) - levelIndex(b));
  for (const l of levels) if (!LEVELS.includes(l)) throw new LakerecError('usage', `unknown level "${String(l)}"; one of ${LEVELS.join(', ')}`);
  if (levels.length === 0) throw new LakerecError('usage', 'no level to run');
  const only = opts.only && opts.only.length > 0 ? opts.only : [...CORRUPTIONS];
  for (const m of only) if (!(CORRUPTIONS as readonly string[]).includes(m)) throw new LakerecError('usage', `unknown mutant "${m}"; one of ${CORRUPTIONS.join(', ')}`);
  const chosen = CORRUPTIONS.filter((c) => only.includes(c));
  const seed = opts.seed ?? DEFAULT_SEED;
  if (!Number.isSafeInteger(seed)) throw new LakerecError('usage', `--seed must be an integer, got ${String(seed)}`);

  throwIfCancelled(ctx);
  // The table must open (a named error, exit 3) before it is locked.
  await openTable(opts.table);
  const release = lockTable(opts.table);
  let sandbox: Sandbox | null = null;
  let duck: Duck | null = null;
  try {
    report(ctx, { phase: 'building the sandbox', done: 0, total: null });
    const made = await createSandbox(opts.table, opts.version);
    sandbox = made.sandbox;
    const snapshot = made.snapshot;
    const names = snapshot.schema.fields.map((f) => f.name);
    for (const k of contract.keys) {
      if (!names.includes(k)) throw new LakerecError('contract_mismatch', `${contract.path ?? 'contract'}:${contract.lines.keys ?? 1}: key column "${k}" is not a column of the table (${names.join(', ')})`);
    }
    duck = await openDuck({ threads: 2 });
    const baseTable = await openTable(sandbox.baseRoot, { allowOutsidePaths: true });
    const baseSnap = await baseTable.snapshot();
    await registerSnapshotView(duck.conn, baseSnap, 'lk_mut_base', { allowOutsidePaths: true });
    const plan = await planFor(duck, snapshot, contract, 'lk_mut_base', seed);
    const onAbort = () => { try { duck?.conn.interrupt(); } catch { /* closed */ } };
    ctx?.signal?.addEventListener('abort', onAbort);

    const totalSteps = chosen.length * levels.length + levels.length;
    let step = 0;
    const progress = (message: string) => report(ctx, { phase: 'mutation testing', done: step, total: totalSteps, message });
    // Only the sandbox's tables are opened with outside paths allowed; reconcile reads them as handed.
    const reconcileOpts = (root: string, table: DeltaTable, c: Contract) => ({ source: opts.source, target: { root, table }, contract: c, cwd, ...(ctx?.signal ? { ctx: { signal: ctx.signal } } : {}) });
    const cellsFor = async (root: string, c: Contract, lv: Level[], label: string): Promise<MatrixCell[]> => {
      const cells: MatrixCell[] = [];
      const table = await openTable(root, { allowOutsidePaths: true });
      for (const level of lv) {
        throwIfCancelled(ctx);
        progress(`${label} @ ${level}`);
        cells.push(await reconcileCell(reconcileOpts(root, table, c), level));
      }
      return cells;
    };

    // The unmutated sandbox first: a level where it already diverges cannot judge a mutant.
    const baseCells = await cellsFor(sandbox.baseRoot, contract, levels, 'original');
    step += levels.length;
    const baseline = baseCells.map((c) => ({ level: c.level, verdict: c.verdict, modes: c.modes }));
    const judging = levels.filter((l) => baseCells.find((c) => c.level === l)?.verdict === 'matches');
    const notes: string[] = [];
    const failing = levels.filter((l) => !judging.includes(l));
    if (failing.length > 0) notes.push(`the table already diverges from the source at ${failing.join(', ')} without any mutant; those levels are left out of the score`);
    if (!plan.orderingFromContract && plan.ordering) notes.push(`the contract has no ordering; stale rows are aged on ${plan.ordering}, the column that looks like one`);

    const mutants: MutantResult[] = [];
    for (const [i, c] of chosen.entries()) {
      throwIfCancelled(ctx);
      const t0 = Date.now();
      const expected = EXPECTED_MODE[c];
      const root = sandbox.newTable(c);
      const base: Omit<MutantResult, 'status' | 'note' | 'partition' | 'rows' | 'levels' | 'firstNotices' | 'firstNames' | 'otherModes' | 'suggestions' | 'ms'> = { corruption: c, expectedMode: expected };
      let result: MutantResult;
      try {
        progress(`${c}: injecting`);
        const w = await DeltaWriter.open(root, { duck, allowOutsidePaths: true, ...(ctx?.signal ? { ctx: { signal: ctx.signal } } : {}) });
        let inj;
        try {
          inj = await injectCorruption(w, c, plan.target);
        } catch (e) {
          // The table refuses the write (append-only, a NOT NULL column, ...): this corruption cannot land here.
          if (e instanceof LakerecError && e.code === 'writer_misuse') inj = { applied: false, note: `refused by the table: ${e.message}`, partition: null, rows: 0 };
          else throw e;
        } finally {
          w.close();
        }
        if (!inj.applied) {
          result = { ...base, status: 'not_applicable', note: notApplicableNote(c, inj.note, plan), partition: inj.partition, rows: 0, levels: [], firstNotices: null, firstNames: null, otherModes: [], suggestions: [], ms: Date.now() - t0 };
          step += levels.length;
        } else {
          const mt = await openTable(root, { allowOutsidePaths: true });
          const ms = await mt.snapshot();
          await registerSnapshotView(duck.conn, ms, 'lk_mut_now', { allowOutsidePaths: true });
          const needColumns = contract.ignore.length > 0 || Object.values(contract.floats).some((r) => r === 'exclude');
          const changed = await changedColumns(duck, names, ms.schema.fields.map((f) => f.name), contract.keys, needColumns);
          if (changed.equivalent) {
            result = { ...base, status: 'equivalent', note: `${inj.note}; the data afterwards is the same as before, so no check could catch it`, partition: inj.partition, rows: inj.rows, levels: [], firstNotices: null, firstNames: null, otherModes: [], suggestions: [], ms: Date.now() - t0 };
            step += levels.length;
          } else {
            const cells = await cellsFor(root, contract, levels, c);
            step += levels.length;
            const judged = judgeCells(cells.filter((x) => judging.includes(x.level)), expected);
            const lv: MutantLevel[] = cells.map((x) => ({ level: x.level, outcome: judging.includes(x.level) ? outcomeOf(x, expected) : 'survived', verdict: x.verdict, modes: x.modes, targetRowsRead: x.targetRowsRead, ms: x.ms }));
            const suggestions: Suggestion[] = [];
            const deepest = lv[lv.length - 1];
            if (expected && deepest && deepest.outcome !== 'named') {
              const ignored = changed.columns.filter((col) => contract.ignore.includes(col) || contract.floats[col] === 'exclude');
              for (const cand of candidateChanges(c, contract, plan, ignored)) {
                progress(`${c}: checking "${cand.change}"`);
                const again = judgeCells(await cellsFor(root, cand.contract, levels, `${c} (suggested contract)`), expected);
                suggestions.push({ change: cand.change, yaml: cand.yaml, level: null, checked: { firstNotices: again.firstNotices, firstNames: again.firstNames, kills: again.firstNotices !== null, names: again.firstNames !== null } });
              }
              const deeper = LEVELS.filter((l) => levelIndex(l) > levelIndex(levels[levels.length - 1]));
              if (suggestions.every((s) => !s.checked?.names) && deeper.length > 0) {
                const again = judgeCells(await cellsFor(root, contract, deeper, `${c} (deeper levels)`), expected);
                if (again.firstNotices || again.firstNames) {
                  const l = again.firstNames ?? again.firstNotices!;
                  suggestions.push({ change: `run at level ${l}`, yaml: '', level: l, checked: { ...again, kills: again.firstNotices !== null, names: again.firstNames !== null } });
                }
              }
            }
            result = { ...base, status: 'run', note: inj.note, partition: inj.partition, rows: inj.rows, levels: lv, ...judged, suggestions, ms: Date.now() - t0 };
          }
        }
      } finally {
        sandbox.dropTable(root);
      }
      mutants.push(result);
      opts.onMutant?.(result, i, chosen.length);
      report(ctx, { phase: 'mutation testing', done: step, total: totalSteps, message: `${c}: ${summaryWord(result)}` });
    }
    ctx?.signal?.removeEventListener('abort', onAbort);

    const scored = mutants.filter((m) => m.status === 'run' && m.expectedMode !== null);
    const silent = mutants.filter((m) => m.status === 'run' && m.expectedMode === null);
    const perLevel: LevelScore[] = judging.map((level) => {
      const at = scored.map((m) => m.levels.find((x) => x.level === level)!.outcome);
      const named = at.filter((o) => o === 'named').length;
      const caught = at.filter((o) => o === 'caught').length;
      const survived = at.filter((o) => o === 'survived').length;
      return { level, named, caught, survived, score: ratio(named + caught, named + caught + survived), namedScore: ratio(named, named + caught + survived) };
    });
    // A score only where the unmutated table matches at every level asked: where it already
    // diverges, a mutant's divergence cannot be told from the data's. Then the score is refused.
    const refusedWhy = failing.length > 0
      ? `the table already diverges from the source at ${failing.join(', ')} without any mutant, so a mutant's divergence cannot be told from the data's: fix the data first (lakerec reconcile names the divergence), then measure the contract`
      : scored.length === 0 ? 'no mutant that should be caught ran on this table' : null;
    const last = refusedWhy === null ? perLevel[perLevel.length - 1] : undefined;
    const killed = last ? last.named + last.caught : 0;
    const survived = last ? last.survived : 0;
    const score = last ? ratio(killed, killed + survived) : null;
    const namedScore = last ? ratio(last.named, killed + survived) : null;
    const headline = last
      ? `score ${percentText(score)}: ${killed} of ${killed + survived} mutant(s) killed at ${last.level}; ${last.named} named as their mode (${percentText(namedScore)})`
      : `no score: ${refusedWhy}`;
    const sandboxDir = sandbox.dir;
    sandbox.remove();
    sandbox = null;
    return {
      table: snapshot.root,
      version: snapshot.version,
      source: opts.source,
      contract: { name: contract.name, path: contract.path, sha256: contract.sha256 },
      seed,
      levels,
      baseline,
      mutants,
      perLevel,
      overall: {
        killed, survived, named: last ? last.named : 0,
        score, namedScore, level: last ? last.level : null, refused: refusedWhy, headline,
        notApplicable: mutants.filter((m) => m.status === 'not_applicable').length,
        equivalent: mutants.filter((m) => m.status === 'equivalent').length,
        silentChecks: silent.length,
        falseAlarms: silent.filter((m) => m.firstNotices !== null).length,
      },
      sandbox: { dir: sandboxDir, filesReferenced: made.sandbox.filesReferenced, removed: !existsSync(sandboxDir) },
      notes,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
    };
  } finally {
    duck?.close();
    sandbox?.remove();
    release();
  }
}

function summaryWord(m: MutantResult): string {
  if (m.status !== 'run') return m.status.replace('_', ' ');
  if (m.expectedMode === null) return m.firstNotices ? `false alarm at ${m.firstNotices}` : 'stayed silent';
  if (m.firstNames) return `named at ${m.firstNames}`;
  if (m.firstNotices) return `caught at ${m.firstNotices}, never named`;
  return 'survived';
}

/** The writer's reason, with what the table or contract lacks in the contract's words. */
function notApplicableNote(c: Corruption, note: string, plan: Plan): string {
  if (c === 'stale_rows' && !plan.ordering) return 'needs an ordering column: the contract has none and no column of the table looks like one (updated_at, version, ...)';
  if (c === 'timezone_partition_shift' && plan.partitionColumn && !plan.timestampColumn) return `needs the timestamp column ${plan.partitionColumn} is derived from: no timestamp column's UTC date equals ${plan.partitionColumn} on every row`;
  return note;
}

/** Whether the mutant's rows equal the original's (as a multiset), and which columns it changed. */
async function changedColumns(duck: Duck, before: string[], after: string[], keys: string[], perColumn: boolean): Promise<{ equivalent: boolean; columns: string[] }> {
  const sameSchema = before.length === after.length && before.every((c, i) => c === after[i]);
  const cols = before.filter((c) => after.includes(c));
  const q = async (sql: string) => Number((await duck.conn.runAndReadAll(sql)).getRows()[0][0]);
  const diffOf = async (sel: string) => q(`SELECT (SELECT count(*) FROM (SELECT ${sel} FROM lk_mut_now EXCEPT ALL SELECT ${sel} FROM lk_mut_base)) + (SELECT count(*) FROM (SELECT ${sel} FROM lk_mut_base EXCEPT ALL SELECT ${sel} FROM lk_mut_now))`);
  const all = await diffOf(cols.map(sqlIdent).join(', '));
  const equivalent = sameSchema && all === 0;
  const changed: string[] = [];
  if (!equivalent && perColumn) {
    const k = keys.map(sqlIdent).join(', ');
    for (const c of cols) {
      if (keys.includes(c)) continue;
      if (await diffOf(`${k}, ${sqlIdent(c)}`) > 0) changed.push(c);
    }
  }
  return { equivalent, columns: changed };
}
