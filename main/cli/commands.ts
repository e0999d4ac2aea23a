// The command table. Each command lives in its own file and is loaded only when used, so
// `lakerec history` does not pay for the reconcile engine.
import type { Command } from './io';

export const commands: Command[] = [
  { name: 'history', summary: 'the versions of a Delta table', usage: 'lakerec history TABLE [--json]', load: () => import('./history') },
  { name: 'snapshot', summary: "write a version's logical rows to Parquet", usage: 'lakerec snapshot TABLE [--version N | --timestamp ISO] --out FILE.parquet', load: () => import('./snapshot') },
];
