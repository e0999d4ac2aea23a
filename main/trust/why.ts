// `reconcile --why KEY=VALUE`: both sides' rows for one key, the target's with the file, row and
// commit that wrote it. A targeted read (a filter on the key), not a reconcile pass.
import { LakerecError } from '../../shared/errors';
import type { CellText } from '../../shared/reconcile';
import { maskValue } from '../../shared/sensitivity';
import type { RowProvenance } from '../../shared/trust';
import { openDuck, sqlIdent, sqlString } from '../engine/duck';
import { loadContract, type Contract } from '../reconcile/contract';
import { openSource, openTarget, registerTargetView } from '../reconcile/sides';
import { columnSensitivity } from './keys';
import { provenanceIndex } from './provenance';

export interface WhyResult {
  key: Record<string, string>;
  source: Record<string, CellText>[];
  target: { row: Record<string, CellText>; provenance: RowProvenance }[];
  /** same | differs | missing_in_target | extra_in_target | duplicated | absent */
  verdict: 'same' | 'differs' | 'missing_in_target' | 'extra_in_target' | 'duplicated' | 'absent';
  /** Columns whose values differ (one row each side). */
  columns: string[];
}

/** Parses "order_id=17" flags against the contract's keys (every key column once). */
export function parseWhy(args: string[], contract: Contract): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of args) {
    const eq = a.indexOf('=');
    if (eq <= 0) throw new LakerecError('usage', `--why takes KEY=VALUE, got "${a}"`);
    const k = a.slice(0, eq);
    if (!contract.keys.includes(k)) throw new LakerecError('usage', `--why: "${k}" is not a key column of the contract (${contract.keys.join(', ')})`);
    out[k] = a.slice(eq + 1);
  }
  const missing = contract.keys.filter((k) => !(k in out));
  if (missing.length > 0) throw new LakerecError('usage', `--why needs every key column: missing ${missing.map((k) => `${k}=VALUE`).join(', ')}`);
  return out;
}

export async function whyKey(opts: { source: string; table: string; version?: number; contract: Contract | string; key: Record<string, string>; cwd?: string; limit?: number }): Promise<WhyResult> {
  const contract = typeof opts.contract === 'string' ? loadContract(opts.contract) : opts.contract;
  const cwd = opts.cwd ?? process.cwd();
  const limit = opts.limit ?? 20;
  const duck = await openDuck({ threads: 2 });
  try {
    const conn = duck.conn;
    const target = await openTarget(opts.table, opts.version);
    await registerTargetView(conn, target, 'lk_why_t', undefined, true);
    await openSource(conn, opts.source, cwd, contract, target, 'lk_why_s');
    const sens = columnSensitivity(contract, target.snapshot.schema.fields as { name: string; metadata?: Record<string, unknown> }[]);
    const where = Object.entries(opts.key).map(([k, v]) => `CAST(${sqlIdent(k)} AS VARCHAR) = ${sqlString(v)}`).join(' AND ');
    const cols = target.columns.map((c) => c.name);
    const srcCols = (await conn.runAndReadAll('DESCRIBE lk_why_s')).getRowObjectsJS().map((r) => String(r.column_name));
    const read = async (view: string, names: string[], extra: string) => (await conn.runAndReadAll(
      `SELECT ${names.map((c) => `CAST(${sqlIdent(c)} AS VARCHAR) AS ${sqlIdent(c)}`).join(', ')}${extra} FROM ${view} WHERE ${where} LIMIT ${limit}`)).getRowObjectsJS() as Record<string, unknown>[];
    const mask = (r: Record<string, unknown>, names: string[]): Record<string, CellText> => Object.fromEntries(names.map((c) => [c, r[c] === null || r[c] === undefined ? null : maskValue(sens[c] ?? null, String(r[c]))]));
    const s = (await read('lk_why_s', srcCols, '')).map((r) => mask(r, srcCols));
    const index = await provenanceIndex(target.table, target.snapshot);
    const t = (await read('lk_why_t', cols, ', _lakerec_file AS _f, _lakerec_row AS _r')).map((r) => ({ row: mask(r, cols), provenance: index.rowOf(String(r._f), r._r === null ? null : Number(r._r)) }));
    const shared = cols.filter((c) => srcCols.includes(c) && !contract.ignore.includes(c));
    const columns = s.length === 1 && t.length === 1 ? shared.filter((c) => s[0][c] !== t[0].row[c]) : [];
    const verdict: WhyResult['verdict'] = s.length === 0 && t.length === 0 ? 'absent' : t.length === 0 ? 'missing_in_target' : s.length === 0 ? 'extra_in_target'
      : t.length > 1 || s.length > 1 ? 'duplicated' : columns.length > 0 ? 'differs' : 'same';
    return { key: opts.key, source: s, target: t, verdict, columns };
  } finally {
    duck.close();
  }
}

export function whyLines(w: WhyResult, provenanceText: (p: RowProvenance) => string): string[] {
  const key = Object.entries(w.key).map(([k, v]) => `${k}=${v}`).join(', ');
  const lines = [`${key}: ${w.verdict.replace(/_/g, ' ')}${w.columns.length ? ` (${w.columns.join(', ')})` : ''}`];
  lines.push(`  source: ${w.source.length} row(s)`);
  for (const r of w.source) lines.push(`    ${Object.entries(r).map(([k, v]) => `${k}=${v ?? 'null'}`).join(', ')}`);
  lines.push(`  target: ${w.target.length} row(s)`);
  for (const r of w.target) {
    lines.push(`    ${Object.entries(r.row).map(([k, v]) => `${k}=${v ?? 'null'}`).join(', ')}`);
    lines.push(`      written by ${provenanceText(r.provenance)}`);
  }
  return lines;
}
