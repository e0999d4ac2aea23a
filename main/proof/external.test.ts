// The user's own engines: discovery (a stub python3 on a fake PATH reports which modules it
// has), refusal with what was looked for, the time limit on the subprocess. No external engine
// runs here: deltalake, polars, pyarrow and pyspark are not installable on these machines, so the
// scripts themselves are not exercised (the README says so).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main';
import { discoverExternal, EXTERNAL, makeExternalEngine, missingFor, refusalLine, runLimited, scriptFor } from './engines/external';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-external-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fake PATH folder holding a `python3` that answers the probe with these modules. */
function fakePython(name: string, modules: Record<string, string | null>): string {
  const bin = join(dir, name);
  mkdirSync(bin, { recursive: true });
  const json = JSON.stringify({ python: '3.11.2', modules });
  writeFileSync(join(bin, 'python3'), `#!/bin/sh\necho '${json}'\n`);
  chmodSync(join(bin, 'python3'), 0o755);
  return bin;
}

const spec = (name: string) => EXTERNAL.find((s) => s.name === name)!;

describe('discovery', () => {
  it('finds python3 on PATH and the modules it imports', () => {
    const bin = fakePython('pandas-only', { pandas: '2.2.3', deltalake: null, polars: null, pyarrow: null, delta: null });
    const d = discoverExternal({ PATH: bin });
    expect(d.python).toMatchObject({ path: join(bin, 'python3'), version: '3.11.2', modules: { pandas: '2.2.3', deltalake: null, pyarrow: null } });
    expect(d.spark).toBeNull();
  });

  it('offers an engine whose modules are all present (discovery only: the stub cannot run its script)', () => {
    const bin = fakePython('all', { pandas: '2.2.3', deltalake: '0.22.0', polars: '1.9.0', pyarrow: '17.0.0', delta: null });
    const d = discoverExternal({ PATH: bin });
    expect(missingFor(spec('py-deltalake'), d)).toEqual([]);
    expect(missingFor(spec('py-polars'), d)).toEqual([]);
    expect(missingFor(spec('spark'), d)).toEqual(['spark-submit or pyspark on PATH', `the Python module "delta" (${join(bin, 'python3')})`]);
    expect(makeExternalEngine(spec('py-polars'), () => d).availability!()).toEqual({ available: true });
  });

  it('a python3 that answers nonsense counts as having none of the modules', () => {
    const bin = join(dir, 'broken');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'python3'), '#!/bin/sh\necho not json\nexit 1\n');
    chmodSync(join(bin, 'python3'), 0o755);
    const d = discoverExternal({ PATH: bin });
    expect(Object.values(d.python!.modules).every((v) => v === null)).toBe(true);
  });

  it('on this machine: reports what it finds (none of the engines runs here)', () => {
    const d = discoverExternal();
    console.log(`external engines here: python3 ${d.python ? `${d.python.path} ${JSON.stringify(d.python.modules)}` : 'absent'}; spark ${d.spark?.path ?? 'absent'}`);
    for (const s of EXTERNAL) console.log(`  ${s.name}: ${missingFor(s, d).length ? refusalLine(s, d) : 'available'}`);
    expect(d.lookedFor.length).toBe(2);
  });
});

describe('refusal', () => {
  it('pandas alone is refused, and the line says why pandas cannot be a proof engine by itself', () => {
    const bin = fakePython('pandas-only2', { pandas: '2.2.3', deltalake: null, polars: null, pyarrow: null, delta: null });
    const line = refusalLine(spec('py-pandas'), discoverExternal({ PATH: bin }));
    expect(line).toMatch(/^the py-pandas engine \(pandas \(Arrow-backed dtypes\) through delta-rs\) is not available here: missing the Python module "deltalake" .*, the Python module "pyarrow" /);
    expect(line).toMatch(/without pyarrow it reads no Parquet and without deltalake it writes no Delta/);
    expect(line).toMatch(/looked for python3 on PATH, importing deltalake, polars, pyarrow, pandas; spark-submit or pyspark on PATH, with delta-spark/);
    expect(line).not.toMatch(/\n/);
  });

  it('without python3 on PATH every Python engine names it', () => {
    const d = discoverExternal({ PATH: join(dir, 'nothing-here') });
    expect(d.python).toBeNull();
    for (const n of ['py-deltalake', 'py-polars', 'py-pandas']) expect(refusalLine(spec(n), d)).toMatch(/missing python3 on PATH/);
  });

  it('lakerec proof with an absent engine exits 2 in one line, before anything runs', async () => {
    let err = '';
    const code = await runCli(['proof', '--engines', 'py-deltalake,duckdb'], {
      out: () => {}, err: (t) => { err += t; }, cwd: dir, env: { LAKEREC_DATA_DIR: join(dir, 'data') },
    });
    // Whatever this machine has, it has no deltalake (NOTES: pip is unreachable).
    expect(code).toBe(2);
    expect(err).toMatch(/^lakerec proof: usage: the py-deltalake engine \(delta-rs \(Python deltalake\) with pyarrow\) is not available here: missing /);
    expect(err.trim().split('\n')).toHaveLength(1);
  });
});

describe('the subprocess', () => {
  it('is stopped at its time limit, in one line', async () => {
    await expect(runLimited('/bin/sh', ['-c', 'sleep 5'], dir, 200)).rejects.toThrow(/did not finish within 0.2 s and was stopped/);
  });

  it('a failing script is one line with its last error line', async () => {
    await expect(runLimited('/bin/sh', ['-c', 'echo boom >&2; exit 3'], dir, 5000)).rejects.toThrow(/exited 3: boom/);
  });

  it('each engine has its own script, reading and writing only the paths it is given', () => {
    for (const s of EXTERNAL) {
      const text = scriptFor(s.name);
      expect(text).toMatch(/sys\.argv\[2\]/);
      expect(text).not.toMatch(/\/tmp|~|expanduser/);
    }
    expect(scriptFor('spark')).toContain('TIMESTAMP_MICROS');
    expect(scriptFor('py-pandas')).toContain('types_mapper=pd.ArrowDtype');
  });
});
