// Evidence -> a named corruption, only where the evidence names one. Anything disagreeing that
// no rule explains is kept as an "unnamed" line: the verdict still says "diverges", with the
// numbers, rather than guessing a name.
import type {
  Finding, FloatColumnResult, Level, PartitionResult, RowDiff, SchemaComparison,
} from '../../shared/reconcile';
import { levelIndex } from '../../shared/reconcile';
import { makeFinding } from './findings';

// What the log says about a partition that lost rows: forensics' record (main/forensics/removals.ts).
export type { PartitionRemoval } from '../forensics/removals';
import type { PartitionRemoval } from '../forensics/removals';

/** Files of one partition whose stats repeat another file's exactly (a retried batch). */
export interface StatsDuplicate {
  partition: string;
  rows: number;
  files: { path: string; version: number }[];
}

export interface KeyDiffEvidence {
  /** Per partition (target partition for target-side kinds, else source's), per kind: keys and rows. */
  byPartition: Map<string, { missing: number; extra: number; dupKeys: number; dupRows: number; dupDiffKeys: number; changed: number; moved: number; nullKeyRows: number }>;
  missing: number;
  extra: number;
  dupKeys: number;
  dupRows: number;
  /** Duplicated keys whose copies are not identical to the source row. */
  dupDiffKeys: number;
  sourceDupKeys: number;
  changed: number;
  moved: number;
  nullKeyRowsTarget: number;
  nullKeyRowsSource: number;
  /** Moved keys whose target partition is one day from the source's. */
  movedAdjacent: number;
  movedDirection: { later: number; earlier: number };
  /** Moved rows whose target partition value is not the contract's expression over their own columns (null: not evaluated). */
  movedExprMismatch: number | null;
  /** Changed rows where the target's ordering column is older than the source's. */
  staleRows: number;
  /** Of changed rows examined, those differing only by Unicode normal form. */
  unicodeExamined: number;
  unicodeOnly: number;
  /** A few example rows and keys per kind (stale and unicode are changed rows, shown apart). */
  examples: Record<'missing' | 'extra' | 'duplicate' | 'changed' | 'moved' | 'null_key' | 'stale' | 'unicode', RowDiff[]>;
  exampleKeys: Record<'missing' | 'extra' | 'duplicate' | 'changed' | 'moved' | 'null_key' | 'stale' | 'unicode', string[]>;
}

export interface Evidence {
  level: Level;
  schema: SchemaComparison;
  partitions: PartitionResult[];
  partitionColumn: string | null;
  partitionExpression: string | null;
  removals: Map<string, PartitionRemoval>;
  /** Whether the log's removals were read (the contract's partition is the table's partition column). */
  logConsulted: boolean;
  statsDuplicates: StatsDuplicate[];
  /** Null key values counted from the target's file stats (no data read). */
  statsNullKeys: number | null;
  keys: string[];
  floats: FloatColumnResult[];
  keyDiff: KeyDiffEvidence | null;
  /** Partitions the source holds ahead of the target, within the contract's allowance. */
  late: { partitions: string[]; rows: number; allow: string } | null;
}

export interface Classification {
  findings: Finding[];
  unnamed: string[];
}

const fmt = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, word: string) => `${fmt(n)} ${word}${n === 1 ? '' : 's'}`;

export function classify(ev: Evidence): Classification {
  const findings: Finding[] = [];
  const unnamed: string[] = [];
  const at = levelIndex(ev.level);
  const lvlCounts = levelIndex('counts');
  const lvlChecksum = levelIndex('checksum');
  const lvlKeys = levelIndex('keys');

  // ---- schema ----
  const s = ev.schema;
  if (s.onlyInSource.length || s.onlyInTarget.length || s.typeChanges.length) {
    const parts: string[] = [];
    if (s.onlyInTarget.length) parts.push(`target adds ${s.onlyInTarget.join(', ')}`);
    if (s.onlyInSource.length) parts.push(`target lacks ${s.onlyInSource.join(', ')}`);
    const keyed: string[] = [];
    for (const t of s.typeChanges) {
      // A naive timestamp against a zoned one is no drift when the naive one is UTC: the contract
      // decides that, so the finding names the key that would change the verdict.
      const naiveZoned = isNaiveZonedPair(t.source, t.target);
      parts.push(`${t.column} is ${t.source} in the source and ${t.target} in the target${naiveZoned ? ' (the contract\'s timestamps.naive_is_utc is false)' : ''}`);
      if (naiveZoned) keyed.push(`${t.column}: decided by the contract key timestamps.naive_is_utc (false, the default): set \`timestamps: { naive_is_utc: true }\` if the naive timestamps are UTC, and the two compare as one instant`);
    }
    findings.push(makeFinding('schema_drift', 'schema', parts.join('; '), {
      counts: { 'columns only in target': s.onlyInTarget.length, 'columns only in source': s.onlyInSource.length, 'type changes': s.typeChanges.length },
      notes: [...s.typeChanges.map((t) => `${t.column}: ${t.source} -> ${t.target}`), ...keyed],
    }));
  }
  if (at < lvlCounts) return { findings, unnamed };

  const late = new Set(ev.late?.partitions ?? []);
  if (ev.late && ev.late.partitions.length) {
    findings.push(makeFinding('late_arriving', 'counts',
      `${plural(ev.late.rows, 'row')} in ${plural(ev.late.partitions.length, 'partition')} the target has not loaded yet (allowed: ${ev.late.allow})`,
      { counts: { rows: ev.late.rows, partitions: ev.late.partitions.length }, partitions: ev.late.partitions }));
  }
  const considered = ev.partitions.filter((p) => !late.has(p.partition));
  const explained = new Set<string>();

  // ---- partitions empty in the target: wipe, or an overwrite wider than its predicate ----
  const emptied = considered.filter((p) => p.sourceRows > 0 && p.targetRows === 0);
  const wiped: PartitionResult[] = [];
  const tooWide: { p: PartitionResult; r: PartitionRemoval }[] = [];
  const neverLoaded: PartitionResult[] = [];
  for (const p of emptied) {
    const r = ev.removals.get(p.partition);
    if (r && r.operation.toUpperCase().includes('WRITE') && !r.addedBackHere && (r.addedElsewhere || r.predicateCovers === false)) tooWide.push({ p, r });
    else if (r || !ev.logConsulted) wiped.push(p);
    // The log was read and never held this partition: rows not loaded, not a wipe.
    else neverLoaded.push(p);
  }
  // Partitions that kept some rows but lost files to an overwrite aimed elsewhere.
  for (const p of considered) {
    if (p.targetRows === 0 || p.targetRows >= p.sourceRows) continue;
    const r = ev.removals.get(p.partition);
    if (r && r.operation.toUpperCase().includes('WRITE') && !r.addedBackHere && r.predicateCovers === false) tooWide.push({ p, r });
  }
  if (wiped.length) {
    findings.push(makeFinding('partition_wipe', 'counts',
      `${plural(wiped.length, 'partition')} ${wiped.length === 1 ? 'is' : 'are'} empty in the target while the source has rows: ${wiped.map((p) => p.partition).join(', ')}`,
      {
        counts: { partitions: wiped.length, 'source rows': sum(wiped.map((p) => p.sourceRows)) },
        partitions: wiped.map((p) => p.partition),
        notes: wiped.map((p) => {
          const r = ev.removals.get(p.partition);
          return r ? `${p.partition}: files removed by version ${r.version} (${r.operation}${r.predicate ? `, predicate ${r.predicate}` : ''}), none added back` : `${p.partition}: no file in the target`;
        }),
      }));
    wiped.forEach((p) => explained.add(p.partition));
  }
  if (tooWide.length) {
    findings.push(makeFinding('overwrite_too_wide', 'counts',
      `version ${[...new Set(tooWide.map((x) => x.r.version))].join(', ')} removed files from ${tooWide.map((x) => x.p.partition).join(', ')} and wrote nothing back there`,
      {
        counts: { partitions: tooWide.length, 'rows lost': sum(tooWide.map((x) => x.p.sourceRows - x.p.targetRows)) },
        partitions: tooWide.map((x) => x.p.partition),
        notes: tooWide.map((x) => `${x.p.partition}: version ${x.r.version} ${x.r.operation}`
          + `${x.r.predicate ? ` with predicate ${x.r.predicate}` : ' without a predicate'}`
          + `${x.r.predicateCovers === false ? ' (which does not cover this partition)' : ''}`
          + `${x.r.addedElsewhere ? ', writing files only to other partitions' : ''}`),
      }));
    tooWide.forEach((x) => explained.add(x.p.partition));
  }

  // ---- key-level evidence (keys, rows) ----
  if (at >= lvlKeys && ev.keyDiff) {
    classifyKeys(ev, ev.keyDiff, findings, unnamed, explained, late);
  } else {
    classifyCounts(ev, findings, unnamed, explained, neverLoaded, at >= lvlChecksum);
  }

  // ---- float aggregates (checksum and deeper) ----
  // Named only where the float sum is the sole difference (same rows, same digests): elsewhere the
  // count or digest evidence already speaks. With a tolerance, keys and rows compare floats row by
  // row, so the aggregate only names at checksum level.
  if (at >= lvlChecksum) {
    const byLabel = new Map(ev.partitions.map((p) => [p.partition, p]));
    for (const f of ev.floats) {
      if (at >= lvlKeys && f.rule === 'tolerance') continue;
      const bad = f.partitions.filter((p) => {
        const pr = byLabel.get(p.partition);
        return !p.agree && !late.has(p.partition) && pr !== undefined && pr.sourceRows === pr.targetRows && pr.sourceChecksum === pr.targetChecksum;
      });
      if (!bad.length) continue;
      findings.push(makeFinding('content_divergence', 'checksum',
        `float column ${f.column}: exact sums differ in ${plural(bad.length, 'partition')} whose other columns agree (${f.rule === 'exclude' ? 'compared by exact sum' : `tolerance ${f.tolerance} per value`})`,
        {
          counts: { partitions: bad.length },
          partitions: bad.map((p) => p.partition),
          notes: bad.slice(0, 10).map((p) => `${p.partition}: source sum ${p.source}, target sum ${p.target}`),
        }));
    }
  }
  return { findings, unnamed };
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** Counts and checksum levels: names only what per-partition totals (and the log) can name. */
function classifyCounts(
  ev: Evidence, findings: Finding[], unnamed: string[], explained: Set<string>, neverLoaded: PartitionResult[], checksums: boolean,
): void {
  const rest = ev.partitions.filter((p) => !explained.has(p.partition) && p.state !== 'late');
  const surplus = rest.filter((p) => p.targetRows > p.sourceRows);
  const deficit = rest.filter((p) => p.targetRows < p.sourceRows);
  const level: Level = checksums ? 'checksum' : 'counts';

  if (ev.statsNullKeys !== null && ev.statsNullKeys > 0) {
    findings.push(makeFinding('null_keys', 'counts',
      `${plural(ev.statsNullKeys, 'null value')} in key column(s) ${ev.keys.join(', ')}, per the target's file statistics`,
      { counts: { 'null key values (stats)': ev.statsNullKeys }, notes: ['counted from the nullCount statistics of the add actions; no data file read'] }));
  }

  // A surplus exactly explained by files whose stats repeat an earlier file's: a retried batch.
  const dupByPartition = new Map<string, StatsDuplicate>();
  for (const d of ev.statsDuplicates) dupByPartition.set(d.partition, d);
  const doubled: PartitionResult[] = [];
  for (const p of surplus) {
    const d = dupByPartition.get(p.partition);
    const algebra = checksums && p.sourceChecksum && p.targetChecksum && p.targetRows === 2 * p.sourceRows
      && (BigInt('0x' + p.sourceChecksum) * 2n) % (1n << 128n) === BigInt('0x' + p.targetChecksum);
    // Exactly k times the source's rows with files whose stats repeat: a repeated load, whatever
    // else the files were rewritten into since (the log names the copies; counts name the multiple).
    const multiple = d && p.sourceRows > 0 && p.targetRows % p.sourceRows === 0 && p.targetRows / p.sourceRows >= 2;
    if ((d && d.rows === p.targetRows - p.sourceRows) || multiple || algebra) doubled.push(p);
  }
  if (doubled.length) {
    const extra = sum(doubled.map((p) => p.targetRows - p.sourceRows));
    const notes: string[] = [];
    for (const p of doubled) {
      const d = dupByPartition.get(p.partition);
      if (d) notes.push(`${p.partition}: files ${d.files.map((f) => `${f.path} (v${f.version})`).join(' and ')} carry identical statistics (${fmt(d.rows)} surplus rows)`);
      if (p.sourceRows > 0 && p.targetRows % p.sourceRows === 0 && p.targetRows / p.sourceRows >= 2) notes.push(`${p.partition}: the target holds exactly ${p.targetRows / p.sourceRows} times the source's ${fmt(p.sourceRows)} rows`);
      if (checksums && p.targetRows === 2 * p.sourceRows && p.sourceChecksum && p.targetChecksum && (BigInt('0x' + p.sourceChecksum) * 2n) % (1n << 128n) === BigInt('0x' + p.targetChecksum)) {
        notes.push(`${p.partition}: target checksum = 2 x source checksum (mod 2^128): every row exactly twice`);
      }
    }
    findings.push(makeFinding('double_load', level, `${plural(extra, 'duplicate row')} in ${doubled.map((p) => p.partition).join(', ')}: the target holds copies of rows the source has once`,
      { counts: { 'duplicate rows': extra }, partitions: doubled.map((p) => p.partition), notes }));
    doubled.forEach((p) => explained.add(p.partition));
  }
  const surplusLeft = surplus.filter((p) => !explained.has(p.partition));
  // Both directions at once may be rows that moved (a zone shift) rather than rows gained and lost:
  // per-partition totals cannot tell, so neither is named.
  if (surplusLeft.length && deficit.length) {
    for (const p of [...surplusLeft, ...deficit]) unnamed.push(`${p.partition}: source ${fmt(p.sourceRows)} rows, target ${fmt(p.targetRows)}`);
    unnamed.push(`${plural(surplusLeft.length, 'partition')} gained rows and ${plural(deficit.length, 'partition')} lost rows: moved rows, or rows lost and others gained; counts cannot tell which`);
  } else {
    if (surplusLeft.length) {
      const extra = sum(surplusLeft.map((p) => p.targetRows - p.sourceRows));
      findings.push(makeFinding('extra_rows', level, `${plural(extra, 'row')} more in the target than in the source, in ${surplusLeft.map((p) => p.partition).join(', ')}`,
        { counts: { 'extra rows': extra }, partitions: surplusLeft.map((p) => p.partition), notes: surplusLeft.map((p) => `${p.partition}: source ${fmt(p.sourceRows)}, target ${fmt(p.targetRows)}`) }));
      surplusLeft.forEach((p) => explained.add(p.partition));
    }
    const partial = deficit.filter((p) => p.targetRows > 0 || neverLoaded.includes(p));
    if (partial.length) {
      const missing = sum(partial.map((p) => p.sourceRows - p.targetRows));
      findings.push(makeFinding('missing_rows', level, `${plural(missing, 'row')} of the source missing from the target, in ${partial.map((p) => p.partition).join(', ')}`,
        { counts: { 'missing rows': missing }, partitions: partial.map((p) => p.partition), notes: partial.map((p) => `${p.partition}: source ${fmt(p.sourceRows)}, target ${fmt(p.targetRows)}`) }));
      partial.forEach((p) => explained.add(p.partition));
    }
  }
  if (checksums) {
    const silent = rest.filter((p) => p.sourceRows === p.targetRows && p.sourceChecksum !== null && p.targetChecksum !== null && p.sourceChecksum !== p.targetChecksum);
    for (const p of silent) unnamed.push(`${p.partition}: same row count (${fmt(p.sourceRows)}), different checksum: rows differ in content`);
  }
}

/** Keys and rows levels: the key diff names what per-partition totals could not. */
function classifyKeys(ev: Evidence, kd: KeyDiffEvidence, findings: Finding[], unnamed: string[], explained: Set<string>, late: Set<string>): void {
  const level: Level = ev.level === 'rows' ? 'rows' : 'keys';
  const byP = [...kd.byPartition.entries()].filter(([p]) => !late.has(p)).sort((a, b) => a[0].localeCompare(b[0]));

  if (kd.nullKeyRowsTarget > 0) {
    const parts = byP.filter(([, v]) => v.nullKeyRows > 0).map(([p]) => p);
    findings.push(makeFinding('null_keys', level, `${plural(kd.nullKeyRowsTarget, 'row')} in the target with a null key (${ev.keys.join(', ')})`,
      { counts: { 'null-key rows': kd.nullKeyRowsTarget }, partitions: parts, exampleRows: kd.examples.null_key, exampleKeys: kd.exampleKeys.null_key }));
  }
  if (kd.dupKeys > 0) {
    const exact = kd.dupKeys - kd.dupDiffKeys;
    if (exact > 0) {
      findings.push(makeFinding('double_load', level, `${plural(kd.dupRows, 'duplicate row')} across ${plural(exact, 'key')}: the target holds copies of rows the source has once`,
        {
          counts: { 'duplicate rows': kd.dupRows, 'duplicated keys': exact },
          partitions: byP.filter(([, v]) => v.dupKeys > 0).map(([p]) => p),
          exampleKeys: kd.exampleKeys.duplicate, exampleRows: kd.examples.duplicate,
        }));
    }
    if (kd.dupDiffKeys > 0) unnamed.push(`${plural(kd.dupDiffKeys, 'key')} appear more than once in the target with differing row contents`);
  }
  if (kd.sourceDupKeys > 0) unnamed.push(`${plural(kd.sourceDupKeys, 'key')} appear more than once in the source: the contract's key is not unique there`);

  // Missing keys: whole partitions are already named (wipe / overwrite); keys lost to null keys
  // in the same partition are the null-key rows, not a second incident.
  let missing = 0;
  const missingParts: string[] = [];
  for (const [p, v] of byP) {
    if (explained.has(p) || v.missing === 0) continue;
    if (v.nullKeyRows > 0 && v.nullKeyRows === v.missing) continue;
    missing += v.missing;
    missingParts.push(p);
  }
  if (missing > 0) {
    findings.push(makeFinding('missing_rows', level, `${plural(missing, 'key')} of the source missing from the target, in ${missingParts.join(', ')}`,
      { counts: { 'missing keys': missing }, partitions: missingParts, exampleKeys: kd.exampleKeys.missing, exampleRows: kd.examples.missing }));
  }
  let extra = 0;
  const extraParts: string[] = [];
  for (const [p, v] of byP) if (v.extra > 0) { extra += v.extra; extraParts.push(p); }
  if (extra > 0) {
    findings.push(makeFinding('extra_rows', level, `${plural(extra, 'key')} in the target that the source does not have, in ${extraParts.join(', ')}`,
      { counts: { 'extra keys': extra }, partitions: extraParts, exampleKeys: kd.exampleKeys.extra, exampleRows: kd.examples.extra }));
  }
  if (kd.moved > 0) {
    if (kd.movedAdjacent === kd.moved) {
      const dir = kd.movedDirection.later >= kd.movedDirection.earlier ? 'the next day' : 'the previous day';
      findings.push(makeFinding('timezone_partition_shift', level, `${plural(kd.moved, 'row')} sit in the neighbouring partition in the target (${dir})`,
        {
          counts: { 'moved rows': kd.moved, 'moved a day later': kd.movedDirection.later, 'moved a day earlier': kd.movedDirection.earlier },
          partitions: byP.filter(([, v]) => v.moved > 0).map(([p]) => p),
          exampleKeys: kd.exampleKeys.moved, exampleRows: kd.examples.moved,
          notes: [
            `every moved key is exactly one ${ev.partitionColumn ?? 'partition'} day away from its source partition`,
            ...(kd.movedExprMismatch !== null && ev.partitionExpression
              ? [`${fmt(kd.movedExprMismatch)} of ${fmt(kd.moved)} moved rows hold a ${ev.partitionColumn} that is not the contract's ${ev.partitionExpression} of their own values: the partition was derived differently, the rows did not move`]
              : []),
          ],
        }));
    } else {
      unnamed.push(`${plural(kd.moved, 'key')} sit in a different partition in the target (${fmt(kd.movedAdjacent)} of them one day away)`);
    }
  }
  let changed = kd.changed;
  if (kd.staleRows > 0) {
    findings.push(makeFinding('stale_rows', level, `${plural(kd.staleRows, 'row')} in the target are an older version than the source's (ordering column older)`,
      { counts: { 'stale rows': kd.staleRows, 'changed rows': kd.changed }, partitions: byP.filter(([, v]) => v.changed > 0).map(([p]) => p), exampleKeys: kd.exampleKeys.stale, exampleRows: kd.examples.stale }));
    changed -= kd.staleRows;
  }
  if (changed > 0 && kd.unicodeOnly > 0) {
    findings.push(makeFinding('unicode_normalisation', level,
      `${plural(kd.unicodeOnly, 'changed row')} differ only in Unicode normal form (NFC vs NFD): equal once both sides are NFC-normalised`,
      {
        counts: { 'changed rows': changed, 'normal form only': kd.unicodeOnly },
        partitions: byP.filter(([, v]) => v.changed > 0).map(([p]) => p),
        exampleKeys: kd.exampleKeys.unicode, exampleRows: kd.examples.unicode,
        notes: [`all ${fmt(kd.unicodeExamined)} changed rows were re-compared with strings NFC-normalised; ${fmt(kd.unicodeOnly)} then agree`],
      }));
    changed -= kd.unicodeOnly;
  }
  if (changed > 0) {
    findings.push(makeFinding('content_divergence', level, `${plural(changed, 'row')} with the same key hold different values`,
      { counts: { 'changed rows': changed }, partitions: byP.filter(([, v]) => v.changed > 0).map(([p]) => p), exampleKeys: kd.exampleKeys.changed, exampleRows: kd.examples.changed }));
  }
}

/** A timestamp without a time zone on one side and with one on the other (DuckDB type names). */
function isNaiveZonedPair(a: string, b: string): boolean {
  const zoned = (t: string) => /^(TIMESTAMP WITH TIME ZONE|TIMESTAMPTZ)$/i.test(t.trim());
  const naive = (t: string) => /^TIMESTAMP(_[A-Z]+)?( \(\d\))?$/i.test(t.trim()) && !zoned(t);
  return (naive(a) && zoned(b)) || (zoned(a) && naive(b));
}
