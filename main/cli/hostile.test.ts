// Every command on every hostile case, through the installed bin (dist/, built by the global
// setup): the documented exit code, one line on stderr with no raw control character, no hang,
// no file written by injected SQL, no byte of the secret in any output, and the table's files
// byte-for-byte unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildHostileCorpus, type Cmd, type HostileCorpus } from '../testing/hostile-corpus';

const repo = resolve(__dirname, '..', '..');
// LAKEREC_TEST_BIN runs the corpus against another build (e.g. main's, to see it fail there).
const bin = process.env.LAKEREC_TEST_BIN ?? join(repo, 'main', 'bin', 'lakerec.mjs');
let corpus: HostileCorpus;
let dir: string;

function treeHash(root: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    let names: string[];
    try { names = readdirSync(d).sort(); } catch { return; }
    for (const n of names) {
      const p = join(d, n);
      const st = lstatSync(p);
      h.update(p + '\0' + String(st.mode) + '\0');
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) h.update(readFileSync(p));
    }
  };
  walk(root);
  return h.digest('hex');
}

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
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const CMDS: Cmd[] = ['history', 'forensics', 'snapshot', 'reconcile', 'bisect'];

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
});
