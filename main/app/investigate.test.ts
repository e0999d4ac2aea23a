// The investigation and bisect methods of the service, over a real table (the demo table: real
// JSON commits and Parquet written by DuckDB) and, when built, the sample lakes.
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packRows, unpackRows, validateRequest, type ApiHandlers, type JobProgress } from '../../shared/api';
import { LakerecError } from '../../shared/errors';
import { writeDemoTable } from './demo-table';
import { createService } from './service';

let dir: string;
let table: string;
let service: ApiHandlers;
const lakes = resolve(__dirname, '..', '..', 'sample-lakes', 'built');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-investigate-'));
  table = join(dir, 'orders');
  await writeDemoTable(table);
  service = createService({ mode: 'web', userDataDir: join(dir, 'userdata'), cwd: dir });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('forensics and commitDetail', () => {
  it('summarises every version and the header from the log', async () => {
    const r = await service.forensics({ path: 'orders' }, {});
    expect(r.overview).toMatchObject({ path: table, name: 'orders', latestVersion: 3, partitionColumns: ['dt'], minReaderVersion: 1, minWriterVersion: 2 });
    expect(r.forensics.versions.map((v) => v.version)).toEqual([0, 1, 2, 3]);
    const last = r.forensics.versions[3];
    expect(r.overview.rows).toBe(last.tableRows);
    expect(r.overview.files).toBe(last.tableFiles);
    expect(r.overview.bytes).toBeGreaterThan(0);
  });

  it('the header says whether the latest version can be read: its figures are then the log\'s, not a read', async () => {
    const r = await service.forensics({ path: 'orders' }, {});
    expect(r.overview).toMatchObject({ latestReadable: true, latestUnreadableReason: null });
    const root = join(dir, 'future-reader');
    cpSync(table, root, { recursive: true });
    writeFileSync(join(root, '_delta_log', '00000000000000000004.json'), [
      { commitInfo: { timestamp: Date.UTC(2026, 7, 20), operation: 'SET TBLPROPERTIES', operationParameters: {} } },
      { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['aFeatureFromTheFuture'], writerFeatures: ['aFeatureFromTheFuture'] } },
    ].map((a) => JSON.stringify(a)).join('\n') + '\n');
    const u = await service.forensics({ path: root }, {});
    expect(u.overview.latestVersion).toBe(4);
    expect(u.overview.latestReadable).toBe(false);
    expect(u.overview.latestUnreadableReason).toMatch(/aFeatureFromTheFuture/);
    expect(u.forensics.versions[4].readable).toBe(false);
  });

  it('the timeline method carries the same versions packed by column, every lake round-tripping exactly', async () => {
    const roots = [table, ...['vacuumed_history', 'missing_rows_dv', 'double_load'].map((l) => join(lakes, l, 'table')).filter((p) => existsSync(p))];
    for (const root of roots) {
      const plain = await service.forensics({ path: root }, {});
      const packed = await service.timeline({ path: root }, {});
      // Through JSON, as over the wire: the same records, the same everything else.
      const wire = JSON.parse(JSON.stringify(packed)) as typeof packed;
      expect(unpackRows(wire.forensics.versions)).toEqual(JSON.parse(JSON.stringify(plain.forensics.versions)));
      expect({ ...wire.forensics, versions: null }).toEqual(JSON.parse(JSON.stringify({ ...plain.forensics, versions: null })));
      expect(wire.overview).toEqual(plain.overview);
    }
    // A field only some records have stays absent on the others (unreadableReason).
    const rows = unpackRows<{ a: number; b?: string }>(packRows([{ a: 1, b: 'x' }, { a: 2 }, { a: 3, b: 'x' }]));
    expect(rows).toEqual([{ a: 1, b: 'x' }, { a: 2 }, { a: 3, b: 'x' }]);
    expect('b' in rows[1]).toBe(false);
  });

  it('opens one version: files added and removed, per-partition change that adds up', async () => {
    const r = await service.forensics({ path: table }, {});
    for (const s of r.forensics.versions) {
      const d = await service.commitDetail({ path: table, version: s.version }, {});
      expect(d.summary).toEqual(s);
      expect(d.added.length).toBe(s.addedFiles);
      expect(d.removed.length).toBe(s.removedFiles);
      const sum = (k: 'addedRows' | 'removedRows' | 'addedFiles' | 'removedFiles') => d.partitions.reduce((n, p) => n + p[k], 0);
      expect(sum('addedFiles')).toBe(s.addedFiles);
      expect(sum('removedFiles')).toBe(s.removedFiles);
      if (s.addedRows !== null) expect(sum('addedRows')).toBe(s.addedRows);
      if (s.removedRows !== null) expect(sum('removedRows')).toBe(s.removedRows);
      for (const f of [...d.added, ...d.removed]) expect(f.partition).toMatch(/^dt=\d{4}-\d\d-\d\d$/);
      expect(d.commitInfo?.operation).toBe(s.operation);
    }
  });

  it('refuses a version the table does not have, and a bad request, as typed errors', async () => {
    await expect(service.commitDetail({ path: table, version: 99 }, {})).rejects.toMatchObject({ code: 'version_not_found' });
    expect(() => validateRequest('commitDetail', { path: table, version: -1 })).toThrow(LakerecError);
    expect(() => validateRequest('bisect', { path: table, predicate: 'nope' })).toThrow(/predicate/);
    expect(() => validateRequest('bisect', { path: table, predicate: 'row-count', expect: 'x' })).toThrow(/expect/);
    await expect(service.forensics({ path: join(dir, 'nothing') }, {})).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('bisect through the service', () => {
  it('sends every probe as progress data, in order, and they match the result', async () => {
    const events: JobProgress<'bisect'>[] = [];
    // Each probe travels as progress while the job still runs (the window colours cells live).
    let ended = false;
    const probesAfterEnd: number[] = [];
    const job = service.bisect({ path: table, predicate: 'row-count', expect: 0, allowMoving: true }, {
      progress: (p) => { events.push(p as JobProgress<'bisect'>); if (ended && (p as JobProgress<'bisect'>).data?.kind === 'probe') probesAfterEnd.push(events.length); },
    });
    const r = await job.finally(() => { ended = true; });
    expect(probesAfterEnd).toEqual([]);
    expect(events.some((e) => e.data?.kind === 'probe')).toBe(true);
    const plans = events.flatMap((e) => (e.data?.kind === 'plan' ? [e.data] : []));
    expect(plans).toEqual([{ kind: 'plan', latestVersion: 3, unreadableVersions: [], unreadable: [], partitionAppearsAt: null, exhaustive: true }]);
    expect(events.findIndex((e) => e.data?.kind === 'plan')).toBeLessThan(events.findIndex((e) => e.data?.kind === 'probe'));
    const probes = events.flatMap((e) => (e.data?.kind === 'probe' ? [e.data] : []));
    expect(probes.length).toBe(r.examined);
    expect(probes.map((p) => p.probeIndex)).toEqual(r.probes.map((p) => p.probeIndex));
    expect(probes.map((p) => [p.version, p.state])).toEqual(r.probes.map((p) => [p.version, p.state]));
  });

  it('cancels when the signal fires', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(service.bisect({ path: table, predicate: 'unique-keys', keys: ['order_id'] }, { signal: ac.signal })).rejects.toMatchObject({ code: 'cancelled' });
  });

  it.skipIf(!existsSync(join(lakes, 'double_load')))('finds the double load in the sample lake (skipped when sample lakes are not built)', async () => {
    const path = join(lakes, 'double_load', 'table');
    const r = await service.bisect({ path, predicate: 'unique-keys', keys: ['order_id'] }, {});
    expect(r).toMatchObject({ outcome: 'bad', firstBad: 7, lastGood: 6, exhaustive: true });
    const f = await service.forensics({ path }, {});
    expect(f.forensics.heuristics.some((h) => h.name === 'duplicate_batch' && h.version === 7)).toBe(true);
  });
});
