// `lakerec bisect TABLE --predicate P ...`: the first bad version of a table's own history.
// Exit codes (fixed): 1 a bad version was found (also a healed or unrecoverable history), 0 every
// examined version passes, 2 the invocation was wrong or the predicate refused, 3 unreadable.
import { resolve } from 'node:path';
import { tableArg } from '../engine/location';
import { parseArgs, bool, str, int, requirePositional } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { bisect } from '../bisect/bisect';
import { examinedText, PREDICATE_NAMES, type BisectResult, type PredicateName, type PredicateSpec } from '../../shared/bisect';
import { ExitCode, LakerecError } from '../../shared/errors';
import { ranges } from '../forensics/forensics';
import { toSeconds } from './forensics';

const USAGE = 'lakerec bisect TABLE --predicate P [--keys K] [--expect N] [--partition P=V] [--allow-moving] [--source F] [--json]';

/** JSON with a space after ':' and ',' (as the seed prints parameters). */
function params(o: Record<string, unknown>): string {
  const entries = Object.entries(o);
  if (entries.length === 0) return '{}';
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;
}

export function formatBisect(r: BisectResult): string {
  const out: string[] = [];
  const label = (s: string) => (s + ':').padEnd(19);
  const spec = r.predicate;
  const what = [spec.predicate, spec.keys?.length ? `--keys ${spec.keys.join(',')}` : '', spec.expect !== undefined ? `--expect ${spec.expect}` : '',
    spec.partition ? `--partition ${spec.partition}` : '', spec.source ? `--source ${spec.source}` : ''].filter(Boolean).join(' ');
  if (r.outcome === 'bad' && r.culprit) {
    const c = r.culprit;
    const rows = (n: number | null) => (n === null ? '?' : String(n));
    let change = `+${c.addedFiles} file(s)/${rows(c.addedRows)} row(s)`;
    if (c.removedFiles || c.removedRows) change += ` -${c.removedFiles} file(s)/${rows(c.removedRows)} row(s)`;
    if (c.rewrittenFiles) change += ` (${c.dvDeletedRows} row(s) deleted by deletion vectors, ${c.rewrittenFiles} file(s) rewritten in place)`;
    out.push(`${label('first bad version')}${r.firstBad}`);
    out.push(`${label('culprit')}version ${c.version} · ${c.operation ?? '(no commitInfo)'} · ${toSeconds(c.when) || '?'} · ${params(c.operationParameters)} · ${change}`);
    out.push(`${label('last good')}${r.lastGood ?? 'none (the first version already fails)'}`);
  } else if (r.outcome === 'not_monotone') {
    out.push(r.headline);
    out.push(`${label('first bad version')}none named: the oldest evaluated version fails and the latest passes`);
  } else if (r.outcome === 'not_recoverable') {
    out.push(`${label('first bad version')}not recoverable: it already fails at v${r.probes.find((p) => p.state === 'bad')?.version ?? r.oldestReadableVersion}, the oldest version that can still be evaluated`);
  } else if (r.outcome === 'clean') {
    out.push(`${label('first bad version')}none: every examined version passes`);
  } else {
    out.push(`${label('first bad version')}unknown: ${r.probes.some((p) => p.state !== 'unreadable') ? `the latest version (v${r.latestVersion}) could not be evaluated` : 'no version could be evaluated'}`);
  }
  const how = r.exhaustive ? (r.unreadableVersions.length ? 'exhaustive over the readable versions' : 'exhaustive') : 'binary search, monotone: null';
  out.push(`${label('examined')}${examinedText(r, { how })}`);
  if (r.healed) {
    out.push(`${label('healed')}true · ${r.transitions.map((t) => `${t.kind} at v${t.to}`).join(' · ')} · latest v${r.latestVersion} ${r.latestState ?? '?'}`);
  }
  if (r.culprit?.partitions.length) out.push(`${label('partitions')}${r.culprit.partitions.join(', ')}`);
  if (r.unreadableVersions.length) out.push(`${label('unreadable')}${ranges(r.unreadableVersions)} (neither good nor bad)`);
  out.push(`${label('predicate')}${what}`);
  out.push(`${label('means')}${r.semantics}`);
  out.push(`${label('files read')}${r.filesRead} (${r.filesFromCache} per-file result(s) reused)`);
  if (r.probes.length) {
    const shown = r.probes.slice(0, 24).map((p) => `v${p.version} ${p.state}`).join(', ');
    out.push(`${label('probes')}${shown}${r.probes.length > 24 ? `, … (${r.probes.length - 24} more)` : ''}`);
  }
  const bad = r.firstBad === null ? null : r.probes.find((p) => p.version === r.firstBad);
  if (bad?.detail) out.push(`${label('at first bad')}${bad.detail}`);
  for (const n of r.notes) out.push(`note: ${n}`);
  return out.join('\n') + '\n';
}

export function exitCodeOf(r: BisectResult): number {
  if (r.outcome === 'bad' || r.outcome === 'not_recoverable') return ExitCode.Blocking;
  // Not monotone: no culprit can be named and the latest version passes.
  if (r.outcome === 'not_monotone') return ExitCode.Ok;
  if (r.outcome === 'unreadable') return ExitCode.Unreadable;
  return ExitCode.Ok;
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.bisect.flags);
  const [tablePath] = requirePositional(p, 1, USAGE);
  const predicate = str(p, 'predicate');
  if (!predicate) throw new LakerecError('usage', `--predicate is required (one of ${PREDICATE_NAMES.join(', ')}); usage: ${USAGE}`);
  if (!(PREDICATE_NAMES as readonly string[]).includes(predicate)) throw new LakerecError('usage', `unknown predicate "${predicate}" (one of ${PREDICATE_NAMES.join(', ')})`);
  const keys = p.flags.keys as string[] | undefined;
  const source = str(p, 'source');
  const spec: PredicateSpec = { predicate: predicate as PredicateName };
  if (keys) spec.keys = keys.flatMap((k) => k.split(',')).map((k) => k.trim()).filter(Boolean);
  const expect = int(p, 'expect');
  if (expect !== undefined) spec.expect = expect;
  const partition = str(p, 'partition');
  if (partition !== undefined) spec.partition = partition;
  if (source !== undefined) spec.source = resolve(io.cwd, source);
  if (bool(p, 'allow-moving')) spec.allowMoving = true;
  const r = await bisect(tableArg(io.cwd, tablePath), spec, { allowOutsidePaths: bool(p, 'allow-outside-paths') });
  if (bool(p, 'json')) io.out(JSON.stringify(r, null, 2) + '\n');
  else io.out(formatBisect(r));
  // Nothing could be evaluated: one line on stderr saying why (the exit code alone says too little).
  if (r.outcome === 'unreadable') io.err(`lakerec bisect: ${r.headline}\n`);
  return exitCodeOf(r);
}
