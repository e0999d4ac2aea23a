// `lakerec proof --engines A,B [--json] [--html F] [--seed N] [--rows N] [--evidence]`: the
// round-trip proof through two engines. Exit 1 when a check fails. Every run is recorded in the
// local run history (LAKEREC_DATA_DIR, else the app-data folder).
// Test doubles (lossy engines) are accepted only with LAKEREC_PROOF_TEST_ENGINES=1: tests only.
import { resolve } from 'node:path';
import { ExitCode, LakerecError, toErrorData } from '../../shared/errors';
import { listEngines } from '../proof/engines';
import { proofHtml, proofText } from '../proof/report';
import { runProof } from '../proof/run';
import { defaultDataDir, recordRun } from '../runs/store';
import { bool, int, parseArgs, str } from '../engine/args';
import type { CliIO } from './io';
import { writeOutput } from '../engine/outputs';

const USAGE = 'lakerec proof --engines duckdb,arrow [--json] [--html FILE] [--seed N] [--rows N] [--evidence]';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, { engines: 'string', json: 'boolean', html: 'string', seed: 'string', rows: 'string', evidence: 'boolean' });
  if (p.positional.length) throw new LakerecError('usage', `unexpected argument "${p.positional[0]}"; usage: ${USAGE}`);
  const testDoubles = io.env.LAKEREC_PROOF_TEST_ENGINES === '1';
  const names = (str(p, 'engines') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length !== 2) {
    throw new LakerecError('usage', `--engines takes two engines, A,B (the engines are ${listEngines().map((e) => e.name).join(', ')}); usage: ${USAGE}`);
  }
  const rows = int(p, 'rows');
  if (rows !== undefined && (rows < 6 || rows > 20_000)) throw new LakerecError('usage', '--rows must be between 6 and 20000');
  const seed = int(p, 'seed');
  const json = bool(p, 'json');
  const result = await runProof({
    engines: [names[0], names[1]], seed, rows, testDoubles,
    ctx: {
      onStep: (s) => {
        if (json || (s.status !== 'done' && s.status !== 'failed')) return;
        io.err(`${s.status === 'done' ? (s.differences.length ? 'differs' : 'ok') : 'failed'}  ${s.title} (${s.ms} ms)\n`);
      },
    },
  });
  const html = str(p, 'html');
  if (html) writeOutput(resolve(io.cwd, html), proofHtml(result), { what: '--html' });
  try {
    await recordRun(defaultDataDir(io.env), {
      kind: 'proof', status: result.passed ? 'pass' : 'fail', title: `${result.engines[0]} -> ${result.engines[1]}`,
      startedAt: result.startedAt, finishedAt: result.finishedAt, summary: result,
    });
  } catch (e) {
    io.err(`lakerec proof: the run was not recorded in the run history: ${toErrorData(e).message}\n`);
  }
  io.out(json ? JSON.stringify(result, null, 2) + '\n' : proofText(result, { evidence: bool(p, 'evidence') }));
  return result.passed ? ExitCode.Ok : ExitCode.Blocking;
}
