// Rows of a version for the Data tab: the snapshot view (DVs applied, logical names, partition
// columns) read one page at a time through DuckDB, never the whole table into the page. Each
// table gets its own DuckDB whose file access is locked to the table's folder before any filter
// runs, so even a filter that slipped past where.ts could not read another file.
import { realpathSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { LakerecError } from '../../shared/errors';
import type { JobContext } from '../../shared/jobs';
import { report, throwIfCancelled } from '../../shared/jobs';
import { columnTags, isCountsOnly, maskValue } from '../../shared/sensitivity';
import {
  MAX_PAGE_ROWS, typeText, type GridColumn, type RowsPage, type RowsRequest,
} from '../../shared/views';
import { openDuck, queryTimeLimitMs, sqlIdent, sqlString, withTimeLimit, type Duck } from '../engine/duck';
import { registerSnapshotView } from '../delta/scan';
import { DeltaTable } from '../delta/table';
import { openTable } from '../delta/open';
import type { ActiveFile, Snapshot } from '../delta/types';
import { checkWhere } from './where';
import { looksRemote } from '../../shared/location';

const MASK = maskValue('confidential', '');

interface View {
  name: string;
  version: number;
  addedIn: number | null;
  columns: GridColumn[];
  totalRows: number;
  files: number;
  deletionVectorFiles: number;
  /** Row counts per filter text, so paging does not count again. */
  counts: Map<string, number>;
}

interface Session {
  root: string;
  duck: Duck;
  views: Map<string, View>;
  /** One query at a time on the connection. */
  queue: Promise<unknown>;
}

/** The files a commit added that are in the snapshot at that version (a DV re-add of a file it also removed is not new rows). */
export async function filesAddedBy(table: DeltaTable, snap: Snapshot, version: number, ctx?: JobContext): Promise<ActiveFile[]> {
  const [change] = await table.changes({ from: version, to: version }, ctx);
  if (!change || change.version !== version) {
    throw new LakerecError('version_not_found', `Version ${version} of ${table.root} has no commit in the log: its added rows cannot be listed.`, { version });
  }
  const removed = new Set(change.removes.map((r) => r.path));
  const added = new Set(change.adds.filter((a) => a.dataChange !== false && !removed.has(a.path)).map((a) => a.path));
  return snap.files.filter((f) => f.addedInVersion === version && (added.has(f.add.path) || added.has(f.path)));
}

export function gridColumns(snap: Snapshot): GridColumn[] {
  const parts = new Set(snap.partitionColumns);
  return snap.schema.fields.map((f) => {
    const tags = columnTags(f.metadata);
    return {
      name: f.name, type: typeText(f.type), nullable: f.nullable, partition: parts.has(f.name),
      sensitivity: tags.sensitivity, masked: isCountsOnly(tags.sensitivity),
    };
  });
}

/**
 * Locks a DuckDB to one folder before any view or filter exists: it may read the table's folder
 * (and its spill folder), nothing else, and its settings can no longer be changed.
 */
export async function lockToFolder(duck: Duck, dirs: string[]): Promise<void> {
  const spill = String((await duck.conn.runAndReadAll("SELECT current_setting('temp_directory')")).getRows()[0][0]);
  await duck.conn.run(`SET allowed_directories = [${[...dirs, spill].map(sqlString).join(', ')}]`);
  await duck.conn.run('SET enable_external_access = false');
  await duck.conn.run('SET lock_configuration = true');
}

export class RowsService {
  private readonly sessions = new Map<string, Promise<Session>>();

  constructor(private readonly maxTables = 2, private readonly maxViews = 6) {}

  private async session(root: string): Promise<Session> {
    const hit = this.sessions.get(root);
    if (hit) {
      this.sessions.delete(root);
      this.sessions.set(root, hit);
      return hit;
    }
    const p = (async () => {
      // A remote table's files are read from the local cache its store fetches them into.
      const dirs = looksRemote(root) ? (await openTable(root)).storage.engineDirs() : [root];
      const duck = await openDuck({ memoryLimit: '2GB' });
      try {
        await lockToFolder(duck, dirs);
      } catch (e) {
        duck.close();
        throw e;
      }
      return { root, duck, views: new Map(), queue: Promise.resolve() };
    })();
    this.sessions.set(root, p);
    p.catch(() => this.sessions.delete(root));
    while (this.sessions.size > this.maxTables) {
      const [oldest, s] = this.sessions.entries().next().value as [string, Promise<Session>];
      this.sessions.delete(oldest);
      void s.then((x) => x.queue.finally(() => x.duck.close())).catch(() => {});
    }
    return p;
  }

  private serial<T>(s: Session, fn: () => Promise<T>): Promise<T> {
    const run = s.queue.then(fn, fn);
    s.queue = run.catch(() => {});
    return run;
  }

  private async view(s: Session, req: RowsRequest, ctx?: JobContext, open?: DeltaTable): Promise<View> {
    let table: DeltaTable;
    try {
      table = open ?? await openTable(s.root);
    } catch (e) {
      throw e instanceof LakerecError ? e : new LakerecError('io_error', `Cannot read ${s.root}: ${(e as Error).message}`);
    }
    const version = req.version ?? table.latestVersion;
    const key = `${version}\0${req.addedIn ?? ''}`;
    const hit = s.views.get(key);
    if (hit) return hit;
    report(ctx, { phase: `reading the snapshot at version ${version}`, done: 0, total: null });
    let snap: Snapshot;
    try {
      snap = await table.snapshot({ version }, ctx);
    } catch (e) {
      if (e instanceof LakerecError) throw new LakerecError(e.code, `Version ${version} cannot be read: ${e.message}`, { ...e.detail, version });
      throw e;
    }
    let files = snap.files;
    if (req.addedIn !== undefined) {
      if (req.addedIn !== version) throw new LakerecError('usage', '"addedIn" is the version the grid is at: rows added by a commit are read at that commit.');
      files = await filesAddedBy(table, snap, version, ctx);
    }
    const name = `lakerec_rows_v${version}${req.addedIn !== undefined ? '_added' : ''}`;
    try {
      await registerSnapshotView(s.duck.conn, snap, name, { files, provenance: true }, ctx);
    } catch (e) {
      if (e instanceof LakerecError) throw new LakerecError(e.code, `Version ${version} cannot be read: ${e.message}`, { ...e.detail, version });
      throw new LakerecError('io_error', `Version ${version} cannot be read: ${(e as Error).message.split('\n')[0]}`, { version });
    }
    let totalRows: number;
    const known = files.every((f) => f.numRecords !== null);
    if (known) totalRows = files.reduce((n, f) => n + (f.numRecords ?? 0), 0);
    else totalRows = Number((await s.duck.conn.runAndReadAll(`SELECT count(*) FROM ${sqlIdent(name)}`)).getRows()[0][0]);
    const v: View = { name, version, addedIn: req.addedIn ?? null, columns: gridColumns(snap), totalRows, files: files.length, deletionVectorFiles: files.filter((f) => f.deletionVector !== null).length, counts: new Map() };
    s.views.set(key, v);
    while (s.views.size > this.maxViews) {
      const [oldKey, old] = s.views.entries().next().value as [string, View];
      s.views.delete(oldKey);
      await s.duck.conn.run(`DROP VIEW IF EXISTS ${sqlIdent(old.name)}`).catch(() => {});
    }
    return v;
  }

  /** One page of rows of a version, sorted and filtered as asked. */
  /** `table`: the table already open at `rootIn` (the window's), so its log is not read again. */
  async page(rootIn: string, req: RowsRequest, ctx?: JobContext, table?: DeltaTable): Promise<RowsPage> {
    const started = performance.now();
    let root: string;
    try {
      root = looksRemote(rootIn) ? rootIn : realpathSync(rootIn);
    } catch {
      throw new LakerecError('not_found', `No folder at ${rootIn}.`, { path: rootIn });
    }
    const s = await this.session(root);
    return this.serial(s, async () => {
      throwIfCancelled(ctx);
      const v = await this.view(s, req, ctx, table);
      const conn: DuckDBConnection = s.duck.conn;
      const byName = new Map(v.columns.map((c) => [c.name, c]));
      const masked = new Set(v.columns.filter((c) => c.masked).map((c) => c.name));
      const conds: string[] = [];
      for (const eq of req.equals ?? []) {
        const col = byName.get(eq.column);
        if (!col) throw new LakerecError('usage', `Version ${v.version} has no column "${eq.column}".`, { field: 'equals' });
        if (col.masked) throw new LakerecError('usage', `Column "${col.name}" is confidential: its values cannot be filtered on.`, { field: 'equals' });
        if (eq.value !== null && eq.value.includes('\0')) throw new LakerecError('usage', `The value to match in column "${col.name}" contains a NUL character, which no value of the table can hold.`, { field: 'equals' });
        conds.push(eq.value === null ? `${sqlIdent(col.name)} IS NULL` : `CAST(${sqlIdent(col.name)} AS VARCHAR) = ${sqlString(eq.value)}`);
      }
      let base = sqlIdent(v.name);
      let whereShown: string | null = null;
      if (req.where !== undefined && req.where.trim() !== '') {
        const checked = await checkWhere(conn, req.where, v.name, { names: v.columns.map((c) => c.name), forbidden: masked });
        base = `(${checked.sql}) AS r`;
        whereShown = /WHERE\s+([\s\S]*)$/i.exec(checked.sql)?.[1] ?? checked.sql;
      }
      const whereSql = conds.length ? ` WHERE ${conds.join(' AND ')}` : '';
      let order = '';
      if (req.sort) {
        const col = byName.get(req.sort.column);
        if (!col) throw new LakerecError('usage', `Version ${v.version} has no column "${req.sort.column}".`, { field: 'sort' });
        if (col.masked) throw new LakerecError('usage', `Column "${col.name}" is confidential: the grid cannot sort by it (the order would reveal its values).`, { field: 'sort' });
        const dir = req.sort.direction === 'desc' ? 'DESC NULLS LAST' : 'ASC NULLS LAST';
        // Ties broken by where the row lives, so pages never overlap.
        order = ` ORDER BY ${sqlIdent(col.name)} ${dir}, _lakerec_file, _lakerec_row`;
      }
      const limit = Math.min(Math.max(1, req.limit ?? 200), MAX_PAGE_ROWS);
      // Every interactive query has a time limit (a filter that passes the check can still be slow).
      const limitMs = queryTimeLimitMs();
      const offset = Math.max(0, req.offset ?? 0);
      const select = v.columns.map((c, i) => (c.masked
        ? `CASE WHEN ${sqlIdent(c.name)} IS NULL THEN NULL ELSE ${sqlString(MASK)} END AS c${i}`
        : `CAST(${sqlIdent(c.name)} AS VARCHAR) AS c${i}`));
      const sql = `SELECT ${select.join(', ') || '1'} FROM ${base}${whereSql}${order} LIMIT ${limit} OFFSET ${offset}`;
      let rows: (string | null)[][];
      try {
        rows = (await withTimeLimit(conn, limitMs, 'This page of rows', () => conn.runAndReadAll(sql))).getRows().map((r) => (v.columns.length ? r.map((x) => (x === null ? null : String(x))) : []));
      } catch (e) {
        if (e instanceof LakerecError) throw e;
        const msg = (e as Error).message.split('\n')[0];
        if (whereShown !== null) throw new LakerecError('usage', `The filter does not run on version ${v.version}: ${msg}`, { field: 'where' });
        throw new LakerecError('io_error', `Version ${v.version} cannot be read: ${msg}`, { version: v.version });
      }
      const countKey = `${whereShown ?? ''}\0${whereSql}`;
      let matching = v.counts.get(countKey);
      if (matching === undefined) {
        matching = whereShown === null && whereSql === '' ? v.totalRows
          : Number((await withTimeLimit(conn, limitMs, 'Counting the matching rows', () => conn.runAndReadAll(`SELECT count(*) FROM ${base}${whereSql}`))).getRows()[0][0]);
        v.counts.set(countKey, matching);
      }
      return {
        path: root, version: v.version, addedIn: v.addedIn, columns: v.columns, rows, offset,
        matchingRows: matching, totalRows: v.totalRows, where: whereShown, files: v.files, deletionVectorFiles: v.deletionVectorFiles,
        elapsedMs: Math.round(performance.now() - started),
      };
    });
  }

  close(): void {
    for (const p of this.sessions.values()) void p.then((s) => s.duck.close()).catch(() => {});
    this.sessions.clear();
  }
}
