// `lakerec mutate SOURCE TABLE --contract F`: the mutation score of the contract on this table.
// The table is only read (a sandbox references its files); the run is kept in the run history.
// Exit: 0 every mutant that ran was killed at the deepest level, 1 a survivor (or a level the
// table already fails without any mutant), 2 usage, 3 unreadable.
import { resolve } from 'node:path';
import { writeOutput } from '../engine/outputs';
import { LakerecError, toErrorData } from '../../shared/errors';
import { LEVELS, type Level } from '../../shared/reconcile';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { CORRUPTIONS } from '../writer/corrupt';
import { recordRun, defaultDataDir } from '../runs/store';
import { runMutation } from '../trust/mutate';
import { mutationLines, renderMutationHtmlPage } from '../trust/report';
import { displayLocation, looksRemote, parseLocation } from '../../shared/location';

const USAGE = 'lakerec mutate SOURCE TABLE --contract FILE [--seed N] [--only MODES] [--levels L] [--version N] [--json] [--html F]';

/** "a,b" or repeated flags, as one list. */
function list(v: string[] | undefined): string[] {
  return (v ?? []).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.mutate.flags);
  const [source, table] = requirePositional(p, 2, USAGE);
  const contract = str(p, 'contract');
  if (!contract) throw new LakerecError('usage', `--contract FILE is required (the contract whose checks are tested); usage: ${USAGE}`);
  const only = list(p.flags.only as string[] | undefined);
  for (const m of only) if (!(CORRUPTIONS as readonly string[]).includes(m)) throw new LakerecError('usage', `--only: unknown mutant "${m}"; one of ${CORRUPTIONS.join(', ')}`);
  const levelArg = list(p.flags.levels as string[] | undefined);
  for (const l of levelArg) if (!(LEVELS as readonly string[]).includes(l)) throw new LakerecError('usage', `--levels: unknown level "${l}"; one of ${LEVELS.join(', ')}`);
  // One level named alone means "up to this level", as reconcile's --level does.
  const levels: Level[] = levelArg.length === 1 ? LEVELS.slice(0, LEVELS.indexOf(levelArg[0] as Level) + 1) : levelArg.length ? levelArg as Level[] : [...LEVELS];
  const version = int(p, 'version');
  const seed = int(p, 'seed');
  const startedAt = new Date().toISOString();
  // The mutation sandbox is built over the table's local files: a remote table is refused by name.
  if (looksRemote(table)) throw new LakerecError('usage', `mutate reads a local table (its sandbox links the table's files); ${displayLocation(parseLocation(table))} is remote: copy the table locally first`);
  const tableRoot = resolve(io.cwd, table);
  const record = async (status: string, summary: unknown) => {
    try {
      await recordRun(defaultDataDir(io.env), { kind: 'mutate', startedAt, status, title: `mutate ${tableRoot}`, summary });
    } catch (e) {
      io.err(`lakerec mutate: the run was not recorded in the run history: ${toErrorData(e).message}\n`);
    }
  };
  let result;
  try {
    result = await runMutation({
      source, table: tableRoot, contract: resolve(io.cwd, contract), cwd: io.cwd, levels,
      ...(only.length ? { only } : {}), ...(version !== undefined ? { version } : {}), ...(seed !== undefined ? { seed } : {}),
      // Progress per mutant on stderr, so stdout stays the report (or the JSON).
      onMutant: (m, i, n) => io.err(`  [${i + 1}/${n}] ${m.corruption}: ${m.status === 'run' ? (m.firstNames ? `named at ${m.firstNames}` : m.firstNotices ? `caught at ${m.firstNotices}` : m.expectedMode ? 'survived' : 'silent') : m.status.replace('_', ' ')}\n`),
    });
  } catch (e) {
    await record('error', { table: tableRoot, source, error: toErrorData(e) });
    throw e;
  }
  await record(result.overall.survived > 0 ? 'survivors' : 'ok', result);
  const html = str(p, 'html');
  if (html) writeOutput(resolve(io.cwd, html), renderMutationHtmlPage(result), { what: '--html' });
  io.out(bool(p, 'json') ? JSON.stringify(result, null, 2) + '\n' : mutationLines(result).join('\n') + '\n');
  // A level where the unmutated table already diverges could not judge any mutant: not a pass.
  const unjudged = result.baseline.some((b) => b.verdict === 'diverges');
  return result.overall.survived > 0 || unjudged ? 1 : 0;
}
