// The output guard over every command that writes a file, discovered from the CLI's own command
// table (a command with an output flag it does not declare fails the cross-check below). Each
// output flag is tried inside the table, inside its _delta_log, through a symlinked folder,
// through `..` and inside the source: exit 2, one line, and the table and source byte-identical.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './main';
import { commands } from './commands';
import { treeHash } from '../testing/tree-hash';

let dir: string;
let table: string;
let source: string;
let contract: string;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { out: (t) => { out += t; }, err: (t) => { err += t; }, cwd: dir, env: { LAKEREC_DATA_DIR: join(dir, 'data') } });
  return { code, out, err };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lakerec-outputs-'));
  table = join(dir, 'table');
  mkdirSync(join(table, '_delta_log'), { recursive: true });
  mkdirSync(join(table, 'dt=2026-01-01'));
  const schema = JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: false, metadata: {} }] });
  writeFileSync(join(table, '_delta_log', '00000000000000000000.json'), [
    { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
    { metaData: { id: 't', format: { provider: 'parquet', options: {} }, schemaString: schema, partitionColumns: [], configuration: {}, createdTime: 0 } },
    { commitInfo: { timestamp: 0, operation: 'CREATE TABLE' } },
  ].map((l) => JSON.stringify(l)).join('\n') + '\n');
  source = join(dir, 'source');
  mkdirSync(source);
  writeFileSync(join(source, 'part.csv'), 'id\n1\n');
  contract = join(dir, 'contract.yaml');
  writeFileSync(contract, 'keys: [id]\n');
  symlinkSync(join(table, '_delta_log'), join(dir, 'log-link'));
  symlinkSync(table, join(dir, 'table-link'));
});

afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

/** The command's positional arguments, read from its usage line (SOURCE, TABLE, a subcommand word such as `init`). */
function positionals(usage: string): string[] {
  const words = usage.split(' ').slice(2);
  const out: string[] = [];
  for (const w of words) {
    if (w.startsWith('[') || w.startsWith('--')) break;
    if (w === 'SOURCE') out.push(source);
    else if (w === 'TABLE') out.push(table);
    else if (/^[a-z]+$/.test(w)) out.push(w);
  }
  return out;
}

describe('one output guard for every command', () => {
  it('mutate --html and proof --html into the table: exit 2, one line, the table byte-identical', async () => {
    const before = treeHash(table);
    for (const args of [
      ['mutate', source, table, '--contract', contract, '--html', join(table, '_delta_log', '00000000000000000099.json')],
      ['proof', '--engines', 'duckdb,arrow', '--html', join(table, '_delta_log', '00000000000000000099.json')],
      ['mutate', source, table, '--contract', contract, '--html', join(dir, 'log-link', 'x.html')],
      ['proof', '--engines', 'duckdb,arrow', '--html', join(table, 'dt=2026-01-01', '..', '_delta_log', 'x.json')],
    ]) {
      const r = await cli(args);
      expect({ args, code: r.code, err: r.err }).toMatchObject({ code: 2, err: expect.stringMatching(/^lakerec (mutate|proof): usage: --html \S+ is inside the table \S+: lakerec never writes into a table; choose a path outside it\n$/) });
      expect(r.out).toBe('');
    }
    expect(treeHash(table)).toBe(before);
  });

  it('every output flag of the command table (discovered, not listed) refuses the five hostile paths', async () => {
    const withOutputs = commands.filter((c) => (c.outputs ?? []).length > 0);
    expect(withOutputs.map((c) => c.name)).toEqual(expect.arrayContaining(['snapshot', 'reconcile', 'proof', 'mutate']));
    const tableBefore = treeHash(table);
    const sourceBefore = treeHash(source);
    const failures: string[] = [];
    for (const cmd of withOutputs) {
      const pos = positionals(cmd.usage);
      const hostile: [string, string][] = [
        ['inside the table root', join(table, 'report.out')],
        ['inside _delta_log', join(table, '_delta_log', '00000000000000000001.json')],
        ['through a symlinked folder', join(dir, 'log-link', 'new', 'report.out')],
        ['through ..', join(dir, 'source', '..', 'table', 'dt=2026-01-01', 'report.out')],
        ['through a symlink to the table', join(dir, 'table-link', 'report.out')],
        ...(pos.includes(source) ? [['inside the source root', join(source, 'report.out')] as [string, string]] : []),
      ];
      for (const flag of cmd.outputs ?? []) {
        for (const [what, path] of hostile) {
          const args = [cmd.name, ...pos, `--${flag}`, path];
          const r = await cli(args);
          if (r.code !== 2 || !/^lakerec \S+: usage: --\S+ \S+ is inside the table \S+: lakerec never writes into a table; choose a path outside it\n$/.test(r.err)) {
            failures.push(`${cmd.name} --${flag} ${what}: exit ${r.code}, ${JSON.stringify(r.err)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(treeHash(table)).toBe(tableBefore);
    expect(treeHash(source)).toBe(sourceBefore);
  });

  it('every flag in a usage line that names a written file is declared as an output', () => {
    for (const c of commands) {
      const written = [...c.usage.matchAll(/--(out|html|markdown|json-out|write-[a-z-]+|report|save|export)\b/g)].map((m) => m[1]);
      expect({ name: c.name, outputs: [...new Set(written)].sort() }).toEqual({ name: c.name, outputs: [...new Set(c.outputs ?? [])].sort() });
    }
  });

  it('a hard link to a table file as the output: replaced, the table file untouched', async () => {
    const logFile = join(table, '_delta_log', '00000000000000000000.json');
    const before = readFileSync(logFile);
    const linked = join(dir, 'hard.html');
    linkSync(logFile, linked);
    const { writeOutput } = await import('../engine/outputs');
    writeOutput(linked, '<p>report</p>', { what: '--html' });
    expect(readFileSync(linked, 'utf8')).toBe('<p>report</p>');
    expect(readFileSync(logFile)).toEqual(before);
  });
});
