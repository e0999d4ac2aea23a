// The ONE implementation of shared/api.ts. Electron's IPC handlers and the web server both call
// these functions (through dispatch.ts); neither transport contains engine logic.
import { LAKEREC_VERSION } from '../../shared/version';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type {
  ApiHandlers, SampleTable, TableSummary, TransportMode, VersionRow,
} from '../../shared/api';
import { FIRST_PAGE_VERSIONS, versionRows } from '../../shared/api';
import { packRows } from '../../shared/api/packed';
import { LakerecError } from '../../shared/errors';
import { report, throwIfCancelled, type JobContext } from '../../shared/jobs';
import { operationParametersOf } from '../../shared/forensics';
import { whoOf } from '../delta/history';
import type { VersionChange } from '../delta/types';
import { bisectSpec, InvestigationCache } from './investigate';
import { assertTableFolder, resolveUserPath, tableName } from './paths';
import { RecentTables } from './recent';
import { createScreenHandlers, recordedBisect } from './screens';
import { createTrustHandlers, TrustResults } from './trust';
import { createLineageHandlers } from './lineage';
import { createViewsHandlers } from './views';


export interface ServiceOptions {
  mode: TransportMode;
  /** The user's app-data folder (Electron: app.getPath('userData')). */
  userDataDir: string;
  /** The folder named on the command line, if any. */
  initialTable?: string | null;
  sampleTables?: SampleTable[];
  /** The native folder dialog; absent in web mode. */
  pickFolder?: () => Promise<string | null>;
  /** Relative paths typed by the user resolve against this folder. */
  cwd?: string;
  /** The native file dialog for a source of truth; absent in web mode. */
  pickSource?: () => Promise<string | null>;
  /** The native save dialog: writes `content`, returns where (null when cancelled); absent in web mode. */
  saveFile?: (defaultName: string, content: string, tableRoots: string[]) => Promise<string | null>;
  /** The run history's folder (default: userDataDir). */
  runsDir?: string;
  log?: (line: string) => void;
}

/** Every version of the table, from its log (the Delta reader: JSON commits, checkpoints). */
async function readChanges(root: string, ctx: JobContext, tables: InvestigationCache): Promise<VersionChange[]> {
  // Our own check first: it words each wrong-folder case for a person and maps EACCES.
  await assertTableFolder(root);
  // The same open table the investigation uses: the log is read once for header, list and timeline.
  throwIfCancelled(ctx);
  const table = await tables.table(root, ctx);
  const changes = await table.changes({}, ctx);
  // Served from the open table when the log is unchanged: still say where the read stands.
  report(ctx, { phase: 'reading log', done: changes.length, total: changes.length });
  if (changes.length === 0) {
    throw new LakerecError('not_a_delta_table', `${root} has a _delta_log folder but no commits in it.`, { path: root });
  }
  // A hole in the log is not refused: the table opens, the versions after it are unreadable with
  // that reason, and forensics names it (version_missing) with what exists around it.
  return changes;
}

export function summarise(root: string, changes: VersionChange[]): TableSummary {
  const last = changes[changes.length - 1];
  const first = changes[0];
  let protocol = null;
  let metaData = null;
  for (const c of changes) {
    if (c.protocol) protocol = c.protocol;
    if (c.metaData) metaData = c.metaData;
  }
  if (!protocol || !metaData) {
    // JSON commits alone must hold the table's protocol and metadata when no checkpoint exists.
    const hasCheckpoint = changes.some((c) => c.hasCheckpoint);
    if (!hasCheckpoint) {
      const which = !protocol ? 'protocol' : 'metaData';
      throw new LakerecError(!protocol ? 'protocol_missing' : 'metadata_missing',
        `The log of ${root} has no ${which} action in any commit: it is not a readable Delta table.`, { path: root });
    }
  }
  return {
    path: root,
    name: tableName(root),
    latestVersion: last.version,
    oldestCommitVersion: first.version,
    commitCount: changes.filter((c) => c.hasCommitFile).length,
    lastCommitAt: last.timestamp,
    partitionColumns: metaData?.partitionColumns ?? [],
    tableName: metaData?.name ?? null,
    minReaderVersion: protocol?.minReaderVersion ?? null,
    minWriterVersion: protocol?.minWriterVersion ?? null,
  };
}

/**
 * The first page's rows (the newest commits, before the log's replay), counted the way
 * versionSummaries counts them: a file removed and re-added at the same path in one commit (a
 * deletion-vector rewrite) is neither an added nor a removed file. The whole list that follows the
 * replay replaces these rows.
 */
export function headRows(changes: VersionChange[]): VersionRow[] {
  return changes
    .filter((c) => c.hasCommitFile)
    .map((c) => {
      const removed = new Set(c.removes.map((r) => r.path));
      const readded = new Set(c.adds.filter((a) => removed.has(a.path)).map((a) => a.path));
      const ci = c.commitInfo;
      return {
        version: c.version, timestamp: c.timestamp,
        operation: ci?.operation ?? null, operationParameters: operationParametersOf(ci?.operationParameters),
        writer: ci?.engineInfo ?? null, who: whoOf(ci),
        addedFiles: c.adds.filter((a) => !readded.has(a.path)).length,
        removedFiles: c.removes.filter((r) => !readded.has(r.path)).length,
      };
    })
    .reverse();
}

/** Bundled sample lakes: every folder with a `_delta_log` under `dir` (up to three levels down). */
export function findSampleTables(dir: string): SampleTable[] {
  if (!existsSync(dir)) return [];
  const out: SampleTable[] = [];
  const visit = (d: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      try {
        if (!statSync(p).isDirectory()) continue;
      } catch {
        continue;
      }
      // Named by its path under the lakes folder; a lake's `table/` folder goes by the lake's name.
      if (existsSync(join(p, '_delta_log'))) {
        const rel = relative(dir, p).split(sep);
        if (rel.length > 1 && rel[rel.length - 1] === 'table') rel.pop();
        out.push({ name: rel.join('/'), path: p });
      }
      else if (depth < 2) visit(p, depth + 1);
    }
  };
  visit(dir, 0);
  return out;
}

export function createService(opts: ServiceOptions): ApiHandlers {
  const recent = new RecentTables(opts.userDataDir);
  const cwd = opts.cwd ?? process.cwd();
  const runsDir = opts.runsDir ?? opts.userDataDir;
  // One open table per root for every screen: header, versions, timeline, bisect and reconcile's target.
  const trustResults = new TrustResults();
  const investigation = new InvestigationCache();
  const screens = createScreenHandlers({
    runsDir, userDataDir: opts.userDataDir, cwd, toolVersion: LAKEREC_VERSION, pickSource: opts.pickSource, saveFile: opts.saveFile, tables: investigation, trustFor: (t) => trustResults.get(t),
  }, opts.log);
  return {
    ...screens,
    ...createTrustHandlers({ runsDir, cwd, results: trustResults, ...(opts.log ? { log: opts.log } : {}) }),
    ...createViewsHandlers({ cwd, tables: investigation }),
    ...createLineageHandlers({ userDataDir: opts.userDataDir, cwd }),

    async appInfo() {
      return {
        version: LAKEREC_VERSION,
        mode: opts.mode,
        canPickFolder: !!opts.pickFolder,
        canResolveDroppedFiles: opts.mode === 'electron',
        canPickSource: !!opts.pickSource,
        canSaveFiles: !!opts.saveFile,
        initialTable: opts.initialTable ? resolveUserPath(opts.initialTable, cwd) : null,
        sampleTables: opts.sampleTables ?? [],
      };
    },

    async historyHead({ path }, ctx) {
      const root = resolveUserPath(path, cwd);
      await assertTableFolder(root);
      throwIfCancelled(ctx);
      // The open table of this root (its listing): the newest commits are parsed into its cache,
      // so the whole log's read (openTable, a call later) reads none of them again.
      const table = await investigation.table(root, ctx);
      const newest = await table.newestCommits(FIRST_PAGE_VERSIONS, ctx);
      return { head: { path: root, name: tableName(root), latestVersion: table.latestVersion, commitCount: table.commitFileCount, versions: headRows(newest) } };
    },

    async openTable({ path }, ctx) {
      const root = resolveUserPath(path, cwd);
      const changes = await readChanges(root, ctx, investigation);
      const table = summarise(root, changes);
      const list = await recent.remember({ path: root, name: table.name, openedAt: Date.now() });
      // The timeline is the first screen: its history and heuristics start as soon as this answer
      // is sent (a macrotask after it), not a round trip later when the screen asks.
      setTimeout(() => investigation.warm(root), 0);
      return { table, recent: list };
    },

    async listVersions({ path }, ctx) {
      const root = resolveUserPath(path, cwd);
      // After the timeline of this table, when one is being built: the first screen is drawn first.
      await investigation.settled(root, ctx);
      const changes = await readChanges(root, ctx, investigation);
      summarise(root, changes); // the same checks as openTable: a broken log never lists half
      return { versions: versionRows(await investigation.summaries(root, ctx)) };
    },

    async recentTables() {
      return { tables: await recent.list() };
    },

    async forgetRecent({ path }) {
      return { tables: await recent.forget(resolveUserPath(path, cwd)) };
    },

    async pickFolder() {
      if (!opts.pickFolder) {
        throw new LakerecError('usage', 'There is no folder dialog in web mode: type the folder path, or drop the folder.');
      }
      return { path: await opts.pickFolder() };
    },

    async forensics({ path }, ctx) {
      return investigation.forensics(resolveUserPath(path, cwd), ctx);
    },

    async timeline({ path }, ctx) {
      const { overview, forensics } = await investigation.forensics(resolveUserPath(path, cwd), ctx);
      return { overview, forensics: { ...forensics, versions: packRows(forensics.versions) } };
    },

    async commitDetail({ path, version }, ctx) {
      return investigation.commitDetail(resolveUserPath(path, cwd), version, ctx);
    },

    async bisect(req, ctx) {
      const root = resolveUserPath(req.path, cwd);
      const spec = bisectSpec(req, (p) => resolveUserPath(p, cwd));
      // Kept in the run history like every reconcile and proof.
      return recordedBisect(runsDir, root, spec, () => investigation.bisect(root, spec, ctx), opts.log);
    },
  };
}
