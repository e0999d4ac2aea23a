// The investigation and bisect screens' side of the service: the log replayed once per table
// (main/forensics/history.ts) and kept while the log folder is unchanged, so clicking through
// versions or running several bisects does not replay a 10,000-version log again.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BisectRequest, CommitDetail, CommitFile, JobProgress, PartitionChange, TableOverview } from '../../shared/api';
import { COMMIT_FILES_LIMIT } from '../../shared/api';
import type { BisectResult, PredicateSpec } from '../../shared/bisect';
import { LakerecError } from '../../shared/errors';
import type { ForensicsResult } from '../../shared/forensics';
import { report, type JobContext } from '../../shared/jobs';
import { bisectHistory } from '../bisect/bisect';
import { forensicsOfHistory } from '../forensics/forensics';
import { partitionLabel, replayHistory, type FileEntry, type History } from '../forensics/history';
import { openHistorySource } from '../forensics/source';
import { assertTableFolder, tableName } from './paths';

interface Cached {
  stamp: string;
  history: History;
  forensics: ForensicsResult | null;
}

/** What identifies a log's state cheaply: a new commit or checkpoint changes the folder's mtime. */
async function logStamp(root: string): Promise<string> {
  try {
    const s = await stat(join(root, '_delta_log'));
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return 'none';
  }
}

export class InvestigationCache {
  private readonly entries = new Map<string, Cached>();
  /** Replays in flight, so two screens asking at once share one replay. */
  private readonly pending = new Map<string, Promise<Cached>>();

  constructor(private readonly max = 2) {}

  async entry(root: string, ctx: JobContext): Promise<Cached> {
    await assertTableFolder(root);
    const stamp = await logStamp(root);
    const hit = this.entries.get(root);
    if (hit && hit.stamp === stamp) {
      // Most recently used last.
      this.entries.delete(root);
      this.entries.set(root, hit);
      return hit;
    }
    const key = `${root}\0${stamp}`;
    let p = this.pending.get(key);
    if (!p) {
      p = (async () => {
        report(ctx, { phase: 'replaying the log', done: 0, total: null });
        const src = await openHistorySource(root);
        const history = await replayHistory(src, ctx);
        if (history.latestVersion < 0) {
          throw new LakerecError('not_a_delta_table', `${root} has a _delta_log folder but no commits in it.`, { path: root });
        }
        const c: Cached = { stamp, history, forensics: null };
        this.entries.delete(root);
        this.entries.set(root, c);
        while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
        return c;
      })();
      this.pending.set(key, p);
      // The first caller's cancellation must not poison the shared promise for later callers.
      p.finally(() => this.pending.delete(key)).catch(() => {});
    }
    return p;
  }

  async forensics(root: string, ctx: JobContext): Promise<{ overview: TableOverview; forensics: ForensicsResult }> {
    const c = await this.entry(root, ctx);
    if (!c.forensics) {
      report(ctx, { phase: 'running heuristics', done: 0, total: null });
      c.forensics = await forensicsOfHistory(c.history, { ctx });
    }
    return { overview: overviewOf(root, c.history), forensics: c.forensics };
  }

  async commitDetail(root: string, version: number, ctx: JobContext): Promise<CommitDetail> {
    const { forensics } = await this.forensics(root, ctx);
    const c = await this.entry(root, ctx);
    return commitDetailOf(c.history, forensics, version);
  }

  async bisect(root: string, spec: PredicateSpec, ctx: JobContext): Promise<BisectResult> {
    const c = await this.entry(root, ctx);
    const total = c.history.latestVersion + 1;
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

export function overviewOf(root: string, h: History): TableOverview {
  const latest = h.states[h.latestVersion];
  const active = h.files.filter((f) => f.removedIn === null);
  let rows: number | null = 0;
  let bytes = 0;
  for (const f of active) {
    bytes += f.size;
    if (rows !== null) rows = f.numRecords === null ? null : rows + f.numRecords;
  }
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
    files: active.length,
    rows: latest?.tableRows ?? rows,
    bytes,
  };
}

export function commitDetailOf(h: History, f: ForensicsResult, version: number): CommitDetail {
  const summary = f.versions.find((v) => v.version === version);
  const st = h.states[version];
  if (!summary || !st) {
    throw new LakerecError('version_not_found', `The table has no version ${version} (its versions are 0 to ${h.latestVersion}).`, { version });
  }
  const cols = f.partitionSource === 'partition_values' ? f.partitionBy : [];
  // The same file sets forensics counts: a snapshot reset shows the commit's own adds.
  const adds = (st.commitAdded ?? st.added).map((id) => h.files[id]);
  const rems = st.commitAdded ? [] : st.removed.map((id) => h.files[id]);
  const row = (e: FileEntry, kind: 'add' | 'remove'): CommitFile => ({
    path: e.path,
    partition: cols.length ? partitionLabel(e.partitionValues, cols) : '',
    rows: e.numRecords,
    bytes: e.size,
    dataChange: kind === 'add' ? e.add.dataChange !== false : removeDataChange(st.change?.removes, e.path),
    deletionVector: e.deletionVector !== null,
  });
  const parts = new Map<string, PartitionChange>();
  const part = (p: string): PartitionChange => {
    let x = parts.get(p);
    if (!x) {
      x = { partition: p, addedFiles: 0, removedFiles: 0, addedRows: 0, removedRows: 0, addedBytes: 0, removedBytes: 0, rowsKnown: true };
      parts.set(p, x);
    }
    return x;
  };
  const added = adds.map((e) => row(e, 'add'));
  const removed = rems.map((e) => row(e, 'remove'));
  for (const a of added) {
    const x = part(a.partition);
    x.addedFiles++;
    x.addedBytes += a.bytes;
    if (a.rows === null) x.rowsKnown = false;
    else x.addedRows += a.rows;
  }
  for (const r of removed) {
    const x = part(r.partition);
    x.removedFiles++;
    x.removedBytes += r.bytes;
    if (r.rows === null) x.rowsKnown = false;
    else x.removedRows += r.rows;
  }
  const ci = st.change?.commitInfo ?? null;
  return {
    summary,
    commitInfo: ci ? (JSON.parse(JSON.stringify(ci)) as Record<string, unknown>) : null,
    added: added.slice(0, COMMIT_FILES_LIMIT),
    removed: removed.slice(0, COMMIT_FILES_LIMIT),
    partitions: [...parts.values()].sort((a, b) => a.partition.localeCompare(b.partition)),
    heuristics: f.heuristics.filter((x) => x.version === version),
  };
}

function decoded(p: string): string {
  try { return decodeURIComponent(p); } catch { return p; }
}

/** The log writes paths URI-encoded; the replay keys them decoded. */
function removeDataChange(removes: { path: string; dataChange?: boolean }[] | undefined, path: string): boolean {
  const r = removes?.find((x) => x.path === path || decoded(x.path) === path || decoded(x.path).endsWith(`/${path}`));
  return r ? r.dataChange !== false : true;
}

export function bisectSpec(req: BisectRequest, resolve: (p: string) => string): PredicateSpec {
  const spec: PredicateSpec = { predicate: req.predicate };
  if (req.keys) spec.keys = req.keys;
  if (req.expect !== undefined) spec.expect = req.expect;
  if (req.partition !== undefined) spec.partition = req.partition;
  if (req.source !== undefined) spec.source = resolve(req.source);
  return spec;
}
