// What every writer operation shares: the table's root and state, the DuckDB connection and its
// error mapping, and the commit of a prepared set of actions as the next version. The DML
// (dml.ts), the data files (datafiles.ts) and the maintenance (maintenance.ts) work on a WriterCore;
// DeltaWriter (writer.ts) is the public face over one.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Action, AddFile, CommitInfo, Metadata, Protocol, RemoveFile, StructType } from '../../shared/delta';
import { LakerecError } from '../../shared/errors';
import { throwIfCancelled, type JobContext } from '../../shared/jobs';
import type { Duck } from '../engine/duck';
import type { Storage } from '../storage';
import { commitVersion, tableStorage } from './commit';
import { protocolFor, sameProtocol } from './features';
import { misuse, WRITER_ENGINE_INFO, type CommitResult, type WriterOptions, type WriterState } from './options';
import { parseSchema } from './schema';
import { canonicalisePath } from '../delta/paths';

/** A commit the operations prepared: its commitInfo parts, its actions, and the files it wrote. */
export interface PendingCommit {
  operation: string;
  parameters: Record<string, string>;
  metrics: Record<string, string>;
  protocol?: Protocol;
  metadata?: Metadata;
  adds: AddFile[];
  removes: RemoveFile[];
  /** Data files written for this commit (deleted when it is lost). */
  written: string[];
  blindAppend: boolean;
}

export class WriterCore {
  readonly root: string;
  readonly logDir: string;
  readonly duck: Duck;
  readonly ownsDuck: boolean;
  readonly clock: () => number;
  readonly engineInfo: string;
  readonly ctx?: JobContext;
  /** Data and DV files outside the root may be read (a sandbox over another table's files). */
  readonly allowOutside: boolean;
  st: WriterState;
  /** Counter for the temp tables holding deletion vectors' rows. */
  dvTables = 0;
  /** Things that went wrong without failing a commit (an automatic checkpoint). */
  readonly warnings: string[] = [];
  private store: Storage | null = null;
  /**
   * Runs after every commit (the automatic checkpoint). Handed in by DeltaWriter, so the core does
   * not import maintenance, which works on a core.
   */
  private readonly afterCommit: (w: WriterCore) => Promise<void>;

  constructor(root: string, state: WriterState, duck: Duck, ownsDuck: boolean, opts: WriterOptions, afterCommit: (w: WriterCore) => Promise<void>) {
    this.root = resolve(root);
    this.logDir = join(this.root, '_delta_log');
    this.st = state;
    this.duck = duck;
    this.ownsDuck = ownsDuck;
    this.clock = opts.clock ?? Date.now;
    this.engineInfo = opts.engineInfo ?? WRITER_ENGINE_INFO;
    this.ctx = opts.ctx;
    this.allowOutside = opts.allowOutsidePaths ?? false;
    this.afterCommit = afterCommit;
  }

  /** Where commits and checkpoints are published (opened on first use: the root exists by then). */
  get storage(): Storage {
    this.store ??= tableStorage(this.root);
    return this.store;
  }

  get schema(): StructType {
    return parseSchema(this.st.metadata.schemaString);
  }

  get partitionColumns(): string[] {
    return this.st.metadata.partitionColumns;
  }

  async run(sql: string, what: string): Promise<void> {
    throwIfCancelled(this.ctx);
    try {
      await this.duck.conn.run(sql);
    } catch (e) {
      throw this.sqlError(e, what);
    }
  }

  async rows(sql: string): Promise<Record<string, unknown>[]> {
    throwIfCancelled(this.ctx);
    try {
      const r = await this.duck.conn.runAndReadAll(sql);
      return r.getRowObjectsJS() as Record<string, unknown>[];
    } catch (e) {
      throw this.sqlError(e, 'query');
    }
  }

  async scalar(sql: string, what: string): Promise<number> {
    try {
      const r = await this.duck.conn.runAndReadAll(sql);
      return Number(r.getRows()[0]?.[0] ?? 0);
    } catch (e) {
      throw this.sqlError(e, what);
    }
  }

  sqlError(e: unknown, what: string): LakerecError {
    if (e instanceof LakerecError) return e;
    const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    // A table's own file that cannot be read is not the caller's mistake: say which file.
    if (/^IO Error: No files found/.test(msg)) return new LakerecError('data_file_missing', `${what}: a data file of the table is missing: ${msg}`);
    if (/^(IO Error|Invalid Input Error: File )/.test(msg)) return new LakerecError('io_error', `${what}: a file could not be read or written: ${msg}`);
    return misuse(`${what}: DuckDB rejected the statement: ${msg}`);
  }

  absolutePath(path: string): string {
    if (this.allowOutside) {
      const c = canonicalisePath(path, this.root);
      if (c.absolute !== null) return c.absolute;
    }
    return join(this.root, ...path.split('/').map((s) => decodeURIComponent(s)));
  }

  byAbsolutePath(files: AddFile[]): Map<string, AddFile> {
    return new Map(files.map((f) => [this.absolutePath(f.path), f]));
  }

  /** Writes version state.version + 1 atomically, or loses cleanly to a concurrent writer. */
  async commit(c: PendingCommit): Promise<CommitResult> {
    throwIfCancelled(this.ctx);
    const version = this.st.version + 1;
    const commitInfo: CommitInfo = {
      timestamp: this.clock(),
      operation: c.operation,
      operationParameters: c.parameters,
      readVersion: version > 0 ? this.st.version : undefined,
      isolationLevel: 'Serializable',
      isBlindAppend: c.blindAppend,
      operationMetrics: c.metrics,
      engineInfo: this.engineInfo,
      txnId: randomUUID(),
    };
    if (version === 0) delete commitInfo.readVersion;
    if (c.metadata && !c.protocol) {
      // A new column may need a table feature (timestamp_ntz): upgrade in the same commit.
      const need = protocolFor(parseSchema(c.metadata.schemaString), this.st.protocol, c.metadata.configuration);
      if (!sameProtocol(need, this.st.protocol)) c.protocol = need;
    }
    const actions: Action[] = [{ commitInfo }];
    if (c.protocol) actions.push({ protocol: c.protocol });
    if (c.metadata) actions.push({ metaData: c.metadata });
    for (const r of c.removes) actions.push({ remove: r });
    for (const a of c.adds) actions.push({ add: a });
    try {
      await commitVersion(this.storage, version, actions, () => new LakerecError('commit_conflict',
        `version ${version} was committed by another writer first; this ${c.operation} was not committed (re-read the table and retry)`,
        { version, operation: c.operation }));
    } catch (e) {
      // Lost (or failed): our data files were never referenced by any commit; remove them.
      for (const f of c.written) rmSync(f, { force: true });
      throw e;
    }
    // Apply to the in-memory state only once the version file exists.
    if (c.protocol) this.st.protocol = c.protocol;
    if (c.metadata) this.st.metadata = c.metadata;
    for (const r of c.removes) {
      this.st.files.delete(r.path);
      this.st.tombstones.set(r.path, r);
    }
    for (const a of c.adds) {
      this.st.files.set(a.path, a);
      this.st.tombstones.delete(a.path);
    }
    this.st.version = version;
    await this.afterCommit(this);
    return { version, commitInfo, adds: c.adds, removes: c.removes };
  }

  /** Deletes files written for a commit that will not happen. */
  discard(written: string[]): void {
    for (const f of written) rmSync(f, { force: true });
    written.length = 0;
  }
}
