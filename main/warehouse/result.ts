// A pushed reconcile as the one ReconcileResult every face renders (terminal, JSON, markdown,
// HTML, the window, the incident report): the partials become partition results, the key-level
// rows of the disagreeing partitions become the key diff's evidence, and the local engine's own
// classifier (main/reconcile/classify.ts) names the corruption modes from them, with its wording.
// What a pushed run cannot see (the target's log, the rows' full values) is said in notExamined.
import { LAKEREC_VERSION } from '../../shared/version';
import {
  levelIndex, type FloatColumnResult, type Level, type PartitionResult, type PartitionState, type ReconcileResult, type RowDiff, type SchemaComparison,
} from '../../shared/reconcile';
import type { JobContext } from '../../shared/jobs';
import { classify, type KeyDiffEvidence } from '../reconcile/classify';
import { contractSummary, type Contract } from '../reconcile/contract';
import { dayOf, NULL_LABEL } from '../reconcile/sql';
import { pushedFamily, type WarehouseColumn } from './dialect';
import { orderingCompare, DEFAULT_ROW_CAP } from './levels';
import { warehouseReconcile, type WarehouseReconcileResult, type WarehouseSide } from './reconcile';
import type { PushedRow } from './run';

/** The fields of a canonical text (ADR 0003), each null or its value text, for columns of these families. */
export function parseCanonical(text: string, lengthPrefixed: boolean[]): (string | null)[] | null {
  const bytes = Buffer.from(text, 'utf8');
  const out: (string | null)[] = [];
  let i = 0;
  for (const lp of lengthPrefixed) {
    if (bytes[i] === 0x4e && bytes[i + 1] === 0x7c) { out.push(null); i += 2; continue; }
    if (bytes[i] !== 0x56) return null;
    i++;
    if (lp) {
      const colon = bytes.indexOf(0x3a, i);
      if (colon < 0) return null;
      const n = Number(bytes.subarray(i, colon).toString('latin1'));
      if (!Number.isInteger(n) || n < 0 || colon + 1 + n > bytes.length) return null;
      out.push(bytes.subarray(colon + 1, colon + 1 + n).toString('utf8'));
      i = colon + 1 + n;
    } else {
      const bar = bytes.indexOf(0x7c, i);
      if (bar < 0) return null;
      out.push(bytes.subarray(i, bar).toString('utf8'));
      i = bar + 1;
    }
  }
  return i === bytes.length ? out : null;
}

function partitionValue(label: string): string | null {
  if (label === '(table)') return null;
  const v = label.slice(label.indexOf('=') + 1);
  return v === NULL_LABEL ? null : v;
}

interface Seen { partition: string; digest: string; order: string | null; floats: Record<string, string | null> }

const KINDS = ['missing', 'extra', 'duplicate', 'changed', 'moved', 'null_key', 'stale', 'unicode'] as const;

/**
 * The key diff's evidence from the key-level rows of the disagreeing partitions, by the local key
 * diff's rules (main/reconcile/keydiff.ts): rows with a null key are counted apart and never
 * matched; a key with more rows in the target is a duplicate; one in another partition moved;
 * one with another row digest changed (stale when the target's ordering value is older).
 */
export function keyEvidence(
  rows: { source: PushedRow[]; target: PushedRow[] }, keys: string[], keyColumns: WarehouseColumn[], dialect: WarehouseSide['connector']['dialect'], naiveIsUtc: boolean,
  tolerances: Record<string, number> = {}, limit = 5,
): KeyDiffEvidence {
  const lp = keyColumns.map((c) => {
    const f = pushedFamily(c, dialect, naiveIsUtc);
    return f === 'string' || f === 'nested' || (dialect === 'duckdb' && f === 'other');
  });
  const ev: KeyDiffEvidence = {
    byPartition: new Map(), missing: 0, extra: 0, dupKeys: 0, dupRows: 0, dupDiffKeys: 0, sourceDupKeys: 0, changed: 0, moved: 0,
    nullKeyRowsTarget: 0, nullKeyRowsSource: 0, movedAdjacent: 0, movedDirection: { later: 0, earlier: 0 }, movedExprMismatch: null, staleRows: 0,
    unicodeExamined: 0, unicodeOnly: 0,
    examples: Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as KeyDiffEvidence['examples'],
    exampleKeys: Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as KeyDiffEvidence['exampleKeys'],
  };
  const entry = (l: string) => {
    let e = ev.byPartition.get(l);
    if (!e) { e = { missing: 0, extra: 0, dupKeys: 0, dupRows: 0, dupDiffKeys: 0, changed: 0, moved: 0, nullKeyRows: 0 }; ev.byPartition.set(l, e); }
    return e;
  };
  const fields = (k: string) => parseCanonical(k, lp);
  const group = (list: PushedRow[], target: boolean) => {
    const m = new Map<string, Seen[]>();
    for (const r of list) {
      const f = fields(r.key);
      if (f === null || f.some((x) => x === null)) {
        if (target) { ev.nullKeyRowsTarget++; entry(r.partition).nullKeyRows++; } else ev.nullKeyRowsSource++;
        continue;
      }
      const seen = { partition: r.partition, digest: r.digest, order: r.order ?? null, floats: r.floats ?? {} };
      const cur = m.get(r.key);
      if (cur) cur.push(seen); else m.set(r.key, [seen]);
    }
    return m;
  };
  const s = group(rows.source, false);
  const t = group(rows.target, true);
  const example = (kind: (typeof KINDS)[number], key: string, sp: string | null, tp: string | null) => {
    if (ev.exampleKeys[kind].length >= limit) return;
    const f = fields(key) ?? [];
    const rec = Object.fromEntries(keys.map((k, i) => [k, f[i] ?? null]));
    ev.exampleKeys[kind].push(keys.map((k, i) => `${k}=${f[i] ?? 'null'}`).join(', '));
    // Only the key and the row digest came back: a side's row is shown by its partition, without values.
    const rd: RowDiff = { key: rec, sourcePartition: sp, targetPartition: tp, kind: kind === 'stale' || kind === 'unicode' ? 'changed' : kind, columns: [], source: sp === null ? null : {}, target: tp === null ? null : {} };
    ev.examples[kind].push(rd);
  };
  const min = (xs: string[]) => xs.reduce((a, b) => (b < a ? b : a));
  for (const ss of s.values()) if (ss.length > 1) ev.sourceDupKeys++;
  for (const key of [...new Set([...s.keys(), ...t.keys()])].sort()) {
    const ss = s.get(key) ?? [];
    const ts = t.get(key) ?? [];
    const sp = ss.length ? min(ss.map((x) => x.partition)) : null;
    const tp = ts.length ? min(ts.map((x) => x.partition)) : null;
    const at = (tp ?? sp)!;
    if (ss.length === 0) { ev.extra++; entry(at).extra++; example('extra', key, null, tp); continue; }
    if (ts.length === 0) { ev.missing++; entry(at).missing++; example('missing', key, sp, null); continue; }
    const sd = min(ss.map((x) => x.digest));
    const td = min(ts.map((x) => x.digest));
    if (ts.length > ss.length) {
      const sameCopies = ts.every((x) => x.digest === ts[0].digest);
      ev.dupKeys++; ev.dupRows += ts.length - ss.length; entry(at).dupKeys++; entry(at).dupRows += ts.length - ss.length;
      if (!(sameCopies && sd === td)) { ev.dupDiffKeys++; entry(at).dupDiffKeys++; }
      example('duplicate', key, sp, tp);
      continue;
    }
    if (sp !== tp) {
      ev.moved++; entry(at).moved++;
      const a = dayOf(partitionValue(sp!));
      const b = dayOf(partitionValue(tp!));
      if (a !== null && b !== null && Math.abs(b - a) === 1) {
        ev.movedAdjacent++;
        if (b > a) ev.movedDirection.later++; else ev.movedDirection.earlier++;
      }
      example('moved', key, sp, tp);
      continue;
    }
    // As the local key diff: another digest, or a float beyond its tolerance (NaN equals NaN, as in DuckDB).
    const floatDiffers = Object.entries(tolerances).some(([c, tol]) => {
      const a = ss[0].floats[c] ?? null;
      const b = ts[0].floats[c] ?? null;
      if (a === b) return false;
      if (a === null || b === null) return true;
      const x = Number(a);
      const y = Number(b);
      return !(Math.abs(x - y) <= tol) && !(Number.isNaN(x) && Number.isNaN(y));
    });
    if (sd !== td || floatDiffers) {
      ev.changed++; entry(at).changed++;
      const so = ss.map((x) => x.order).filter((x): x is string => x !== null);
      const to = ts.map((x) => x.order).filter((x): x is string => x !== null);
      if (so.length && to.length && orderingCompare(to.reduce((a, b) => (orderingCompare(b, a) > 0 ? b : a)), so.reduce((a, b) => (orderingCompare(b, a) > 0 ? b : a))) < 0) {
        ev.staleRows++; example('stale', key, sp, tp);
      } else example('changed', key, sp, tp);
    }
  }
  return ev;
}

/** The sentences of what a pushed run does not examine, for this contract and result. */
function notExamined(w: WarehouseReconcileResult, contract: Contract): string[] {
  const out: string[] = [];
  const at = levelIndex(w.level);
  if (at >= levelIndex('counts')) out.push("the target's Delta log is not read: an emptied partition is named a wipe, never an overwrite wider than its predicate, and no repeated files are found from statistics");
  if (at >= levelIndex('counts') && contract.lateness) out.push(`lateness (${contract.lateness.allow}) is not applied: whether the target ever held a day is in its log, so a day it lacks is reported missing, not late`);
  if (at >= levelIndex('counts') && at < levelIndex('keys')) out.push("null keys are not counted below the keys level (the local engine reads them from the target's file statistics)");
  if (at >= levelIndex('keys')) {
    out.push('only the key and the row digest of each row come back: rows are compared by digest, not column by column, and Unicode normal forms are not re-compared');
  }
  return out;
}

/** The ReconcileResult of a pushed run: partitions, floats, the key diff and the findings by the local classifier. */
export function toReconcileResult(w: WarehouseReconcileResult, contract: Contract, startedAt: number): ReconcileResult {
  const level: Level = w.level;
  const at = levelIndex(level);
  const num = (x: string | null) => (x === null ? 0 : Number(x));
  const partitions: PartitionResult[] = w.partitions.map((p) => ({
    partition: p.partition, value: partitionValue(p.partition),
    sourceRows: num(p.sourceRows), targetRows: num(p.targetRows),
    sourceChecksum: p.sourceChecksum, targetChecksum: p.targetChecksum, inherited: false, state: 'counts_match' as PartitionState,
  }));
  const partCol = contract.partitioning?.column ?? null;
  // Lateness needs to know which days the target ever held (its log): a pushed run does not read
  // it, so no partition is called late (an absent day is missing, and notExamined says why).
  const late = null;
  const lateSet = new Set<string>();
  const floats: FloatColumnResult[] = [];
  for (const f of w.floats) {
    let c = floats.find((x) => x.column === f.column);
    if (!c) {
      const rule = contract.floats[f.column];
      c = { column: f.column, rule: rule === 'exclude' ? 'exclude' : 'tolerance', tolerance: rule && rule !== 'exclude' ? rule.tolerance : null, partitions: [] };
      floats.push(c);
    }
    c.partitions.push({ partition: f.partition, source: f.source, target: f.target, agree: f.agree });
  }
  const floatBad = new Set(w.floats.filter((f) => !f.agree).map((f) => f.partition));
  const keyBad = new Set(w.partitions.filter((p) => p.sourceKeys !== p.targetKeys).map((p) => p.partition));
  for (const p of partitions) {
    if (lateSet.has(p.partition)) p.state = 'late';
    else if (p.sourceRows > 0 && p.targetRows === 0) p.state = 'missing_in_target';
    else if (p.sourceRows === 0 && p.targetRows > 0) p.state = 'missing_in_source';
    else if (p.sourceRows !== p.targetRows) p.state = 'differs';
    else if (at < levelIndex('checksum')) p.state = 'counts_match';
    else p.state = p.sourceChecksum === p.targetChecksum && !floatBad.has(p.partition) && !keyBad.has(p.partition) ? 'match' : 'differs';
  }
  const renamed = Object.entries(contract.renames).map(([source, target]) => ({ source, target }));
  const schema: SchemaComparison = {
    source: w.source.columns.map((c) => ({ name: c.name, type: c.type })),
    target: w.target.columns.map((c) => ({ name: c.name, type: c.type })),
    compared: w.schema.compared, onlyInSource: w.schema.onlyInSource, onlyInTarget: w.schema.onlyInTarget, typeChanges: w.schema.typeChanges,
    ignored: [...contract.ignore], renamed,
  };
  let keyDiff: KeyDiffEvidence | null = null;
  if (w.keyRows) {
    const renamedKey = (k: string) => Object.entries(contract.renames).find(([, t]) => t === k)?.[0] ?? k;
    const keyCols = contract.keys.map((k) => w.source.columns.find((c) => c.name === renamedKey(k)) ?? { name: k, type: 'VARCHAR' });
    const tolerances = Object.fromEntries(Object.entries(contract.floats).flatMap(([c, r]) => (r === 'exclude' ? [] : [[c, r.tolerance]])));
    keyDiff = keyEvidence(w.keyRows, contract.keys, keyCols, w.sourceDialect, contract.naiveIsUtc, tolerances);
  } else if (at >= levelIndex('keys')) {
    keyDiff = keyEvidence({ source: [], target: [] }, contract.keys, [], w.sourceDialect, contract.naiveIsUtc);
  }
  const { findings, unnamed } = classify({
    level, schema, partitions, partitionColumn: partCol, partitionExpression: contract.partitioning?.expression ?? null,
    removals: new Map(), logConsulted: false, statsDuplicates: [], statsNullKeys: null,
    keys: contract.keys, floats, keyDiff, late,
  });
  const blocking = findings.some((f) => f.blocking) || unnamed.length > 0;
  const anyDiff = partitions.some((p) => p.state !== 'match' && p.state !== 'counts_match' && p.state !== 'late');
  if (anyDiff && !blocking) unnamed.push('partitions disagree but no finding explains it');
  const verdict = blocking || anyDiff ? 'diverges' : 'matches';
  const rowsOf = (side: 'source' | 'target') => (at < levelIndex('counts') ? null : partitions.reduce((a, p) => a + (side === 'source' ? p.sourceRows : p.targetRows), 0));
  const keyRowsFetched = w.keyRows ? w.keyRows.source.length + w.keyRows.target.length : 0;
  const notes = [...w.notes];
  notes.push(`pushed: the source computed on ${w.source.where}, the target on ${w.target.where}; ${w.ran.length} statement(s), ${w.bytesTransferred.toLocaleString('en-US')} bytes of results transferred`);
  const scanned = at >= levelIndex('counts');
  return {
    verdict, level, exitCode: verdict === 'diverges' ? 1 : 0,
    source: { description: w.source.label, kind: 'warehouse', rows: rowsOf('source'), checksum: w.sourceTotal?.checksum ?? null, version: null },
    target: { description: w.target.label, kind: 'warehouse', rows: rowsOf('target'), checksum: w.targetTotal?.checksum ?? null, version: null },
    contract: contractSummary(contract), schema, partitions, findings, unnamed, floats,
    columnDiffs: [],
    rowDiffs: keyDiff ? KINDS.flatMap((k) => keyDiff!.examples[k]) : [],
    keyDiff: keyDiff ? {
      missing: keyDiff.missing, extra: keyDiff.extra, duplicatedInTarget: keyDiff.dupKeys, duplicatedInSource: keyDiff.sourceDupKeys,
      changed: keyDiff.changed, moved: keyDiff.moved, nullKeysTarget: keyDiff.nullKeyRowsTarget, nullKeysSource: keyDiff.nullKeyRowsSource,
    } : null,
    // Rows the engines holding each side read (every row, where a level reads data); none read here.
    reads: { targetRowsRead: scanned ? rowsOf('target')! : 0, targetRowsAvoided: 0, targetFilesRead: 0, targetFilesTotal: 0, sourceRowsRead: scanned ? rowsOf('source')! : 0, exampleRowsFetched: keyRowsFetched },
    baseline: null, digest: w.digest,
    engine: { duckdb: 'not used locally (pushed)', lakerec: LAKEREC_VERSION },
    startedAt: new Date(startedAt).toISOString(), durationMs: Date.now() - startedAt, notes,
    pushed: {
      source: { label: w.source.label, where: w.source.where }, target: { label: w.target.label, where: w.target.where },
      ran: w.ran, bytesTransferred: w.bytesTransferred, keyRowsFetched,
      keyRowCap: w.keyDiff?.cap ?? DEFAULT_ROW_CAP, capped: w.keyDiff?.capped ?? false, notExamined: notExamined(w, contract),
    },
  };
}

/** A pushed reconcile, returned as the one result every face renders. */
export async function pushedReconcile(opts: { source: WarehouseSide; target: WarehouseSide; contract: Contract; level?: Level; rowCap?: number; ctx?: JobContext }): Promise<ReconcileResult> {
  const started = Date.now();
  return toReconcileResult(await warehouseReconcile(opts), opts.contract, started);
}

/** The pushed block of the terminal text: what ran where, and what was not examined. */
export function pushedLines(r: ReconcileResult): string[] {
  const p = r.pushed;
  if (!p) return [];
  const out = [`pushed:  source ${p.source.label} (${p.source.where}); target ${p.target.label} (${p.target.where})`];
  if (p.capped) out.push(`         key-level rows capped at ${p.keyRowCap} a side: the key lists are partial`);
  for (const n of p.notExamined) out.push(`not examined: ${n}`);
  out.push(`what ran where (${p.ran.length} statement(s), ${p.bytesTransferred} bytes of results transferred):`);
  for (const x of p.ran) out.push(`  ${x.level.padEnd(8)} sql ${x.sqlId}  ${x.where}  query id ${x.queryId ?? '(none given)'}  ${x.rows} row(s), ${x.bytes} bytes, ${x.ms} ms`);
  return out;
}
