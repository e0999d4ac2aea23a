// The key diff: the two per-row digest tables joined on the key inside DuckDB, each key classified
// (missing, extra, duplicate, moved, changed), then the few example rows fetched back by key.
import type { DuckDBConnection } from '@duckdb/node-api';
import { report, type JobContext } from '../../shared/jobs';
import { levelIndex, type CellText, type ColumnDiffCount, type Level, type ReconcileResult, type RowDiff } from '../../shared/reconcile';
import { sqlIdent } from '../engine/duck';
import { canonicalRow, columnHashSql, compareFamily } from './canonical';
import type { Contract } from './contract';
import type { KeyDiffEvidence } from './classify';
import type { SchemaLevel, StoredColumns } from './levels';
import { storedColumns, type ChecksumLevel, type PassPlan } from './pass';
import type { Tally } from './result';
import { registerTargetView, type TargetSide } from './sides';
import { dayOf, exec, label, num, partitionIn, rows, text, type PartitionSpec } from './sql';
import { pushTo } from '../../shared/group';

export interface KeyDiffResult {
  evidence: KeyDiffEvidence;
  totals: NonNullable<ReconcileResult['keyDiff']>;
  columnDiffs: ColumnDiffCount[];
  rowDiffs: RowDiff[];
}

/**
 * The key diff: a FULL OUTER JOIN of the two digest tables on the key, inside DuckDB.
 * `onlyPartitions` (labels; null for all) limits the join to the partitions whose checksums
 * disagree, plus every row elsewhere whose key occurs there on either side (a key whose copies
 * sit in an agreeing and a disagreeing partition is still seen as one key). In a partition whose
 * checksum and count agree the two sides hold the same rows, so it holds no difference to find.
 */
export async function diffKeys(
  conn: DuckDBConnection, contract: Contract, part: PartitionSpec, digestCols: string[], floatCols: string[],
  srcType: Map<string, string>, tgtType: Map<string, string>, skipPartitions: string[], limit: number, perColumn: boolean,
  reads: ReconcileResult['reads'], onlyPartitions: string[] | null = null, stored: StoredColumns = { h2: true, o: true, pType: null },
  /** A view of the target's rows in these partitions only, without provenance (for targeted re-reads). */
  targetView: (partitions: string[]) => Promise<string> = async () => 'lk_tgt_all',
  /**
   * The target's rows with provenance: every file (`all`, for moved and null-key rows), and the
   * files that can hold the example keys (`examples`, called once lk_ex holds them).
   */
  provenanceViews: { all: () => Promise<string>; examples: () => Promise<string> } = { all: async () => 'lk_tgt_all', examples: async () => 'lk_tgt_all' },
): Promise<KeyDiffResult> {
  const K = contract.keys.map((_, i) => `k${i}`);
  const keyCols = contract.keys;
  const keyNull = K.map((k) => `${k} IS NULL`).join(' OR ');
  const pIn = (labels: string[]) => partitionIn('p', stored.pType, labels);
  const skip = skipPartitions.length ? ` AND NOT ${pIn(skipPartitions)}` : '';
  // Keys are unique on both sides almost always: those rows are joined as they are (one hash
  // join, no aggregation). Keys that repeat on either side are few; they are aggregated per key
  // first and then joined. Both land in lk_kd, which keeps only keys that are not equal.
  const notNull = `NOT (${keyNull})${skip}`;
  const Kl = K.join(', ');
  const on = (a: string, b: string) => K.map((k) => `${a}.${k} = ${b}.${k}`).join(' AND ');
  const inD = onlyPartitions === null ? 'true' : onlyPartitions.length ? pIn(onlyPartitions) : 'false';
  // The usual case (no key repeated, none in two partitions) proved exactly and cheaply when it can be.
  const inDigest = keyCols.every((c) => digestCols.includes(c));
  // LAKEREC_KEY_PROOF=off runs the exact queries alone (keydiff.test.ts compares the two paths).
  const proof = process.env.LAKEREC_KEY_PROOF === 'off' ? null : (K.length === 1
    ? await keyBitmapProof(conn, { srcType: srcType.get(keyCols[0])!, tgtType: tgtType.get(keyCols[0])!, inDigest }, notNull, inD)
    : null) ?? await keyHashProof(conn, K, inDigest, notNull, inD);
  // A key not unique in the source is a finding of its own, so the source is checked in full.
  await exec(conn, proof?.sourceUnique
    ? `CREATE OR REPLACE TEMP TABLE lk_sdup AS SELECT ${Kl} FROM lk_s WHERE false`
    : `CREATE OR REPLACE TEMP TABLE lk_sdup AS SELECT ${Kl} FROM lk_s WHERE ${notNull} GROUP BY ${Kl} HAVING count(*) > 1`);
  let sIn = 'lk_s';
  let tIn = 'lk_t';
  let cross = false;
  if (onlyPartitions !== null && proof && !proof.cross) {
    sIn = `(SELECT * FROM lk_s WHERE ${inD})`;
    tIn = `(SELECT * FROM lk_t WHERE ${inD})`;
  } else if (onlyPartitions !== null) {
    // The rows of the disagreeing partitions, and the few elsewhere whose key also occurs there
    // (found from the key columns alone; normally none).
    await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_dk AS SELECT ${Kl} FROM lk_s WHERE ${notNull} AND ${inD} UNION SELECT ${Kl} FROM lk_t WHERE ${notNull} AND ${inD}`);
    // Conditions are applied inside a derived table, unqualified: literals are never rewritten.
    const outside = (tb: string) => `SELECT x.${K.join(', x.')} FROM (SELECT ${Kl} FROM ${tb} WHERE ${notNull} AND NOT (${inD})) x SEMI JOIN lk_dk d ON ${on('d', 'x')}`;
    await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_xk AS ${outside('lk_s')} UNION ${outside('lk_t')}`);
    cross = num((await rows(conn, 'SELECT count(*) AS n FROM lk_xk'))[0].n) > 0;
    const input = (tb: string) => cross
      ? `(SELECT * FROM ${tb} WHERE ${inD} UNION ALL SELECT x.* FROM (SELECT * FROM ${tb} WHERE NOT (${inD})) x SEMI JOIN lk_xk d ON ${on('d', 'x')})`
      : `(SELECT * FROM ${tb} WHERE ${inD})`;
    sIn = input('lk_s');
    tIn = input('lk_t');
  }
  // Keys repeated in the source anywhere, or in the target within the diff's rows.
  let anyDup = false;
  if (proof && proof.sourceUnique && proof.targetDiffUnique && !cross) {
    await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_dupk AS SELECT ${Kl} FROM lk_sdup`);
  } else {
    await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_dupk AS SELECT ${Kl} FROM ${tIn} WHERE ${notNull} GROUP BY ${Kl} HAVING count(*) > 1 UNION SELECT ${Kl} FROM lk_sdup`);
    anyDup = num((await rows(conn, 'SELECT count(*) AS n FROM lk_dupk'))[0].n) > 0;
  }
  const floatDiff = floatCols.map((c, i) => {
    const rule = contract.floats[c];
    if (rule === 'exclude') return null;
    return `(s.f${i} IS DISTINCT FROM t.f${i} AND NOT coalesce(abs(s.f${i} - t.f${i}) <= ${rule.tolerance}, false))`;
  }).filter((x): x is string => x !== null);
  // The fast digest's h2 is hash(h1): comparing h1 is the whole comparison.
  const changedCond = [stored.h2 ? '(s.h1 <> t.h1 OR s.h2 <> t.h2)' : 's.h1 <> t.h1', ...floatDiff].join(' OR ');
  const sameD = stored.h2 ? '(s.h1 = t.h1 AND s.h2 = t.h2)' : 's.h1 = t.h1';
  const ord = (a: string) => (stored.o ? `${a}.o` : 'NULL::BIGINT');
  const kdSelect = (sn: string, tn: string, tsame: string, from: string) => `SELECT * FROM (
    SELECT ${K.map((k) => `coalesce(s.${k}, t.${k}) AS ${k}`).join(', ')},
      ${sn} AS sn, ${tn} AS tn, s.p AS sp, t.p AS tp, ${sameD} AS same_d, ${tsame} AS tsame, ${ord('s')} AS so, ${ord('t')} AS tgo,
      CASE WHEN ${sn} IS NULL THEN 'extra' WHEN ${tn} IS NULL THEN 'missing'
           WHEN ${tn} > ${sn} THEN 'duplicate'
           WHEN s.p IS DISTINCT FROM t.p THEN 'moved'
           WHEN ${changedCond} THEN 'changed' ELSE 'same' END AS kind
    FROM ${from}
  ) WHERE kind <> 'same'`;
  const uniq = (tb: string) => anyDup
    ? `(SELECT * FROM (SELECT * FROM ${tb} WHERE ${notNull}) x WHERE NOT EXISTS (SELECT 1 FROM lk_dupk d WHERE ${on('d', 'x')}))`
    : `(SELECT * FROM ${tb} WHERE ${notNull})`;
  await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_kd AS ${kdSelect(
    `CASE WHEN s.${K[0]} IS NULL THEN NULL ELSE 1 END`, `CASE WHEN t.${K[0]} IS NULL THEN NULL ELSE 1 END`, 'true',
    `${uniq(sIn)} s FULL OUTER JOIN ${uniq(tIn)} t ON ${on('s', 't')}`)}`);
  if (anyDup) {
    // min, not any_value: a repeated key's partition and values are the same on every run.
    const fAgg = floatCols.map((_, i) => `min(f${i}) AS f${i}`);
    const agg = (tb: string) => `(SELECT ${K.map((k) => `x.${k}`).join(', ')}, count(*) AS n, min(p) AS p, min(h1) AS h1, ${stored.h2 ? 'min(h2) AS h2, (min(h1) = max(h1) AND min(h2) = max(h2))' : '(min(h1) = max(h1))'} AS same_copies${stored.o ? ', max(o) AS o' : ''}${fAgg.map((x) => ', ' + x).join('')} FROM ${tb} x SEMI JOIN lk_dupk d ON ${on('d', 'x')} GROUP BY ${K.map((k) => `x.${k}`).join(', ')})`;
    await exec(conn, `INSERT INTO lk_kd BY NAME ${kdSelect('s.n', 't.n', 't.same_copies', `${agg(sIn)} s FULL OUTER JOIN ${agg(tIn)} t ON ${on('s', 't')}`)}`);
  }

  // Totals per partition and kind.
  const byPartition: KeyDiffEvidence['byPartition'] = new Map();
  const entry = (l: string) => {
    let e = byPartition.get(l);
    if (!e) { e = { missing: 0, extra: 0, dupKeys: 0, dupRows: 0, dupDiffKeys: 0, changed: 0, moved: 0, nullKeyRows: 0 }; byPartition.set(l, e); }
    return e;
  };
  const ev: KeyDiffEvidence = {
    byPartition, missing: 0, extra: 0, dupKeys: 0, dupRows: 0, dupDiffKeys: 0, sourceDupKeys: 0, changed: 0, moved: 0,
    nullKeyRowsTarget: 0, nullKeyRowsSource: 0, movedAdjacent: 0, movedDirection: { later: 0, earlier: 0 }, movedExprMismatch: null, staleRows: 0,
    unicodeExamined: 0, unicodeOnly: 0,
    examples: { missing: [], extra: [], duplicate: [], changed: [], moved: [], null_key: [], stale: [], unicode: [] },
    exampleKeys: { missing: [], extra: [], duplicate: [], changed: [], moved: [], null_key: [], stale: [], unicode: [] },
  };
  const q = `SELECT kind, CAST(coalesce(tp, sp) AS VARCHAR) AS p, count(*) AS keys, sum(coalesce(tn, 0) - coalesce(sn, 0)) AS surplus,
      count(*) FILTER (WHERE kind = 'duplicate' AND NOT (tsame AND same_d)) AS dupdiff
    FROM lk_kd GROUP BY ALL`;
  for (const r of await rows(conn, q)) {
    const e = entry(label(part.column, text(r.p)));
    const n = num(r.keys);
    switch (r.kind) {
      case 'missing': e.missing += n; ev.missing += n; break;
      case 'extra': e.extra += n; ev.extra += n; break;
      case 'duplicate': e.dupKeys += n; e.dupRows += num(r.surplus); e.dupDiffKeys += num(r.dupdiff); ev.dupKeys += n; ev.dupRows += num(r.surplus); ev.dupDiffKeys += num(r.dupdiff); break;
      case 'moved': e.moved += n; ev.moved += n; break;
      case 'changed': e.changed += n; ev.changed += n; break;
    }
  }
  ev.sourceDupKeys = num((await rows(conn, 'SELECT count(*) AS n FROM lk_sdup'))[0].n);
  for (const r of await rows(conn, `SELECT CAST(p AS VARCHAR) AS p, count(*) AS n FROM lk_t WHERE ${keyNull} GROUP BY 1`)) {
    entry(label(part.column, text(r.p))).nullKeyRows += num(r.n);
    ev.nullKeyRowsTarget += num(r.n);
  }
  ev.nullKeyRowsSource = num((await rows(conn, `SELECT count(*) AS n FROM lk_s WHERE ${keyNull}`))[0].n);

  // Moved keys: how far, in days, when the partition is a date.
  if (ev.moved > 0) {
    for (const r of await rows(conn, `SELECT CAST(sp AS VARCHAR) AS sp, CAST(tp AS VARCHAR) AS tp, count(*) AS n FROM lk_kd WHERE kind = 'moved' GROUP BY ALL`)) {
      const a = dayOf(text(r.sp));
      const b = dayOf(text(r.tp));
      if (a !== null && b !== null && Math.abs(b - a) === 1) {
        ev.movedAdjacent += num(r.n);
        if (b > a) ev.movedDirection.later += num(r.n); else ev.movedDirection.earlier += num(r.n);
      }
    }
  }
  // Moved rows: does the target's partition value disagree with the contract's own derivation of
  // it from the same row? Then the partition was derived differently (a zone, a clock), not moved.
  if (ev.moved > 0 && part.expressionSql && part.column) {
    try {
      const jk = keyCols.map((kc, i) => `t.${sqlIdent(kc)} = k.${K[i]}`).join(' AND ');
      const r = (await rows(conn, `SELECT count(*) AS n FROM lk_kd k JOIN ${sqlIdent(await provenanceViews.all())} t ON ${jk}
        WHERE k.kind = 'moved' AND CAST((${part.expressionSql}) AS VARCHAR) IS DISTINCT FROM CAST(t.${sqlIdent(part.column)} AS VARCHAR)`))[0];
      ev.movedExprMismatch = num(r.n);
    } catch {
      ev.movedExprMismatch = null;
    }
  }
  if (ev.changed > 0 && contract.ordering) {
    ev.staleRows = num((await rows(conn, `SELECT count(*) AS n FROM lk_kd WHERE kind = 'changed' AND tgo < so`))[0].n);
  }

  const columnDiffs: ColumnDiffCount[] = [];

  // Examples: a few keys per kind, then their full rows fetched back by key from both sides.
  const exampleSql = (where: string, n: number) => `SELECT ${K.join(', ')}, kind, CAST(sp AS VARCHAR) AS sp, CAST(tp AS VARCHAR) AS tp FROM lk_kd WHERE ${where} ORDER BY ${K.join(', ')} LIMIT ${n}`;
  const staleWhere = contract.ordering ? `kind = 'changed' AND tgo < so` : 'false';
  const unicodeN = limit * 4;
  const picks: { kind: keyof KeyDiffEvidence['examples']; where: string; n: number }[] = [
    { kind: 'missing', where: `kind = 'missing'`, n: limit },
    { kind: 'extra', where: `kind = 'extra'`, n: limit },
    { kind: 'duplicate', where: `kind = 'duplicate'`, n: limit },
    { kind: 'moved', where: `kind = 'moved'`, n: limit },
    { kind: 'stale', where: staleWhere, n: limit },
    { kind: 'changed', where: `kind = 'changed'${contract.ordering ? ' AND NOT coalesce(tgo < so, false)' : ''}`, n: unicodeN },
  ];
  await exec(conn, `CREATE OR REPLACE TEMP TABLE lk_ex (${K.map((k, i) => `${k} ${srcType.get(keyCols[i])}`).join(', ')}, kind VARCHAR, sp VARCHAR, tp VARCHAR)`);
  for (const pk of picks) await exec(conn, `INSERT INTO lk_ex SELECT *  REPLACE (CASE WHEN ${pk.kind === 'stale' ? 'true' : 'false'} THEN 'stale' ELSE kind END AS kind) FROM (${exampleSql(pk.where, pk.n)})`);
  const exRows = await rows(conn, `SELECT ${K.map((k) => `CAST(${k} AS VARCHAR) AS ${k}`).join(', ')}, kind, sp, tp FROM lk_ex`);
  const keyText = (r: Record<string, unknown>) => JSON.stringify(K.map((k) => text(r[k])));
  const keyLabel = (r: Record<string, unknown>) => keyCols.map((k, i) => `${k}=${text(r[K[i]]) ?? 'null'}`).join(', ');

  // Full rows, fetched back by key (a targeted read, counted apart from the one pass; DuckDB
  // pushes the join's keys down into the scan). The target's rows come with their data file and
  // row index (`_lakerec_file`, `_lakerec_row`), first by file and row when a key has copies.
  const showCols = [...new Set([...digestCols, ...floatCols])].sort();
  const where = new Map<string, { file: CellText; row: number | null }>();
  // What each shown column is compared by: the verdict's own comparison (the column's hash of its
  // canonically typed value, naive timestamps as the contract says; a float within its tolerance),
  // never the display text, so a value the verdict calls equal is never marked as differing.
  const compared = new WeakMap<Record<string, CellText>, Record<string, CellText | number>>();
  const fetch = async (view: string, types: Map<string, string>, provenance: boolean) => {
    const m = new Map<string, Record<string, CellText>[]>();
    if (exRows.length === 0) return m;
    const cols = showCols.filter((c) => types.has(c));
    const hashed = digestCols.filter((c) => types.has(c));
    const tolerant = floatCols.filter((c) => types.has(c) && contract.floats[c] !== 'exclude');
    const sel = [...keyCols.map((k, i) => `CAST(v.${sqlIdent(k)} AS VARCHAR) AS ${K[i]}`), ...cols.map((c) => `CAST(v.${sqlIdent(c)} AS VARCHAR) AS ${sqlIdent('c_' + c)}`)];
    sel.push(...hashed.map((c) => `CAST(${columnHashSql(c, types.get(c)!, contract.naiveIsUtc, false, 'v')} AS VARCHAR) AS ${sqlIdent('h_' + c)}`));
    sel.push(...tolerant.map((c) => `CAST(v.${sqlIdent(c)} AS DOUBLE) AS ${sqlIdent('f_' + c)}`));
    if (provenance) sel.push('v._lakerec_file AS _lk_file', 'v._lakerec_row AS _lk_row');
    const join = keyCols.map((k, i) => `v.${sqlIdent(k)} = e.${K[i]}`).join(' AND ');
    // The source has no row position: its copies of a repeated key in one order on every run.
    const order = provenance ? ' ORDER BY _lk_file, _lk_row' : ' ORDER BY ALL';
    for (const r of await rows(conn, `SELECT ${sel.join(', ')} FROM ${sqlIdent(view)} v SEMI JOIN (SELECT DISTINCT ${K.join(', ')} FROM lk_ex) e ON ${join}${order}`)) {
      const rec: Record<string, CellText> = {};
      for (const c of cols) rec[c] = text(r['c_' + c]);
      const cmp: Record<string, CellText | number> = {};
      for (const c of hashed) cmp[c] = text(r['h_' + c]);
      for (const c of tolerant) cmp[c] = r['f_' + c] === null || r['f_' + c] === undefined ? null : Number(r['f_' + c]);
      compared.set(rec, cmp);
      const k = keyText(r);
      pushTo(m, k, rec);
      if (provenance && !where.has(k)) where.set(k, { file: text(r._lk_file), row: r._lk_row === null || r._lk_row === undefined ? null : Number(r._lk_row) });
      reads.exampleRowsFetched++;
    }
    return m;
  };
  const sRows = await fetch('lk_src', srcType, false);
  const tRows = exRows.length ? await fetch(await provenanceViews.examples(), tgtType, true) : new Map<string, Record<string, CellText>[]>();

  const pv = (v: unknown) => (v === null || v === undefined ? null : label(part.column, text(v)));
  /** A column differs on a matched key as the verdict's comparison says (changedCond above). */
  const valuesDiffer = (c: string, a: Record<string, CellText | number> | undefined, b: Record<string, CellText | number> | undefined): boolean => {
    if (!a || !b || !(c in a) || !(c in b)) return false;
    const x = a[c];
    const y = b[c];
    const rule = contract.floats[c];
    if (rule !== undefined && rule !== 'exclude' && typeof x === 'number' && typeof y === 'number') {
      return !(x === y || (Number.isNaN(x) && Number.isNaN(y)) || Math.abs(x - y) <= rule.tolerance);
    }
    return x !== y;
  };
  const stringCols = new Set(showCols.filter((c) => compareFamily(tgtType.get(c) ?? srcType.get(c) ?? '', false) === 'string'));
  for (const r of exRows) {
    const k = keyText(r);
    const s = sRows.get(k)?.[0] ?? null;
    const t = tRows.get(k)?.[0] ?? null;
    const kind = String(r.kind) as keyof KeyDiffEvidence['examples'];
    const diffCols = s && t ? showCols.filter((c) => valuesDiffer(c, compared.get(s), compared.get(t))) : [];
    const key: Record<string, CellText> = {};
    keyCols.forEach((kc, i) => { key[kc] = text(r[K[i]]); });
    const rd: RowDiff = {
      key,
      sourcePartition: pv(r.sp),
      targetPartition: pv(r.tp),
      kind: kind === 'stale' || kind === 'unicode' ? 'changed' : kind === 'null_key' ? 'null_key' : kind,
      columns: diffCols,
      source: s,
      target: t,
      targetFile: t ? where.get(k)?.file ?? null : null,
      targetRow: t ? where.get(k)?.row ?? null : null,
    };
    if (kind === 'changed') {
      const unicodeOnly = diffCols.length > 0 && diffCols.every((c) => stringCols.has(c) && s![c] !== null && t![c] !== null && s![c]!.normalize('NFC') === t![c]!.normalize('NFC'));
      if (unicodeOnly) {
        if (ev.examples.unicode.length < limit) { ev.examples.unicode.push(rd); ev.exampleKeys.unicode.push(keyLabel(r)); }
        continue;
      }
      if (ev.examples.changed.length >= limit) continue;
    }
    ev.examples[kind].push(rd);
    ev.exampleKeys[kind].push(keyLabel(r));
  }
  // One targeted re-read of the changed (and moved) rows, fetched back by key from both sides
  // (the target from the files of their partitions only; counted with the example rows):
  // - rows level: per column, how many of them differ there (the column hashes the fast digest
  //   is made of);
  // - every changed row (not just the examples) re-compared with strings NFC-normalised, to tell
  //   unicode_normalisation from content_divergence.
  // Rows whose key repeats on a side are taken once per side (per-key minimum).
  const staleCond = contract.ordering ? ' AND NOT coalesce(k.tgo < k.so, false)' : '';
  const hasStrings = digestCols.some((c) => compareFamily(tgtType.get(c)!, false) === 'string');
  const wantColumns = perColumn && digestCols.length > 0 && ev.changed > 0;
  const wantUnicode = ev.changed > 0 && hasStrings;
  if (wantColumns || wantUnicode) {
    const kinds = wantColumns ? `('changed', 'moved')` : `('changed')`;
    const tps = (await rows(conn, `SELECT DISTINCT CAST(tp AS VARCHAR) AS tp FROM lk_kd WHERE kind IN ${kinds}`)).map((r) => label(part.column, text(r.tp)));
    const tView = tps.length ? await targetView(tps) : await provenanceViews.all();
    const side = (view: string, types: Map<string, string>) => {
      const sel = keyCols.map((kc, i) => `v.${sqlIdent(kc)} AS ${K[i]}`);
      if (wantColumns) digestCols.forEach((c, i) => sel.push(`min(${columnHashSql(c, types.get(c)!, contract.naiveIsUtc, false, 'v')}) AS h_${i}`));
      if (wantUnicode) sel.push(`min(md5(${canonicalRow(digestCols.map((c) => ({ name: c, type: types.get(c)! })), contract.naiveIsUtc, { qualifier: 'v', nfc: true })})) AS nfc`);
      const on = keyCols.map((kc, i) => `v.${sqlIdent(kc)} = k.${K[i]}`).join(' AND ');
      return `(SELECT ${sel.join(', ')} FROM ${sqlIdent(view)} v SEMI JOIN (SELECT ${Kl} FROM lk_kd WHERE kind IN ${kinds}) k ON ${on} GROUP BY ALL)`;
    };
    const unicodeRow = `k.kind = 'changed' AND NOT k.same_d${staleCond}`;
    const sel: string[] = [];
    if (wantColumns) digestCols.forEach((_, i) => sel.push(`count(*) FILTER (WHERE s.h_${i} IS DISTINCT FROM t.h_${i}) AS c${i}`));
    if (wantUnicode) sel.push(`count(*) FILTER (WHERE ${unicodeRow}) AS un`, `count(*) FILTER (WHERE ${unicodeRow} AND s.nfc = t.nfc) AS uu`);
    const r = (await rows(conn, `SELECT ${sel.join(', ')} FROM (SELECT * FROM lk_kd WHERE kind IN ${kinds}) k
      JOIN ${side('lk_src', srcType)} s ON ${on('s', 'k')} JOIN ${side(tView, tgtType)} t ON ${on('t', 'k')}`))[0];
    if (wantColumns) {
      digestCols.forEach((c, i) => { if (num(r[`c${i}`]) > 0) columnDiffs.push({ column: c, rows: num(r[`c${i}`]) }); });
      columnDiffs.sort((a, b) => b.rows - a.rows);
    }
    if (wantUnicode) {
      ev.unicodeExamined = num(r.un);
      ev.unicodeOnly = num(r.uu);
      reads.exampleRowsFetched += 2 * num(r.un);
    }
  }
  // Null-key rows have no key to fetch by: show them from their file position.
  if (ev.nullKeyRowsTarget > 0) {
    const tNull = keyCols.map((k) => `${sqlIdent(k)} IS NULL`).join(' OR ');
    for (const r of await rows(conn, `SELECT ${part.targetSql} AS p, _lakerec_file AS file, _lakerec_row AS rowno FROM ${sqlIdent(await provenanceViews.all())} WHERE ${tNull} ORDER BY file, rowno LIMIT ${limit}`)) {
      const key: Record<string, CellText> = {};
      keyCols.forEach((kc) => { key[kc] = null; });
      ev.examples.null_key.push({ key, sourcePartition: null, targetPartition: pv(r.p), kind: 'null_key', columns: [], source: null, target: null, targetFile: text(r.file), targetRow: r.rowno === null ? null : Number(r.rowno) });
      ev.exampleKeys.null_key.push(`${text(r.file) ?? '?'}#${text(r.rowno) ?? '?'}`);
    }
  }
  // Rows level shows every example kind.
  const rowDiffs = [...ev.examples.duplicate, ...ev.examples.missing, ...ev.examples.extra, ...ev.examples.moved, ...ev.examples.stale, ...ev.examples.unicode, ...ev.examples.changed, ...ev.examples.null_key];
  return {
    evidence: ev,
    totals: {
      missing: ev.missing, extra: ev.extra, duplicatedInTarget: ev.dupKeys, duplicatedInSource: ev.sourceDupKeys,
      changed: ev.changed, moved: ev.moved, nullKeysTarget: ev.nullKeyRowsTarget, nullKeysSource: ev.nullKeyRowsSource,
    },
    columnDiffs,
    rowDiffs,
  };
}

/** What the key bitmaps proved (each answer exact, given that agreeing partitions hold the same keys). */
export interface KeyBitmapProof {
  /** No key (outside skipped partitions, not null) occurs twice in the source. */
  sourceUnique: boolean;
  /** Some key occurs both inside the diff's partitions and outside them (on either side); true when not proved otherwise. */
  cross: boolean;
  /** No key occurs twice among the target's rows in the diff's partitions. */
  targetDiffUnique: boolean;
}

/** Widest key range the bitmaps cover: 2^26 bits is 8 MB per bitmap (three, per thread). */
const BITMAP_MAX_BITS = 1 << 26;

/**
 * One integer key over a bounded range: one bit per key value (DuckDB's bitstring_agg) for the
 * source's keys, the source's keys in the diff's partitions (`inD`) and the target's keys there.
 * Distinct keys are the bits set: the source is unique when its bits equal its rows, and the
 * target's diff rows likewise. Outside the diff's partitions both sides hold the same rows (their
 * counts and checksums agree, and the keys are in the digest), so a key crosses between the
 * diff's partitions and the rest exactly when a source key outside them is also a key inside
 * them. A scan of the key column, no hashing: the GROUP BY it replaces costs more than the diff's
 * own join. Null when the key is not an integer or not in the digest, its range is too wide or
 * sparse, or there are no rows: the caller then runs the GROUP BY queries (the same answers).
 */
export async function keyBitmapProof(
  conn: DuckDBConnection, key: { srcType: string; tgtType: string; inDigest: boolean }, notNull: string, inD: string,
): Promise<KeyBitmapProof | null> {
  if (!key.inDigest || compareFamily(key.srcType, false) !== 'integer' || compareFamily(key.tgtType, false) !== 'integer') return null;
  let lo: bigint;
  let hi: bigint;
  try {
    const side = (tb: string) => `SELECT min(CAST(k0 AS BIGINT)) AS lo, max(CAST(k0 AS BIGINT)) AS hi, count(*) AS n FROM ${tb} WHERE ${notNull}`;
    const r = (await rows(conn, `SELECT min(lo) AS lo, max(hi) AS hi, sum(n) AS n FROM (${side('lk_s')} UNION ALL ${side('lk_t')})`))[0];
    if (r.lo === null || r.hi === null) return null;
    lo = BigInt(r.lo as bigint);
    hi = BigInt(r.hi as bigint);
    const width = hi - lo + 1n;
    // Sparse keys would spend more on empty bits than the GROUP BY spends on keys.
    if (width > BigInt(BITMAP_MAX_BITS) || width > 16n * BigInt(r.n as bigint) + 65536n) return null;
  } catch (e) {
    // A key beyond BIGINT's range: the GROUP BY queries handle it.
    if (/interrupt/i.test((e as Error).message)) throw e;
    return null;
  }
  // The key as stored (a cast per row costs a third of the scan); the bounds bind to its type.
  // An empty side's bitmap is NULL; zero bits are made in the one-row projection (from s_all,
  // which is NULL only when the source has no rows, and then nothing crosses).
  const bits = `bitstring_agg(k0, ${lo}, ${hi})`;
  const z = (b: string) => `coalesce(${b}, xor(s_all, s_all))`;
  let r: Record<string, unknown>;
  try {
    // xor(s_all, s_in) is the source's keys outside the diff's partitions when the source is unique.
    r = (await rows(conn, `SELECT coalesce(bit_count(s_all), 0) AS s_keys, s_n, coalesce(bit_count(xor(s_all, ${z('s_in')}) & (${z('s_in')} | ${z('t_in')})), 0) AS crossing,
        coalesce(bit_count(t_in), 0) AS t_keys, t_n
      FROM (SELECT ${bits} AS s_all, ${bits} FILTER (WHERE ${inD}) AS s_in, count(*) AS s_n FROM lk_s WHERE ${notNull}),
        (SELECT ${bits} AS t_in, count(*) AS t_n FROM lk_t WHERE ${notNull} AND ${inD})`))[0];
  } catch (e) {
    // Bounds outside a narrow key type of one side: the GROUP BY queries handle it.
    if (/interrupt/i.test((e as Error).message)) throw e;
    return null;
  }
  const sourceUnique = num(r.s_keys) === num(r.s_n);
  return { sourceUnique, cross: !sourceUnique || num(r.crossing) > 0, targetDiffUnique: num(r.t_keys) === num(r.t_n) };
}

/** Key types whose equal values always hash alike in DuckDB (floats: -0.0 = 0.0; nested: not needed). */
const HASHABLE = new Set(['integer', 'decimal', 'string', 'boolean', 'date', 'timestamp', 'timestamp_naive', 'time', 'blob', 'uuid']);

/**
 * Any other key (text, several columns, a sparse integer range): the same three answers from one
 * 64-bit hash per key (DuckDB hash(k0, k1, ...)), grouped once over the source's rows and the
 * target's rows in the diff's partitions. Equal keys hash alike, so distinct hashes prove distinct
 * keys: a side is unique when no hash repeats on it, and nothing crosses when no hash of a source
 * key outside the diff's partitions is also a hash inside them (outside them the target holds the
 * source's rows, as for the bitmaps). A hash that repeats proves nothing (a repeated key, or two
 * keys colliding): that answer is left false (cross: true) and the caller runs the exact GROUP BY
 * query for it. One sort of 64-bit integers where the queries it stands in for are three on the
 * key values. Null when a key column is not in the digest or its type
 * differs between the sides or may hash apart at equal values (floats).
 */
export async function keyHashProof(conn: DuckDBConnection, K: string[], inDigest: boolean, notNull: string, inD: string): Promise<KeyBitmapProof | null> {
  if (!inDigest) return null;
  // The types as the pass stored them: equal values hash alike only at one type.
  const types = async (tb: string) => new Map((await rows(conn, `SELECT column_name AS c, data_type AS t FROM duckdb_columns() WHERE table_name = '${tb}' AND database_name = 'temp'`)).map((r) => [text(r.c)!, text(r.t)!]));
  const [st, tt] = [await types('lk_s'), await types('lk_t')];
  if (!K.every((k) => st.has(k) && st.get(k) === tt.get(k) && HASHABLE.has(compareFamily(st.get(k)!, false)))) return null;
  const h = `hash(${K.join(', ')})`;
  // Each row's hash with its group g: 0 the source in the diff's partitions, 1 the source outside
  // them, 2 the target in them. Sorted by (h, g), a hash's source rows come before its target
  // rows, so a repeat on a side is two neighbours of that side, and (with the source unique) a
  // crossing is a target row right after a source row from outside. Sorting the 64-bit hashes
  // took about two thirds of the time of grouping them (10M rows, DuckDB 1.5).
  const r = (await rows(conn, `SELECT count(*) FILTER (WHERE g < 2 AND pg < 2) AS s_rep, count(*) FILTER (WHERE g = 2 AND pg = 2) AS t_rep,
      count(*) FILTER (WHERE g = 2 AND pg = 1) AS crossing
    FROM (SELECT h, g, lag(h) OVER w AS ph, lag(g) OVER w AS pg
      FROM (SELECT ${h} AS h, CAST(CASE WHEN ${inD} THEN 0 ELSE 1 END AS UTINYINT) AS g FROM lk_s WHERE ${notNull}
        UNION ALL SELECT ${h} AS h, CAST(2 AS UTINYINT) AS g FROM lk_t WHERE ${notNull} AND ${inD})
      WINDOW w AS (ORDER BY h, g))
    WHERE h = ph`))[0];
  const sourceUnique = num(r.s_rep) === 0;
  // A source key repeated inside and outside the diff's partitions crosses too: not proved then.
  return { sourceUnique, cross: !sourceUnique || num(r.crossing) > 0, targetDiffUnique: num(r.t_rep) === 0 };
}

/**
 * The keys level (and rows, its examples): the key diff over the partitions that disagree; an
 * inherited partition that agrees is skipped (ADR 0005).
 */
export async function keysLevel(
  conn: DuckDBConnection, ctx: JobContext | undefined, tally: Tally,
  run: { level: Level; contract: Contract; target: TargetSide; schema: SchemaLevel; plan: PassPlan; checksum: ChecksumLevel; exampleLimit: number },
): Promise<KeyDiffResult> {
  const { contract, target, plan, exampleLimit } = run;
  const { part, srcType, tgtType } = run.schema;
  const { inherited, floatDisagrees } = run.checksum;
  const { partitions, reads } = tally;
  const at = levelIndex(run.level);
  report(ctx, { phase: 'diffing keys', done: 0, total: null });
  const skip = [...inherited.keys()].filter((l) => partitions.get(l)!.sourceChecksum === partitions.get(l)!.targetChecksum && !floatDisagrees(l));
  // The target's rows with provenance over every file: registered when first needed (over many
  // small files the registration alone costs seconds: a check and a files-table row per file).
  let allRegistered = false;
  const all = async (): Promise<string> => {
    if (!allRegistered) { await registerTargetView(conn, target, 'lk_tgt_all'); allRegistered = true; }
    return 'lk_tgt_all';
  };
  // Only partitions that disagree can hold a difference (ADR 0005).
  const disagree = [...partitions.values()].filter((p) => p.sourceRows !== p.targetRows || p.sourceChecksum !== p.targetChecksum || floatDisagrees(p.partition)).map((p) => p.partition);
  const only = part.column === null || disagree.length === partitions.size ? null : disagree;
  const filesOf = (labels: Set<string>) => target.snapshot.files.filter((f) => labels.has(label(part.column, f.partitionValues[part.column!] ?? null)));
  // The example keys' target rows, every copy: where the Delta partition is the contract's, they
  // lie in the partitions the pass's per-row table (lk_t) holds those keys in, or in a partition
  // it did not read (inherited from a baseline). Only those partitions' files are read for them;
  // if a partition of lk_t names no file, every file is.
  const examples = async (): Promise<string> => {
    if (!part.targetIsDeltaPartition || part.column === null) return all();
    const on = contract.keys.map((_, i) => `t.k${i} = e.k${i}`).join(' AND ');
    const held = (await rows(conn, `SELECT DISTINCT CAST(t.p AS VARCHAR) AS p FROM lk_t t SEMI JOIN lk_ex e ON ${on}`)).map((r) => label(part.column, text(r.p)));
    const named = new Set(target.snapshot.files.map((f) => label(part.column, f.partitionValues[part.column!] ?? null)));
    if (!held.every((l) => named.has(l))) return all();
    const files = filesOf(new Set([...held, ...inherited.keys()]));
    if (files.length === target.snapshot.files.length) return all();
    await registerTargetView(conn, target, 'lk_tgt_ex', files);
    return 'lk_tgt_ex';
  };
  return diffKeys(conn, contract, part, plan.digestCols, plan.floatCols, srcType, tgtType, skip, exampleLimit, at >= levelIndex('rows'), reads, only, storedColumns(plan.pass),
    async (labels) => {
      const files = part.targetIsDeltaPartition ? filesOf(new Set(labels)) : undefined;
      await registerTargetView(conn, target, 'lk_tgt_some', files, false);
      return 'lk_tgt_some';
    }, { all, examples });
}
