// The versions filter (the CLI's --user/--writer/--text/... and the timeline's boxes): one rule,
// a case-insensitive substring, on every text field; Text also searches what the Who column shows.
import { describe, expect, it } from 'vitest';
import { matchesFilter, NO_WHO, type VersionSummary } from './forensics';

const v = (over: Partial<VersionSummary> = {}): VersionSummary => ({
  version: 1, timestamp: Date.UTC(2026, 7, 10, 12), when: '2026-08-10T12:00:00.000Z', operation: 'WRITE', operationParameters: { mode: 'Append' },
  writer: 'Apache-Spark/3.5 Delta-Lake/3.2', timestampSource: 'commitInfo', isolationLevel: null, isBlindAppend: true, readVersion: null,
  addedFiles: 1, removedFiles: 0, addedRows: 10, removedRows: 0, dvDeletedRows: 0, rewrittenFiles: 0, addedBytes: 1, removedBytes: 0,
  tableRows: 10, tableFiles: 1, partitions: ['dt=2026-08-10'], rearrangeOnly: false, hasCommitFile: true, hasCheckpoint: false, readable: true,
  protocolChanged: false, metadataChanged: false,
  who: { ...NO_WHO, userName: 'j.doe@example.com', userId: '17', engineInfo: 'Apache-Spark/3.5 Delta-Lake/3.2', job: { id: '9', name: 'nightly-load', run: '44' }, notebook: 'nb-orders', clusterId: 'c-1', txnId: 't-1', userMetadata: 'ticket OPS-12' },
  ...over,
});

describe('matchesFilter: one rule (case-insensitive substring) on every field', () => {
  it('User: part of the user name or id, any case', () => {
    for (const user of ['j.doe', 'J.DOE@', 'example.com', 'j.doe@example.com', '17']) expect(matchesFilter(v(), { user }), user).toBe(true);
    expect(matchesFilter(v(), { user: 'alice' })).toBe(false);
  });

  it('Writer: part of engineInfo, any case', () => {
    expect(matchesFilter(v(), { writer: 'spark' })).toBe(true);
    expect(matchesFilter(v(), { writer: 'duckdb' })).toBe(false);
  });

  it('Operation and Partition: part of the operation, part of a partition', () => {
    expect(matchesFilter(v(), { operation: 'writ' })).toBe(true);
    expect(matchesFilter(v(), { operation: 'DELETE' })).toBe(false);
    expect(matchesFilter(v(), { partition: 'dt=2026-08' })).toBe(true);
    expect(matchesFilter(v(), { partition: 'dt=2026-09' })).toBe(false);
  });

  it('Text: userMetadata, parameters, and the job, notebook, cluster and txn fields the Who column shows', () => {
    for (const text of ['ops-12', 'append', 'nightly', 'NB-ORDERS', 'run 44', 'c-1', 't-1']) expect(matchesFilter(v(), { text }), text).toBe(true);
    expect(matchesFilter(v(), { text: 'weekly' })).toBe(false);
  });

  it('a commit that says nothing about who wrote it matches no user, writer or text', () => {
    const bare = v({ who: NO_WHO, operationParameters: {} });
    expect(matchesFilter(bare, { user: 'a' })).toBe(false);
    expect(matchesFilter(bare, { writer: 'a' })).toBe(false);
    expect(matchesFilter(bare, { text: 'job' })).toBe(false);
  });
});
