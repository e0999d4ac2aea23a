// `lakerec proof [--engines A,B] [--proofs generic|off|all] [--json] [--html F] [--seed N] [--rows N]
// [--evidence] [--dagster URL]`: the round-trip proof through two engines. Exit 1 when a check fails.
// Without --engines, the proof mode (--proofs, else settings.json in the app-data folder, else
// generic) says which proofs run: generic the default pair, off none, all every pair of the
// engines available here. One proof runs at a time: a second one is refused with the running
// proof's id (exit 2). Every run is recorded in the local run history (LAKEREC_DATA_DIR, else the
// app-data folder) under the proof's id; with a Dagster instance configured, its record is posted.
// Test doubles (lossy engines) are accepted only with LAKEREC_PROOF_TEST_ENGINES=1: tests only.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { ExitCode, LakerecError, toErrorData } from '../../shared/errors';
import type { ProofResult } from '../../shared/proof';
import { postToDagster } from '../proof/dagster';
import { availableEngines, engineByName, listEngines } from '../proof/engines';
import { acquireProofLockOrRefuse } from '../proof/one-at-a-time';
import { proofHtml, proofText } from '../proof/report';
import { runProof } from '../proof/run';
import { parseDagsterUrl, parseProofMode, proofsForMode, readProofSettings } from '../proof/settings';
import { defaultDataDir, recordRun } from '../runs/store';
import { bool, int, parseArgs, str } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { writeOutput } from '../engine/outputs';

const USAGE = 'lakerec proof [--engines A,B] [--proofs generic|off|all] [--json] [--html FILE] [--seed N] [--rows N] [--evidence] [--dagster URL]';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.proof.flags);
  if (p.positional.length) throw new LakerecError('usage', `unexpected argument "${p.positional[0]}"; usage: ${USAGE}`);
  const testDoubles = io.env.LAKEREC_PROOF_TEST_ENGINES === '1';
  const dataDir = defaultDataDir(io.env);
  const enginesArg = str(p, 'engines');
  const rows = int(p, 'rows');
  if (rows !== undefined && (rows < 6 || rows > 20_000)) throw new LakerecError('usage', '--rows must be between 6 and 20000');
  const seed = int(p, 'seed');
  const json = bool(p, 'json');
  const html = str(p, 'html');

  let pairs: [string, string][];
  if (enginesArg !== undefined) {
    const names = enginesArg.split(',').map((s) => s.trim()).filter(Boolean);
    if (names.length !== 2) {
      throw new LakerecError('usage', `--engines takes two engines, A,B (the engines are ${listEngines().map((e) => e.name).join(', ')}); usage: ${USAGE}`);
    }
    pairs = [[names[0], names[1]]];
  } else {
    const flag = str(p, 'proofs');
    const mode = flag !== undefined ? parseProofMode(flag, '--proofs') : readProofSettings(dataDir).mode;
    pairs = proofsForMode(mode, availableEngines().map((e) => e.name));
    if (!pairs.length) {
      io.err(`lakerec proof: no proof was run: the proof mode is ${mode}${flag === undefined ? ` (settings.json in ${dataDir})` : ''}; --engines A,B runs one\n`);
      return ExitCode.Ok;
    }
  }
  // Refuse an unknown or unavailable engine before anything runs, in one line.
  for (const pair of pairs) for (const n of pair) engineByName(n, { testDoubles, requireAvailable: true });
  if (html && pairs.length > 1) throw new LakerecError('usage', '--html writes one proof\'s report; name one pair with --engines');
  const dagsterFlag = str(p, 'dagster');
  const dagsterUrl = dagsterFlag !== undefined ? parseDagsterUrl(dagsterFlag, '--dagster') : readProofSettings(dataDir).dagsterUrl;

  const results: ProofResult[] = [];
  for (const [a, b] of pairs) {
    const id = randomUUID();
    const lock = acquireProofLockOrRefuse(dataDir, { id, startedAt: new Date().toISOString(), engines: [a, b] });
    let result: ProofResult;
    try {
      result = await runProof({
        id, engines: [a, b], seed, rows, testDoubles,
        ctx: {
          onStep: (s) => {
            if (json || (s.status !== 'done' && s.status !== 'failed')) return;
            io.err(`${s.status === 'done' ? (s.differences.length ? 'differs' : 'ok') : 'failed'}  ${s.title} (${s.ms} ms)\n`);
          },
        },
      });
    } finally {
      lock.release();
    }
    if (html) writeOutput(resolve(io.cwd, html), proofHtml(result), { what: '--html' });
    try {
      await recordRun(dataDir, {
        id: result.id, kind: 'proof', status: result.passed ? 'pass' : 'fail', title: `${result.engines[0]} -> ${result.engines[1]}`,
        startedAt: result.startedAt, finishedAt: result.finishedAt, summary: result,
      });
    } catch (e) {
      io.err(`lakerec proof: the run was not recorded in the run history: ${toErrorData(e).message}\n`);
    }
    if (dagsterUrl) {
      const posted = await postToDagster(dagsterUrl, result);
      if (posted.errors.length) for (const e of posted.errors) io.err(`lakerec proof: ${e}\n`);
      else io.err(`lakerec proof: ${posted.reported.length} asset check results posted to ${dagsterUrl} for asset _system/roundtrip_proof\n`);
    }
    if (!json) io.out(proofText(result, { evidence: bool(p, 'evidence') }));
    results.push(result);
  }
  // --json: the record of the one proof, or an array when the mode ran several.
  if (json) io.out(JSON.stringify(results.length === 1 ? results[0] : results, null, 2) + '\n');
  return results.every((r) => r.passed) ? ExitCode.Ok : ExitCode.Blocking;
}
