// The app-data JSON lists (recent tables, accepted files, lineage projects) read through one helper:
// a hostile file (corrupt, oversized, a folder, a FIFO, the wrong shape) reads as an empty list with
// one line saying why, never a throw or a hang, and the next change replaces it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonListFile, MAX_LIST_BYTES } from './json-list';
import { AcceptedContracts } from './accepted-files';
import { RecentTables } from '../app/recent';
import { LineageProjects } from '../app/lineage';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-json-list-')); });
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

interface Item { name: string }
const isItem = (v: unknown): v is Item => typeof (v as Item | null)?.name === 'string';

function store(file: string, extra: Partial<ConstructorParameters<typeof JsonListFile<Item>>[0]> = {}) {
  const lines: string[] = [];
  const s = new JsonListFile<Item>({ file, what: 'the test list', isEntry: isItem, max: 3, keep: 'last', warn: (l) => lines.push(l), ...extra });
  return { s, lines };
}

const ONE_LINE = /^the test list \S+ (is not valid JSON|is not a JSON list|has no "items" list|is not a regular file|is \d+ bytes, more than the \d+ a list of this kind can hold); it is read as empty and replaced on the next change$/;

describe('one JSON list file', () => {
  it('a missing file is an empty list, no problem; writes keep the bound and the end asked for', () => {
    const file = join(dir, 'new', 'list.json');
    const { s, lines } = store(file);
    expect(s.readWithProblem()).toEqual({ entries: [], problem: null });
    s.update((l) => [...l, { name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }]);
    expect(s.read().map((e) => e.name)).toEqual(['b', 'c', 'd']);
    const first = store(file, { keep: 'first' }).s;
    first.update((l) => [{ name: 'z' }, ...l]);
    expect(first.read().map((e) => e.name)).toEqual(['z', 'b', 'c']);
    expect(lines).toEqual([]);
  });

  it('entries of the wrong shape are dropped; a keyed list is read under its key', () => {
    const file = join(dir, 'keyed.json');
    writeFileSync(file, JSON.stringify({ items: [{ name: 'ok' }, { name: 1 }, null, 'x', { other: true }] }));
    const { s, lines } = store(file, { key: 'items' });
    expect(s.read()).toEqual([{ name: 'ok' }]);
    expect(lines).toEqual([]);
  });

  it.each([
    ['corrupt', (f: string) => writeFileSync(f, '{not json'), /is not valid JSON/],
    ['not a list', (f: string) => writeFileSync(f, '{"a":1}'), /is not a JSON list/],
    ['JSON null', (f: string) => writeFileSync(f, 'null'), /is not a JSON list/],
    ['oversized', (f: string) => { writeFileSync(f, '['); truncateSync(f, MAX_LIST_BYTES + 1); }, /is \d+ bytes, more than/],
    ['a folder', (f: string) => mkdirSync(f), /is not a regular file/],
  ])('%s: an empty list and one line naming the file; the next change replaces it', (what, plant, why) => {
    const file = join(dir, `hostile-${what.replace(/ /g, '-')}.json`);
    plant(file);
    const { s, lines } = store(file);
    const r = s.readWithProblem();
    expect(r.entries).toEqual([]);
    expect(r.problem).toMatch(ONE_LINE);
    expect(r.problem).toMatch(why);
    expect(r.problem).toContain(file);
    expect(lines).toEqual([r.problem]);
    if (what !== 'a folder') {
      s.update((l) => [...l, { name: 'fresh' }]);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([{ name: 'fresh' }]);
      expect(s.readWithProblem()).toEqual({ entries: [{ name: 'fresh' }], problem: null });
    }
  });

  it('a FIFO is refused without waiting for a writer', () => {
    const file = join(dir, 'fifo.json');
    execFileSync('mkfifo', [file]);
    const { s } = store(file);
    const t0 = Date.now();
    expect(s.readWithProblem().problem).toMatch(/is not a regular file/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe('the three app-data stores on the helper', () => {
  it('a corrupt file in each: the store answers empty with one line and keeps working', async () => {
    const data = join(dir, 'appdata');
    mkdirSync(data, { recursive: true });
    for (const f of ['recent-tables.json', 'accepted-contracts.json', 'lineage-projects.json']) writeFileSync(join(data, f), '\u0000garbage');
    const lines: string[] = [];
    const warn = (l: string) => lines.push(l);
    const recent = new RecentTables(data, warn);
    const accepted = new AcceptedContracts(data, undefined, warn);
    const lineage = new LineageProjects(data, warn);
    expect(await recent.list()).toEqual([]);
    expect(accepted.isAccepted(join(data, 'c.yaml'), 'ab')).toBe(false);
    expect(lineage.get(join(data, 't'))).toBeNull();
    expect(lines.map((l) => l.replace(data, 'D'))).toEqual([
      'the recent tables list D/recent-tables.json is not valid JSON; it is read as empty and replaced on the next change',
      'the accepted files list D/accepted-contracts.json is not valid JSON; it is read as empty and replaced on the next change',
      'the lineage settings D/lineage-projects.json is not valid JSON; it is read as empty and replaced on the next change',
    ]);
    await recent.remember({ path: '/t', name: 't', openedAt: 1 } as Parameters<RecentTables['remember']>[0]);
    accepted.accept(join(data, 'c.yaml'), 'ab');
    lineage.set(join(data, 't'), '/project', null);
    expect((await recent.list()).map((t) => t.path)).toEqual(['/t']);
    expect(accepted.isAccepted(join(data, 'c.yaml'), 'ab')).toBe(true);
    expect(lineage.get(join(data, 't'))).toMatchObject({ project: '/project', model: null });
    expect(statSync(join(data, 'accepted-contracts.json')).mode & 0o777).toBe(0o600);
    expect(lines).toHaveLength(3);
  });
});
