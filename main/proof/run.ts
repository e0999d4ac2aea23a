// A round-trip proof: the generated table through two engines, fingerprinted at every step.
//   generate  → A writes table a → B reads a (fingerprint) and writes table b → A reads b back
// Every step's fingerprint is compared with the generated data's; A's read of b is compared row
// by row; then the governance checks. All inside a sandbox folder (mode 0700) deleted at the end.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { makeTempDir, removeTempDir } from '../engine/tempdirs';
import { join } from 'node:path';
import type * as A from 'apache-arrow';
import type { StructType } from '../../shared/delta';
import { LakerecError, toErrorData } from '../../shared/errors';
import { compareFingerprints, fingerprintRule, type OdsFingerprint } from '../../shared/fingerprint';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import type { ProofCheck, ProofResult, ProofStep, ProofStepId } from '../../shared/proof';
import {
  columnTags, profileColumn, sensitivityRank, isCountsOnly, type ColumnProfile,
} from '../../shared/sensitivity';
import { openDuck, type Duck } from '../engine/duck';
import { openTable } from '../delta/open';
import { registerSnapshotView } from '../delta/scan';
import { columnCells, deltaSchemaOf, tableRows } from './cells';
import * as C from './checks';
import { cellText, compareRows } from './compare';
import { engineByName, type Engine, type EngineRead } from './engines';
import { loadRows } from './engines/duckdb-values';
import { canonicalText, fingerprintArrow, fingerprintDuckdb } from './fingerprint';
import { DEFAULT_SEED, GENERATED_ROWS, generateTable, type GeneratedTable } from './generate';

export type ProofJobContext = JobContext & { onStep?(step: ProofStep): void };

export interface ProofOptions {
  /** Engine A and engine B, by name or as engines. */
  engines: [string | Engine, string | Engine];
  seed?: number;
  rows?: number;
  ctx?: ProofJobContext;
  /** Accept the lossy test doubles by name (tests only). */
  testDoubles?: boolean;
  /** Folder the sandbox is created in (default: the OS temp folder). */
  tmpRoot?: string;
  /** The proof's id (default: a new UUID); the lock file and the run history use it. */
  id?: string;
}

const STEP_TITLES: Record<ProofStepId, (a: string, b: string) => string> = {
  generate: () => 'Generate the table',
  a_write: (a) => `${a} writes table a`,
  b_read: (_a, b) => `${b} reads table a`,
  b_write: (_a, b) => `${b} writes table b`,
  a_read: (a) => `${a} reads table b back`,
};

/** The fingerprint SQL run by DuckDB over a Delta table's files (through our reader's view). */
async function sqlFingerprintOfTable(duck: Duck, root: string, view: string): Promise<{ fp: OdsFingerprint; schema: StructType }> {
  const snapshot = await (await openTable(root)).snapshot();
  await registerSnapshotView(duck.conn, snapshot, view);
  return { fp: await fingerprintDuckdb(duck.conn, snapshot.schema, view), schema: snapshot.schema };
}

async function tableFacts(root: string, label: 'a' | 'b', engine: Engine): Promise<C.TableFacts> {
  const t = await openTable(root);
  const snapshot = await t.snapshot();
  const changes = await t.changes();
  return {
    label, writer: engine.name, expectedEngineInfoPrefix: engine.engineInfoPrefix,
    schema: snapshot.schema, protocol: snapshot.protocol,
    commits: changes.map((c) => ({ version: c.version, engineInfo: typeof c.commitInfo?.engineInfo === 'string' ? c.commitInfo.engineInfo : null })),
  };
}

function profilesOf(table: A.Table, declared: StructType): ColumnProfile[] {
  return table.schema.fields.map((f, i) => {
    const d = declared.fields.find((x) => x.name === f.name);
    const declaredLevel = columnTags(d?.metadata).sensitivity;
    const carried = columnTags(deltaSchemaOf(table.schema).fields[i].metadata).sensitivity;
    // Mask by the stronger of declared and carried: a lost tag must not unmask a column.
    const level = sensitivityRank(declaredLevel) >= sensitivityRank(carried) ? declaredLevel : carried;
    const type = deltaSchemaOf(table.schema).fields[i].type;
    const { kind, rule } = fingerprintRule(type);
    const values = columnCells(table, i).map((c) => (c === null ? null : kind === 'hash' && rule ? canonicalText(c, rule, type) : cellText(c)));
    return profileColumn(f.name, typeof type === 'string' ? type : type.type, level, values);
  });
}

/** Canonical text of every value of the declared counts-only columns: what must never leak. */
function confidentialValues(g: GeneratedTable): string[] {
  const out: string[] = [];
  g.schema.fields.forEach((f, i) => {
    if (!isCountsOnly(columnTags(f.metadata).sensitivity)) return;
    const { rule } = fingerprintRule(f.type);
    for (const r of g.rows) if (r[i] !== null) out.push(rule ? canonicalText(r[i], rule, f.type) : cellText(r[i]));
  });
  return out;
}

function sandboxFacts(path: string): C.SandboxFacts {
  const st = statSync(path);
  const posix = process.platform !== 'win32';
  return {
    path,
    mode: posix ? st.mode & 0o777 : null,
    ownerUid: posix ? st.uid : null,
    currentUid: typeof process.getuid === 'function' ? process.getuid() : null,
    platform: process.platform,
  };
}

/** Runs one proof. Never throws for a failing engine (that is a failed step); throws `cancelled`. */
export async function runProof(opts: ProofOptions): Promise<ProofResult> {
  const ctx = opts.ctx;
  const [ea, eb] = opts.engines.map((e) => (typeof e === 'string' ? engineByName(e, { testDoubles: opts.testDoubles }) : e)) as [Engine, Engine];
  const started = Date.now();
  // 0700, named with this process's pid and start time, removed by the next start after a crash.
  const sandbox = makeTempDir('proof', ...(opts.tmpRoot ? [opts.tmpRoot] : []));
  const rootA = join(sandbox, 'a');
  const rootB = join(sandbox, 'b');
  const steps: ProofStep[] = (['generate', 'a_write', 'b_read', 'b_write', 'a_read'] as ProofStepId[]).map((id) => ({
    id, engine: id === 'generate' ? null : id.startsWith('a_') ? ea.name : eb.name, title: STEP_TITLES[id](ea.name, eb.name),
    status: 'pending', table: id === 'generate' ? null : id === 'a_write' || id === 'b_read' ? 'a' : 'b',
    rows: null, fingerprint: null, fingerprintBy: null, fingerprintCheck: null, fingerprintCheckBy: null, differences: [], ms: 0,
  }));
  const emit = (s: ProofStep): void => { ctx?.onStep?.(structuredClone(s)); };
  let genFp: OdsFingerprint | null = null;
  const finish = (s: ProofStep): void => {
    if (genFp && s.fingerprint) {
      s.differences = [...compareFingerprints(genFp, s.fingerprint), ...(s.fingerprintCheck ? compareFingerprints(genFp, s.fingerprintCheck).map((d) => `(${s.fingerprintCheckBy}) ${d}`) : [])];
    }
  };
  /** Runs a step; returns false (and records why) when it failed or an earlier one did. */
  const runStep = async (id: ProofStepId, body: (s: ProofStep) => Promise<void>): Promise<boolean> => {
    const s = steps.find((x) => x.id === id)!;
    const blocked = steps.slice(0, steps.indexOf(s)).some((x) => x.status === 'failed');
    if (blocked) { s.status = 'failed'; s.error = 'not run: an earlier step failed'; emit(s); return false; }
    throwIfCancelled(ctx);
    report(ctx, { phase: s.title, done: steps.indexOf(s), total: steps.length });
    s.status = 'running';
    emit(s);
    const t0 = Date.now();
    try {
      await body(s);
      s.status = 'done';
    } catch (e) {
      if (e instanceof LakerecError && e.code === 'cancelled') throw e;
      s.status = 'failed';
      s.error = toErrorData(e).message;
    }
    s.ms = Date.now() - t0;
    finish(s);
    emit(s);
    return s.status === 'done';
  };

  let generated: GeneratedTable | null = null;
  let readA: EngineRead | null = null;
  let readB: EngineRead | null = null;
  const tables: C.TableFacts[] = [];
  const reads: C.ReadFacts[] = [];
  let sandboxInfo: C.SandboxFacts;
  let duck: Duck | null = null;
  try {
    duck = await openDuck({ threads: 1 });
    const conn = duck.conn;
    const verifier = duck;
    await runStep('generate', async (s) => {
      const g = generateTable(opts.seed ?? DEFAULT_SEED, opts.rows ?? GENERATED_ROWS);
      generated = g;
      s.rows = g.arrow.numRows;
      s.fingerprint = fingerprintArrow(g.arrow);
      s.fingerprintBy = 'typescript-arrow';
      await loadRows(conn, 'proof_generated', g.schema, g.rows);
      s.fingerprintCheck = await fingerprintDuckdb(conn, g.schema, 'proof_generated');
      s.fingerprintCheckBy = 'duckdb-sql';
      genFp = s.fingerprint;
    });
    // Both halves of the round trip are checked alike: a table written is fingerprinted by DuckDB
    // SQL; a read by TypeScript over the Arrow it returned, and the table read again by SQL.
    const checkWrite = async (s: ProofStep, root: string, view: string): Promise<void> => {
      const { fp } = await sqlFingerprintOfTable(verifier, root, view);
      Object.assign(s, { rows: fp.rows, fingerprint: fp, fingerprintBy: 'duckdb-sql' });
    };
    const checkRead = async (s: ProofStep, read: EngineRead, root: string, view: string): Promise<void> => {
      Object.assign(s, { rows: read.table.numRows, fingerprint: fingerprintArrow(read.table), fingerprintBy: 'typescript-arrow' });
      const { fp } = await sqlFingerprintOfTable(verifier, root, view);
      Object.assign(s, { fingerprintCheck: fp, fingerprintCheckBy: 'duckdb-sql' });
    };
    await runStep('a_write', async (s) => {
      await ea.write(rootA, generated!.arrow, ctx);
      await checkWrite(s, rootA, 'proof_table_a');
    });
    await runStep('b_read', async (s) => {
      readA = await eb.read(rootA, ctx);
      await checkRead(s, readA, rootA, 'proof_table_a');
    });
    await runStep('b_write', async (s) => {
      await eb.write(rootB, readA!.table, ctx);
      await checkWrite(s, rootB, 'proof_table_b');
    });
    await runStep('a_read', async (s) => {
      readB = await ea.read(rootB, ctx);
      await checkRead(s, readB, rootB, 'proof_table_b');
    });
    for (const [root, label, engine] of [[rootA, 'a', ea], [rootB, 'b', eb]] as const) {
      if (existsSync(join(root, '_delta_log'))) {
        try { tables.push(await tableFacts(root, label, engine)); } catch { /* the step that wrote it already failed */ }
      }
    }
    for (const [r, reader, table] of [[readA, eb, 'a'], [readB, ea, 'b']] as const) {
      const read = r as EngineRead | null;
      if (read) reads.push({ reader: reader.name, table, schema: deltaSchemaOf(read.table.schema), protocol: read.protocol, featuresChecked: read.featuresChecked, readerFeatures: [...reader.readerFeatures], adjustments: read.adjustments ?? [] });
    }
    sandboxInfo = sandboxFacts(sandbox);
  } finally {
    duck?.close();
    removeTempDir(sandbox);
  }
  const leftOver = existsSync(sandbox) ? readdirSync(sandbox) : [];
  if (existsSync(sandbox) && !leftOver.length) leftOver.push(sandbox);

  const g = generated as GeneratedTable | null;
  const declared = g?.schema ?? { type: 'struct' as const, fields: [] };
  const finalRead = readB as EngineRead | null;
  const rows = g && finalRead ? compareRows(declared, g.rows, finalRead.table.schema.fields.map((f) => f.name), tableRows(finalRead.table)) : null;
  const facts: C.ProofFacts = { declared, steps, generatedRows: g?.rows.length ?? 0, tables, reads, rows, sandbox: sandboxInfo! };
  const profiles = finalRead && g ? profilesOf(finalRead.table, declared) : [];
  const checks: ProofCheck[] = [
    C.rowsMatch(facts), C.schemaMatch(facts), C.fingerprintsMatch(facts), C.rowsIdentical(facts),
    C.declaredSchema(facts), C.tagsCarried(facts), C.sensitivityFloor(facts),
  ];
  const finished = Date.now();
  const result: ProofResult = {
    version: 1, id: opts.id ?? randomUUID(), table: { kind: 'generated', seed: opts.seed ?? DEFAULT_SEED, rows: g?.rows.length ?? opts.rows ?? GENERATED_ROWS },
    engines: [ea.name, eb.name], startedAt: new Date(started).toISOString(), finishedAt: new Date(finished).toISOString(),
    ms: finished - started, sandbox, steps, checks, profiles, passed: false,
  };
  // profile_no_leak looks at everything the result will hold, so it is decided last but one.
  const tail = [C.deltaProtocol(facts), C.oneWriter(facts), C.accessD11(facts.sandbox), C.sandboxDiscarded(sandbox, leftOver)];
  const leak = C.profileNoLeak(declared, profiles, { ...result, checks: [...checks, ...tail] }, g ? confidentialValues(g) : []);
  result.checks = [...checks, leak, ...tail];
  result.passed = result.checks.every((c) => c.status !== 'fail');
  // A cancel that came while the last step or the checks ran is honoured: the user asked for no answer.
  throwIfCancelled(ctx);
  report(ctx, { phase: 'done', done: steps.length, total: steps.length });
  return result;
}
