// Every command on every hostile case, through the installed bin (dist/, built by the global
// setup): the documented exit code, one line on stderr with no raw control character, no hang,
// no file written by injected SQL, no byte of the secret in any output, and the table's files
// byte-for-byte unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildHostileCorpus, type Cmd, type HostileCorpus } from '../testing/hostile-corpus';
import { treeHash } from '../testing/tree-hash';
import { buildHostileCorpus as buildReaderCorpus, leaksSecret, type HostileCorpus as ReaderCorpus } from '../testing/hostile-tables';
import { openDuck } from '../engine/duck';

const repo = resolve(__dirname, '..', '..');
// LAKEREC_TEST_BIN runs the corpus against another build (e.g. main's, to see it fail there).
const bin = process.env.LAKEREC_TEST_BIN ?? join(repo, 'main', 'bin', 'lakerec.mjs');
let corpus: HostileCorpus;
let reader: ReaderCorpus;
let dir: string;

function argsFor(cmd: Cmd, c: HostileCorpus['cases'][number], i: number): string[] {
  switch (cmd) {
    case 'history': return ['history', c.table];
    case 'forensics': return ['forensics', c.table];
    case 'snapshot': return ['snapshot', c.table, '--out', join(dir, `out-${i}.parquet`)];
    case 'reconcile': return ['reconcile', c.source, c.table, '--contract', c.contract];
    case 'bisect': return ['bisect', c.table, '--predicate', 'unique-keys', '--keys', 'id'];
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-hostile-cli-'));
  corpus = await buildHostileCorpus(join(dir, 'corpus'));
  const duck = await openDuck({ threads: 1, memoryLimit: '256MB' });
  try { reader = await buildReaderCorpus(join(dir, 'reader'), duck); } finally { duck.close(); }
}, 120_000);

afterAll(async () => {
  await reader?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const CMDS: Cmd[] = ['history', 'forensics', 'snapshot', 'reconcile', 'bisect'];

/**
 * Fixed on h12's branch (one history of the log that walks the versions that exist; bisect's
 * refusal printed on stderr), not yet merged here: not run (a hang costs 60 s) or not checked.
 * Remove each entry once h12 is in main; the test then holds them to the same rules.
 */
// Cases that waited for the one file history (h12): none left; keep the hook for the next.
const PENDING_H12: Record<string, 'skip' | 'stderr'> = {};

describe('hostile corpus through the real CLI', () => {
  it('gives the documented exit code and one clean line for every command and case', () => {
    let i = 0;
    const failures: string[] = [];
    for (const c of corpus.cases) {
      const before = treeHash(c.table);
      for (const cmd of c.only ?? CMDS) {
        const args = argsFor(cmd, c, i++);
        const t0 = Date.now();
        const r = spawnSync(process.execPath, [bin, ...args], {
          cwd: corpus.dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, LAKEREC_DEBUG: '', LAKEREC_DUCKDB_MEMORY: '512MB' },
        });
        const label = `${c.name} / ${cmd}`;
        const want = c.expect[cmd];
        const wants = Array.isArray(want) ? want : [want];
        if (r.status === null) { failures.push(`${label}: no exit (signal ${String(r.signal)}, ${Date.now() - t0} ms)`); continue; }
        if (!wants.includes(r.status)) failures.push(`${label}: exit ${r.status}, want ${wants.join('|')}; stderr ${JSON.stringify(r.stderr)}`);
        if (r.status !== 0) {
          if (!/^[^\n]+\n$/.test(r.stderr)) failures.push(`${label}: stderr is not one line: ${JSON.stringify(r.stderr)}`);
          if (c.stderr && typeof want === 'number' && !c.stderr.test(r.stderr)) {
            failures.push(`${label}: stderr ${JSON.stringify(r.stderr)} does not match ${String(c.stderr)}`);
          }
        }
        if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(r.stderr)) failures.push(`${label}: a raw control character on stderr: ${JSON.stringify(r.stderr)}`);
        if (/internal|is not a function|Cannot read propert/.test(r.stderr)) failures.push(`${label}: a JavaScript error reached the user: ${JSON.stringify(r.stderr)}`);
        if ((r.stdout + r.stderr).includes('TOP-SECRET-CANARY')) failures.push(`${label}: the secret file's content was printed`);
        for (const canary of corpus.canaries) if (existsSync(canary)) failures.push(`${label}: injected SQL wrote ${canary}`);
      }
      if (treeHash(c.table) !== before) failures.push(`${c.name}: the table's files changed`);
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('refuses every output path inside a table it reads (exit 2, naming the path), and still appends to the step summary', () => {
    const clean = corpus.cases[0];
    const before = treeHash(clean.table);
    symlinkSync(join(clean.table, '_delta_log'), join(dir, 'log-link'));
    const run = (args: string[], env: Record<string, string> = {}) => spawnSync(process.execPath, [bin, ...args], {
      cwd: corpus.dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, LAKEREC_DEBUG: '', ...env },
    });
    const rec = ['reconcile', clean.source, clean.table, '--contract', clean.contract];
    const inside = [
      [...rec, '--level', 'checksum', '--write-baseline', join(clean.table, '_delta_log', '00000000000000000001.json')],
      [...rec, '--html', join(clean.table, 'report.html')],
      [...rec, '--markdown', join(dir, 'log-link', 'summary.md')],
      ['snapshot', clean.table, '--out', join(clean.table, 'dt=2026-08-10', 'x.parquet')],
      ['snapshot', clean.table, '--out', join(dir, 'log-link', 'x.parquet')],
    ];
    for (const args of inside) {
      const r = run(args);
      expect({ args, code: r.status }).toEqual({ args, code: 2 });
      expect(r.stderr).toMatch(/^lakerec (reconcile|snapshot): usage: (--write-baseline|--html|--markdown|--out) \S+ is inside the table \S+: lakerec never writes into a table; choose a path outside it\n$/);
    }
    expect(treeHash(clean.table)).toBe(before);
    // snapshot over an existing output (DuckDB writes tmp_<name> and renames): still allowed
    const out = join(dir, 'again.parquet');
    for (let k = 0; k < 2; k++) expect(run(['snapshot', clean.table, '--out', out]).status).toBe(0);
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    const r = run([...rec, '--markdown', summary], { GITHUB_STEP_SUMMARY: summary });
    expect(r.status).toBe(0);
    expect(readFileSync(summary, 'utf8')).toMatch(/^# earlier step\n[\s\S]*verdict/i);
  }, 120_000);

  it("every command on the reader's hostile tables (h17a's corpus): exit 3 where the table cannot be opened, one line, no leak, no hang, unchanged", async () => {
    const failures: string[] = [];
    const jobs: (() => Promise<void>)[] = [];
    let i = 0;
    // By default one table per class (every command on it: ~35 runs); LAKEREC_HOSTILE_ALL=1 runs
    // every command on every table of the corpus (~140 runs, about two minutes on two cores).
    const seen = new Set<string>();
    const picked = process.env.LAKEREC_HOSTILE_ALL === '1' ? reader.cases
      : reader.cases.filter((c) => !seen.has(c.klass) && seen.add(c.klass) !== undefined);
    for (const c of picked) {
      const before = treeHash(c.root);
      const extra = c.open?.allowOutsidePaths ? ['--allow-outside-paths'] : [];
      const argv: Record<Cmd, string[]> = {
        history: ['history', c.root, ...extra],
        forensics: ['forensics', c.root],
        snapshot: ['snapshot', c.root, '--out', join(dir, `reader-${i++}.parquet`), ...extra],
        reconcile: ['reconcile', corpus.cases[0].source, c.root, '--contract', corpus.cases[0].contract, '--level', 'schema'],
        bisect: ['bisect', c.root, '--predicate', 'unique-keys', '--keys', 'id'],
      };
      const runs = CMDS.filter((cmd) => PENDING_H12[`${c.name} / ${cmd}`] !== 'skip').map((cmd) => async () => {
        const t0 = Date.now();
        const r = await new Promise<{ code: number | null; out: string; err: string }>((done) => {
          const child = spawn(process.execPath, [bin, ...argv[cmd]], { cwd: dir, env: { ...process.env, LAKEREC_DEBUG: '', ...(c.env ?? {}) } });
          let out = ''; let err = '';
          child.stdout.on('data', (b: Buffer) => { out += b.toString(); });
          child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
          const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
          child.on('close', (code) => { clearTimeout(timer); done({ code, out, err }); });
        });
        const label = `${c.name} / ${cmd}`;
        if (process.env.LAKEREC_TEST_TIMINGS) process.stderr.write(`${Date.now() - t0} ms ${label}\n`);
        if (r.code === null) { failures.push(`${label}: no exit (killed after 60 s)`); return; }
        if (c.stage === 'open' && r.code !== 3) failures.push(`${label}: exit ${r.code}, want 3: ${JSON.stringify(r.err)}`);
        if (![0, 1, 2, 3].includes(r.code)) failures.push(`${label}: exit ${r.code}`);
        if (r.code !== 0 && !/^[^\n]+\n$/.test(r.err) && PENDING_H12[label] !== 'stderr') failures.push(`${label}: stderr is not one line: ${JSON.stringify(r.err)}`);
        if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(r.err)) failures.push(`${label}: a raw control character on stderr`);
        if (/is not a function|Cannot read propert|Maximum call stack/.test(r.err)) failures.push(`${label}: a JavaScript error reached the user: ${JSON.stringify(r.err)}`);
        if (leaksSecret(r.out + r.err)) failures.push(`${label}: output leaks bytes of an outside file`);
      });
      jobs.push(async () => {
        for (const run of runs) await run();
        if (treeHash(c.root) !== before) failures.push(`${c.name}: the table's files changed`);
      });
    }
    // Two at a time (the machine has two cores); each table's commands in order.
    const queue = [...jobs];
    await Promise.all([0, 1].map(async () => { for (let j = queue.shift(); j; j = queue.shift()) await j(); }));
    expect(failures).toEqual([]);
  }, 400_000);
});
