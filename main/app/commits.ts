// TEMPORARY: reads a table's `_delta_log/*.json` commits into VersionChange[] for the window,
// until main/delta/table.ts (DeltaTable.open(root).changes()) lands; then the service switches
// to the reader and this file goes. It knows JSON commits only: that is what the versions list
// needs (version, timestamp, operation).
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Action } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import type { VersionChange } from '../delta/types';
import { assertTableFolder, ioError } from './paths';

const COMMIT_RE = /^(\d{20})\.json$/;
const CHECKPOINT_RE = /^(\d{20})\.checkpoint(\.\d{10}\.\d{10})?(\.[^.]+)?\.parquet$|^(\d{20})\.checkpoint\.[^.]+\.json$/;

export async function readCommitChanges(root: string, ctx?: JobContext): Promise<VersionChange[]> {
  const logDir = await assertTableFolder(root);
  let names: string[];
  try {
    names = await readdir(logDir);
  } catch (e) {
    throw ioError(e, logDir);
  }
  const checkpoints = new Set<number>();
  for (const n of names) {
    const m = CHECKPOINT_RE.exec(n);
    if (m) checkpoints.add(Number(m[1] ?? m[4]));
  }
  const commits = names
    .map((n) => COMMIT_RE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), file: m[0] }))
    .sort((a, b) => a.version - b.version);
  if (commits.length === 0) {
    throw new LakerecError('not_a_delta_table',
      `${root} has a _delta_log folder but no JSON commits in it.`, { path: root });
  }
  for (let i = 1; i < commits.length; i++) {
    if (commits[i].version !== commits[i - 1].version + 1) {
      throw new LakerecError('version_missing',
        `The log of ${root} jumps from version ${commits[i - 1].version} to ${commits[i].version}: commit ${commits[i - 1].version + 1} is missing.`,
        { path: root, version: commits[i - 1].version + 1 });
    }
  }
  const out: VersionChange[] = [];
  for (const [i, c] of commits.entries()) {
    throwIfCancelled(ctx);
    report(ctx, { phase: 'reading commits', done: i, total: commits.length });
    const file = join(logDir, c.file);
    let text: string;
    let mtime: number;
    try {
      [text, mtime] = await Promise.all([readFile(file, 'utf8'), stat(file).then((s) => s.mtimeMs)]);
    } catch (e) {
      throw ioError(e, file);
    }
    out.push(parseCommit(c.version, c.file, text, Math.floor(mtime), checkpoints.has(c.version)));
  }
  report(ctx, { phase: 'reading commits', done: commits.length, total: commits.length });
  return out;
}

function parseCommit(version: number, file: string, text: string, mtime: number, hasCheckpoint: boolean): VersionChange {
  const change: VersionChange = {
    version, timestamp: mtime, commitInfo: null, adds: [], removes: [], protocol: null, metaData: null,
    hasCommitFile: true, hasCheckpoint,
  };
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let action: Action;
    try {
      action = JSON.parse(line) as Action;
    } catch {
      throw new LakerecError('log_corrupt',
        `Commit ${version} (_delta_log/${file}) is broken: line ${i + 1} is not valid JSON.`, { version, line: i + 1, file });
    }
    if (typeof action !== 'object' || action === null || Array.isArray(action)) {
      throw new LakerecError('log_corrupt',
        `Commit ${version} (_delta_log/${file}) is broken: line ${i + 1} is not an action object.`, { version, line: i + 1, file });
    }
    if (action.commitInfo) change.commitInfo = action.commitInfo;
    if (action.add) change.adds.push(action.add);
    if (action.remove) change.removes.push(action.remove);
    if (action.protocol) change.protocol = action.protocol;
    if (action.metaData) change.metaData = action.metaData;
  }
  const ci = change.commitInfo;
  const ts = ci?.inCommitTimestamp ?? ci?.timestamp;
  if (typeof ts === 'number' && Number.isFinite(ts)) change.timestamp = ts;
  return change;
}
