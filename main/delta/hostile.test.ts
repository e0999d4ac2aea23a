// The reader against the hostile corpus (main/testing/hostile-tables.ts): every case refused where it should
// be, with its code and the path or knob it names, never a byte of a file outside the root, never
// a hang (a FIFO would block the test past its timeout) or a crash; the table's files unchanged;
// the CLI gives one line and exit 3.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCodeFor, LakerecError } from '../../shared/errors';
import { openDuck, type Duck } from '../engine/duck';
import { runCli } from '../cli/main';
import { DeltaTable } from './table';
import { openTable } from './open';
import { registerSnapshotView } from './scan';
import { buildHostileCorpus, leaksSecret, SECRET, type HostileCase, type HostileCorpus } from '../testing/hostile-tables';

let duck: Duck;
let tmp: string;
let corpus: HostileCorpus;
beforeAll(async () => {
  duck = await openDuck();
  tmp = mkdtempSync(join(tmpdir(), 'lakerec-hostile-'));
  corpus = await buildHostileCorpus(tmp, duck);
}, 60_000);
afterAll(async () => {
  await corpus?.close();
  duck.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** Every entry under a folder, without following links or opening special files. */
function treeHash(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = lstatSync(p);
      h.update(`${p}\0${st.mode}\0`);
      if (st.isSymbolicLink()) h.update(readlinkSync(p));
      else if (st.isDirectory()) walk(p);
      else if (st.isFile()) h.update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

/** Runs a case to its stage; returns the refusal (or null when it read fine). */
async function attempt(c: HostileCase): Promise<{ error: LakerecError | null; stage: string; table?: DeltaTable }> {
  let stage = 'open';
  try {
    const t = await openTable(c.root, c.open);
    stage = 'snapshot';
    const s = await t.snapshot();
    stage = 'scan';
    await registerSnapshotView(duck.conn, s, 'hostile_v', { allowOutsidePaths: c.open?.allowOutsidePaths });
    await duck.conn.runAndReadAll('SELECT count(*) FROM hostile_v');
    return { error: null, stage: 'none', table: t };
  } catch (e) {
    if (e instanceof LakerecError) return { error: e, stage };
    // A raw error is a defect of its own: it shows up as `internal` in the comparison.
    return { error: new LakerecError('internal', e instanceof Error ? e.message : String(e)), stage };
  }
}

const names = (): HostileCase[] => corpus.cases;

describe('the hostile corpus, through the reader', () => {
  test('covers every class of issue #17 that belongs to the reader', () => {
    expect(new Set(names().map((c) => c.klass))).toEqual(new Set(['outside-root', 'special-file', 'size', 'version', 'deletion-vector', 'json', 'metadata']));
    expect(names().length).toBeGreaterThanOrEqual(30);
  });

  test('every case is refused at its stage with its code, names what it refuses, never leaks, never changes the table', async () => {
    const failures: string[] = [];
    for (const c of names()) {
      const before = treeHash(c.root);
      const r = await attempt(c);
      const got = r.error ? `${r.stage}:${r.error.code}` : 'none';
      const want = c.code ? `${c.stage}:${c.code}` : 'none';
      if (got !== want) failures.push(`${c.name}: expected ${want}, got ${got}${r.error ? ` (${r.error.message})` : ''}`);
      if (r.error) {
        const text = `${r.error.message} ${JSON.stringify(r.error.detail ?? {})}`;
        for (const m of c.mentions) if (!r.error.message.includes(m)) failures.push(`${c.name}: message does not name ${m}: ${r.error.message}`);
        if (leaksSecret(text)) failures.push(`${c.name}: the message leaks bytes of an outside file`);
        if (r.error.message.includes('\n')) failures.push(`${c.name}: a multi-line message`);
        expect(exitCodeFor(r.error.code)).toBe(3);
      }
      if (c.warning !== undefined && !(r.table?.warnings.join(' ') ?? '').includes(c.warning)) failures.push(`${c.name}: no warning naming ${c.warning}`);
      if (treeHash(c.root) !== before) failures.push(`${c.name}: the table's files changed`);
    }
    expect(failures).toEqual([]);
  }, 60_000);

  test('the CLI: one line on stderr and exit 3 for every refusal, exit 0 where the table reads', async () => {
    const failures: string[] = [];
    let i = 0;
    for (const c of names()) {
      const out: string[] = [];
      const err: string[] = [];
      {
        // The case's limits reach the CLI the way a user's do: in the invocation's environment
        // (the engine reads io.env, never the test process's).
        const argv = ['snapshot', c.root, '--out', join(tmp, `cli-${i++}.parquet`), ...(c.open?.allowOutsidePaths ? ['--allow-outside-paths'] : [])];
        const code = await runCli(argv, { out: (t: string) => out.push(t), err: (t: string) => err.push(t), cwd: tmp, env: { ...(c.env ?? {}) } });
        const want = c.code ? 3 : 0;
        const e = err.join('');
        if (code !== want) failures.push(`${c.name}: exit ${code}, expected ${want}: ${e}`);
        if (c.code && (e.split('\n').filter(Boolean).length !== 1 || !e.includes(c.code.replace(/_/g, ' ')))) failures.push(`${c.name}: stderr is not one line naming ${c.code}: ${JSON.stringify(e)}`);
        if (leaksSecret(e) || leaksSecret(out.join(''))) failures.push(`${c.name}: the CLI leaks bytes of an outside file`);
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  test('the escape still works: with outside paths allowed, a symlinked data file is read', async () => {
    const c = names().find((x) => x.name === 'data file symlinked outside')!;
    const t = await openTable(c.root, { allowOutsidePaths: true });
    await registerSnapshotView(duck.conn, await t.snapshot(), 'escape_v', { allowOutsidePaths: true });
    const rows = (await duck.conn.runAndReadAll('SELECT s FROM escape_v')).getRows().map((r) => String(r[0])).sort();
    expect(rows).toEqual([SECRET, 'in', 'in', 'in'].sort());
  });

  test('a log naming version 50,000,000 after 0: the listing holds two versions, nothing walks the range', async () => {
    const c = names().find((x) => x.name === 'version 50,000,000 after 0')!;
    const t = await openTable(c.root);
    expect(t.listedVersions()).toEqual([0, 50_000_000]);
    const v = t.versions();
    expect(v.map((x) => [x.version, x.readable])).toEqual([[0, true], [50_000_000, false]]);
    expect((await t.changes()).map((x) => x.version)).toEqual([0, 50_000_000]);
  });

  test('a sidecar outside _delta_log/_sidecars is never read, also when commits let the snapshot fall back', async () => {
    const c = names().find((x) => x.name === 'v2 sidecar path absolute')!;
    const t = await openTable(c.root);
    const e = await t.snapshot().catch((x: unknown) => x as LakerecError);
    expect((e as LakerecError).message).toContain('must be files in the table\'s own _delta_log/_sidecars folder');
  });
});
