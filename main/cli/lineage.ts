// `lakerec lineage PROJECT [--model M] [--rows N] [--seed S] [--json]`: the claimed column lineage
// of a dbt project's models (or a DuckDB file's views) verified by perturbation. Exit: 0 nothing
// unexplained, 1 an observed influence the static lineage does not explain, 2 usage, 3 unreadable.
import { resolve } from 'node:path';
import { bool, int, parseArgs, requirePositional, str } from '../engine/args';
import { guardOutputPath, writeOutput } from '../engine/outputs';
import { lineageLines, lineageMarkdown } from '../lineage/report';
import { verifyLineage } from '../lineage/verify';
import { ARGS } from './commands';
import type { CliIO } from './io';

const USAGE = 'lakerec lineage PROJECT [--model M] [--rows N] [--seed S] [--detail] [--markdown F] [--json-out F] [--progress] [--json]';

export async function run(argv: string[], io: CliIO): Promise<number> {
  const p = parseArgs(argv, ARGS.lineage.flags);
  const [project] = requirePositional(p, 1, USAGE);
  const rows = int(p, 'rows');
  const seed = int(p, 'seed');
  const root = resolve(io.cwd, project);
  // Reports never land inside the project read (its inputs may be Delta tables under it).
  const outputs = (['markdown', 'json-out'] as const).map((f) => [f, str(p, f)] as const);
  for (const [flag, v] of outputs) if (v !== undefined) guardOutputPath(resolve(io.cwd, v), `--${flag}`, [root]);
  // --progress: one line per model on stderr ("verifying orders (model 4 of 5)").
  const progress = bool(p, 'progress')
    ? (x: { phase: string; done: number; total: number | null }) => { if (x.total !== null && x.done < x.total) io.err(`${x.phase} (model ${x.done + 1} of ${x.total})\n`); }
    : null;
  const r = await verifyLineage({
    project: root,
    ...(str(p, 'model') !== undefined ? { model: str(p, 'model') } : {}),
    ...(rows !== undefined ? { rows } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(progress ? { ctx: { progress } } : {}),
  });
  for (const [flag, v] of outputs) {
    if (v === undefined) continue;
    const path = resolve(io.cwd, v);
    writeOutput(path, flag === 'markdown' ? lineageMarkdown(r) : JSON.stringify(r, null, 2) + '\n', { what: `--${flag}`, roots: [root] });
  }
  io.out(bool(p, 'json') ? JSON.stringify(r, null, 2) + '\n' : lineageLines(r, { detail: bool(p, 'detail') }).join('\n') + '\n');
  return r.totals.unexplained > 0 ? 1 : 0;
}
