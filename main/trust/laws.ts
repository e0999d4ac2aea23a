// Data laws: conservation of additive measures from source to target, per day. Each side is read
// once, grouped by day (a date or partition column; the source may derive it with the contract's
// partition expression); integer and decimal totals must agree exactly, a float total within the
// tolerance times the day's sum of magnitudes, and the row counts per day. Measures come from the
// contract's `laws:` field or are proposed from the schema (numeric columns that are not keys).
import { checkScalarExpression } from '../engine/expression';
import { LakerecError } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import type { LawCheck, LawDay, LawsResult } from '../../shared/trust';
import { openDuck, sqlIdent, interruptOnAbort, queryTimeLimitMs, withTimeLimit } from '../engine/duck';
import { contractError, loadContract, type Contract } from '../reconcile/contract';
import { lateDays, valuesEverLoaded } from '../reconcile/log-levels';
import { openSource, openTarget, registerTargetView } from '../reconcile/sides';
import type { DeltaTable } from '../delta/table';

export interface LawsOptions {
  source: string;
  table: string;
  version?: number;
  contract: Contract | string;
  cwd?: string;
  ctx?: JobContext;
  /** The table already open (the reconcile's): its cached snapshot, no second log read. */
  open?: DeltaTable;
}

const INTEGER = /^(BIGINT|INTEGER|SMALLINT|TINYINT|UBIGINT|UINTEGER|USMALLINT|UTINYINT|HUGEINT)$/;
const DECIMAL = /^DECIMAL\(\d+,\s*\d+\)$/;
const FLOAT = /^(DOUBLE|FLOAT|REAL)$/;
const DATE_LIKE = /^(DATE|TIMESTAMP.*)$/;
const DEFAULT_TOLERANCE = 1e-9;
const MAX_FAILURES = 5;
/** The laws' totals over a contract's day expression may take this many interactive time limits (20 x 30 s). */
export const LAW_TIME_FACTOR = 20;

export async function checkLaws(opts: LawsOptions): Promise<LawsResult> {
  const started = Date.now();
  const ctx = opts.ctx;
  const cwd = opts.cwd ?? process.cwd();
  const contract = typeof opts.contract === 'string' ? loadContract(opts.contract) : opts.contract;
  const duck = await openDuck({ threads: 2 });
  const detach = interruptOnAbort(duck.conn, ctx?.signal);
  try {
    const conn = duck.conn;
    report(ctx, { phase: 'reading the table log', done: 0, total: null });
    const target = await openTarget(opts.table, opts.version, opts.open);
    const src = await openSource(conn, opts.source, cwd, contract, target, 'lk_law_s');
    await registerTargetView(conn, target, 'lk_law_t', undefined, false);
    throwIfCancelled(ctx);
    const tType = new Map(target.columns.map((c) => [c.name, c.type]));
    const sType = new Map(src.columns.map((c) => [c.name, c.type]));
    const notes: string[] = [];

    // ---- the day ----
    const spec = contract.laws;
    const part = contract.partitioning;
    let day = spec?.day ?? part?.column ?? null;
    if (day === null) {
      day = target.snapshot.partitionColumns.find((c) => DATE_LIKE.test(tType.get(c) ?? '')) ?? target.columns.find((c) => c.type === 'DATE' && !contract.keys.includes(c.name))?.name ?? null;
      if (day) notes.push(`no day column in the contract: totals per ${day}, the table's date column`);
    }
    // The contract's expression is someone else's SQL: only DuckDB's rendering of it, checked as
    // one scalar expression over the sides' columns, ever runs (main/engine/expression.ts).
    let partExpr: string | null = null;
    if (part?.expression) {
      const checked = await checkScalarExpression(conn, part.expression, [...src.columns, ...target.columns].map((c) => c.name));
      if (!checked.ok) throw contractError(contract, 'partitioning.expression', `partition expression refused: ${checked.problem}`);
      partExpr = checked.sql;
    }
    const dayOf = (side: 'source' | 'target'): string | null => {
      if (day === null) return null;
      const ty = side === 'source' ? sType.get(day) : tType.get(day);
      // A timestamp counts per calendar day (UTC: openDuck's time zone).
      if (ty !== undefined) return /^TIMESTAMP/.test(ty) ? `CAST(${sqlIdent(day)} AS DATE)` : sqlIdent(day);
      if (part && part.column === day && partExpr) return `(${partExpr})`;
      throw contractError(contract, spec?.day ? 'laws' : 'partitioning', `the day column "${day}" is not in the ${side} and the contract gives no expression to derive it`);
    };
    const sDay = dayOf('source');
    const tDay = dayOf('target');
    if (day === null) notes.push('no date or partition column: the whole table is one day');

    // ---- the measures ----
    let measures: string[];
    let proposed: boolean;
    if (spec?.measures) {
      measures = spec.measures;
      proposed = false;
      for (const m of measures) {
        const ty = tType.get(m);
        if (!ty) throw contractError(contract, 'laws', `measure "${m}" is not a column of the table`);
        if (!sType.has(m)) throw contractError(contract, 'laws', `measure "${m}" is not a column of the source`);
        if (!INTEGER.test(ty) && !DECIMAL.test(ty) && !FLOAT.test(ty)) throw contractError(contract, 'laws', `measure "${m}" is ${ty}, not a number that can be summed`);
      }
    } else {
      proposed = true;
      measures = target.columns.filter((c) => (INTEGER.test(c.type) || DECIMAL.test(c.type) || FLOAT.test(c.type))
        && !contract.keys.includes(c.name) && !contract.ignore.includes(c.name) && c.name !== day && c.name !== contract.ordering && sType.has(c.name)
        && !/(_id|^id)$/i.test(c.name)).map((c) => c.name);
    }
    const kindOf = (m: string): LawCheck['kind'] => (FLOAT.test(tType.get(m)!) ? 'float_sum' : 'exact_sum');
    const tolOf = (m: string): number => {
      const rule = contract.floats[m];
      return spec?.tolerance ?? (rule && rule !== 'exclude' ? rule.tolerance : DEFAULT_TOLERANCE);
    };
    const agg = (m: string, i: number): string => {
      const c = sqlIdent(m);
      if (kindOf(m) === 'float_sum') return `fsum(${c}) AS m${i}, fsum(abs(${c})) AS a${i}`;
      return INTEGER.test(tType.get(m)!) ? `sum(CAST(${c} AS HUGEINT)) AS m${i}` : `sum(${c}) AS m${i}`;
    };
    const aggs = ['count(*) AS n', ...measures.map(agg)].join(', ');
    // Grouped by the day's own value, and only the groups made text (a cast per row cost about
    // half the query at 2M rows).
    const side = (view: string, d: string | null) => (d === null
      ? `SELECT NULL::VARCHAR AS d, ${aggs} FROM ${view} GROUP BY 1`
      : `SELECT * REPLACE (CAST(d AS VARCHAR) AS d) FROM (SELECT ${d} AS d, ${aggs} FROM ${view} GROUP BY 1)`);
    report(ctx, { phase: 'totals per day', done: 0, total: null });
    let joined: Record<string, unknown>[];
    try {
      const exactCols = measures.map((m, i) => (kindOf(m) === 'exact_sum'
        ? `CAST(coalesce(s.m${i}, 0) AS VARCHAR) AS sm${i}, CAST(coalesce(t.m${i}, 0) AS VARCHAR) AS tm${i}, CAST(coalesce(t.m${i}, 0) - coalesce(s.m${i}, 0) AS VARCHAR) AS dm${i}, coalesce(t.m${i}, 0) = coalesce(s.m${i}, 0) AS ok${i}`
        : `coalesce(s.m${i}, 0) AS sm${i}, coalesce(t.m${i}, 0) AS tm${i}, coalesce(s.a${i}, 0) AS sa${i}, coalesce(t.a${i}, 0) AS ta${i}`));
      const totals = `WITH s AS (${side('lk_law_s', sDay)}), t AS (${side('lk_law_t', tDay)})
        SELECT coalesce(s.d, t.d) AS d, coalesce(s.n, 0) AS sn, coalesce(t.n, 0) AS tn${exactCols.length ? ', ' + exactCols.join(', ') : ''}
        FROM s FULL OUTER JOIN t ON s.d IS NOT DISTINCT FROM t.d ORDER BY 1 NULLS FIRST`;
      // A day derived by the contract's expression (someone else's SQL) runs under a time limit:
      // LAW_TIME_FACTOR times the interactive one, since it reads the whole of both sides.
      const run = () => conn.runAndReadAll(totals);
      joined = (await (partExpr !== null && [sDay, tDay].some((d) => d !== null && d.includes(partExpr as string))
        ? withTimeLimit(conn, queryTimeLimitMs() * LAW_TIME_FACTOR, "The totals per day (the contract's day expression)", run)
        : run())).getRowObjectsJS() as Record<string, unknown>[];
    } catch (e) {
      if (e instanceof LakerecError) throw e;
      throw contractError(contract, spec ? 'laws' : 'partitioning', `the totals per day cannot be computed: ${(e as Error).message.split('\n')[0]}`);
    }
    throwIfCancelled(ctx);
    const dayText = (r: Record<string, unknown>) => (r.d === null || r.d === undefined ? null : String(r.d));
    // The contract's lateness allowance, by the reconcile's own rule (lateDays): a day the source
    // has and the table has not loaded yet is late, not a broken law, and is left out of every law.
    let late: LawsResult['late'] = null;
    if (contract.lateness && day !== null && contract.lateness.column === day) {
      const ever = target.snapshot.partitionColumns.includes(day) ? await valuesEverLoaded(target, day) : new Set<string | null>();
      const values = lateDays(contract.lateness.days, joined.map((r) => ({ value: dayText(r), sourceRows: Number(r.sn), targetRows: Number(r.tn), onceLoaded: ever.has(dayText(r)) })));
      if (values.size) {
        late = { days: [...values].filter((v): v is string => v !== null).sort(), allow: contract.lateness.allow };
        joined = joined.filter((r) => !values.has(dayText(r)));
        notes.push(`${late.days.join(', ')}: in the source, not loaded into the table yet, within the contract's lateness allowance (${late.allow}): left out of every law (reconcile reports it as late_arriving)`);
      }
    }
    const laws: LawCheck[] = [];
    const countFails: LawDay[] = [];
    let countFailed = 0;
    for (const r of joined) {
      const sn = BigInt(String(r.sn));
      const tn = BigInt(String(r.tn));
      if (sn !== tn) {
        countFailed++;
        if (countFails.length < MAX_FAILURES) countFails.push({ day: dayText(r), source: sn.toString(), target: tn.toString(), difference: (tn - sn).toString() });
      }
    }
    laws.push({ law: `row count per ${day ?? 'table'}`, measure: null, kind: 'row_count', proposed: false, tolerance: null, holds: countFailed === 0, days: joined.length, failedDays: countFailed, failures: countFails });
    measures.forEach((m, i) => {
      const kind = kindOf(m);
      const tol = kind === 'float_sum' ? tolOf(m) : null;
      const fails: LawDay[] = [];
      let failed = 0;
      for (const r of joined) {
        let ok: boolean;
        let s: string, t: string, d: string;
        if (kind === 'exact_sum') {
          ok = r[`ok${i}`] === true;
          s = String(r[`sm${i}`]); t = String(r[`tm${i}`]); d = String(r[`dm${i}`]);
        } else {
          const sv = Number(r[`sm${i}`]), tv = Number(r[`tm${i}`]);
          const mag = Math.max(Number(r[`sa${i}`]), Number(r[`ta${i}`]));
          ok = Math.abs(tv - sv) <= tol! * mag;
          s = String(sv); t = String(tv); d = String(tv - sv);
        }
        if (!ok) {
          failed++;
          if (fails.length < MAX_FAILURES) fails.push({ day: dayText(r), source: s, target: t, difference: d });
        }
      }
      laws.push({ law: `sum(${m}) per ${day ?? 'table'}`, measure: m, kind, proposed, tolerance: tol, holds: failed === 0, days: joined.length, failedDays: failed, failures: fails });
    });
    if (proposed && measures.length === 0) notes.push('no numeric measure to conserve (the contract names none and the schema proposes none)');
    return {
      table: target.root,
      version: target.snapshot.version,
      source: src.description,
      day: { column: day, sourceExpression: sDay !== null && day !== null && !sType.has(day) ? part?.expression ?? null : null },
      laws,
      late,
      summary: { held: laws.filter((l) => l.holds).length, broken: laws.filter((l) => !l.holds).length },
      notes,
      durationMs: Date.now() - started,
    };
  } finally {
    detach();
    duck.close();
  }
}
