// The workbench handlers reuse the service's open table: schema history and partition health read
// the history the investigation screens built (no commit file read again), and a new commit is
// seen on the next call (the open table is refreshed when the log changes).
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { add, commitInfo, HandLog, metaData, protocol } from '../testing/handlog';
import { InvestigationCache } from './investigate';
import { createViewsHandlers } from './views';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-wbhist-svc-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('workbench handlers over the open table', () => {
  it('partition health and schema history read the open table\'s history; a new commit is seen', async () => {
    const root = join(dir, 't');
    const log = new HandLog(root)
      .commit(0, [commitInfo(0, 'WRITE'), protocol(), metaData(['dt']), add('dt=1/a.parquet', 10, { dt: '1' })])
      .commit(1, [commitInfo(1, 'WRITE'), add('dt=2/b.parquet', 5, { dt: '2' })]);
    const tables = new InvestigationCache();
    const wb = createViewsHandlers({ cwd: dir, tables });
    await tables.forensics(root, {});
    const table = await tables.table(root, {});
    const history = await table.history();
    const reads = table.commitReads;
    const ph = await wb.partitionHealth({ path: 't' }, {});
    const sh = await wb.schemaHistory({ path: 't' }, {});
    expect(table.commitReads).toBe(reads);
    expect(await table.history()).toBe(history);
    expect(ph.versions.map((v) => [v.version, v.files, v.rows])).toEqual([[0, 1, 10], [1, 2, 15]]);
    expect(sh.versions.map((v) => v.version)).toEqual([0]);
    log.commit(2, [commitInfo(2, 'WRITE'), add('dt=1/c.parquet', 7, { dt: '1' })]);
    // The log folder's mtime is the cache's stamp: move it on explicitly (coarse clocks), no sleep.
    const later = new Date(Date.now() + 60_000);
    utimesSync(log.logDir, later, later);
    const again = await wb.partitionHealth({ path: 't' }, {});
    expect(again.versions.map((v) => v.rows)).toEqual([10, 15, 22]);
    expect(table.commitReads).toBe(reads + 1);
  });
});
