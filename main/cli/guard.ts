// The dispatcher's half of the output guard: before any command runs, the tables, sources and
// contracts its command line names become the process's output roots, and every output flag it
// declares is checked against them (and against every Delta table). A refusal is exit 2, one
// line, before a byte of the table is read; the command's own writes go through the same guard.
//
// The command line is read by the parser the command itself uses, with the command's own flag
// spec from the command table (main/cli/commands.ts ARGS), so which word is a flag's value and
// which is a positional is decided once, the same way for both.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { looksRemote } from '../../shared/location';
import { guardOutputPath, setOutputRoots } from '../engine/outputs';
import { parseArgs, type ParsedArgs } from '../engine/args';
import { formOf, type ArgForm } from './commands';

export interface GuardedArgs {
  roots: string[];
  outputs: { flag: string; path: string }[];
}

/** A path the command reads, as it will resolve it (a source may carry a version: `path@3`). */
function rootPath(token: string, cwd: string): string | null {
  if (token === '' || token.includes('\0') || looksRemote(token)) return null;
  const p = resolve(cwd, token);
  if (!existsSync(p) && /@\d+$/.test(token)) return resolve(cwd, token.replace(/@\d+$/, ''));
  return p;
}

function values(p: ParsedArgs, flag: string): string[] {
  const v = p.flags[flag];
  return typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
}

/** The roots and outputs of a command line, read with the form's own flag spec. */
export function readGuardedArgs(form: ArgForm, argv: readonly string[], cwd: string): GuardedArgs {
  const p = parseArgs([...argv], form.flags);
  const named = form.rootPositionals === 'all' ? p.positional : (form.rootPositionals ?? []).map((i) => p.positional[i]).filter((x): x is string => x !== undefined);
  const roots: string[] = [];
  for (const token of [...named, ...(form.rootFlags ?? []).flatMap((f) => values(p, f))]) {
    const r = rootPath(token, cwd);
    if (r !== null) roots.push(r);
  }
  const outputs = (form.outputs ?? []).flatMap((flag) => values(p, flag).map((v) => ({ flag, path: looksRemote(v) ? v : resolve(cwd, v) })));
  return { roots, outputs };
}

/**
 * Sets the output roots for this command line and refuses a declared output inside one (exit 2).
 * A command line the parser refuses is refused here with the parser's own line (exit 2).
 */
export function guardCommandLine(name: string, argv: readonly string[], cwd: string): GuardedArgs {
  const read = formOf(name, argv);
  // No form (an unknown subcommand): nothing is read or written; the command says what is wrong.
  const g = read ? readGuardedArgs(read.form, read.argv, cwd) : { roots: [], outputs: [] };
  setOutputRoots(g.roots);
  for (const o of g.outputs) guardOutputPath(o.path, `--${o.flag}`);
  return g;
}
