// Runs the pushed levels through a connector and reads back their partials. Each statement run is
// logged (level, SQL identity, engine, query id, bytes, time) for the report: what ran where.
import { LakerecError } from '../../shared/errors';
import type { PushedStatementRun } from '../../shared/reconcile';
import { fingerprintFromSqlRow, type OdsFingerprint } from '../../shared/fingerprint';
import { addGroup, emptyExactSum, type ExactSum } from '../reconcile/checksum';
import { records, type Connector, type QueryOptions, type QueryResult } from './connector';
import { addPartial, combineLimbs, emptyPartials, exactInteger, PUSHED_DIGEST, type PartialSet } from './partials';
import {
  checksumStatements, countsStatement, fingerprintSchema, fingerprintStatement, keysStatement, partitionLabel, rowsStatement, schemaStatement,
  DEFAULT_ROW_CAP, tolerantFloats, type PushedLevel, type PushedStatement, type PushSide,
} from './levels';

/** One statement as it ran: the report's "what ran where" (the result's shape, its level typed). */
export type RanStatement = PushedStatementRun & { level: PushedLevel };

export class PushLog {
  readonly ran: RanStatement[] = [];
  get bytes(): number { return this.ran.reduce((a, r) => a + r.bytes, 0); }
}

export async function runStatement(conn: Connector, st: PushedStatement, log: PushLog, opts: QueryOptions = {}): Promise<QueryResult> {
  const r = await conn.query(st.sql, opts);
  log.ran.push({ level: st.level, purpose: st.purpose, sqlId: st.id, where: conn.describe(), connection: conn.name, queryId: r.queryId, bytes: r.bytes, rows: r.rows.length, ms: Math.round(r.ms) });
  return r;
}

function partitionColumn(side: PushSide): string | null {
  return side.contract.partitioning?.column ?? null;
}

function need(r: Record<string, string | null>, k: string, what: string): string | null {
  if (!(k in r)) throw new LakerecError('io_error', `${what}: the warehouse's result has no column ${k}`);
  return r[k];
}

/** The schema as the engine describes it: names and its own type names. */
export async function pushedSchema(conn: Connector, side: PushSide, log: PushLog, opts?: QueryOptions): Promise<{ name: string; type: string }[]> {
  const r = records(await runStatement(conn, schemaStatement(side), log, opts));
  const out: { name: string; type: string }[] = [];
  for (const row of r) {
    const name = row.column_name ?? row.col_name ?? row.name ?? row.column ?? null;
    const type = row.column_type ?? row.data_type ?? row.type ?? null;
    // Spark's DESCRIBE EXTENDED: the columns end at the first blank or '#' row.
    if (name === null || name === '' || name.startsWith('#')) break;
    out.push({ name, type: type ?? '' });
  }
  return out;
}

export async function pushedCounts(conn: Connector, side: PushSide, log: PushLog, opts?: QueryOptions): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const row of records(await runStatement(conn, countsStatement(side), log, opts))) {
    out.set(partitionLabel(partitionColumn(side), need(row, 'p', 'counts')), exactInteger(need(row, 'n', 'counts'), 'a partition count'));
  }
  return out;
}

function digestPartials(r: QueryResult, side: PushSide, digest: string, where: string): PartialSet {
  const set = emptyPartials(digest, where);
  for (const row of records(r)) {
    addPartial(set, {
      partition: partitionLabel(partitionColumn(side), need(row, 'p', 'checksum')),
      rows: exactInteger(need(row, 'n', 'checksum'), 'a partition count'),
      sum: combineLimbs([row.l0, row.l1, row.l2, row.l3]),
    });
  }
  return set;
}

export interface PushedChecksum {
  partials: PartialSet;
  /** Per float column, per partition: the exact sum and the rows. */
  floats: Map<string, Map<string, { s: ExactSum; n: number }>>;
}

export async function pushedChecksum(conn: Connector, side: PushSide, log: PushLog, opts?: QueryOptions): Promise<PushedChecksum> {
  const [digest, ...floatStmts] = checksumStatements(side);
  const partials = digestPartials(await runStatement(conn, digest, log, opts), side, PUSHED_DIGEST, conn.describe());
  const floats = new Map<string, Map<string, { s: ExactSum; n: number }>>();
  for (const st of floatStmts) {
    const m = new Map<string, { s: ExactSum; n: number }>();
    for (const row of records(await runStatement(conn, st, log, opts))) {
      const l = partitionLabel(partitionColumn(side), row.p);
      const cur = m.get(l) ?? { s: emptyExactSum(), n: 0 };
      const n = Number(exactInteger(row.n, 'a float count'));
      cur.n += n;
      if (row.special === 'nan') cur.s.nan += n;
      else if (row.special === '+inf') cur.s.posInf += n;
      else if (row.special === '-inf') cur.s.negInf += n;
      else if (row.e !== null) addGroup(cur.s, Number(exactInteger(row.e, 'an exponent')), exactInteger(row.ms, 'a mantissa sum'));
      m.set(l, cur);
    }
    floats.set(st.column!, m);
  }
  return { partials, floats };
}

/** The key digests' identity: md5 of the canonical text of the key columns, in key order. */
export const KEY_DIGEST = `keys:${PUSHED_DIGEST}`;

export async function pushedKeyDigests(conn: Connector, side: PushSide, log: PushLog, opts?: QueryOptions): Promise<PartialSet> {
  return digestPartials(await runStatement(conn, keysStatement(side), log, opts), side, KEY_DIGEST, conn.describe());
}

export interface PushedRow {
  partition: string;
  key: string;
  digest: string;
  /** The ordering column's text, when the contract names one. */
  order?: string | null;
  /** Float columns compared within a tolerance (target names): their values, as text. */
  floats?: Record<string, string | null>;
}

/** Key-level rows of the named partitions only, capped; `capped` says more existed. */
export async function pushedRows(conn: Connector, side: PushSide, labels: string[], log: PushLog, cap = DEFAULT_ROW_CAP, opts?: QueryOptions): Promise<{ rows: PushedRow[]; capped: boolean }> {
  if (labels.length === 0) return { rows: [], capped: false };
  const r = records(await runStatement(conn, rowsStatement(side, labels, cap), log, { ...opts, maxRows: cap + 1 }));
  const fl = tolerantFloats(side);
  const rows = r.slice(0, cap).map((x) => ({
    partition: partitionLabel(partitionColumn(side), x.p), key: x.k ?? '', digest: x.h ?? '', ...('o' in x ? { order: x.o } : {}),
    ...(fl.length ? { floats: Object.fromEntries(fl.map((f, i) => [f.target, x[`f${i}`] ?? null])) } : {}),
  }));
  return { rows, capped: r.length > cap };
}

export async function pushedFingerprint(conn: Connector, side: PushSide, log: PushLog, opts?: QueryOptions): Promise<OdsFingerprint> {
  const r = records(await runStatement(conn, fingerprintStatement(side), log, opts));
  if (r.length !== 1) throw new LakerecError('io_error', `fingerprint: the warehouse returned ${r.length} rows, not 1`);
  return fingerprintFromSqlRow(fingerprintSchema(side.columns), r[0]);
}
