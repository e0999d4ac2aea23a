// `lakerec fingerprint TABLE [--version N] [--json]`: the ods fingerprint v1 of a Delta table,
// computed by DuckDB running the generated SQL over the snapshot's rows; integers printed exactly.
// `--sql duckdb|spark|snowflake` prints that SQL instead, to run on the other side.
import { tableArg } from '../engine/location';
import { LakerecError } from '../../shared/errors';
import { compareFingerprints, FINGERPRINT_DIALECTS, fingerprintSql, formatFingerprint, type FingerprintDialect } from '../../shared/fingerprint';
import { openDuck, sqlString } from '../engine/duck';
import { openTable } from '../delta/open';
import { registerSnapshotView } from '../delta/scan';
import { fingerprintArrow, fingerprintDuckdb } from '../proof/fingerprint';
import { readSnapshotDuckdb } from '../proof/engines/duckdb';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import { ARGS, namesWarehouse } from './commands';
import type { CliIO } from './io';

const USAGE = 'lakerec fingerprint TABLE [--version N] [--json] [--check] [--sql duckdb|spark|snowflake|trino]';

/** The relation each dialect reads the table through. */
export function relationFor(dialect: FingerprintDialect, root: string, version: number | undefined): string {
  switch (dialect) {
    // DuckDB's delta extension (not needed by lakerec itself) reads a Delta table by path.
    case 'duckdb': return `delta_scan(${sqlString(root)})${version === undefined ? '' : ` -- version ${version}: read it with lakerec snapshot first`}`;
    case 'spark': return `delta.\`${root.replace(/`/g, '``')}\`${version === undefined ? '' : ` VERSION AS OF ${version}`}`;
    case 'snowflake': return `DELTA_TABLE -- the table at ${root.replace(/[\r\n]/g, ' ')}${version === undefined ? '' : ` (version ${version})`}, as an external or Iceberg table`;
    case 'trino': return `delta_table${version === undefined ? '' : ` FOR VERSION AS OF ${version}`} -- the table at ${root.replace(/[\r\n]/g, ' ')} in a Delta Lake catalog`;
  }
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  // --warehouse NAME: the fingerprint computed by the engine that holds the table (main/warehouse/).
  if (namesWarehouse(argv)) return (await import('./warehouse')).fingerprintCommand(argv, io);
  const p = parseArgs(argv, ARGS.fingerprint.flags);
  const [tablePath] = requirePositional(p, 1, USAGE);
  const dialect = str(p, 'sql');
  if (dialect !== undefined && !(FINGERPRINT_DIALECTS as readonly string[]).includes(dialect)) {
    throw new LakerecError('usage', `--sql must be one of ${FINGERPRINT_DIALECTS.join(', ')}, got "${dialect}"`);
  }
  const version = int(p, 'version');
  if (version !== undefined && version < 0) throw new LakerecError('usage', '--version must be 0 or more');
  const table = await openTable(tableArg(io.cwd, tablePath), { allowOutsidePaths: bool(p, 'allow-outside-paths') });
  const snapshot = await table.snapshot({ version });
  if (dialect !== undefined) {
    const d = dialect as FingerprintDialect;
    const sql = fingerprintSql(snapshot.schema, d, relationFor(d, table.root, version));
    const note = d === 'duckdb' ? '' : '-- written to the spec, not yet run against this engine\n';
    io.out(note + sql);
    return 0;
  }
  const duck = await openDuck({ threads: 2 });
  try {
    await registerSnapshotView(duck.conn, snapshot, 'lakerec_fingerprint', { allowOutsidePaths: table.allowOutsidePaths });
    const fp = await fingerprintDuckdb(duck.conn, snapshot.schema, 'lakerec_fingerprint');
    // --check: the same figures a second, independent way (TypeScript over the rows as Arrow).
    const differences = bool(p, 'check')
      ? compareFingerprints(fp, fingerprintArrow(await readSnapshotDuckdb(snapshot, { allowOutsidePaths: table.allowOutsidePaths })))
      : null;
    if (differences?.length) {
      io.err(`lakerec fingerprint: the TypeScript computation disagrees with DuckDB's:\n${differences.map((d) => `  ${d}`).join('\n')}\n`);
    }
    if (bool(p, 'json')) {
      const { version: fingerprint, ...figures } = fp;
      const check = differences === null ? {} : { checked: differences.length === 0, differences };
      io.out(JSON.stringify({ fingerprint, table: table.root, version: snapshot.version, ...figures, ...check }, null, 2) + '\n');
    } else {
      io.out(`${table.root} version ${snapshot.version}\n${formatFingerprint(fp)}`);
      if (differences?.length === 0) io.out('checked: TypeScript over Arrow gives the same figures\n');
    }
    return differences?.length ? 1 : 0;
  } finally {
    duck.close();
  }
}
