import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { checkContractColumns, parseContract } from './contract';

function err(text: string): LakerecError {
  try {
    parseContract(text, 'c.yaml');
  } catch (e) {
    if (e instanceof LakerecError) return e;
    throw e;
  }
  throw new Error('expected a contract error');
}

describe('contract', () => {
  it('parses the full format', () => {
    const c = parseContract(`version: 1
name: orders
keys: [order_id]
partitioning:
  column: dt
  expression: "date(ts AT TIME ZONE 'UTC')"
columns:
  amount_float: { float: { tolerance: 1.0e-9 } }
  other: { float: exclude }
timestamps: { naive_is_utc: true }
lateness: { column: dt, allow: "1 day" }
ordering: updated_at
ignore: [loaded_at]
renames: { orderid: order_id }
tags:
  customer_id: { sensitivity: internal, description: "pseudonymous" }
`);
    expect(c.keys).toEqual(['order_id']);
    expect(c.partitioning).toEqual({ column: 'dt', expression: "date(ts AT TIME ZONE 'UTC')" });
    expect(c.floats).toEqual({ amount_float: { tolerance: 1e-9 }, other: 'exclude' });
    expect(c.naiveIsUtc).toBe(true);
    expect(c.lateness).toEqual({ column: 'dt', allow: '1 day', days: 1 });
    expect(c.renames).toEqual({ orderid: 'order_id' });
    expect(c.tags.customer_id.sensitivity).toBe('internal');
    expect(c.lines['partitioning.expression']).toBe(6);
  });

  it('names the line of a schema error', () => {
    const e = err('version: 1\nkeys: [id]\ncolumns:\n  x: { float: { tolerence: 1 } }\n');
    expect(e.code).toBe('contract_invalid');
    expect(e.message).toMatch(/^c\.yaml:4: /);
    expect(e.message).toContain('tolerence');
  });

  it('names the line of an unknown top-level field and of a bad value', () => {
    expect(err('version: 1\nkeys: [id]\n\nkyes: [x]\n').message).toMatch(/^c\.yaml:4: .*unknown field "kyes"/);
    expect(err('version: 1\nkeys: [id]\nlateness: { column: dt, allow: "soon" }\n').message).toMatch(/^c\.yaml:3: .*"1 day"/);
    expect(err('version: 2\nkeys: [id]\n').message).toMatch(/^c\.yaml:1: version: must be 1/);
    expect(err('version: 1\nname: x\nkeys: []\n').message).toBe('c.yaml:3: keys: must NOT have fewer than 1 items');
  });

  it('reports missing keys and YAML syntax errors with a line', () => {
    expect(err('version: 1\nname: x\n').message).toMatch(/^c\.yaml:1: .*missing required field "keys"/);
    expect(err('version: 1\nkeys: [id\nname: x\n').message).toMatch(/^c\.yaml:\d+: /);
    expect(err('- just\n- a list\n').message).toMatch(/^c\.yaml:1: a contract is a YAML mapping/);
    expect(err('version: 1\nkeys: [id]\nignore: [id]\n').message).toMatch(/^c\.yaml:3: key column "id" cannot be ignored/);
  });

  it('accepts every contract the sample lakes ship', () => {
    const dir = join(__dirname, '..', '..', 'sample-lakes', 'contracts');
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
      expect(() => parseContract(readFileSync(join(dir, f), 'utf8'), f)).not.toThrow();
    }
  });
});

describe('contract: hostile and careless input', () => {
  it('reports every problem with its line, not only the first', () => {
    const e = err('version: 2\nkeys: [id]\nkyes: [x]\nlateness: { column: dt, allow: "soon" }\nordering: 3\n');
    expect(e.message).toMatch(/^c\.yaml:1: version: must be 1; c\.yaml:3: .*unknown field "kyes"; c\.yaml:4: .*"1 day".*; c\.yaml:5: ordering: has the wrong shape$/);
    expect(e.detail?.problems).toBe(4);
    const syntax = err('version: 1\nkeys: [id\nname: x\nbad: : :\n');
    expect(syntax.message.split('; ').length).toBeGreaterThanOrEqual(1);
  });

  it('stops a YAML alias bomb with a line (contract_invalid, exit 2)', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++) {
      const p = String.fromCharCode(96 + i);
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill('*' + p).join(', ')}]`);
    }
    const t0 = Date.now();
    const e = err(`version: 1\nkeys: [id]\n${levels.join('\n')}\n`);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(e.code).toBe('contract_invalid');
    expect(e.exitCode).toBe(2);
    expect(e.message).toMatch(/^c\.yaml:4: the contract cannot be expanded/);
  });

  it('refuses a contract over the size cap before parsing it', () => {
    const t0 = Date.now();
    const e = err('version: 1\nkeys: [id]\n' + '# pad\n'.repeat(400_000));
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(e.message).toMatch(/^c\.yaml:1: the contract is larger than 1 MB/);
  });

  it('reports every column it names that neither side has, with its line', () => {
    const c = parseContract('version: 1\nkeys: [id]\nignore: [gone, also_gone]\nrenames: { old_name: id }\nordering: nope\ncolumns:\n  ghost: { float: exclude }\n  id: { sensitivity: internal }\nlateness: { column: late, allow: 1 day }\n', 'c.yaml');
    let e: unknown;
    try { checkContractColumns(c, { sourceRaw: ['id', 'v'], source: ['id', 'v'], target: ['id', 'v'] }); } catch (x) { e = x; }
    expect((e as LakerecError).message).toBe('c.yaml:3: ignore: column "gone" is in neither side; c.yaml:3: ignore: column "also_gone" is in neither side; '
      + 'c.yaml:4: renames: column "old_name" is not a column of the source; c.yaml:5: ordering: column "nope" is in neither side; '
      + 'c.yaml:7: columns: column "ghost" is in neither side; c.yaml:9: lateness: column "late" is in neither side');
    expect(() => checkContractColumns(c, { sourceRaw: ['id', 'gone', 'also_gone', 'old_name', 'nope', 'ghost', 'late'], source: [], target: [] })).not.toThrow();
  });
});
