// Bisect: replay the log once, bind the predicate, search the versions, and describe the culprit
// commit from the log.
import { bisectHeadline, countProbes, type BisectPlan, type BisectResult, type CulpritCommit, type PredicateSpec, type ProbeEvent, type UnreadableVersion } from '../../shared/bisect';
import type { JobContext } from '../../shared/jobs';
import { stateOf, type History } from '../delta/history';
import { partitionerOf } from '../forensics/partitions';
import { commitFilesOf, versionSummary } from '../forensics/summary';
import { openTable } from '../delta/open';
import { bindPredicate } from './predicates/index';
import { EXHAUSTIVE_LIMIT, searchVersions } from './search';

export interface BisectContext extends JobContext {
  /** Called once per evaluated version, as soon as its result is known. */
  onProbe?(e: ProbeEvent): void;
  /** Called once, before the first probe: the versions and which of them the log cannot produce. */
  onPlan?(p: BisectPlan): void;
  /** Override the exhaustive-walk limit (default 48 versions). */
  exhaustiveLimit?: number;
  /** Read data files whose paths resolve outside the table root (off by default). */
  allowOutsidePaths?: boolean;
}

export async function bisect(root: string, spec: PredicateSpec, ctx: BisectContext = {}): Promise<BisectResult> {
  const table = await openTable(root, { allowOutsidePaths: ctx.allowOutsidePaths ?? false });
  return bisectHistory(await table.history(ctx), spec, ctx);
}

export async function bisectHistory(h: History, spec: PredicateSpec, ctx: BisectContext = {}): Promise<BisectResult> {
  const pred = await bindPredicate(spec, h, { ctx, allowOutsidePaths: ctx.allowOutsidePaths });
  try {
    const unreadable: UnreadableVersion[] = h.states.filter((s) => !s.info.readable)
      .map((s) => ({ version: s.version, reason: s.info.reason ?? 'not readable from the remaining log', cause: s.info.unreadableCause ?? 'unreadable' }));
    const versions = h.states.map((s) => s.version);
    ctx.onPlan?.({
      latestVersion: h.latestVersion,
      unreadableVersions: unreadable.map((u) => u.version),
      unreadable,
      partitionAppearsAt: pred.appliesFrom,
      exhaustive: versions.length < (ctx.exhaustiveLimit ?? EXHAUSTIVE_LIMIT),
    });
    const found = await searchVersions({
      versions,
      readable: (v) => stateOf(h, v)?.info.readable === true,
      appliesFrom: pred.appliesFrom,
      evaluate: (v) => pred.evaluate(v),
      onProbe: ctx.onProbe ? (p) => ctx.onProbe?.({ version: p.version, state: p.state, probeIndex: p.probeIndex, ...(p.detail ? { detail: p.detail } : {}) }) : undefined,
      ctx,
      exhaustiveLimit: ctx.exhaustiveLimit,
    });
    const notes = [...found.notes, ...pred.notes];
    if (unreadable.length) {
      const reasons = [...new Set(unreadable.map((u) => u.reason))];
      notes.push(`${unreadable.length} version(s) cannot be read and were not evaluated: ${reasons.slice(0, 3).join('; ')}${reasons.length > 3 ? '; …' : ''}`);
    }
    if (pred.logOnly && pred.filesRead() === 0) notes.push('answered from the log alone: no data file was opened');
    const result: Omit<BisectResult, 'headline'> = {
      root: h.root,
      predicate: spec,
      semantics: pred.semantics,
      outcome: found.outcome,
      firstBad: found.firstBad,
      lastGood: found.lastGood,
      culprit: found.firstBad === null ? null : culprit(h, found.firstBad),
      healed: found.healed,
      transitions: found.transitions,
      exhaustive: found.exhaustive,
      monotone: found.monotone,
      latestVersion: h.latestVersion,
      oldestReadableVersion: h.oldestReadable,
      unreadableVersions: unreadable.map((u) => u.version),
      unreadable,
      partitionAppearsAt: pred.appliesFrom,
      latestState: found.latestState,
      examined: countProbes(found.probes).examined,
      evaluated: countProbes(found.probes).evaluated,
      probes: found.probes,
      filesRead: pred.filesRead(),
      filesFromCache: pred.filesFromCache(),
      notes,
    };
    return { headline: bisectHeadline(result), ...result };
  } finally {
    pred.close();
  }
}

/** The culprit is the timeline's summary of its version (main/forensics/summary.ts), picked. */
function culprit(h: History, v: number): CulpritCommit {
  const st = stateOf(h, v);
  if (!st) throw new Error(`bisect: no state for v${v}`);
  const s = versionSummary(h, st, partitionerOf(h));
  const files = commitFilesOf(h, st);
  return {
    version: s.version,
    timestamp: s.timestamp,
    when: s.when,
    operation: s.operation,
    operationParameters: s.operationParameters,
    who: s.who,
    addedFiles: s.addedFiles,
    removedFiles: s.removedFiles,
    addedRows: s.addedRows,
    removedRows: s.removedRows,
    dvDeletedRows: s.dvDeletedRows,
    rewrittenFiles: s.rewrittenFiles,
    partitions: s.partitions,
    addedPaths: files.adds.slice(0, 20).map((f) => f.path),
    removedPaths: [...files.rems.map((f) => f.path), ...st.orphanRemoves.map((r) => r.path)].slice(0, 20),
    rewrittenPaths: files.rewritten.slice(0, 20).map((f) => f.path),
  };
}
