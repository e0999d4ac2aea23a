// The dispatcher's half of the output guard: before any command runs, the tables and sources its
// command line names become the process's output roots, and every output flag the command table
// declares is checked against them (and against every Delta table). A refusal is exit 2, one
// line, before a byte of the table is read; the command's own writes go through the same guard.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { looksRemote } from '../../shared/location';
import { guardOutputPath, setOutputRoots } from '../engine/outputs';
import type { Command } from './io';

export interface GuardedArgs {
  roots: string[];
  outputs: { flag: string; path: string }[];
}

/**
 * Reads argv as the commands' parser does (`--flag value`, `--flag=value`, `--` ends the flags)
 * without knowing which flags take values: a folder named anywhere is a root; a file is a root
 * when it is not a flag's value (a file source is; a contract or baseline file is not, so the
 * documented `--baseline F --write-baseline F` still updates F).
 */
function readGuardedArgs(cmd: Pick<Command, 'outputs'>, argv: readonly string[], cwd: string): GuardedArgs {
  const outs = new Set(cmd.outputs ?? []);
  const roots: string[] = [];
  const outputs: GuardedArgs['outputs'] = [];
  const candidate = (token: string, flagValue: boolean) => {
    if (token === '' || token.includes('\0')) return;
    let p = resolve(cwd, token);
    if (!existsSync(p) && /@\d+$/.test(token)) p = resolve(cwd, token.replace(/@\d+$/, ''));
    try {
      const st = statSync(p);
      if (st.isDirectory() || !flagValue) roots.push(p);
    } catch {
      // not a path (a number, a predicate name): nothing to protect
    }
  };
  let afterFlag = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { for (const x of argv.slice(i + 1)) candidate(x, false); break; }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      if (outs.has(name)) {
        const value = eq >= 0 ? a.slice(eq + 1) : argv[++i];
        if (value !== undefined) outputs.push({ flag: name, path: looksRemote(value) ? value : resolve(cwd, value) });
        afterFlag = false;
      } else if (eq >= 0) {
        candidate(a.slice(eq + 1), true);
        afterFlag = false;
      } else {
        afterFlag = true;
      }
      continue;
    }
    candidate(a, afterFlag);
    afterFlag = false;
  }
  return { roots, outputs };
}

/** Sets the output roots for this command line and refuses a declared output inside one (exit 2). */
export function guardCommandLine(cmd: Pick<Command, 'outputs'>, argv: readonly string[], cwd: string): GuardedArgs {
  const g = readGuardedArgs(cmd, argv, cwd);
  setOutputRoots(g.roots);
  for (const o of g.outputs) guardOutputPath(o.path, `--${o.flag}`);
  return g;
}
