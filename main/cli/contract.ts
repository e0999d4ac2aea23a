// `lakerec contract init SOURCE TABLE [--out FILE]`: the starting contract the window's Reconcile
// screen proposes (main/workbench/contract-template.ts, one template for both), printed, or
// written to FILE. It never writes into the table's folder and never replaces a file.
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import { relative, resolve, isAbsolute } from 'node:path';
import { LakerecError } from '../../shared/errors';
import { parseArgs, str } from '../engine/args';
import type { CliIO } from './io';
import { contractTemplate } from '../workbench/contract-template';

const USAGE = 'lakerec contract init SOURCE TABLE [--out FILE]';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, { out: 'string' });
  const [sub, source, table] = p.positional;
  if (sub !== 'init' || p.positional.length !== 3) throw new LakerecError('usage', `usage: ${USAGE}`);
  const src = resolve(io.cwd, source.replace(/@\d+$/, ''));
  if (!existsSync(src)) throw new LakerecError('source_unreadable', `the source ${src} does not exist`, { path: src });
  const root = resolve(io.cwd, table);
  const text = await contractTemplate(root);
  const out = str(p, 'out');
  if (out === undefined) {
    io.out(text);
    return 0;
  }
  const path = resolve(io.cwd, out);
  const rel = relative(root, path);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) {
    throw new LakerecError('usage', `--out ${path} is inside the table's folder: lakerec never writes into a table; write the contract beside it`);
  }
  if (existsSync(path) && statSync(path).isDirectory()) throw new LakerecError('usage', `--out ${path} is a folder: name a file`);
  let fd: number;
  try {
    // 'wx': a file already there is never replaced.
    fd = openSync(path, 'wx', 0o644);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new LakerecError('usage', `--out ${path} exists: lakerec does not replace it (remove it, or name another file)`);
    throw new LakerecError('io_error', `cannot write ${path}: ${(e as Error).message}`, { path });
  }
  try { writeSync(fd, text); } finally { closeSync(fd); }
  io.err(`wrote ${path}: review the keys before trusting a verdict\n`);
  return 0;
}
