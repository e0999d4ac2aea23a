// Composing the incident report around what the reconcile found: which bisect the findings call
// for, the note when the timeline or the bisect cannot run, the break that leads to today's
// state, the excerpt of a long history, the file's name.
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BisectResult } from '../../shared/bisect';
import type { Finding, ReconcileResult } from '../../shared/reconcile';
import { forensics } from '../forensics/forensics';
import { parseContract } from '../reconcile/contract';
import { reconcile } from '../reconcile/reconcile';
import { bisectSpecFor, composeIncident, incidentBreak, incidentFileName, incidentTitle, renderIncidentHtml, timelineExcerpt } from './report';

const lakes = resolve(__dirname, '..', '..', 'sample-lakes', 'built');
const control = join(lakes, 'control');
let matches: ReconcileResult;

beforeAll(async () => {
  matches = await reconcile({ source: join(control, 'source', 'orders.parquet'), target: { root: join(control, 'table') }, contract: parseContract(readFileSync(join(control, 'contract.yaml'), 'utf8')), level: 'counts' });
});

const finding = (mode: Finding['mode']): Finding => ({
  mode, blocking: true, summary: `${mode} seen`, meaning: 'm', action: 'a', level: 'counts',
  evidence: { counts: { rows: 1 }, partitions: [], exampleKeys: [], exampleRows: [], notes: [] },
});
const diverging = (over: Partial<ReconcileResult>): ReconcileResult => ({ ...matches, verdict: 'diverges', exitCode: 1, ...over });

describe('the bisect the findings call for', () => {
  it('none for a match; unique keys for a double load, null keys for null keys, under the target\'s names', () => {
    expect(bisectSpecFor(matches, '/s')).toBeNull();
    const renamed = { ...matches.contract, keys: ['order_id'], renames: { order_id: 'id' } };
    expect(bisectSpecFor(diverging({ findings: [finding('double_load')], contract: renamed }), null)).toEqual({ predicate: 'unique-keys', keys: ['id'] });
    expect(bisectSpecFor(diverging({ findings: [finding('null_keys')] }), null)).toEqual({ predicate: 'no-null-keys', keys: ['order_id'] });
    expect(bisectSpecFor(diverging({ findings: [{ ...finding('double_load'), blocking: false }] }), null)).toBeNull();
  });

  it('else the first disagreeing partition against a file source, never a late or matching one', () => {
    const parts = [
      { ...matches.partitions[0], state: 'late', value: '2026-08-10', partition: 'dt=2026-08-10' },
      { ...matches.partitions[0], state: 'differs', value: '2026-08-11', partition: 'dt=2026-08-11' },
    ] as ReconcileResult['partitions'];
    const r = diverging({ findings: [finding('missing_rows')], partitions: parts });
    expect(bisectSpecFor(r, '/s.parquet')).toEqual({ predicate: 'matches-source', partition: 'dt=2026-08-11', source: '/s.parquet' });
    expect(bisectSpecFor(r, null)).toBeNull();
    expect(bisectSpecFor({ ...r, source: { ...r.source, kind: 'delta' } }, '/s')).toBeNull();
  });
});

describe('composing', () => {
  it('a matching table: the timeline, no bisect and why', async () => {
    const steps: string[] = [];
    const i = await composeIncident({ result: matches, table: join(control, 'table'), source: null, toolVersion: '0.0.0', now: new Date('2026-08-18T09:00:00.000Z'), ctx: { progress: (p) => steps.push(p.phase) } });
    expect(i.forensics?.versions.length).toBe(7);
    expect(i.bisect).toBeUndefined();
    expect(i.bisectNote).toBe('Not run: the table matches its source, there is nothing to bisect.');
    expect([steps[0], steps.at(-1)]).toEqual(['reading the timeline', 'writing the report']);
    expect(steps.some((x) => x.startsWith('bisecting'))).toBe(false);
    expect(incidentFileName(i)).toBe('lakerec-incident-control-20260818T090000Z.html');
    expect(incidentTitle(i)).toBe('lakerec incident report: control/table, matches');
    expect(renderIncidentHtml(i)).toContain('Not run: the table matches its source, there is nothing to bisect.');
  });

  it('a table that cannot be read: the timeline and the bisect say why, the report still renders', async () => {
    const gone = join(lakes, 'no-such-lake', 'orders');
    const i = await composeIncident({ result: diverging({ findings: [finding('double_load')] }), table: gone, source: null, toolVersion: '0.0.0' });
    expect(i.forensicsNote).toMatch(/^The timeline could not be read: /);
    expect(i.bisectNote).toMatch(/^The bisect \(unique-keys\) could not run: /);
    const html = renderIncidentHtml(i);
    expect(html).toContain('double_load seen');
    expect(html).toContain('The timeline could not be read');
    expect(html).toContain('the timeline was not read');
    expect(incidentFileName(i)).toMatch(/^lakerec-incident-orders-/);
    const none = await composeIncident({ result: diverging({ findings: [finding('schema_drift')] }), table: gone, source: null, toolVersion: '0.0.0' });
    expect(none.bisectNote).toBe('Not run: no finding names a predicate the history can be searched with (see the findings).');
  });

  it('a cancelled job stops, it is not written up as a note', async () => {
    const c = new AbortController();
    c.abort();
    await expect(composeIncident({ result: matches, table: join(control, 'table'), source: null, toolVersion: '0', ctx: { signal: c.signal } })).rejects.toMatchObject({ code: 'cancelled' });
  });
});

const bisected = (b: Partial<BisectResult>): BisectResult => ({ firstBad: null, lastGood: null, transitions: [], latestState: 'good', culprit: null, probes: [], ...b } as BisectResult);

describe('the break an incident is about', () => {
  it('the first bad version, or the last break when the history recovered and broke again', () => {
    expect(incidentBreak(bisected({}))).toBeNull();
    expect(incidentBreak(bisected({ firstBad: 4, lastGood: 3, latestState: 'bad', transitions: [{ kind: 'broke', from: 3, to: 4 }] }))).toEqual({ version: 4, lastGood: 3, note: null });
    const again = incidentBreak(bisected({ firstBad: 0, lastGood: null, latestState: 'bad', transitions: [{ kind: 'broke', from: -1, to: 0 }, { kind: 'recovered', from: 2, to: 3 }, { kind: 'broke', from: 6, to: 7 }] }));
    expect(again).toEqual({ version: 7, lastGood: 6, note: 'The first bad version is v0, but the history recovered at v3; the break that leads to the latest version is v6 → v7.' });
  });

  it('a long history: the versions around the break, the warnings, then the latest, at most the limit', async () => {
    const f = await forensics(join(lakes, 'bisect_many_versions', 'table'));
    expect(f.versions.length).toBeGreaterThan(14);
    expect(timelineExcerpt({ ...f, versions: f.versions.slice(0, 5) }, null)).toHaveLength(5);
    const ex = timelineExcerpt({ ...f, heuristics: [] }, bisected({ firstBad: 20, lastGood: 19, latestState: 'bad', transitions: [{ kind: 'broke', from: 19, to: 20 }] }));
    const vs = ex.map((v) => v.version);
    expect(vs.length).toBe(14);
    for (const v of [17, 18, 19, 20, 21, 22]) expect(vs).toContain(v);
    expect(vs).toContain(f.latestVersion);
    expect(vs).not.toContain(0);
  });
});
