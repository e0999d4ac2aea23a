import { appendFileSync, chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHandlers } from '../../shared/api';
import { LakerecError } from '../../shared/errors';
import type { Progress } from '../../shared/jobs';
import { writeDemoTable } from './demo-table';
import { RECENT_FILE } from './recent';
import { createService } from './service';

let dir: string;
let table: string;
let service: ApiHandlers;
const ctx = {};

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(LakerecError);
    return (e as LakerecError).code;
  }
  throw new Error('expected an error');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-service-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
  service = createService({ mode: 'web', userDataDir: join(dir, 'userdata'), cwd: dir });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('service', () => {
  it('opens a table: summary from the log, remembered in recent tables on disk', async () => {
    const r = await service.openTable({ path: 'orders' }, ctx); // relative to cwd
    expect(r.table).toMatchObject({ path: table, name: 'orders', latestVersion: 3, oldestCommitVersion: 0, commitCount: 4, partitionColumns: ['dt'], tableName: 'orders', minReaderVersion: 1, minWriterVersion: 2 });
    expect(r.recent[0].path).toBe(table);
    const onDisk = JSON.parse(readFileSync(join(dir, 'userdata', RECENT_FILE), 'utf8')) as { tables: { path: string }[] };
    expect(onDisk.tables.map((t) => t.path)).toEqual([table]);
    expect((await service.recentTables({}, ctx)).tables.map((t) => t.path)).toEqual([table]);
  });

  it('lists versions newest first with timestamp, operation and file counts, reporting progress', async () => {
    const seen: Progress[] = [];
    const r = await service.listVersions({ path: table }, { progress: (p) => seen.push(p) });
    expect(r.versions.map((v) => [v.version, v.operation, v.addedFiles, v.removedFiles])).toEqual([
      [3, 'WRITE', 1, 1], [2, 'DELETE', 1, 1], [1, 'WRITE', 1, 0], [0, 'CREATE TABLE AS SELECT', 2, 0],
    ]);
    expect(r.versions[3].timestamp).toBe(Date.UTC(2026, 10, 2, 9, 0, 0));
    expect(r.versions[0].operationParameters.replaceWhere).toBe("dt = '2026-11-01'");
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[seen.length - 1].done).toBe(seen[seen.length - 1].total);
  });

  it('stops a cancelled job with `cancelled`', async () => {
    const ac = new AbortController();
    ac.abort();
    expect(await codeOf(service.listVersions({ path: table }, { signal: ac.signal }))).toBe('cancelled');
  });

  it('names each kind of bad folder', async () => {
    expect(await codeOf(service.openTable({ path: join(dir, 'nope') }, ctx))).toBe('not_found');
    writeFileSync(join(dir, 'a-file.txt'), 'x');
    expect(await codeOf(service.openTable({ path: join(dir, 'a-file.txt') }, ctx))).toBe('not_a_folder');
    mkdirSync(join(dir, 'plain'));
    expect(await codeOf(service.openTable({ path: join(dir, 'plain') }, ctx))).toBe('not_a_delta_table');
    mkdirSync(join(dir, 'empty-log', '_delta_log'), { recursive: true });
    expect(await codeOf(service.openTable({ path: join(dir, 'empty-log') }, ctx))).toBe('not_a_delta_table');
  });

  it('refuses a broken log and never lists half of it; a log with a hole opens and names the missing version', async () => {
    const broken = join(dir, 'broken');
    cpSync(table, broken, { recursive: true });
    appendFileSync(join(broken, '_delta_log', '00000000000000000002.json'), '{"add": {"path": "x.parquet", \n');
    expect(await codeOf(service.openTable({ path: broken }, ctx))).toBe('log_corrupt');
    expect(await codeOf(service.listVersions({ path: broken }, ctx))).toBe('log_corrupt');

    const holed = join(dir, 'holed');
    cpSync(table, holed, { recursive: true });
    unlinkSync(join(holed, '_delta_log', '00000000000000000001.json'));
    // a finding, not an error: the table still opens, the versions list says what the log holds
    const listed = await service.listVersions({ path: holed }, ctx);
    expect(listed.versions.map((v) => v.version)).not.toContain(1);
    const f = (await service.forensics({ path: holed }, ctx)).forensics;
    expect(f.heuristics.find((h) => h.name === 'version_missing')).toMatchObject({ version: 1, severity: 'warn' });
    expect(f.versions.find((v) => v.version === 1)).toMatchObject({ readable: false, unreadableCause: 'version_missing' });
  });

  it.skipIf(process.getuid?.() === 0)('says when a folder cannot be read (skipped as root: root reads everything)', async () => {
    const locked = join(dir, 'locked');
    cpSync(table, locked, { recursive: true });
    chmodSync(locked, 0o000);
    try {
      expect(await codeOf(service.openTable({ path: locked }, ctx))).toBe('io_error');
    } finally {
      chmodSync(locked, 0o755);
    }
  });

  it('forgets a recent table; a damaged recent file reads as empty', async () => {
    expect((await service.forgetRecent({ path: table }, ctx)).tables).toEqual([]);
    writeFileSync(join(dir, 'userdata', RECENT_FILE), '{not json');
    expect((await service.recentTables({}, ctx)).tables).toEqual([]);
    await service.openTable({ path: table }, ctx);
    expect((await service.recentTables({}, ctx)).tables).toHaveLength(1);
  });

  it('has no folder dialog in web mode, and says so', async () => {
    expect(await codeOf(service.pickFolder({}, ctx))).toBe('usage');
    expect(await service.appInfo({}, ctx)).toMatchObject({ canPickFolder: false, canPickSource: false, canSaveFiles: false, canResolveDroppedFiles: false });
  });
});

describe('sample lakes', () => {
  it('finds every table under the lakes folder, named by its lake, and picks the demo lake to open', async () => {
    const { findSampleTables } = await import('./service');
    const { defaultSample } = await import('./samples');
    const lakes = join(dir, 'lakes');
    for (const lake of ['control', 'demo']) {
      mkdirSync(join(lakes, lake, 'table', '_delta_log'), { recursive: true });
      mkdirSync(join(lakes, lake, 'source'), { recursive: true });
    }
    mkdirSync(join(lakes, 'loose', '_delta_log'), { recursive: true });
    const found = findSampleTables(lakes);
    expect(found.map((s) => s.name)).toEqual(['control', 'demo', 'loose']);
    expect(found[1].path).toBe(join(lakes, 'demo', 'table'));
    expect(defaultSample(found)?.name).toBe('demo');
    expect(defaultSample([])).toBeNull();
  });
});

describe('the first page of the history (historyHead)', () => {
  it('comes from the listing and the newest commits alone, and equals the head of the full list', async () => {
    const { writeLog } = await import('../bench/history');
    const { watchStorage } = await import('../storage');
    const { FIRST_PAGE_VERSIONS } = await import('../../shared/api');
    const root = join(dir, 'long-120');
    writeLog(root, 120, 60);
    const s = createService({ mode: 'web', userDataDir: join(dir, 'userdata-head'), cwd: dir });
    const read: string[] = [];
    const stop = watchStorage((a) => { if (a.root === root && a.op === 'read') read.push(a.path); });
    let head;
    try {
      ({ head } = await s.historyHead({ path: root }, ctx));
    } finally {
      stop();
    }
    expect(head.latestVersion).toBe(119);
    expect(head.commitCount).toBe(120);
    expect(head.versions).toHaveLength(FIRST_PAGE_VERSIONS);
    expect(head.versions[0].version).toBe(119);
    // Only the newest commits were read: no older commit, no replay.
    expect(read.sort()).toEqual(head.versions.map((v) => `_delta_log/${String(v.version).padStart(20, '0')}.json`).sort());
    const full = await s.listVersions({ path: root }, ctx);
    expect(head.versions).toEqual(full.versions.slice(0, FIRST_PAGE_VERSIONS));
  });

  it('refuses what is not a table the way the open does', async () => {
    const s = createService({ mode: 'web', userDataDir: join(dir, 'userdata-head2'), cwd: dir });
    expect(await codeOf(s.historyHead({ path: join(dir, 'nope') }, ctx))).toBe('not_found');
  });
});
