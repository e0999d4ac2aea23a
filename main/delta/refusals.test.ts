// Hostile logs refused by name (issue 25): a schema field without a type, and a folder named like
// a commit file in _delta_log. One clear line and exit 3, not a TypeError and not a silent skip.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/main';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'lakerec-refusals-')); });
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

const protocol = { protocol: { minReaderVersion: 1, minWriterVersion: 2 } };
const metaData = (fields: unknown[]) => ({ metaData: { id: 't', format: { provider: 'parquet', options: {} }, schemaString: JSON.stringify({ type: 'struct', fields }), partitionColumns: [], configuration: {}, createdTime: 0 } });

function table(name: string, commits: unknown[][]): string {
  const root = join(dir, name);
  mkdirSync(join(root, '_delta_log'), { recursive: true });
  commits.forEach((actions, v) => writeFileSync(join(root, '_delta_log', `${String(v).padStart(20, '0')}.json`), actions.map((a) => JSON.stringify(a)).join('\n') + '\n'));
  return root;
}

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s), cwd: dir, env: {} });
  return { code, out: out.join(''), err: err.join('') };
}

describe('named refusals', () => {
  it('a schema field without a type', async () => {
    const cases: [string, unknown][] = [
      ['notype', { name: 'id', nullable: true, metadata: {} }],
      ['nulltype', { name: 'id', type: null, nullable: true, metadata: {} }],
      ['arraynoelement', { name: 'xs', type: { type: 'array', containsNull: true }, nullable: true, metadata: {} }],
    ];
    for (const [name, field] of cases) {
      const root = table(name, [[protocol, metaData([{ name: 'ok', type: 'long', nullable: true, metadata: {} }, field])]]);
      // Reading the version is refused, naming the column.
      const r = await cli('snapshot', root, '--out', join(dir, `${name}.parquet`));
      expect({ name, code: r.code }).toEqual({ name, code: 3 });
      expect(r.err).toMatch(/is invalid: the schema: the (elements of the )?column "(id|xs)" has no type/);
      expect(r.err).not.toMatch(/TypeError|unexpected failure|does not recognise/);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      // The timeline still lists the version, unreadable, with the same reason.
      const h = await cli('history', root);
      expect(h.out + h.err).toMatch(/has no type/);
      expect(h.out + h.err).not.toMatch(/TypeError|unexpected failure/);
    }
  });

  it('a folder named like a commit file in _delta_log', async () => {
    const root = table('folder', [[protocol, metaData([{ name: 'id', type: 'long', nullable: true, metadata: {} }])]]);
    mkdirSync(join(root, '_delta_log', '00000000000000000001.json'));
    const r = await cli('history', root);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/_delta_log\/00000000000000000001\.json is a folder, not a log file/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    // Another folder in _delta_log (a v2 checkpoint's _sidecars) is no log entry: the table reads.
    const ok = table('sidecars', [[protocol, metaData([{ name: 'id', type: 'long', nullable: true, metadata: {} }])]]);
    mkdirSync(join(ok, '_delta_log', '_sidecars'));
    expect((await cli('history', ok)).code).toBe(0);
  });
});
