// Every rule of the contract schema refuses its own mistake, on its own line (contract_invalid,
// exit 2), and the fields it lets through parse to what the engine reads.
import { describe, expect, it } from 'vitest';
import { LakerecError } from '../../shared/errors';
import { parseContract } from './contract';

const head = 'version: 1\nkeys: [id]\n';

function refusal(text: string): string {
  try {
    parseContract(text, 'c.yaml');
  } catch (e) {
    if (e instanceof LakerecError && e.code === 'contract_invalid') return e.message;
    throw e;
  }
  throw new Error(`accepted: ${text}`);
}

// [the contract's lines after version and keys, the line named, what the message says]
const cases: Array<[string, number, RegExp]> = [
  ['name: 3', 3, /name/],
  ['description: [a]', 3, /description/],
  ['partitioning: dt', 3, /partitioning/],
  ['partitioning: { expression: "x" }', 3, /partitioning/],
  ['partitioning: { column: "" }', 3, /partitioning/],
  ['partitioning: { column: dt, expression: "" }', 3, /partitioning/],
  ['partitioning: { column: dt, by: x }', 3, /by/],
  ['columns: [a]', 3, /columns/],
  ['columns: { amount: 1 }', 3, /amount/],
  ['columns: { amount: { float: keep } }', 3, /float/],
  ['columns: { amount: { float: { tolerance: -1 } } }', 3, /float/],
  ['columns: { amount: { float: { tolerance: "1" } } }', 3, /float/],
  ['columns: { amount: { float: { } } }', 3, /float/],
  ['columns: { amount: { sensitivity: 1 } }', 3, /sensitivity/],
  ['columns: { amount: { description: 1 } }', 3, /description/],
  ['columns: { amount: { colour: red } }', 3, /colour/],
  ['timestamps: { naive_is_utc: "yes" }', 3, /naive_is_utc/],
  ['timestamps: { zone: UTC }', 3, /zone/],
  ['timestamps: true', 3, /timestamps/],
  ['lateness: { column: dt }', 3, /lateness/],
  ['lateness: 1 day', 3, /lateness/],
  ['lateness: { column: dt, allow: "1 day", grace: 1 }', 3, /lateness/],
  ['ordering: [a]', 3, /ordering/],
  ['ordering: ""', 3, /ordering/],
  ['ignore: x', 3, /ignore/],
  ['ignore: [a, a]', 3, /ignore/],
  ['ignore: [""]', 3, /ignore/],
  ['renames: [a]', 3, /renames/],
  ['renames: { a: 1 }', 3, /renames/],
  ['tags: { a: { sensitivity: secret } }', 3, /sensitivity/],
  ['tags: { a: { owner: me } }', 3, /owner/],
  ['tags: { a: 1 }', 3, /tags/],
  ['tags: { a: { description: 1 } }', 3, /description/],
  ['relationships: { column: a }', 3, /relationships/],
  ['relationships: [{ column: a }]', 3, /relationships/],
  ['relationships: [{ column: a, references: { path: x } }]', 3, /relationships/],
  ['relationships: [{ column: a, references: { path: "", column: b } }]', 3, /relationships/],
  ['relationships: [{ column: a, references: { path: x, column: b, extra: 1 } }]', 3, /relationships/],
  ['relationships: [{ column: a, references: { path: x, column: b }, cardinality: many }]', 3, /cardinality/],
  ['relationships: [{ column: a, references: { path: x, column: b }, owner: me }]', 3, /owner/],
  ['relationships: [1]', 3, /relationships/],
  ['laws: { day: 1 }', 3, /laws/],
  ['laws: { measures: [a, a] }', 3, /laws/],
  ['laws: { tolerance: -0.5 }', 3, /laws/],
  ['laws: { units: eur }', 3, /laws/],
  ['laws: sum', 3, /laws/],
];

describe('each schema rule, its own refusal on its own line', () => {
  it.each(cases)('%s', (body, line, what) => {
    const m = refusal(`${head}${body}\n`);
    expect(m).toMatch(new RegExp(`^c\\.yaml:${line}: `));
    expect(m).toMatch(what);
    expect(m).not.toContain('\n');
  });

  it('the top of the contract: keys, version, not a mapping', () => {
    expect(refusal('version: 1\nkeys: [id, id]\n')).toMatch(/^c\.yaml:2: keys/);
    expect(refusal('version: 1\nkeys: [""]\n')).toMatch(/^c\.yaml:2: keys/);
    expect(refusal('version: 1\nkeys: id\n')).toMatch(/^c\.yaml:2: keys/);
    expect(refusal('version: "1"\nkeys: [id]\n')).toMatch(/^c\.yaml:1: version/);
    expect(refusal('keys: [id]\n')).toMatch(/missing required field "version"/);
  });
});

describe('what the schema lets through', () => {
  it('nulls where a rule allows none, floats excluded or with a tolerance, relationships and laws with their defaults', () => {
    const c = parseContract(`${head}partitioning: null\nlateness: null\nordering: null\nlaws: null\ncolumns: { a: { float: exclude }, b: { float: { tolerance: 0 } } }\nrelationships: [{ column: cust, references: { path: ../customers, column: id } }]\n`, 'c.yaml');
    expect(c.partitioning).toBeNull();
    expect(c.floats).toEqual({ a: 'exclude', b: { tolerance: 0 } });
    expect(c.relationships).toEqual([{ column: 'cust', references: { path: '../customers', column: 'id' }, cardinality: 'many_to_one' }]);
    expect(c.laws).toBeNull();
    const l = parseContract(`${head}laws: { day: dt }\n`, 'c.yaml');
    expect(l.laws).toEqual({ day: 'dt', measures: null, tolerance: null });
  });
});
