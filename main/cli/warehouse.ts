// `lakerec warehouse sql|check|list|trust`, and the --warehouse forms of reconcile and
// fingerprint. Exit: 0 ok / matches, 1 a disagreement, 2 invocation wrong, 3 a side could not be read.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { LEVELS, type Level } from '../../shared/reconcile';
import { compareFingerprints, formatFingerprint } from '../../shared/fingerprint';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import { openTable } from '../delta/open';
import { tableArg } from '../engine/location';
import { deltaTypeToDuckDb } from '../delta/schema';
import { registerSnapshotView } from '../delta/scan';
import { loadContract, parseContract, type Contract } from '../reconcile/contract';
import { fingerprintDuckdb } from '../proof/fingerprint';
import { openDuck } from '../engine/duck';
import { sha256Of } from '../engine/accepted-files';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { AWKWARD_VALUES } from '../warehouse/awkward';
import { checkStatements, compareCheck, checkFigures, localFigures } from '../warehouse/check';
import { connectionSummary } from '../warehouse/connections';
import { records, type Connector } from '../warehouse/connector';
import { acceptedConnections, connectionNamed, listConnections, localSide, warehouseSide } from '../warehouse/sides';
import { isDialect, DIALECTS, type Dialect, type WarehouseColumn } from '../warehouse/dialect';
import { DuckdbConnector } from '../warehouse/duckdb-connector';
import { PUSHED_LEVELS, statementsFor, type BisectPredicate, type PushedLevel } from '../warehouse/levels';
import { remoteConnector } from '../warehouse/remote';
import { derivePartitionSide } from '../warehouse/derive';
import { PushLog, pushedFingerprint, runStatement } from '../warehouse/run';
import { duckTypeOf, type WarehouseSide } from '../warehouse/reconcile';
import { pushedLines, pushedReconcile } from '../warehouse/result';
import { renderJson, renderTerminal } from '../reconcile/report';

const USAGE = [
  'lakerec warehouse sql --dialect spark|snowflake|trino|duckdb --level LEVEL --contract FILE [--like TABLE] [--relation R] [--partitions P=V,...] [--versions N,...] [--predicate P] [--cap N]',
  'lakerec warehouse check NAME [--json]',
  'lakerec warehouse list [--json]',
  'lakerec warehouse trust FILE',
].join('\n  ');

export async function run(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'sql': return sqlCommand(rest, io);
    case 'check': return checkCommand(rest, io);
    case 'list': return listCommand(rest, io);
    case 'trust': return trustCommand(rest, io);
    default: throw new LakerecError('usage', `${sub ? `unknown warehouse command "${sub}"` : 'a warehouse command is needed'}; usage:\n  ${USAGE}`);
  }
}

/** A local Delta table's columns, typed as the local engine types them. */
async function likeColumns(path: string): Promise<WarehouseColumn[]> {
  const t = await openTable(path);
  const s = await t.snapshot();
  return s.schema.fields.map((f) => ({ name: f.name, type: deltaTypeToDuckDb(f.type) }));
}

async function sqlCommand(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS['warehouse sql'].flags);
  const dialect = str(p, 'dialect');
  if (!isDialect(dialect)) throw new LakerecError('usage', `--dialect must be one of ${DIALECTS.join(', ')}`);
  const level = str(p, 'level') as PushedLevel | undefined;
  if (!level || !(PUSHED_LEVELS as readonly string[]).includes(level)) throw new LakerecError('usage', `--level must be one of ${PUSHED_LEVELS.join(', ')}`);
  const cf = str(p, 'contract');
  if (!cf) throw new LakerecError('usage', '--contract FILE is required (keys, partitioning, float rules)');
  const contract = loadContract(resolve(io.cwd, cf));
  const like = str(p, 'like');
  const columns = like ? await likeColumns(tableArg(io.cwd, like)) : [];
  if (!like && level !== 'schema') throw new LakerecError('usage', `--level ${level} needs the table's columns: --like TABLE (a Delta table with the same schema, e.g. a local copy)`);
  const relation = str(p, 'relation') ?? (dialect === 'snowflake' ? 'DELTA_TABLE' : 'delta_table');
  const predicate = str(p, 'predicate') as BisectPredicate | undefined;
  if (predicate && !['no-null-keys', 'unique-keys', 'row-count'].includes(predicate)) throw new LakerecError('usage', '--predicate must be no-null-keys, unique-keys or row-count');
  const versions = str(p, 'versions')?.split(',').map((v) => {
    if (!/^\d+$/.test(v.trim())) throw new LakerecError('usage', `--versions takes version numbers, got "${v}"`);
    return Number(v);
  });
  const partitions = str(p, 'partitions')?.split(',').map((x) => x.trim()).filter(Boolean);
  if (level === 'rows' && !partitions?.length) throw new LakerecError('usage', '--level rows fetches the rows of the partitions that disagree: name them with --partitions dt=2026-08-10,...');
  // A table without the partition column derives it by the contract's expression, as a pushed reconcile does
  // (its levels only: the fingerprint and bisect read the table as it is).
  const side = ['counts', 'checksum', 'keys', 'rows'].includes(level) ? await derivePartitionSide({ dialect, relation, columns }, contract, false) : { relation, columns };
  const sts = statementsFor({ dialect, relation: side.relation, columns: side.columns, contract }, level, { partitions, versions, predicate, cap: int(p, 'cap') });
  const note = dialect === 'duckdb' ? '' : `-- generated for ${dialect}, parsed by a grammar in lakerec's tests, not run against ${dialect} by lakerec (lakerec warehouse check proves the dialect on yours)\n`;
  io.out(sts.map((s) => `${note}-- ${s.purpose}; sql ${s.id}\n${s.sql};\n`).join('\n'));
  return 0;
}

async function checkCommand(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS['warehouse check'].flags);
  const [name] = requirePositional(p, 1, 'lakerec warehouse check NAME [--json]');
  const c = connectionNamed(name, io, str(p, 'settings'));
  const conn: Connector = c.kind === 'duckdb' ? await DuckdbConnector.open(c.name, []) : remoteConnector(c);
  const duck = await openDuck({ threads: 1 });
  try {
    const local = await localFigures(duck.conn, AWKWARD_VALUES);
    const st = checkStatements(conn.dialect, AWKWARD_VALUES);
    const log = new PushLog();
    const timeoutMs = (int(p, 'timeout-s') ?? 300) * 1000;
    let text: Record<string, string | null>[];
    let floats: Record<string, string | null>[];
    try {
      text = records(await runStatement(conn, { level: 'schema', purpose: 'warehouse check: canonical text and md5 of the awkward values', sql: st.text.sql, id: st.text.id }, log, { timeoutMs }));
      floats = records(await runStatement(conn, { level: 'schema', purpose: 'warehouse check: exact parts of the awkward doubles', sql: st.floats.sql, id: st.floats.id }, log, { timeoutMs }));
    } catch (e) {
      if (e instanceof LakerecError && e.code !== 'usage' && e.code !== 'cancelled') throw new LakerecError('source_unreadable', e.message);
      throw e;
    }
    const lines = compareCheck(AWKWARD_VALUES, local, checkFigures(text[0] ?? {}, floats));
    const bad = lines.filter((l) => !l.agree);
    const summary = connectionSummary(c);
    if (bool(p, 'json')) {
      io.out(JSON.stringify({ connection: summary, dialect: conn.dialect, values: AWKWARD_VALUES.length, agree: bad.length === 0, lines, ran: log.ran, bytesTransferred: log.bytes }, null, 2) + '\n');
    } else {
      io.out(`lakerec warehouse check ${summary.name} (${summary.kind}, ${conn.dialect} dialect, at ${summary.where}): ${AWKWARD_VALUES.length} awkward values, ${lines.length} figures, ${bad.length} disagree\n`);
      for (const l of bad) io.out(`  ${l.value} ${l.figure}: local ${JSON.stringify(l.local)}, warehouse ${JSON.stringify(l.warehouse)}\n`);
      for (const r of log.ran) io.out(`  ran sql ${r.sqlId} on ${r.where}: query id ${r.queryId ?? '(none given)'}, ${r.bytes} bytes\n`);
      io.out(bad.length ? 'the warehouse does not compute the canonical text as lakerec does: pushed checksums from it would not compare\n' : 'the warehouse computes the canonical text, md5 and float parts exactly as lakerec does\n');
    }
    return bad.length ? 1 : 0;
  } finally {
    duck.close();
    await conn.close();
  }
}

async function listCommand(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS['warehouse list'].flags);
  // The window's list: a file needs trust only while it is not trusted as it is now.
  const listed = listConnections(io, str(p, 'settings'));
  const problems = listed.problems;
  const found = listed.connections.map(({ connection, needsTrust }) => {
    const c = connectionSummary(connection);
    return needsTrust ? { ...c, from: `${c.from}, needs trust` } : c;
  });
  if (bool(p, 'json')) io.out(JSON.stringify({ connections: found, problems }, null, 2) + '\n');
  else {
    io.out(found.length ? found.map((c) => `${c.name}  ${c.kind} (${c.dialect})  ${c.where}  from ${c.from}`).join('\n') + '\n' : 'no warehouse connections found\n');
    for (const x of problems) io.err(`lakerec warehouse list: ${x}\n`);
  }
  return 0;
}

async function trustCommand(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS['warehouse trust'].flags);
  const [file] = requirePositional(p, 1, 'lakerec warehouse trust FILE');
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) throw new LakerecError('not_found', `no file at ${path}`);
  acceptedConnections(io.env).accept(path, sha256Of(readFileSync(path, 'utf8')));
  io.out(`trusted ${path} as it is now (a changed file must be trusted again)\n`);
  return 0;
}

const RECONCILE_USAGE = 'lakerec reconcile SOURCE TABLE --contract FILE --warehouse NAME [--warehouse-side target|source|both] [--level schema|counts|checksum|keys|rows] [--row-cap N] [--settings F] [--json]';

/** `lakerec reconcile SOURCE TABLE --warehouse NAME`: the named side(s) in the warehouse, partials combined with the local side's. */
export async function reconcileCommand(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS['reconcile --warehouse'].flags);
  const [source, target] = requirePositional(p, 2, RECONCILE_USAGE);
  const name = str(p, 'warehouse')!;
  const cf = str(p, 'contract');
  if (!cf) throw new LakerecError('usage', `--contract FILE is required; usage: ${RECONCILE_USAGE}`);
  const contract = loadContract(resolve(io.cwd, cf));
  const which = str(p, 'warehouse-side') ?? 'target';
  if (!['target', 'source', 'both'].includes(which)) throw new LakerecError('usage', '--warehouse-side must be target, source or both');
  const level = (str(p, 'level') ?? 'keys') as Level;
  if (!LEVELS.includes(level)) throw new LakerecError('usage', `--level must be one of ${LEVELS.join(', ')}`);
  const settings = str(p, 'settings');
  const open = (path: string, inWarehouse: boolean, view: string) => (inWarehouse ? warehouseSide(name, path, io, contract, view, settings) : localSide(path, io.cwd, contract, view));
  const s = await open(source, which !== 'target', 'lk_source');
  let t: WarehouseSide | null = null;
  try {
    t = await open(target, which !== 'source', 'lk_target');
    // The one result every face renders: the local reconcile's terminal text and JSON, plus what ran where.
    const r = await pushedReconcile({ source: s, target: t, contract, level, rowCap: int(p, 'row-cap') });
    io.out(bool(p, 'json') ? renderJson(r) : renderTerminal(r) + pushedLines(r).join('\n') + '\n');
    return r.exitCode;
  } finally {
    await s.connector.close();
    await t?.connector.close();
  }
}

/** `lakerec fingerprint RELATION --warehouse NAME [--compare TABLE]`: the ods fingerprint computed where the table lives. */
export async function fingerprintCommand(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS['fingerprint --warehouse'].flags);
  const [relation] = requirePositional(p, 1, 'lakerec fingerprint RELATION --warehouse NAME [--compare TABLE] [--json]');
  const contract = loadContractless();
  const side = await warehouseSide(str(p, 'warehouse')!, relation, io, contract, 'lk_fingerprint', str(p, 'settings'));
  try {
    const log = new PushLog();
    const described = await runStatement(side.connector, statementsFor({ dialect: side.connector.dialect, relation: side.relation, columns: [], contract }, 'schema')[0], log);
    const columns = records(described).map((r) => ({ name: r.column_name ?? r.col_name ?? r.name ?? r.column ?? '', type: r.column_type ?? r.data_type ?? r.type ?? '' }))
      .filter((c) => c.name !== '' && !c.name.startsWith('#'))
      .map((c) => ({ name: c.name, type: side.connector.dialect === 'duckdb' ? c.type : duckTypeOf(c.type, side.connector.dialect) }));
    const fp = await pushedFingerprint(side.connector, { dialect: side.connector.dialect, relation: side.relation, columns, contract }, log);
    let differences: string[] | null = null;
    const cmp = str(p, 'compare');
    if (cmp) {
      // The shared table argument: a folder, file://, or a remote location (s3://, abfss://, gs://).
      const table = await openTable(tableArg(io.cwd, cmp));
      const snap = await table.snapshot();
      const duck = await openDuck({ threads: 2 });
      try {
        await registerSnapshotView(duck.conn, snap, 'lk_cmp', { allowOutsidePaths: table.allowOutsidePaths });
        differences = compareFingerprints(await fingerprintDuckdb(duck.conn, snap.schema, 'lk_cmp'), fp);
      } finally {
        duck.close();
      }
    }
    if (bool(p, 'json')) io.out(JSON.stringify({ fingerprint: fp, relation, where: side.connector.describe(), ran: log.ran, bytesTransferred: log.bytes, ...(differences ? { differences } : {}) }, null, 2) + '\n');
    else {
      io.out(`${side.label}\n${formatFingerprint(fp)}`);
      for (const r of log.ran) io.out(`ran ${r.level} sql ${r.sqlId} on ${r.where}: query id ${r.queryId ?? '(none given)'}, ${r.bytes} bytes\n`);
      if (differences) io.out(differences.length ? `differs from ${cmp}:\n${differences.map((d) => `  ${d}`).join('\n')}\n` : `the same as ${cmp}\n`);
    }
    return differences?.length ? 1 : 0;
  } finally {
    await side.connector.close();
  }
}

/** The fingerprint needs no contract's rules: a minimal one (its keys are not used). */
function loadContractless(): Contract {
  return parseContract('version: 1\nname: fingerprint\nkeys: [unused]\n');
}

export type { Dialect };
