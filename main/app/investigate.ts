// The investigation and bisect screens' side of the service: one open DeltaTable per table root,
// whose history (main/delta/history.ts) is built once and kept while the log is unchanged, so the
// header, the versions list, the timeline, the drill-down and every bisect read the log once. A
// new commit file refreshes the listing (only the new commits are read) and the header says so.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BisectRequest, CommitDetail, JobProgress, TableOverview } from '../../shared/api';
import { COMMIT_FILES_LIMIT } from '../../shared/api';
import type { BisectResult, PredicateSpec } from '../../shared/bisect';
import { LakerecError } from '../../shared/errors';
import type { ForensicsResult, VersionSummary } from '../../shared/forensics';
import { report, throwIfCancelled, type JobContext, type Progress } from '../../shared/jobs';
import { bisectHistory } from '../bisect/bisect';
import { forensicsOfHistory } from '../forensics/forensics';
import { commitDetail } from '../forensics/commit';
import type { History } from '../delta/history';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import { assertTableFolder, tableName } from './paths';
import { looksRemote } from '../../shared/location';

interface Cached {
  stamp: string;
  table: DeltaTable;
  history: History | null;
  forensics: ForensicsResult | null;
  /** The log changed since this table was last served (new commits): the header says so once. */
  changed: boolean;
}

/** What identifies a log's state cheaply: a new commit or checkpoint changes the folder's mtime. */
async function logStamp(root: string): Promise<string> {
  // A remote table is not re-listed on every request (a LIST per screen): it is read once per open.
  if (looksRemote(root)) return 'remote';
  try {
    const s = await stat(join(root, '_delta_log'));
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return 'none';
  }
}

export class InvestigationCache {
  private readonly entries = new Map<string, Cached>();
  /** Histories in flight, so two screens asking at once share one build. */
  private readonly pending = new Map<string, SharedJob<History>>();
  /** Forensics in flight (a warm-up started by opening the table, or a screen's request). */
  private readonly building = new Map<string, SharedJob<ForensicsResult>>();

  constructor(private readonly max = 2) {}

  private async cached(root: string): Promise<Cached> {
    await assertTableFolder(root);
    const stamp = await logStamp(root);
    let hit = this.entries.get(root);
    if (hit && hit.stamp !== stamp) {
      // New commits: re-list, keep the parsed commits (they are immutable), rebuild the history.
      await hit.table.refresh();
      hit = { ...hit, stamp, history: null, forensics: null, changed: true };
    }
    if (!hit) hit = { stamp, table: await openTable(root), history: null, forensics: null, changed: false };
    // Most recently used last.
    this.entries.delete(root);
    this.entries.set(root, hit);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    return hit;
  }

  /** The open table of a root (the log read once for everything that asks). */
  async table(root: string, _ctx: JobContext): Promise<DeltaTable> {
    return (await this.cached(root)).table;
  }

  async entry(root: string, ctx: JobContext): Promise<Cached & { history: History }> {
    const c = await this.cached(root);
    if (!c.history) {
      const job = shared(this.pending, `${root}\0${c.stamp}`, (jobCtx) => c.table.history(jobCtx));
      report(ctx, { phase: 'replaying the log', done: 0, total: null });
      const history = await joinJob(job, ctx);
      if (history.latestVersion < 0) {
        throw new LakerecError('not_a_delta_table', `${root} has a _delta_log folder but no commits in it.`, { path: root });
      }
      c.history = history;
    }
    return c as Cached & { history: History };
  }

  /**
   * Starts building a table's timeline (history and heuristics) without waiting for it: opening a
   * table calls it, so the screen's own request, a round trip later, finds the work under way and
   * joins it (its progress then reaches that request). Nothing fails here: the request says.
   */
  warm(root: string): void {
    void this.entry(root, {}).then((c) => (c.forensics ? null : this.build(root, c).promise)).catch(() => {});
  }

  /** Resolves when no timeline build of `root` is running (the History list waits: the timeline is drawn first). */
  async settled(root: string, ctx: JobContext): Promise<void> {
    for (const [key, job] of [...this.pending, ...this.building]) {
      if (key.startsWith(`${root}\0`)) await untilCancelled((job.promise as Promise<unknown>).then(() => {}, () => {}), ctx);
    }
  }

  /** The forensics of an entry's history, one build shared by every caller while it runs. */
  private build(root: string, c: Cached & { history: History }): SharedJob<ForensicsResult> {
    const job = shared(this.building, `${root}\0${c.stamp}`, (jobCtx) => forensicsOfHistory(c.history, { ctx: jobCtx }));
    job.promise.then((f) => { c.forensics = f; }, () => {});
    return job;
  }

  async forensics(root: string, ctx: JobContext): Promise<{ overview: TableOverview; forensics: ForensicsResult }> {
    const c = await this.entry(root, ctx);
    if (!c.forensics) {
      report(ctx, { phase: 'running heuristics', done: 0, total: null });
      c.forensics = await joinJob(this.build(root, c), ctx);
    }
    const overview = overviewOf(root, c.history, c.changed);
    c.changed = false;
    return { overview, forensics: c.forensics };
  }

  /** The per-version summaries (the timeline's), without taking the header's "log changed" note. */
  async summaries(root: string, ctx: JobContext): Promise<VersionSummary[]> {
    const c = await this.entry(root, ctx);
    if (!c.forensics) c.forensics = await joinJob(this.build(root, c), ctx);
    return c.forensics.versions;
  }

  async commitDetail(root: string, version: number, ctx: JobContext): Promise<CommitDetail> {
    const { forensics } = await this.forensics(root, ctx);
    const c = await this.entry(root, ctx);
    return commitDetail(c.history, forensics, version, { filesLimit: COMMIT_FILES_LIMIT });
  }

  async bisect(root: string, spec: PredicateSpec, ctx: JobContext): Promise<BisectResult> {
    const c = await this.entry(root, ctx);
    const total = c.history.states.length;
    const send = (p: JobProgress<'bisect'>) => ctx.progress?.(p);
    return bisectHistory(c.history, spec, {
      signal: ctx.signal,
      progress: ctx.progress,
      onPlan: (plan) => send({
        phase: plan.exhaustive ? 'walking every version' : 'binary search', done: 0, total,
        data: { kind: 'plan', ...plan },
      }),
      onProbe: (e) => send({
        phase: 'probing versions',
        done: e.probeIndex + 1,
        total,
        message: `v${e.version}: ${e.state}${e.detail ? ` (${e.detail})` : ''}`,
        data: { kind: 'probe', ...e },
      }),
    });
  }
}

/**
 * A build several callers wait for (a history, a table's forensics): it reports its progress to
 * every caller waiting, and stops when the last caller waiting cancels (a warm-up alone waits for
 * nothing: it runs to the end).
 */
interface SharedJob<T> {
  promise: Promise<T>;
  listeners: Set<(p: Progress) => void>;
  waiting: number;
  abort: AbortController;
}

function shared<T>(map: Map<string, SharedJob<T>>, key: string, start: (ctx: JobContext) => Promise<T>): SharedJob<T> {
  const known = map.get(key);
  if (known) return known;
  const listeners = new Set<(p: Progress) => void>();
  const abort = new AbortController();
  const job: SharedJob<T> = { promise: Promise.resolve() as Promise<T>, listeners, waiting: 0, abort };
  job.promise = start({ signal: abort.signal, progress: (p) => { for (const l of listeners) l(p); } });
  map.set(key, job);
  job.promise.finally(() => { if (map.get(key) === job) map.delete(key); }).catch(() => {});
  return job;
}

/** Waits for a shared build as one of its callers: its progress reaches `ctx`; `ctx` cancelled stops the wait (and the build, when no one else waits). */
async function joinJob<T>(job: SharedJob<T>, ctx: JobContext): Promise<T> {
  const listen = ctx.progress;
  if (listen) job.listeners.add(listen);
  job.waiting++;
  try {
    return await untilCancelled(job.promise, ctx);
  } catch (e) {
    if (ctx.signal?.aborted && job.waiting === 1) job.abort.abort();
    throw e;
  } finally {
    job.waiting--;
    if (listen) job.listeners.delete(listen);
  }
}

/** `p`, or the cancellation of `ctx` if it comes first (a shared build runs on for its other callers). */
function untilCancelled<T>(p: Promise<T>, ctx: JobContext): Promise<T> {
  const signal = ctx.signal;
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const stop = () => { try { throwIfCancelled(ctx); } catch (e) { reject(e); } };
    if (signal.aborted) { stop(); return; }
    signal.addEventListener('abort', stop, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

export function overviewOf(root: string, h: History, logChanged = false): TableOverview {
  const latest = h.states[h.states.length - 1];
  const protocol = latest?.protocol ?? null;
  return {
    path: root,
    name: tableName(root),
    latestVersion: h.latestVersion,
    oldestReadableVersion: h.oldestReadable,
    minReaderVersion: protocol?.minReaderVersion ?? null,
    minWriterVersion: protocol?.minWriterVersion ?? null,
    readerFeatures: protocol?.readerFeatures ?? [],
    writerFeatures: protocol?.writerFeatures ?? [],
    partitionColumns: latest?.metadata?.partitionColumns ?? [],
    files: latest?.tableFiles ?? 0,
    rows: latest?.tableRows ?? null,
    bytes: latest?.tableBytes ?? 0,
    latestReadable: latest?.info.readable ?? false,
    latestUnreadableReason: latest && !latest.info.readable ? latest.info.reason ?? 'the log does not let it be read' : null,
    logChanged,
  };
}

export function bisectSpec(req: BisectRequest, resolve: (p: string) => string): PredicateSpec {
  const spec: PredicateSpec = { predicate: req.predicate };
  if (req.keys) spec.keys = req.keys;
  if (req.expect !== undefined) spec.expect = req.expect;
  if (req.partition !== undefined) spec.partition = req.partition;
  if (req.source !== undefined) spec.source = resolve(req.source);
  if (req.allowMoving) spec.allowMoving = true;
  return spec;
}
