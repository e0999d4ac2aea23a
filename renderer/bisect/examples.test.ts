import { describe, expect, it } from 'vitest';
import type { TableOverview } from '../../shared/api';
import type { ForensicsResult, VersionSummary } from '../../shared/forensics';
import { formExamples } from './examples';

const overview = (over: Partial<TableOverview>): TableOverview => ({
  path: '/t', name: 't', latestVersion: 3, oldestReadableVersion: 0, minReaderVersion: 1, minWriterVersion: 2, readerFeatures: [], writerFeatures: [],
  partitionColumns: ['dt'], files: 3, rows: 15, bytes: 30, latestReadable: true, latestUnreadableReason: null, logChanged: false, ...over,
});
const forensics = (parts: string[][]): ForensicsResult => ({ versions: parts.map((partitions, version) => ({ version, partitions }) as VersionSummary) }) as ForensicsResult;

describe('the bisect form\'s examples come from the open table', () => {
  it('the latest row count and the newest partition written to', () => {
    expect(formExamples(overview({}), forensics([[], ['dt=a'], ['dt=a'], ['dt=b']]))).toEqual({ rows: '15', partition: 'dt=b' });
  });

  it('says so when the row count is unknown or the table is not partitioned, and never names the demo lake', () => {
    expect(formExamples(overview({ rows: null, partitionColumns: [] }), forensics([[]]))).toEqual({ rows: 'rows expected', partition: 'not partitioned' });
    expect(formExamples(null, null)).toEqual({ rows: 'rows expected', partition: 'column=value' });
  });
});
