// Hand-written Delta logs for tests: each commit is a list of actions written as newline-delimited
// JSON under _delta_log, exactly as a writer would (or as a human who doctored it by hand would).
// Data files are not written: the log-only questions (history, forensics, row-count) never open them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Action, AddFile, CommitInfo, Protocol, RemoveFile } from '../../shared/delta';

export const T0 = Date.UTC(2026, 7, 10, 12, 0, 0);

export function commitName(v: number): string {
  return `${String(v).padStart(20, '0')}.json`;
}

export class HandLog {
  readonly logDir: string;
  constructor(readonly root: string) {
    this.logDir = join(root, '_delta_log');
    mkdirSync(this.logDir, { recursive: true });
  }

  /** Writes version v's commit file from actions (or raw text, for an empty or broken file). */
  commit(v: number, actions: Action[] | string): this {
    const text = typeof actions === 'string' ? actions : actions.map((a) => JSON.stringify(a)).join('\n') + '\n';
    writeFileSync(join(this.logDir, commitName(v)), text);
    return this;
  }

  /** A version checksum file (PROTOCOL.md "Version Checksum File"). */
  crc(v: number, body: Record<string, unknown>): this {
    writeFileSync(join(this.logDir, `${String(v).padStart(20, '0')}.crc`), JSON.stringify(body) + '\n');
    return this;
  }
}

export const protocol = (p: Partial<Protocol> = {}): Action => ({ protocol: { minReaderVersion: 1, minWriterVersion: 2, ...p } });

export function metaData(partitionColumns: string[] = ['dt'], extraFields: { name: string; type: string }[] = []): Action {
  const fields = [{ name: 'id', type: 'long', nullable: true, metadata: {} }, ...partitionColumns.map((c) => ({ name: c, type: 'string', nullable: true, metadata: {} })),
    ...extraFields.map((f) => ({ ...f, nullable: true, metadata: {} }))];
  return {
    metaData: {
      id: '00000000-0000-0000-0000-000000000001', format: { provider: 'parquet', options: {} },
      schemaString: JSON.stringify({ type: 'struct', fields }), partitionColumns, configuration: {}, createdTime: T0,
    },
  };
}

export function commitInfo(v: number, operation: string, extra: Partial<CommitInfo> = {}): Action {
  return { commitInfo: { timestamp: T0 + v * 60_000, operation, operationParameters: {}, ...extra } as CommitInfo };
}

export function add(path: string, rows: number, pv: Record<string, string | null> = {}, extra: Partial<AddFile> = {}): Action {
  return {
    add: {
      path, partitionValues: pv, size: rows * 10 + 100, modificationTime: T0, dataChange: true,
      stats: JSON.stringify({ numRecords: rows, minValues: { id: 1 }, maxValues: { id: rows }, nullCount: { id: 0 } }), ...extra,
    } as AddFile,
  };
}

export function remove(path: string, rows: number | null, pv: Record<string, string | null> = {}, extra: Partial<RemoveFile> = {}): Action {
  return {
    remove: {
      path, deletionTimestamp: T0, dataChange: true, extendedFileMetadata: true, partitionValues: pv, size: (rows ?? 0) * 10 + 100,
      ...(rows === null ? {} : { stats: JSON.stringify({ numRecords: rows }) }), ...extra,
    } as RemoveFile,
  };
}
