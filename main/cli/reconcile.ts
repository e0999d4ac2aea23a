// `lakerec reconcile SOURCE TABLE --contract F [--level L] ...`: the same engine as the window.
// Reports are written only after the engine has a verdict, so a failed run never leaves a
// report that claims one. Exit: 0 nothing blocking, 1 blocking finding, 2 usage, 3 unreadable.
import { existsSync } from 'node:fs';
import { looksRemote, tableArg } from '../engine/location';
import { writeOutput } from '../engine/outputs';
import { join, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { LEVELS, type Level } from '../../shared/reconcile';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import { ARGS, namesWarehouse } from './commands';
import type { CliIO } from './io';
import type { Progress } from '../../shared/jobs';
import { LAKEREC_VERSION } from '../../shared/version';
import { reconcile } from '../reconcile/reconcile';
import { openTable } from '../delta/open';
import { loadContract, readContractFile } from '../reconcile/contract';
import { renderJson, renderMarkdown, renderTerminal } from '../reconcile/report';
import { DEFAULT_DIGEST } from '../reconcile/canonical';
import { progressPrinter } from './progress';
import { maskReconcileResult, schemaSensitivity, sensitivityOf } from '../incident/mask';
import { levelIndex } from '../../shared/reconcile';
import { toErrorData } from '../../shared/errors';
import type { LawsResult } from '../../shared/trust';
import { withProvenance } from '../trust/provenance';
import { lawsLines, lawsMarkdown, provenanceText, rowsBehindLines, rowsBehindMarkdown } from '../trust/report';

const USAGE = 'lakerec reconcile SOURCE TABLE --contract FILE [--level schema|counts|checksum|keys|rows] [--version N] [--digest fast|md5] [--progress] [--baseline F] [--write-baseline F] [--markdown F] [--html F] [--json] [--why KEY=VALUE]...';

export async function run(argv: string[], io: CliIO): Promise<number> {
  // --warehouse NAME: a side computed where it lives, only partials combined here (main/warehouse/).
  if (namesWarehouse(argv)) return (await import('./warehouse')).reconcileCommand(argv, io);
  const p = parseArgs(argv, ARGS.reconcile.flags);
  const [source, table] = requirePositional(p, 2, USAGE);
  const contract = str(p, 'contract');
  if (!contract) throw new LakerecError('usage', `--contract FILE is required (the comparison's keys, partitioning and rules live there); usage: ${USAGE}`);
  const levelArg = str(p, 'level') ?? 'rows';
  if (!(LEVELS as readonly string[]).includes(levelArg)) throw new LakerecError('usage', `--level must be one of ${LEVELS.join(', ')}, got "${levelArg}"`);
  const version = int(p, 'version');
  const digest = str(p, 'digest') ?? DEFAULT_DIGEST;
  if (digest !== 'md5' && digest !== 'fast') throw new LakerecError('usage', `--digest must be md5 or fast, got "${digest}"`);
  const at = (f: string | undefined) => (f === undefined ? undefined : resolve(io.cwd, f));
  // Every output flag was checked by the dispatcher (commands.ts declares them; main/cli/guard.ts)
  // against the table and the source; the writes below go through the same guard.
  const tableRoot = tableArg(io.cwd, table);
  const why = p.flags.why as string[] | undefined;
  if (why && why.length > 0) {
    // One key's rows on both sides, with the commit behind each target row (no reconcile pass).
    const { parseWhy, whyKey, whyLines } = await import('../trust/why');
    const c = loadContract(resolve(io.cwd, contract));
    const w = await whyKey({ source, table: tableArg(io.cwd, table), contract: c, key: parseWhy(why, c), cwd: io.cwd, ...(version !== undefined ? { version } : {}) });
    io.out(bool(p, 'json') ? JSON.stringify(w, null, 2) + '\n' : whyLines(w, provenanceText).join('\n') + '\n');
    return w.verdict === 'same' ? 0 : 1;
  }
  // --progress: rows done and total per side on stderr (rewritten in place on a terminal).
  const printer = bool(p, 'progress') ? progressPrinter(io.err, process.stderr.isTTY === true) : null;
  // LAKEREC_PROFILE=1: each phase's start, in ms since the process started (where a fixed cost goes).
  const mark = io.env.LAKEREC_PROFILE ? (phase: string) => io.err(`[lakerec] phase ${phase} at ${Math.round(process.uptime() * 1000)} ms\n`) : null;
  mark?.('cli ready');
  let lastPhase = '';
  const onProgress = printer || mark ? (pr: Progress) => {
    printer?.progress(pr);
    if (mark && pr.phase !== lastPhase) { lastPhase = pr.phase; mark(pr.phase); }
  } : null;
  // The target's log is read once: the reconcile, the provenance of example rows and the schema's
  // sensitivity tags share this table's cached snapshot. If it cannot be opened here, the
  // reconcile opens it itself and reports why, in its usual order of checks.
  const open = looksRemote(tableRoot) || existsSync(join(tableRoot, '_delta_log')) ? await openTable(tableRoot).catch(() => undefined) : undefined;
  const plain = await reconcile({
    source,
    target: { root: tableArg(io.cwd, table), ...(version !== undefined ? { version } : {}), ...(open ? { table: open } : {}) },
    contract: resolve(io.cwd, contract),
    level: levelArg as Level,
    baseline: at(str(p, 'baseline')) ?? null,
    writeBaseline: at(str(p, 'write-baseline')) ?? null,
    cwd: io.cwd,
    digest,
    ...(onProgress ? { ctx: { progress: onProgress } } : {}),
  }).finally(() => printer?.end());
  mark?.('report');
  // Post-processing, outside the pass: the commit behind every example row, and at checksum level
  // and deeper the data laws (totals per day); a law that cannot be checked is a note, not a failure.
  const result = await withProvenance(plain, tableArg(io.cwd, table), open ? { table: open } : {});
  let laws: LawsResult | null = null;
  if (levelIndex(result.level) >= levelIndex('checksum')) {
    try {
      // Loaded only when used, like the incident report below: a counts run starts faster.
      const { checkLaws } = await import('../trust/laws');
      mark?.('data laws');
      laws = await checkLaws({ source, table: tableArg(io.cwd, table), contract: resolve(io.cwd, contract), cwd: io.cwd, ...(version !== undefined ? { version } : {}), ...(open ? { open } : {}) });
    } catch (e) {
      result.notes.push(`data laws not checked: ${toErrorData(e).message}`);
    }
  }
  mark?.('render');
  // Every report masks the values of confidential columns (the contract's tags, and the table's).
  const shown = maskReconcileResult(result, sensitivityOf(result, await schemaSensitivity(open ?? tableArg(io.cwd, table), result.target.version)));
  const md = str(p, 'markdown');
  if (md) {
    const path = resolve(io.cwd, md);
    // $GITHUB_STEP_SUMMARY collects every step's summary: append to it, never replace it.
    const summary = io.env.GITHUB_STEP_SUMMARY ? resolve(io.cwd, io.env.GITHUB_STEP_SUMMARY) : null;
    writeOutput(path, renderMarkdown(shown) + [rowsBehindMarkdown(shown.rowDiffs), laws ? lawsMarkdown(laws) : ''].filter(Boolean).map((x) => '\n' + x).join(''), { what: '--markdown', append: path === summary });
  }
  const html = str(p, 'html');
  if (html) {
    // The incident report, the same file the window's "Export incident report" writes: the
    // reconcile sections, the timeline excerpt, a bisect, the contract; confidential values masked.
    const { composeIncident, renderIncidentHtml } = await import('../incident/report');
    const incident = await composeIncident({
      result, table: tableArg(io.cwd, table), source: /@\d+$/.test(source) ? null : resolve(io.cwd, source),
      contractText: readContractFile(resolve(io.cwd, contract)), toolVersion: LAKEREC_VERSION, trust: { laws },
    });
    writeOutput(resolve(io.cwd, html), renderIncidentHtml(incident), { what: '--html' });
  }
  if (bool(p, 'json')) {
    io.out(laws ? JSON.stringify({ ...(JSON.parse(renderJson(shown)) as object), laws }, null, 2) + '\n' : renderJson(shown));
  } else {
    const extra = [...rowsBehindLines(shown.rowDiffs), ...(laws ? lawsLines(laws) : [])];
    io.out(renderTerminal(shown) + (extra.length ? '\n' + extra.join('\n') + '\n' : ''));
  }
  mark?.('done');
  return result.exitCode;
}
