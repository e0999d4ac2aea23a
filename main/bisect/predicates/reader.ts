// The data side of every predicate: one DuckDB per bisect, locked to the table's files (and the
// source's) before any query, and per-file results cached by file entry so no probe reads a file twice.
import { existsSync, statSync } from 'node:fs';
import type { Metadata, StructType } from '../../../shared/delta';
import type { JobContext } from '../../../shared/jobs';
import type { ActiveFile, Snapshot } from '../../delta/types';
import { columnMappingMode, parseSchemaString } from '../../delta/schema';
import { registerSnapshotView, dropSnapshotView, outsideLocalFiles, sameStore } from '../../delta/scan';
import { boundedMemoryLimit, openDuck, sqlIdent, type Duck } from '../../engine/duck';
import type { FileEntry, History } from '../../delta/history';
import { historyPresence, type Presence } from '../../delta/presence';

export interface BindOptions {
  ctx?: JobContext;
  allowOutsidePaths?: boolean;
}

export function schemaOf(md: Metadata): StructType {
  return parseSchemaString(md);
}

/** Reads per-file results into DuckDB cache tables, counting every data file it opens. */
export class DataReader {
  private duck: Duck | null = null;
  private readonly done = new Map<string, Set<number>>();
  read = 0;
  fromCache = 0;
  private view = 0;
  readonly schema: StructType;
  constructor(private readonly h: History, readonly md: Metadata, private readonly opts: BindOptions, private readonly source: string | null = null) {
    this.schema = schemaOf(md);
  }

  get ctx(): JobContext | undefined {
    return this.opts.ctx;
  }

  async conn(): Promise<Duck['conn']> {
    // Bounded: the caches spill past 512 MiB instead of growing with the table (40M rows < 1 GB RSS).
    if (!this.duck) this.duck = await openBisectDuck(this.h, this.source);
    return this.duck.conn;
  }

  /** Files among `files` whose data is gone (VACUUM): the version cannot be evaluated. */
  async missing(files: FileEntry[], cache: string): Promise<FileEntry[]> {
    const have = this.done.get(cache);
    // The one presence check (delta/presence.ts); an unknown file (outside the root) cannot be read: missing here.
    this.present ??= historyPresence(this.h);
    const out: FileEntry[] = [];
    for (const f of files) if (!have?.has(f.id) && (await this.present(f)) !== true) out.push(f);
    return out;
  }
  private present: Presence | undefined;

  /**
   * Makes sure `cache` (a table whose first column is `fid`) holds `projection` for every file.
   * `projection` is a SELECT list over the view `v` (logical columns, latest schema); `groupByFile`
   * aggregates per file.
   */
  async ensure(cache: string, files: FileEntry[], projection: string, columnsDdl: string, groupByFile: boolean, where = ''): Promise<void> {
    const have = this.done.get(cache) ?? new Set<number>();
    this.done.set(cache, have);
    const todo = files.filter((f) => !have.has(f.id));
    this.fromCache += files.length - todo.length;
    const conn = await this.conn();
    await conn.run(`CREATE TABLE IF NOT EXISTS ${cache} (fid INTEGER, ${columnsDdl})`);
    if (todo.length === 0) return;
    const viewName = `lakerec_bisect_v${this.view++}`;
    const snapshot = this.snapshotOf(todo);
    await registerSnapshotView(conn, snapshot, viewName, { provenance: true, files: snapshot.files, allowOutsidePaths: this.opts.allowOutsidePaths }, this.opts.ctx);
    try {
      await conn.run('CREATE OR REPLACE TEMP TABLE lakerec_fidmap (lakerec_path VARCHAR, lakerec_fid INTEGER)');
      const app = await conn.createAppender('lakerec_fidmap', 'main', 'temp');
      for (const f of todo) { app.appendVarchar(f.path); app.appendInteger(f.id); app.endRow(); }
      app.flushSync();
      app.closeSync();
      const sql = `INSERT INTO ${cache} SELECT m.lakerec_fid, ${projection} FROM ${sqlIdent(viewName)} v JOIN lakerec_fidmap m ON m.lakerec_path = v._lakerec_file ${where ? `WHERE ${where}` : ''} ${groupByFile ? 'GROUP BY m.lakerec_fid' : ''}`;
      await conn.run(sql);
      if (groupByFile) {
        // A file whose rows were all filtered out still has a result: zero.
        await conn.run(`INSERT INTO ${cache} (fid) SELECT lakerec_fid FROM lakerec_fidmap WHERE lakerec_fid NOT IN (SELECT fid FROM ${cache})`);
      }
    } finally {
      await dropSnapshotView(conn, viewName);
    }
    this.read += todo.length;
    for (const f of todo) have.add(f.id);
  }

  /** A snapshot-shaped view of some files, read with the LATEST schema (so per-file results are comparable across versions). */
  snapshotOf(files: FileEntry[]): Snapshot {
    const md = this.md;
    const active: ActiveFile[] = files.map((f) => ({
      path: f.path, size: f.size, modificationTime: f.add.modificationTime,
      partitionValues: f.partitionValues, stats: null, deletionVector: f.deletionVector, numRecords: f.numRecords,
      addedInVersion: f.addedIn, add: f.add, outside: f.outside,
    }));
    const latest = this.h.states[this.h.states.length - 1];
    return sameStore(this.h, {
      root: this.h.root, version: latest.version, timestamp: latest.change?.timestamp ?? 0,
      protocol: latest.protocol ?? { minReaderVersion: 1, minWriterVersion: 2 }, metadata: md, schema: this.schema,
      partitionColumns: md.partitionColumns, columnMapping: columnMappingMode(md), files: active, numRecords: null,
    });
  }

  /** The probed version's file ids as a table (`lakerec_probe(fid)`), for a semi-join against a cache. */
  async setProbe(files: FileEntry[]): Promise<void> {
    const conn = await this.conn();
    await conn.run('CREATE OR REPLACE TEMP TABLE lakerec_probe (fid INTEGER)');
    if (files.length === 0) return;
    const app = await conn.createAppender('lakerec_probe', 'main', 'temp');
    for (const f of files) { app.appendInteger(f.id); app.endRow(); }
    app.flushSync();
    app.closeSync();
  }

  close(): void {
    this.duck?.close();
    this.duck = null;
  }
}

/**
 * The DuckDB a bisect reads data through, limited to the table's files (and the source's) before
 * any query runs: no SQL of a bisect, whatever the log or the source holds, can open another file.
 */
export async function openBisectDuck(h: Pick<History, 'root' | 'files'> & Partial<Pick<History, 'engineDirs'>>, source: string | null): Promise<Duck> {
  const duck = await openDuck({ threads: 2, memoryLimit: boundedMemoryLimit(512) });
  const outside = outsideLocalFiles(h.files);
  const src = source !== null && existsSync(source) ? source : null;
  const srcIsDir = src !== null && statSync(src).isDirectory();
  try {
    await duck.restrict({ dirs: [...(h.engineDirs ?? [h.root]), ...(srcIsDir ? [src] : [])], files: [...outside, ...(src !== null && !srcIsDir ? [src] : [])] });
  } catch (e) {
    duck.close();
    throw e;
  }
  return duck;
}
