// The dispatcher's guard reads a command line as the command's own parser does (the flag specs of
// the command table), so the roots it protects are the tables, sources and contracts the command
// reads, not guesses. Each case below was read wrongly when the guard guessed which flags take a
// value: a positional after a boolean flag was taken for that flag's value (so a source file was
// not protected), a contract was never protected, and a flag's value that happened to name a
// folder (a model name, a proof mode) became a root and refused an honest output.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './main';
import { commands, formOf } from './commands';

let dir: string;
let table: string;
let sourceFile: string;
let contract: string;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd: dir, env: { LAKEREC_DATA_DIR: join(dir, 'data') } });
  return { code, out, err };
}

const CONTRACT = 'version: 1\nkeys: [id]\n';
const REFUSED = /^lakerec \S+: usage: --\S+ \S+ is inside the table \S+: lakerec never writes into a table; choose a path outside it\n$/;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-guard-'));
  table = join(dir, 'table');
  mkdirSync(join(table, '_delta_log'), { recursive: true });
  const schema = JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: false, metadata: {} }] });
  writeFileSync(join(table, '_delta_log', '00000000000000000000.json'), [
    { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
    { metaData: { id: 't', format: { provider: 'parquet', options: {} }, schemaString: schema, partitionColumns: [], configuration: {}, createdTime: 0 } },
    { commitInfo: { timestamp: 0, operation: 'CREATE TABLE' } },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n');
  sourceFile = join(dir, 'source.csv');
  contract = join(dir, 'contract.yaml');
  mkdirSync(join(dir, 'reports'));
});

// Fresh inputs for each case: a case that failed (an overwritten source) does not spoil the next.
beforeEach(() => {
  writeFileSync(sourceFile, 'id\n1\n');
  writeFileSync(contract, CONTRACT);
});

afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

describe('the guard reads the command line as the command does', () => {
  it('a source file after a boolean flag is still the source: a report over it is refused, the file untouched', async () => {
    for (const flag of ['--json', '--progress']) {
      const r = await cli(['reconcile', flag, 'source.csv', 'table', '--contract', 'contract.yaml', '--markdown', 'source.csv']);
      expect({ flag, code: r.code, err: r.err }).toMatchObject({ code: 2, err: expect.stringMatching(REFUSED) });
      expect(readFileSync(sourceFile, 'utf8')).toBe('id\n1\n');
    }
  });

  it('the contract named with --contract is protected: a report over it is refused, the contract untouched', async () => {
    for (const args of [
      ['reconcile', 'source.csv', 'table', '--contract', 'contract.yaml', '--html', 'contract.yaml'],
      ['reconcile', 'source.csv', 'table', '--contract=contract.yaml', '--markdown', 'contract.yaml'],
      ['mutate', 'source.csv', 'table', '--contract', 'contract.yaml', '--html', 'contract.yaml'],
    ]) {
      const r = await cli(args);
      expect({ args, code: r.code, err: r.err }).toMatchObject({ code: 2, err: expect.stringMatching(REFUSED) });
      expect(readFileSync(contract, 'utf8')).toBe(CONTRACT);
    }
  });

  it('a flag value that happens to name a folder is not a root: the output there is not refused as inside a table', async () => {
    // `--proofs reports` is a proof mode, not a path: the command's own check answers, not the guard.
    const r = await cli(['proof', '--proofs', 'reports', '--html', join('reports', 'proof.html')]);
    expect(r.err).not.toMatch(/inside the table/);
    expect(r.err).toMatch(/--proofs/);
    expect(r.code).toBe(2);
  });

  it('a usage error is the parser\'s own line, whoever reads the command line first', async () => {
    const r = await cli(['reconcile', 'source.csv', 'table', '--contract', 'contract.yaml', '--markdown']);
    expect(r).toMatchObject({ code: 2, out: '', err: 'lakerec reconcile: usage: --markdown needs a value\n' });
  });

  it('every command has a form, and every command module parses with the form the guard reads (no spec of its own)', () => {
    for (const c of commands) expect({ name: c.name, form: formOf(c.name, c.name === 'warehouse' ? ['sql'] : []) !== null }).toEqual({ name: c.name, form: true });
    const own: string[] = [];
    for (const f of readdirSync(__dirname).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))) {
      const text = readFileSync(join(__dirname, f), 'utf8');
      for (const m of text.matchAll(/parseArgs\(([^,]+),\s*([^)]*)\)/g)) if (!m[2].startsWith('ARGS') && !m[2].startsWith('form.')) own.push(`${f}: ${m[0]}`);
    }
    expect(own).toEqual([]);
  });
});
