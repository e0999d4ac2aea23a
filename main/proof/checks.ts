// The proof's checks: each looks at facts the run gathered and says pass, fail or warn, with the
// evidence it looked at, one line each.
import type { DataType, Protocol, StructType } from '../../shared/delta';
import { compareFingerprints, type OdsFingerprint } from '../../shared/fingerprint';
import {
  PROOF_CHECKS, type CheckStatus, type ProofCheck, type ProofCheckName, type ProofResult, type ProofStep,
} from '../../shared/proof';
import {
  COUNTS_ONLY_KEYS, columnTags, isCountsOnly, sensitivityRank, type ColumnProfile,
} from '../../shared/sensitivity';
import type { RowComparison } from './compare';
import { requiredReaderFeatures } from './delta-log';

export interface TableFacts {
  /** 'a' or 'b' */
  label: 'a' | 'b';
  writer: string;
  expectedEngineInfoPrefix: string;
  schema: StructType;
  protocol: Protocol;
  commits: { version: number; engineInfo: string | null }[];
}

export interface ReadFacts {
  reader: string;
  table: 'a' | 'b';
  /** The Delta types of the Arrow table the engine returned. */
  schema: StructType;
  protocol: Protocol;
  featuresChecked: string[];
  readerFeatures: string[];
  /** What the engine changed on the way in, naming the column (EngineRead.adjustments). */
  adjustments?: string[];
}

export interface SandboxFacts {
  path: string;
  /** Permission bits (e.g. 0o700), null when not measurable. */
  mode: number | null;
  ownerUid: number | null;
  currentUid: number | null;
  platform: string;
}

export interface ProofFacts {
  declared: StructType;
  steps: ProofStep[];
  generatedRows: number;
  tables: TableFacts[];
  reads: ReadFacts[];
  /** A's read of B's table compared with the generated rows; null when that step did not run. */
  rows: RowComparison | null;
  sandbox: SandboxFacts;
}

function check(name: ProofCheckName, status: CheckStatus, summary: string, evidence: string[]): ProofCheck {
  const kind = PROOF_CHECKS.find((c) => c.name === name)?.kind ?? 'governance';
  return { name, kind, status, summary, evidence };
}

/** A type with nested nullability removed: what "the same names and types" compares. */
function typeShape(t: DataType): unknown {
  if (typeof t === 'string') return t.replace(/\s+/g, '');
  if (t.type === 'array') return { array: typeShape(t.elementType) };
  if (t.type === 'map') return { map: [typeShape(t.keyType), typeShape(t.valueType)] };
  return { struct: t.fields.map((f) => [f.name, typeShape(f.type)]) };
}

/** The full declared shape: names, types and nullability at every level, without metadata. */
function declaredShape(t: DataType, nullable: boolean): unknown {
  if (typeof t === 'string') return [t.replace(/\s+/g, ''), nullable];
  if (t.type === 'array') return [{ array: declaredShape(t.elementType, t.containsNull) }, nullable];
  if (t.type === 'map') return [{ map: [declaredShape(t.keyType, false), declaredShape(t.valueType, t.valueContainsNull)] }, nullable];
  return [{ struct: t.fields.map((f) => [f.name, declaredShape(f.type, f.nullable)]) }, nullable];
}

/** A Delta type in one short line: array<struct<key:string,value:long>>, map<string,long>. */
export function typeText(t: DataType): string {
  if (typeof t === 'string') return t;
  if (t.type === 'array') return `array<${typeText(t.elementType)}>`;
  if (t.type === 'map') return `map<${typeText(t.keyType)},${typeText(t.valueType)}>`;
  return `struct<${t.fields.map((f) => `${f.name}:${typeText(f.type)}`).join(',')}>`;
}

/**
 * The seed's findings, named: what kind of change a type difference is (decimal re-inferred, a
 * time zone or unit change, a nested type changed), so the evidence says it next to the column.
 */
export function typeFinding(declared: DataType, actual: DataType): string {
  const dec = /^decimal\(/;
  if (typeof declared === 'string' && typeof actual === 'string') {
    if (dec.test(declared) && dec.test(actual)) return 'decimal re-inferred';
    if (/^timestamp/.test(declared) && /^timestamp/.test(actual)) return 'timestamp time zone changed';
    if (declared === 'double' || declared === 'float' || actual === 'double' || actual === 'float') return 'numeric type re-inferred';
    return 'type changed';
  }
  if (typeof declared !== 'string' && declared.type === 'map' && typeof actual !== 'string' && actual.type === 'array') return 'nested type changed: the map became a list of key/value structs';
  if (typeof declared !== 'string' || typeof actual !== 'string') return 'nested type changed';
  return 'type changed';
}

/**
 * The seed's findings in a fingerprint difference, one line per column: a NaN that became a
 * null, timestamps whose values changed (a unit change to nanoseconds wraps 1677-2262), nulls of
 * a nested column that changed (a null list or map that became empty).
 */
export function fingerprintFindings(gen: OdsFingerprint, got: OdsFingerprint, schema: StructType): string[] {
  const out: string[] = [];
  for (const g of gen.columns) {
    const c = got.columns.find((x) => x.name === g.name);
    if (!c) continue;
    const t = schema.fields.find((f) => f.name === g.name)?.type;
    if (g.kind === 'float' && (g.nan ?? 0) > (c.nan ?? 0) && c.nulls - g.nulls === (g.nan ?? 0) - (c.nan ?? 0)) out.push(`${g.name}: NaN became null (${(g.nan ?? 0) - (c.nan ?? 0)} value(s))`);
    else if (typeof t === 'string' && /^timestamp/.test(t) && g.hash !== c.hash) out.push(`${g.name}: timestamp values changed (a unit change to nanoseconds wraps values outside 1677-2262)`);
    else if (typeof t !== 'string' && t !== undefined && g.nulls !== c.nulls) out.push(`${g.name}: ${g.nulls} null ${t.type}(s) generated, ${c.nulls} found (a null ${t.type} that became empty, or the reverse)`);
  }
  return out;
}

function schemaDiffs(expected: StructType, actual: StructType, shape: (t: DataType, nullable: boolean) => unknown, what: string): string[] {
  const out: string[] = [];
  const names = actual.fields.map((f) => f.name);
  const en = expected.fields.map((f) => f.name);
  if (JSON.stringify(names) !== JSON.stringify(en)) out.push(`${what}: columns [${names.join(', ')}], expected [${en.join(', ')}]`);
  for (const e of expected.fields) {
    const a = actual.fields.find((f) => f.name === e.name);
    if (!a) continue;
    if (JSON.stringify(shape(e.type, e.nullable)) !== JSON.stringify(shape(a.type, a.nullable))) {
      const typeSame = JSON.stringify(typeShape(e.type)) === JSON.stringify(typeShape(a.type));
      out.push(`${what}: ${e.name} is ${typeText(a.type)}${a.nullable ? '' : ' not null'}, declared ${typeText(e.type)}${e.nullable ? '' : ' not null'} (${typeSame ? 'nullability changed' : typeFinding(e.type, a.type)})`);
    }
  }
  return out;
}

export function rowsMatch(f: ProofFacts): ProofCheck {
  const evidence = f.steps.map((s) => `${s.id} (${s.engine ?? 'generator'}): ${s.rows ?? 'no'} rows`);
  const bad = f.steps.filter((s) => s.rows !== f.generatedRows);
  return bad.length
    ? check('rows_match', 'fail', `${bad.length} step(s) do not have the generated ${f.generatedRows} rows`, evidence)
    : check('rows_match', 'pass', `every step has the generated ${f.generatedRows} rows`, evidence);
}

export function schemaMatch(f: ProofFacts): ProofCheck {
  const diffs: string[] = [];
  const evidence: string[] = [];
  for (const t of f.tables) {
    const d = schemaDiffs(f.declared, t.schema, (x) => typeShape(x), `table ${t.label} (written by ${t.writer})`);
    diffs.push(...d);
    evidence.push(`table ${t.label}: ${t.schema.fields.length} columns, ${d.length ? 'differs' : 'names and types as generated'}`);
  }
  for (const r of f.reads) {
    const d = schemaDiffs(f.declared, r.schema, (x) => typeShape(x), `${r.reader}'s read of table ${r.table}`);
    diffs.push(...d);
    evidence.push(`${r.reader}'s read of table ${r.table}: ${d.length ? 'differs' : 'names and types as generated'}`);
    for (const a of r.adjustments ?? []) evidence.push(`${r.reader}'s read of table ${r.table} changed ${a}`);
  }
  if (f.tables.length < 2) diffs.push(`only ${f.tables.length} of 2 tables were written`);
  return diffs.length
    ? check('schema_match', 'fail', `${diffs.length} difference(s) from the generated names and types`, [...diffs, ...evidence])
    : check('schema_match', 'pass', 'both tables and both reads have the generated names and types', evidence);
}

export function fingerprintsMatch(f: ProofFacts): ProofCheck {
  const gen = f.steps.find((s) => s.id === 'generate')?.fingerprint;
  if (!gen) return check('fingerprints_match', 'fail', 'the generated data has no fingerprint', []);
  const evidence: string[] = [];
  let failures = 0;
  for (const s of f.steps) {
    const figs: [string, typeof gen | null][] = [[s.fingerprintBy ?? 'not computed', s.fingerprint]];
    if (s.fingerprintCheckBy) figs.push([s.fingerprintCheckBy, s.fingerprintCheck]);
    for (const [how, fp] of figs) {
      if (!fp) { failures++; evidence.push(`${s.id} (${how}): no fingerprint${s.error ? ` (${s.error})` : ''}`); continue; }
      const d = compareFingerprints(gen, fp);
      if (d.length) failures++;
      evidence.push(`${s.id} (${how}): ${d.length ? d.slice(0, 6).join('; ') + (d.length > 6 ? ` (+${d.length - 6} more)` : '') : 'equal'}`);
      if (d.length) for (const x of fingerprintFindings(gen, fp, f.declared)) evidence.push(`${s.id} (${how}) ${x}`);
    }
  }
  return failures
    ? check('fingerprints_match', 'fail', `${failures} fingerprint(s) differ from the generated data's`, evidence)
    : check('fingerprints_match', 'pass', "every step's fingerprint equals the generated data's, by DuckDB SQL and by TypeScript over Arrow", evidence);
}

export function rowsIdentical(f: ProofFacts): ProofCheck {
  if (!f.rows) return check('rows_identical', 'fail', "A's read of B's table did not happen", []);
  return f.rows.identical
    ? check('rows_identical', 'pass', `A's read of B's table equals the generated data in all ${f.rows.compared} rows`, [`${f.rows.compared} rows compared by id, every column`])
    : check('rows_identical', 'fail', `${f.rows.differingRows} of ${f.rows.compared} rows differ from the generated data`, f.rows.differences);
}

export function declaredSchema(f: ProofFacts): ProofCheck {
  const diffs: string[] = [];
  for (const t of f.tables) diffs.push(...schemaDiffs(f.declared, t.schema, declaredShape, `table ${t.label}`));
  if (f.tables.length < 2) diffs.push(`only ${f.tables.length} of 2 tables were written`);
  return diffs.length
    ? check('declared_schema', 'fail', `${diffs.length} difference(s) from the declared column schema`, diffs)
    : check('declared_schema', 'pass', 'both tables match the declared names, types and nullability', f.tables.map((t) => `table ${t.label}: ${t.schema.fields.length} columns as declared`));
}

export function tagsCarried(f: ProofFacts): ProofCheck {
  const missing: string[] = [];
  let looked = 0;
  for (const t of f.tables) {
    for (const d of f.declared.fields) {
      const want = columnTags(d.metadata);
      if (!want.description && !want.sensitivity && !want.tags.length) continue;
      looked++;
      const got = columnTags(t.schema.fields.find((x) => x.name === d.name)?.metadata);
      if (want.description && got.description !== want.description) missing.push(`table ${t.label} ${d.name}: description ${got.description === null ? 'missing' : 'changed'}`);
      if (want.sensitivity && !got.sensitivity) missing.push(`table ${t.label} ${d.name}: sensitivity tag missing`);
      const lost = want.tags.filter((x) => !got.tags.includes(x));
      if (lost.length) missing.push(`table ${t.label} ${d.name}: tags ${lost.join(', ')} missing`);
    }
  }
  if (f.tables.length < 2) missing.push(`only ${f.tables.length} of 2 tables were written`);
  return missing.length
    ? check('tags_carried', 'fail', `${missing.length} tag(s) or description(s) did not travel in the Delta schema`, missing)
    : check('tags_carried', 'pass', "every declared tag and description is inside both tables' Delta schema", [`${looked} tagged column(s) checked across ${f.tables.length} tables`]);
}

export function sensitivityFloor(f: ProofFacts): ProofCheck {
  const weaker: string[] = [];
  const evidence: string[] = [];
  for (const t of f.tables) {
    for (const d of f.declared.fields) {
      const want = columnTags(d.metadata).sensitivity;
      if (!want) continue;
      const got = columnTags(t.schema.fields.find((x) => x.name === d.name)?.metadata).sensitivity;
      const line = `table ${t.label} ${d.name}: declared ${want}, carried ${got ?? 'none'}`;
      evidence.push(line);
      if (sensitivityRank(got) < sensitivityRank(want)) weaker.push(line);
    }
  }
  return weaker.length
    ? check('sensitivity_floor', 'fail', `${weaker.length} carried sensitivity tag(s) weaker than declared`, weaker)
    : check('sensitivity_floor', 'pass', 'no carried sensitivity tag is weaker than declared', evidence);
}

/**
 * Profiles of counts-only columns hold counts only, and none of the confidential values appears
 * anywhere in the serialised result.
 */
export function profileNoLeak(declared: StructType, profiles: ColumnProfile[], result: Omit<ProofResult, 'checks'> & { checks: ProofCheck[] }, secrets: string[]): ProofCheck {
  const problems: string[] = [];
  const countsOnly = declared.fields.filter((d) => isCountsOnly(columnTags(d.metadata).sensitivity)).map((d) => d.name);
  for (const p of profiles) {
    if (!countsOnly.includes(p.name)) continue;
    const extra = Object.keys(p).filter((k) => !(COUNTS_ONLY_KEYS as readonly string[]).includes(k));
    if (extra.length) problems.push(`profile of ${p.name} holds ${extra.join(', ')}`);
  }
  const text = JSON.stringify(result);
  const shown = secrets.filter((s) => s.length >= 4 && text.includes(JSON.stringify(s).slice(1, -1)));
  if (shown.length) problems.push(`${shown.length} confidential value(s) appear in the result`);
  const evidence = [
    `counts-only columns: ${countsOnly.join(', ') || 'none'}`,
    `searched the result (${text.length} characters) for ${secrets.filter((s) => s.length >= 4).length} confidential values: ${shown.length} found`,
  ];
  return problems.length
    ? check('profile_no_leak', 'fail', 'confidential values leak into the result', [...problems, ...evidence])
    : check('profile_no_leak', 'pass', 'profiles of confidential columns hold counts only; no confidential value appears in the result', evidence);
}

export function deltaProtocol(f: ProofFacts): ProofCheck {
  const problems: string[] = [];
  const evidence: string[] = [];
  for (const t of f.tables) {
    const need = requiredReaderFeatures(t.schema);
    const has = t.protocol.minReaderVersion === 3 ? (t.protocol.readerFeatures ?? []) : [];
    const lacking = need.filter((x) => !has.includes(x) || !(t.protocol.writerFeatures ?? []).includes(x));
    evidence.push(`table ${t.label} (${t.writer}): protocol ${t.protocol.minReaderVersion}/${t.protocol.minWriterVersion}, reader features [${has.join(', ')}]`);
    if (lacking.length) problems.push(`table ${t.label} does not declare the feature(s) its schema needs: ${lacking.join(', ')}`);
  }
  const expectReads: [string, 'a' | 'b'][] = f.tables.length ? [['b_read', 'a'], ['a_read', 'b']] : [];
  for (const [, table] of expectReads) {
    const r = f.reads.find((x) => x.table === table);
    if (!r) { problems.push(`table ${table} was not read by the other engine`); continue; }
    const unsupported = r.featuresChecked.filter((x) => !r.readerFeatures.includes(x));
    evidence.push(`${r.reader} read table ${table}: protocol ${r.protocol.minReaderVersion}/${r.protocol.minWriterVersion}, features [${r.featuresChecked.join(', ')}] all supported`);
    if (unsupported.length) problems.push(`${r.reader} read table ${table} without supporting ${unsupported.join(', ')}`);
  }
  for (const s of f.steps) if (s.error && /feature|protocol/i.test(s.error)) problems.push(`${s.id}: ${s.error}`);
  return problems.length
    ? check('delta_protocol', 'fail', `${problems.length} protocol problem(s)`, [...problems, ...evidence])
    : check('delta_protocol', 'pass', "each engine read the other's protocol and table features", evidence);
}

export function oneWriter(f: ProofFacts): ProofCheck {
  const problems: string[] = [];
  const evidence: string[] = [];
  for (const t of f.tables) {
    for (const c of t.commits) {
      const ok = c.engineInfo?.startsWith(t.expectedEngineInfoPrefix) ?? false;
      evidence.push(`table ${t.label} version ${c.version}: engineInfo ${c.engineInfo ?? '(none)'}`);
      if (!ok) problems.push(`table ${t.label} version ${c.version} was committed by ${c.engineInfo ?? 'an unnamed engine'}, expected ${t.expectedEngineInfoPrefix}…`);
    }
    if (!t.commits.length) problems.push(`table ${t.label} has no commits`);
  }
  if (f.tables.length < 2) problems.push(`only ${f.tables.length} of 2 tables were written`);
  return problems.length
    ? check('one_writer', 'fail', 'a commit is not by the expected engine', [...problems, ...evidence])
    : check('one_writer', 'pass', 'every commit on each table is by the expected engine', evidence);
}

/** Why access_d11 cannot pass: the seed's D11 (table access control) does not exist in lakerec. */
export const ACCESS_D11_REASON = 'table access control (the seed\'s D11) does not exist in lakerec yet: anyone who can read the table folder can read the data, so this stays a warning and never passes';

/**
 * The seed's `access_d11`: a warning that never passes until table access control exists. What
 * lakerec can check today, the sandbox being readable by the current user only, is evidence, and
 * a sandbox open to other users fails it.
 */
export function accessD11(s: SandboxFacts): ProofCheck {
  const evidence = [ACCESS_D11_REASON];
  if (s.mode === null) {
    evidence.push(`permission bits are not available on ${s.platform}; the sandbox ${s.path} was not verified`);
    return check('access_d11', 'warn', 'a gap: table access control does not exist yet; the sandbox\'s permissions could not be verified here', evidence);
  }
  evidence.push(`sandbox mode ${(s.mode & 0o777).toString(8).padStart(4, '0')}, owner uid ${s.ownerUid}, current uid ${s.currentUid}`);
  const ok = (s.mode & 0o077) === 0 && (s.currentUid === null || s.ownerUid === s.currentUid);
  return ok
    ? check('access_d11', 'warn', 'a gap: table access control does not exist yet (the sandbox was readable by the current user only)', evidence)
    : check('access_d11', 'fail', 'the sandbox is open to other users (and table access control does not exist yet)', evidence);
}

export function sandboxDiscarded(path: string, leftOver: string[]): ProofCheck {
  return leftOver.length
    ? check('sandbox_discarded', 'fail', `${leftOver.length} item(s) of the sandbox are left`, leftOver.slice(0, 10))
    : check('sandbox_discarded', 'pass', 'nothing of the sandbox is left', [`${path} no longer exists`]);
}
