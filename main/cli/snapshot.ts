// `lakerec snapshot TABLE [--version N | --timestamp ISO] --out FILE.parquet`: a version's logical
// rows (DVs applied, logical names, partition columns filled in) written to one Parquet file.
import { basename, dirname, join, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { parseArgs, bool, int, str, requirePositional } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { openTable } from '../delta/open';
import { engineAccess, registerSnapshotView } from '../delta/scan';
import { openDuck, sqlString } from '../engine/duck';
import { writeOutputWith } from '../engine/outputs';
import { looksRemote, tableArg } from '../engine/location';

const usage = 'lakerec snapshot TABLE [--version N | --timestamp ISO] --out FILE.parquet';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.snapshot.flags);
  const [tablePath] = requirePositional(p, 1, usage);
  const out = str(p, 'out');
  if (!out) throw new LakerecError('usage', `--out FILE.parquet is required; usage: ${usage}`);
  const version = int(p, 'version');
  const timestamp = str(p, 'timestamp');
  if (version !== undefined && timestamp !== undefined) throw new LakerecError('usage', '--version and --timestamp cannot be used together');
  if (version !== undefined && version < 0) throw new LakerecError('usage', '--version must be 0 or more');
  if (timestamp !== undefined && Number.isNaN(Date.parse(timestamp))) {
    throw new LakerecError('usage', `--timestamp "${timestamp}" is not an ISO 8601 timestamp (e.g. 2024-01-31T12:00:00Z)`);
  }
  const allowOutsidePaths = bool(p, 'allow-outside-paths');
  const root = tableArg(io.cwd, tablePath);
  // The latest version needs only the log from the last checkpoint on (listed after it, not whole).
  const table = await openTable(root, { allowOutsidePaths, latestOnly: version === undefined && timestamp === undefined });
  // A remote --out stays as written, so the guard refuses it (outputs are local only).
  const outPath = looksRemote(out) ? out : resolve(io.cwd, out);
  const snapshot = await table.snapshot(timestamp !== undefined ? { timestamp } : version !== undefined ? { version } : {});
  const duck = await openDuck();
  try {
    await registerSnapshotView(duck.conn, snapshot, 'lakerec_snapshot', { allowOutsidePaths });
    // Rows stream from the data files to the output: no order to keep means no buffering of
    // the whole result (the snapshot's row order is not defined by Delta anyway).
    await duck.conn.run('SET preserve_insertion_order = false');
    let rows = '';
    // DuckDB writes a temp file beside the output; the output guard checked the path (and
    // checks it again) and renames the file into place.
    await writeOutputWith(outPath, { what: '--out' }, async (tmp) => {
      // DuckDB may now read the table's files and write the one temp file, nothing else.
      // The store says which folders and outside files those are (engineAccess).
      const access = engineAccess(snapshot);
      await duck.restrict({ dirs: access.dirs, files: [tmp, join(dirname(tmp), `tmp_${basename(tmp)}`), ...access.files] });
      try {
        await duck.conn.run(`COPY (SELECT * FROM lakerec_snapshot) TO ${sqlString(tmp)} (FORMAT parquet)`);
      } catch (e) {
        throw new LakerecError('io_error', `could not write ${outPath}: ${(e as Error).message.split('\n')[0]}`, { path: outPath });
      }
      const r = await duck.conn.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlString(tmp)})`);
      rows = String(r.getRows()[0][0]);
    });
    io.out(`version ${snapshot.version}: ${rows} rows written to ${outPath}\n`);
  } finally {
    duck.close();
  }
  return 0;
}
