// Forensics: every version's commit summarised from the log alone (summary.ts), and the
// heuristics (heuristics/, one file each, one signature) that say which versions a human should
// look at, each with the evidence that fired it. Everything reads the reader's one history of the
// log (main/delta/history.ts). No data file is opened: rows come from add stats; whether data
// files still exist is read from folder listings.
import type { CommitDetail, ForensicsResult, HeuristicHit } from '../../shared/forensics';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import { openDuck, type Duck } from '../engine/duck';
import type { History } from '../delta/history';
import { openTable } from '../delta/open';
import { presenceById } from '../delta/presence';
import { activeAt } from '../delta/history';
import { commitDetail } from './commit';
import { ActiveSet } from './active';
import { partitionerOf } from './partitions';
import { versionSummaries } from './summary';
import { HEURISTICS, type HeuristicHooks, type VersionContext } from './heuristics';

export { declaredPredicate, ranges } from './helpers';

export interface ForensicsOptions {
  partitionBy?: string;
  ctx?: JobContext;
  allowOutsidePaths?: boolean;
}

export async function forensics(root: string, opts: ForensicsOptions = {}): Promise<ForensicsResult> {
  const table = await openTable(root, { allowOutsidePaths: opts.allowOutsidePaths ?? false });
  return forensicsOfHistory(await table.history(opts.ctx), opts);
}

/** One commit opened (the CLI's --version N): the same drill-down the window shows. */
export async function forensicsCommit(root: string, version: number, opts: ForensicsOptions = {}): Promise<CommitDetail> {
  const table = await openTable(root, { allowOutsidePaths: opts.allowOutsidePaths ?? false });
  const history = await table.history(opts.ctx);
  return commitDetail(history, await forensicsOfHistory(history, opts), version);
}

export async function forensicsOfHistory(h: History, opts: { partitionBy?: string; ctx?: JobContext } = {}): Promise<ForensicsResult> {
  const part = partitionerOf(h, opts.partitionBy);
  const versions = versionSummaries(h, part);
  const active = new ActiveSet(h, part);
  let duck: Duck | null = null;
  const latest = h.states[h.states.length - 1];
  const presence = await presenceById(h, [...(latest ? activeAt(h, latest.version) : []), ...h.files.filter((f) => f.removedIn !== null)]);
  const hooks: HeuristicHooks[] = HEURISTICS.map((x) => x.start({
    history: h, versions, part, active, presence,
    duck: async () => {
      if (!duck) {
        duck = await openDuck({ threads: 1, memoryLimit: '256MB' });
        // Predicate text comes from the log: evaluate it with no file or network access.
        await duck.conn.run('SET enable_external_access = false');
      }
      return duck;
    },
  }));
  const hits: HeuristicHit[] = [];
  try {
    for (const st of h.states) {
      if (st.index % 500 === 0) {
        throwIfCancelled(opts.ctx);
        report(opts.ctx, { phase: 'looking for incidents', done: st.index, total: h.states.length });
      }
      // A checkpoint reset is not a commit a writer made: it only moves the active set.
      if (st.fromSnapshot) { active.apply(st); continue; }
      const v = st.version;
      const ci = st.change?.commitInfo ?? null;
      const adds = st.added.map((id) => h.files[id]);
      const rems = st.removed.map((id) => h.files[id]).filter((f) => f.removedIn === v);
      const addedPaths = new Set(adds.map((a) => a.path));
      const c: VersionContext = {
        st, sum: versions[st.index], prevSt: st.index > 0 ? h.states[st.index - 1] : undefined,
        prevSum: st.index > 0 ? versions[st.index - 1] : undefined, v, ci, op: ci?.operation ?? 'commit',
        adds, rems, dataRems: rems.filter((r) => !addedPaths.has(r.path)),
      };
      for (const k of hooks) k.before?.(c);
      active.apply(st);
      for (const k of hooks) {
        if (!k.at) continue;
        // Only a hook with real async work returns a promise: 10,000 versions x 20 hooks of
        // microtasks would cost more than the heuristics themselves.
        const r = k.at(c);
        for (const x of r instanceof Promise ? await r : r) hits.push(x);
      }
    }
    for (const k of hooks) if (k.end) hits.push(...k.end());
  } finally {
    (duck as Duck | null)?.close();
  }
  hits.sort((a, b) => a.version - b.version || (a.severity === b.severity ? 0 : a.severity === 'warn' ? -1 : 1));
  return {
    root: h.root, partitionBy: part.partitionBy, partitionSource: part.partitionSource, latestVersion: h.latestVersion,
    oldestReadableVersion: h.oldestReadable, versions, heuristics: hits, dataFilesRead: 0, notes: part.notes,
  };
}
