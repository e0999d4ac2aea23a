// Each screen reads the table's log once: the window's open table (InvestigationCache, the handle
// openTable gives) owns the parsed log, and every screen's API calls are served from it. Counted
// through main/storage's own instrumentation (watchStorage sees every list and read any store
// serves): after the open and the screen's calls, `_delta_log` was listed at most once and each of
// its files (one per version) read at most once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHandlers } from '../../shared/api';
import { watchStorage, type StorageAccess } from '../storage';
import { writeDemoTable } from './demo-table';
import { createService } from './service';

let dir: string;
let table: string;
let n = 0;
const ctx = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-log-reads-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The screens, each as the API calls its tab makes once the table is open. */
const SCREENS: Record<string, (s: ApiHandlers, path: string) => Promise<unknown>> = {
  timeline: async (s, path) => { await s.timeline({ path }, ctx); await s.commitDetail({ path, version: 3 }, ctx); await s.commitDetail({ path, version: 1 }, ctx); },
  history: (s, path) => s.listVersions({ path }, ctx),
  data: async (s, path) => { await s.rows({ path }, ctx); await s.rows({ path, version: 1 }, ctx); await s.rows({ path, version: 2, addedIn: 2 }, ctx); },
  schema: async (s, path) => { await s.schemaAt({ path }, ctx); await s.schemaAt({ path, version: 1 }, ctx); await s.schemaHistory({ path }, ctx); },
  compare: (s, path) => s.compareVersions({ path, from: 1, to: 3, keys: ['order_id'] }, ctx),
  partitions: (s, path) => s.partitionHealth({ path }, ctx),
  bisect: (s, path) => s.bisect({ path, predicate: 'unique-keys', keys: ['order_id'] }, ctx),
};

/** What a screen did to `_delta_log`: how often it was listed, and each of its files read (more than once only). */
async function logReadsOf(screen: string): Promise<{ listed: number; rereads: Record<string, number>; files: number }> {
  const service = createService({ mode: 'web', userDataDir: join(dir, `userdata-${n++}`), cwd: dir, runsDir: join(dir, `runs-${n}`) });
  const seen: StorageAccess[] = [];
  const stop = watchStorage((a) => { if (a.root === table) seen.push(a); });
  try {
    // The window: the first page of the history, the open (the header), the History list beside it, then the tab.
    await service.historyHead({ path: table }, ctx);
    await service.openTable({ path: table }, ctx);
    await service.listVersions({ path: table }, ctx);
    await SCREENS[screen](service, table);
  } finally {
    stop();
  }
  const listed = seen.filter((a) => a.op === 'list' && a.path === '_delta_log').length;
  const reads = new Map<string, number>();
  for (const a of seen) if ((a.op === 'read' || a.op === 'readRange') && a.path.startsWith('_delta_log/')) reads.set(a.path, (reads.get(a.path) ?? 0) + 1);
  return { listed, rereads: Object.fromEntries([...reads].filter(([, k]) => k > 1)), files: reads.size };
}

describe('log reads per screen: the open table owns the parsed log', () => {
  it('counts what it claims to: a listing and a read per commit are seen', async () => {
    const r = await logReadsOf('history');
    expect(r.listed).toBe(1);
    expect(r.files).toBe(4); // the demo table's four commits
  });

  for (const screen of Object.keys(SCREENS)) {
    it(`${screen}: _delta_log listed once, each version's file read at most once`, async () => {
      const r = await logReadsOf(screen);
      expect({ listed: r.listed, rereads: r.rereads }).toEqual({ listed: 1, rereads: {} });
    });
  }
});
