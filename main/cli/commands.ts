// The command table. Each command lives in its own file and is loaded only when used, so
// `lakerec history` does not pay for the reconcile engine.
import type { FlagSpec } from '../engine/args';
import type { Command } from './io';

export const commands: Command[] = [
  { name: 'history', summary: 'the versions of a Delta table', usage: 'lakerec history TABLE [--json]', load: () => import('./history') },
  { name: 'snapshot', summary: "write a version's logical rows to Parquet", usage: 'lakerec snapshot TABLE [--version N | --timestamp ISO] --out FILE.parquet', load: () => import('./snapshot') },
  { name: 'reconcile', summary: 'prove a Delta table matches its source, and name the corruption where it does not', usage: 'lakerec reconcile SOURCE TABLE --contract FILE [--level L] [--version N] [--digest fast|md5] [--progress] [--baseline F] [--write-baseline F] [--markdown F] [--html F] [--json]', load: () => import('./reconcile') },
  { name: 'forensics', summary: 'the log as an incident record: every commit, and what is worth a second look', usage: 'lakerec forensics TABLE [--partition-by COL] [--version N] [--json] [--evidence] [--wide]', load: () => import('./forensics') },
  { name: 'bisect', summary: 'the first bad version of the table, for a predicate the table answers alone', usage: 'lakerec bisect TABLE --predicate unique-keys|no-null-keys|row-count|matches-source [--keys K] [--expect N] [--partition P=V] [--source F] [--json]', load: () => import('./bisect') },
  { name: 'diff', summary: 'compare two versions of a table row by row (the reconcile engine, V1 as the source), with the commits between', usage: 'lakerec diff TABLE --from V1 --to V2 [--keys K[,K2]] [--check] [--json]', load: () => import('./diff') },
  { name: 'fingerprint', summary: 'the ods fingerprint v1 of a Delta table (or its SQL for duckdb, spark, snowflake, trino)', usage: 'lakerec fingerprint TABLE [--version N] [--json] [--check] [--sql duckdb|spark|snowflake|trino]', load: () => import('./fingerprint') },
  { name: 'proof', summary: 'round-trip proof: a table built to break naive round trips, through two engines', usage: 'lakerec proof --engines duckdb,arrow [--json] [--html FILE] [--seed N] [--rows N] [--evidence]', load: () => import('./proof') },
  { name: 'mutate', summary: "mutation score: inject each corruption into a sandbox over the table's files and see which levels of the contract catch it", usage: 'lakerec mutate SOURCE TABLE --contract FILE [--seed N] [--only MODES] [--levels L] [--version N] [--json] [--html F]', load: () => import('./mutate') },
  { name: 'keys', summary: "the contract's keys and relationships verified on the data (or candidate keys inferred)", usage: 'lakerec keys TABLE [--contract FILE] [--source F] [--version N] [--json]', load: () => import('./keys') },
  { name: 'laws', summary: 'data laws: additive measures conserved from source to target per day', usage: 'lakerec laws SOURCE TABLE --contract FILE [--version N] [--json]', load: () => import('./laws') },
  { name: 'contract', summary: "the starting contract for a table, written from its schema (the template the window proposes)", usage: 'lakerec contract init SOURCE TABLE [--out FILE]', load: () => import('./contract') },
  { name: 'warehouse', summary: 'pushed work: print the SQL of a level for a dialect, prove a warehouse computes the digest as lakerec does, list and trust connections', usage: 'lakerec warehouse sql --dialect spark|snowflake|trino|duckdb --level LEVEL --contract FILE [--like TABLE] | check NAME | list | trust FILE', load: () => import('./warehouse') },
  { name: 'lineage', summary: "column lineage of a dbt project's models (or a DuckDB file's views) verified by perturbation", usage: 'lakerec lineage PROJECT [--model M] [--rows N] [--seed S] [--detail] [--markdown F] [--json-out F] [--progress] [--json]', load: () => import('./lineage') },
  { name: 'build-sample-lakes', summary: 'build the corruption scenarios, the demo lake and the bisect lakes', usage: 'lakerec build-sample-lakes [--out DIR] [--rows N] [--seed S] [--only NAME]... [--json]', load: () => import('./build-sample-lakes') },
];

// How each command's arguments are read, in one table the command's parser and the dispatcher's
// guard (main/cli/guard.ts) both use, so they cannot read a command line differently:
//  - flags: the spec handed to parseArgs (main/engine/args.ts), by the command and by the guard;
//  - outputs: the flags whose value is a file or folder the command writes; the guard checks each
//    before the command runs, and main/cli/outputs.test.ts tries each inside a table;
//  - roots: the positional arguments and flags that name a table, source or contract the command
//    reads; no output may land in one. A baseline is not a root: `--baseline F --write-baseline F`
//    updates F, as documented.
// A new command (or a new flag) is declared here, and its module parses with ARGS[its form].
export interface ArgForm {
  flags: FlagSpec;
  outputs?: readonly string[];
  /** 'all', or the indices of the positional arguments that name something read. */
  rootPositionals?: 'all' | readonly number[];
  rootFlags?: readonly string[];
}

export const ARGS = {
  history: { flags: { json: 'boolean', 'allow-outside-paths': 'boolean' }, rootPositionals: 'all' },
  snapshot: { flags: { version: 'string', timestamp: 'string', out: 'string', 'allow-outside-paths': 'boolean' }, outputs: ['out'], rootPositionals: 'all' },
  reconcile: {
    flags: {
      contract: 'string', level: 'string', version: 'string', baseline: 'string', 'write-baseline': 'string',
      markdown: 'string', html: 'string', json: 'boolean', digest: 'string', progress: 'boolean', why: 'string[]',
    },
    outputs: ['write-baseline', 'markdown', 'html'],
    rootPositionals: 'all',
    rootFlags: ['contract'],
  },
  'reconcile --warehouse': {
    flags: { contract: 'string', warehouse: 'string', 'warehouse-side': 'string', level: 'string', 'row-cap': 'string', settings: 'string', json: 'boolean' },
    rootPositionals: 'all',
    rootFlags: ['contract'],
  },
  forensics: {
    flags: {
      json: 'boolean', 'partition-by': 'string', version: 'string', evidence: 'boolean', wide: 'boolean', 'allow-outside-paths': 'boolean',
      operation: 'string', since: 'string', until: 'string', partition: 'string', user: 'string', writer: 'string', text: 'string',
    },
    rootPositionals: 'all',
  },
  bisect: {
    flags: { predicate: 'string', keys: 'string[]', expect: 'string', partition: 'string', source: 'string', json: 'boolean', 'allow-outside-paths': 'boolean', 'allow-moving': 'boolean' },
    rootPositionals: 'all',
    rootFlags: ['source'],
  },
  diff: { flags: { from: 'string', to: 'string', keys: 'string', check: 'boolean', json: 'boolean' }, rootPositionals: 'all' },
  fingerprint: { flags: { version: 'string', json: 'boolean', check: 'boolean', sql: 'string', 'allow-outside-paths': 'boolean' }, rootPositionals: 'all' },
  'fingerprint --warehouse': { flags: { warehouse: 'string', compare: 'string', settings: 'string', json: 'boolean' }, rootFlags: ['compare'] },
  proof: { flags: { engines: 'string', proofs: 'string', json: 'boolean', html: 'string', seed: 'string', rows: 'string', evidence: 'boolean', dagster: 'string' }, outputs: ['html'] },
  mutate: {
    flags: { contract: 'string', seed: 'string', only: 'string[]', levels: 'string[]', version: 'string', json: 'boolean', html: 'string' },
    outputs: ['html'],
    rootPositionals: 'all',
    rootFlags: ['contract'],
  },
  keys: { flags: { contract: 'string', source: 'string', version: 'string', json: 'boolean' }, rootPositionals: 'all', rootFlags: ['contract', 'source'] },
  laws: { flags: { contract: 'string', version: 'string', json: 'boolean' }, rootPositionals: 'all', rootFlags: ['contract'] },
  // `contract init SOURCE TABLE`: the word `init` is not a path.
  contract: { flags: { out: 'string' }, outputs: ['out'], rootPositionals: [1, 2] },
  'warehouse sql': {
    flags: { dialect: 'string', level: 'string', contract: 'string', like: 'string', relation: 'string', partitions: 'string', versions: 'string', predicate: 'string', cap: 'string' },
    rootFlags: ['contract', 'like'],
  },
  'warehouse check': { flags: { json: 'boolean', settings: 'string', 'timeout-s': 'string' } },
  'warehouse list': { flags: { json: 'boolean', settings: 'string' } },
  'warehouse trust': { flags: {}, rootPositionals: 'all' },
  lineage: {
    flags: { model: 'string', rows: 'string', seed: 'string', json: 'boolean', detail: 'boolean', markdown: 'string', 'json-out': 'string', progress: 'boolean' },
    outputs: ['markdown', 'json-out'],
    rootPositionals: 'all',
  },
  'build-sample-lakes': { flags: { out: 'string', rows: 'string', seed: 'string', only: 'string[]', json: 'boolean' }, outputs: ['out'] },
} as const satisfies Record<string, ArgForm>;

export type FormName = keyof typeof ARGS;

/** `reconcile` and `fingerprint` take their warehouse form when `--warehouse` is given. */
export function namesWarehouse(argv: readonly string[]): boolean {
  return argv.some((a) => a === '--warehouse' || a.startsWith('--warehouse='));
}

const WAREHOUSE_SUBS = ['sql', 'check', 'list', 'trust'] as const;

/** Which form reads this command line, and the arguments that form parses (a subcommand word is not one). */
export function formOf(name: string, argv: readonly string[]): { form: ArgForm; argv: readonly string[] } | null {
  if (name === 'warehouse') {
    const [sub, ...rest] = argv;
    return (WAREHOUSE_SUBS as readonly string[]).includes(sub) ? { form: ARGS[`warehouse ${sub}` as FormName], argv: rest } : null;
  }
  if ((name === 'reconcile' || name === 'fingerprint') && namesWarehouse(argv)) return { form: ARGS[`${name} --warehouse`], argv };
  return Object.hasOwn(ARGS, name) ? { form: ARGS[name as FormName], argv } : null;
}

// Every output flag of every form of a command, for the hostile outputs test and the help.
for (const c of commands) {
  const outs = new Set<string>();
  for (const [form, spec] of Object.entries(ARGS) as [string, ArgForm][]) {
    if (form === c.name || form.startsWith(`${c.name} `)) for (const o of spec.outputs ?? []) outs.add(o);
  }
  if (outs.size && !c.outputs) c.outputs = [...outs];
}

// The commands that read a table at a location: each takes `--anonymous` (docs/cli.md), shown in its usage.
const TABLE_COMMANDS = ['history', 'snapshot', 'reconcile', 'forensics', 'bisect', 'diff', 'fingerprint', 'keys', 'laws', 'contract', 'warehouse'];
for (const c of commands) {
  if (!TABLE_COMMANDS.includes(c.name)) continue;
  c.takesTable = true;
  c.usage += ' [--anonymous]';
}
