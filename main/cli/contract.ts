// `lakerec contract init SOURCE TABLE [--out FILE]`: the starting contract the window's Reconcile
// screen proposes (main/views/contract-template.ts, one template for both), printed, or
// written to FILE. It never writes into the table's folder and never replaces a file.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeOutput } from '../engine/outputs';
import { LakerecError } from '../../shared/errors';
import { parseArgs, str } from '../engine/args';
import { ARGS } from './commands';
import type { CliIO } from './io';
import { contractTemplate } from '../views/contract-template';
import { tableArg } from '../engine/location';

const USAGE = 'lakerec contract init SOURCE TABLE [--out FILE]';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.contract.flags);
  const [sub, source, table] = p.positional;
  if (sub !== 'init' || p.positional.length !== 3) throw new LakerecError('usage', `usage: ${USAGE}`);
  const src = resolve(io.cwd, source.replace(/@\d+$/, ''));
  if (!existsSync(src)) throw new LakerecError('source_unreadable', `the source ${src} does not exist`, { path: src });
  const root = tableArg(io.cwd, table);
  const text = await contractTemplate(root);
  const out = str(p, 'out');
  if (out === undefined) {
    io.out(text);
    return 0;
  }
  const path = resolve(io.cwd, out);
  if (existsSync(path) && statSync(path).isDirectory()) throw new LakerecError('usage', `--out ${path} is a folder: name a file`);
  try {
    // The output guard refuses a path inside the table (or any table); exclusive: a file already
    // there is never replaced.
    writeOutput(path, text, { what: '--out', roots: [root], exclusive: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new LakerecError('usage', `--out ${path} exists: lakerec does not replace it (remove it, or name another file)`);
    throw e;
  }
  io.err(`wrote ${path}: review the keys before trusting a verdict\n`);
  return 0;
}
