// Tiny genuine Delta tables for the forensics and bisect tests: real JSON commits (protocol,
// metaData, add/remove with stats, commitInfo) and real Parquet written by DuckDB. Partition
// columns are not stored in the Parquet files, as the protocol says.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Action, AddFile, CommitInfo, RemoveFile } from '../../shared/delta';
import { openDuck, sqlIdent, sqlString, type Duck } from '../engine/duck';

export type Cell = string | number | null;
export type Row = Record<string, Cell>;
export interface Column { name: string; type: 'long' | 'string' | 'date' | 'double' }

const duckType: Record<Column['type'], string> = { long: 'BIGINT', string: 'VARCHAR', date: 'DATE', double: 'DOUBLE' };

export class TinyLake {
  version = -1;
  private clock = Date.UTC(2026, 7, 17, 19, 47, 0);
  private live = new Map<string, AddFile>();
  private constructor(readonly root: string, readonly columns: Column[], readonly partitionColumns: string[], private duck: Duck) {}

  static async create(root: string, columns: Column[], partitionColumns: string[] = []): Promise<TinyLake> {
    mkdirSync(join(root, '_delta_log'), { recursive: true });
    const lake = new TinyLake(root, columns, partitionColumns, await openDuck({ threads: 1 }));
    const schemaString = JSON.stringify({ type: 'struct', fields: columns.map((c) => ({ name: c.name, type: c.type, nullable: true, metadata: {} })) });
    lake.writeCommit([
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      { metaData: { id: randomUUID(), format: { provider: 'parquet', options: {} }, schemaString, partitionColumns, configuration: {}, createdTime: lake.clock } },
    ], { operation: 'CREATE TABLE', operationParameters: { partitionBy: JSON.stringify(partitionColumns) } });
    return lake;
  }

  close(): void { this.duck.close(); }

  /** Writes each batch (rows of one partition) as one Parquet file; returns the add actions. */
  async writeFiles(batches: Row[][]): Promise<AddFile[]> {
    const adds: AddFile[] = [];
    for (const rows of batches) {
      const dataCols = this.columns.filter((c) => !this.partitionColumns.includes(c.name));
      const pv: Record<string, string | null> = {};
      for (const p of this.partitionColumns) pv[p] = rows[0][p] === null ? null : String(rows[0][p]);
      const dir = this.partitionColumns.map((p) => `${p}=${pv[p] ?? '__HIVE_DEFAULT_PARTITION__'}`).join('/');
      const rel = (dir ? dir + '/' : '') + `part-${randomUUID()}.parquet`;
      mkdirSync(join(this.root, dir), { recursive: true });
      const lit = (v: Cell, c: Column) => (v === null ? `NULL::${duckType[c.type]}` : `${sqlString(String(v))}::${duckType[c.type]}`);
      const values = rows.map((r) => `(${dataCols.map((c) => lit(r[c.name] ?? null, c)).join(', ')})`).join(',\n');
      await this.duck.conn.run(`COPY (SELECT * FROM (VALUES ${values}) t(${dataCols.map((c) => sqlIdent(c.name)).join(', ')})) TO ${sqlString(join(this.root, rel))} (FORMAT parquet)`);
      const minValues: Record<string, Cell> = {};
      const maxValues: Record<string, Cell> = {};
      const nullCount: Record<string, number> = {};
      for (const c of dataCols) {
        const vals = rows.map((r) => r[c.name] ?? null).filter((v) => v !== null) as (string | number)[];
        nullCount[c.name] = rows.length - vals.length;
        if (vals.length) {
          const sorted = [...vals].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          minValues[c.name] = sorted[0];
          maxValues[c.name] = sorted[sorted.length - 1];
        }
      }
      const add: AddFile = {
        path: rel, partitionValues: pv, size: 1000 + rows.length, modificationTime: this.clock, dataChange: true,
        stats: JSON.stringify({ numRecords: rows.length, minValues, maxValues, nullCount }),
      };
      adds.push(add);
    }
    return adds;
  }

  async append(batches: Row[][], extra: Partial<CommitInfo> = {}): Promise<number> {
    const adds = await this.writeFiles(batches);
    return this.writeCommit(adds.map((add) => ({ add })), { operation: 'WRITE', operationParameters: { mode: 'Append' }, isBlindAppend: true, ...extra });
  }

  /** Removes `removePaths` (or every live file matching `where`) and adds `batches`. */
  async overwrite(opts: { remove: (f: AddFile) => boolean; batches?: Row[][]; predicate?: string; operation?: string; params?: Record<string, unknown> }): Promise<number> {
    const adds = await this.writeFiles(opts.batches ?? []);
    const removes: RemoveFile[] = [...this.live.values()].filter(opts.remove).map((f) => ({
      path: f.path, deletionTimestamp: this.clock, dataChange: true, extendedFileMetadata: true,
      partitionValues: f.partitionValues, size: f.size, stats: f.stats,
    }));
    return this.writeCommit([...removes.map((remove) => ({ remove })), ...adds.map((add) => ({ add }))], {
      operation: opts.operation ?? 'WRITE',
      operationParameters: opts.params ?? { mode: 'Overwrite', ...(opts.predicate ? { predicate: JSON.stringify([opts.predicate]) } : {}) },
      isBlindAppend: false,
    });
  }

  liveFiles(): AddFile[] { return [...this.live.values()]; }

  writeCommit(actions: Action[], info: Partial<CommitInfo>, timestamp?: number): number {
    this.version += 1;
    this.clock = timestamp ?? this.clock + 1000;
    const commitInfo: CommitInfo = { timestamp: this.clock, engineInfo: 'lakerec-testkit/0', isolationLevel: 'Serializable', ...info };
    const lines = [{ commitInfo }, ...actions].map((a) => JSON.stringify(a));
    writeFileSync(join(this.root, '_delta_log', `${String(this.version).padStart(20, '0')}.json`), lines.join('\n') + '\n');
    for (const a of actions) {
      if (a.remove) this.live.delete(a.remove.path);
      if (a.add) this.live.set(a.add.path, a.add);
    }
    return this.version;
  }
}
