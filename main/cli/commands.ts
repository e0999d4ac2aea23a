// The command table. Each command lives in its own file and is loaded only when used, so
// `lakerec history` does not pay for the reconcile engine.
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

// The flags whose value is a file or folder a command writes: the dispatcher checks each through
// the output guard before the command runs (main/cli/guard.ts), and main/cli/outputs.test.ts tries
// each inside a table. A new command declares its own in its entry (`outputs: [...]`).
const OUTPUT_FLAGS: Record<string, string[]> = {
  snapshot: ['out'],
  reconcile: ['write-baseline', 'markdown', 'html'],
  proof: ['html'],
  mutate: ['html'],
  contract: ['out'],
  lineage: ['markdown', 'json-out'],
  'build-sample-lakes': ['out'],
};
for (const c of commands) if (OUTPUT_FLAGS[c.name] && !c.outputs) c.outputs = OUTPUT_FLAGS[c.name];

// The commands that read a table at a location: each takes `--anonymous` (docs/cli.md), shown in its usage.
const TABLE_COMMANDS = ['history', 'snapshot', 'reconcile', 'forensics', 'bisect', 'diff', 'fingerprint', 'keys', 'laws', 'contract', 'warehouse'];
for (const c of commands) {
  if (!TABLE_COMMANDS.includes(c.name)) continue;
  c.takesTable = true;
  c.usage += ' [--anonymous]';
}
