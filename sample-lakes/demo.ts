// The demo: a clean Delta table is built, broken twice (one day's batch applied twice, another
// day deleted, so the total row count is still exactly right), reconciled and bisected. Every
// block is the real output of the lakerec command printed above it, run by the CLI the caller
// hands in (main/entries/demo.ts passes the installed CLI's dispatcher, in this process: the CLI
// imports sample-lakes/build, so sample-lakes never imports the CLI); the lake lives in a temp
// folder that is deleted afterwards (keep: DIR builds it there and keeps it). `npm run demo` runs it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LakerecError } from '../shared/errors';
import { DEMO } from './scenarios';
import { DAYS } from './orders';

export interface DemoStep {
  title: string;
  why: string;
  argv: string[];
  /** Exit code the step must return for the demo to be what it claims. */
  expectExit: number;
  /** Text its output must contain. */
  expectText: string[];
}

export function parseDemoArgs(argv: string[]): { keep: string | null; rows: number } {
  let keep: string | null = null;
  let rows = 5400;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--keep') keep = resolve(argv[++i] ?? '');
    else if (argv[i] === '--rows') rows = Number(argv[++i]);
    else throw new LakerecError('usage', `unknown argument ${argv[i]} (usage: npm run demo -- [--keep DIR] [--rows N])`);
  }
  if (!Number.isInteger(rows) || rows < 6) throw new LakerecError('usage', '--rows must be an integer of at least 6');
  return { keep, rows };
}

/** Runs one lakerec command line (the CLI's `runCli`) and returns its exit code. */
export type DemoCli = (argv: string[], io: {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: Record<string, string | undefined>;
}) => Promise<number>;

export interface DemoOptions {
  /** The CLI the steps run through. */
  cli: DemoCli;
  /** Build the lake here and keep it (default: a temp folder, deleted afterwards). */
  keep?: string | null;
  rows?: number;
  out(text: string): void;
  err(text: string): void;
  env?: Record<string, string | undefined>;
}

export interface DemoResult {
  /** 0 when every step showed what the demo claims, else 1. */
  code: number;
  seconds: number;
  failures: string[];
}

/**
 * The demo's commands, in order (`npm run demo` runs them in-process, `npm run record-demo`
 * through the real bin). The first runs in the current folder, the rest in `out`/demo.
 */
export function demoSteps(out: string, rows: number): DemoStep[] {
  const perDay = Math.ceil(rows / DAYS.length);
  return [
    {
      title: '1. build', why: `v0 CREATE TABLE, v1-v6 one append per day (${perDay} rows each), v7 the ${DAYS[2]} batch again, v8 DELETE dt = ${DAYS[0]}`,
      argv: ['build-sample-lakes', '--only', 'demo', '--rows', String(rows), '--out', out], expectExit: 0, expectText: ['built 1 lake'],
    },
    { title: '2. the log, as the table records it', why: 'nothing in the history says "incident"', argv: ['history', 'table'], expectExit: 0, expectText: ['DELETE'] },
    {
      title: '3. the row count that lies', why: 'totals agree exactly; counts per partition (read from the log alone) do not',
      argv: ['reconcile', 'source/orders.parquet', 'table', '--contract', 'contract.yaml', '--level', 'counts'],
      expectExit: 1, expectText: [`source ${rows.toLocaleString('en-US')}`, 'partition_wipe'],
    },
    {
      title: '4. reconcile, all five levels', why: 'which keys, which rows',
      argv: ['reconcile', 'source/orders.parquet', 'table', '--contract', 'contract.yaml'],
      expectExit: 1, expectText: ['partition_wipe', 'double_load'],
    },
    {
      title: '5. bisect the double load', why: 'a predicate the table answers alone',
      argv: ['bisect', 'table', '--predicate', 'unique-keys', '--keys', 'order_id'], expectExit: 1, expectText: ['first bad version: 7'],
    },
    {
      title: '6. forensics', why: 'the log as an incident record: the retried batch and the emptied day',
      argv: ['forensics', 'table', '--partition-by', 'dt'], expectExit: 0, expectText: ['v7 duplicate_batch', 'v8 partition_emptied'],
    },
  ];
}

/** Runs the demo, writing its transcript to `out`. */
export async function runDemo(opts: DemoOptions): Promise<DemoResult> {
  const t0 = performance.now();
  const keep = opts.keep ?? null;
  const rows = opts.rows ?? 5400;
  const out = keep ?? mkdtempSync(join(tmpdir(), 'lakerec-demo-'));
  const w = (s: string): void => { opts.out(s); };
  const rule = (s: string): void => w(`\n\u2500\u2500 ${s} ${'\u2500'.repeat(Math.max(0, 86 - s.length))}\n`);
  w('lakerec demo: a clean Delta table, broken twice through the ordinary write path, reconciled and bisected.\n');
  w(`Each block is the real output of the command above it. Lake: ${out}\n`);
  w(`What happens to it: ${DEMO.story}\n`);
  const lake = join(out, 'demo');
  const steps = demoSteps(out, rows);
  const failures: string[] = [];
  try {
    for (const s of steps) {
      rule(`${s.title}: ${s.why}`);
      const shown = s.argv.map((a) => (a === out ? '$LAKE' : a)).join(' ');
      w(`$ lakerec ${shown}\n`);
      let text = '';
      const t = performance.now();
      const code = await opts.cli(s.argv, {
        out: (x) => { text += x; w(x); },
        err: (x) => { text += x; opts.err(x); },
        cwd: s.title.startsWith('1.') ? process.cwd() : lake,
        env: opts.env ?? process.env,
      });
      w(`[exit ${code} \u00b7 ${((performance.now() - t) / 1000).toFixed(2)} s]\n`);
      if (code !== s.expectExit) failures.push(`${s.title}: exit ${code}, expected ${s.expectExit}`);
      for (const e of s.expectText) if (!text.includes(e)) failures.push(`${s.title}: output lacks "${e}"`);
    }
  } finally {
    if (!keep) rmSync(out, { recursive: true, force: true });
  }
  rule('done');
  const secs = (performance.now() - t0) / 1000;
  if (failures.length > 0) {
    w(`the demo did not show what it claims:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
  } else {
    w('The total row count was exactly right; per-partition counts from the log caught both incidents without reading a row of the table; bisect named version 7 as the double load, and forensics named version 8 as the commit that emptied a day.\n');
  }
  w(`whole demo: ${secs.toFixed(1)} s wall\n`);
  return { code: failures.length > 0 ? 1 : 0, seconds: secs, failures };
}

