// `lakerec reconcile SOURCE TABLE --contract F [--level L] ...`: the same engine as the window.
// Reports are written only after the engine has a verdict, so a failed run never leaves a
// report that claims one. Exit: 0 nothing blocking, 1 blocking finding, 2 usage, 3 unreadable.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { LEVELS, type Level } from '../../shared/reconcile';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import type { CliIO } from './io';
import { LAKEREC_VERSION } from '../../shared/version';
import { reconcile } from '../reconcile/reconcile';
import { renderJson, renderMarkdown, renderTerminal } from '../reconcile/report';
import { DEFAULT_DIGEST } from '../reconcile/canonical';
import { progressPrinter } from './progress';
import { maskReconcileResult, schemaSensitivity, sensitivityOf } from '../incident/mask';
import { composeIncident, renderIncidentHtml } from '../incident/report';

const USAGE = 'lakerec reconcile SOURCE TABLE --contract FILE [--level schema|counts|checksum|keys|rows] [--version N] [--digest fast|md5] [--progress] [--baseline F] [--write-baseline F] [--markdown F] [--html F] [--json]';

function writeReport(path: string, text: string, io: CliIO, append: boolean): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    if (append) appendFileSync(path, text);
    else writeFileSync(path, text);
  } catch (e) {
    throw new LakerecError('io_error', `cannot write report ${path}: ${(e as Error).message}`, { path });
  }
  void io;
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, {
    contract: 'string', level: 'string', version: 'string', baseline: 'string', 'write-baseline': 'string',
    markdown: 'string', html: 'string', json: 'boolean', digest: 'string', progress: 'boolean',
  });
  const [source, table] = requirePositional(p, 2, USAGE);
  const contract = str(p, 'contract');
  if (!contract) throw new LakerecError('usage', `--contract FILE is required (the comparison's keys, partitioning and rules live there); usage: ${USAGE}`);
  const levelArg = str(p, 'level') ?? 'rows';
  if (!(LEVELS as readonly string[]).includes(levelArg)) throw new LakerecError('usage', `--level must be one of ${LEVELS.join(', ')}, got "${levelArg}"`);
  const version = int(p, 'version');
  const digest = str(p, 'digest') ?? DEFAULT_DIGEST;
  if (digest !== 'md5' && digest !== 'fast') throw new LakerecError('usage', `--digest must be md5 or fast, got "${digest}"`);
  const at = (f: string | undefined) => (f === undefined ? undefined : resolve(io.cwd, f));
  // --progress: rows done and total per side on stderr (rewritten in place on a terminal).
  const printer = bool(p, 'progress') ? progressPrinter(io.err, process.stderr.isTTY === true) : null;
  const result = await reconcile({
    source,
    target: { root: resolve(io.cwd, table), ...(version !== undefined ? { version } : {}) },
    contract: resolve(io.cwd, contract),
    level: levelArg as Level,
    baseline: at(str(p, 'baseline')) ?? null,
    writeBaseline: at(str(p, 'write-baseline')) ?? null,
    cwd: io.cwd,
    digest,
    ...(printer ? { ctx: { progress: printer.progress } } : {}),
  }).finally(() => printer?.end());
  // Every report masks the values of confidential columns (the contract's tags, and the table's).
  const shown = maskReconcileResult(result, sensitivityOf(result, await schemaSensitivity(resolve(io.cwd, table), result.target.version)));
  const md = str(p, 'markdown');
  if (md) {
    const path = resolve(io.cwd, md);
    // $GITHUB_STEP_SUMMARY collects every step's summary: append to it, never replace it.
    const summary = io.env.GITHUB_STEP_SUMMARY ? resolve(io.cwd, io.env.GITHUB_STEP_SUMMARY) : null;
    writeReport(path, renderMarkdown(shown), io, path === summary);
  }
  const html = str(p, 'html');
  if (html) {
    // The incident report, the same file the window's "Export incident report" writes: the
    // reconcile sections, the timeline excerpt, a bisect, the contract; confidential values masked.
    const incident = await composeIncident({
      result, table: resolve(io.cwd, table), source: /@\d+$/.test(source) ? null : resolve(io.cwd, source),
      contractText: readFileSync(resolve(io.cwd, contract), 'utf8'), toolVersion: LAKEREC_VERSION,
    });
    writeReport(resolve(io.cwd, html), renderIncidentHtml(incident), io, false);
  }
  io.out(bool(p, 'json') ? renderJson(shown) : renderTerminal(shown));
  return result.exitCode;
}
