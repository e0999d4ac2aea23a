import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { parseContract } from './contract';

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
