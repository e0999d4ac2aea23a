// Recent tables, persisted as one small JSON file in the user's app-data folder. A damaged file
// never stops the window from opening: it reads as an empty list and is rewritten on next open.
import { readFile } from 'node:fs/promises';
import { writeOutput } from '../engine/outputs';
import { join } from 'node:path';
import type { RecentTable } from '../../shared/api';

export const RECENT_FILE = 'recent-tables.json';
const MAX_RECENT = 12;

export class RecentTables {
  private readonly file: string;
  /** Serialises writes so two quick opens cannot interleave read-modify-write. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly dir: string) {
    this.file = join(dir, RECENT_FILE);
  }

  async list(): Promise<RecentTable[]> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return [];
    }
    try {
      const parsed: unknown = JSON.parse(text);
      const items = (parsed as { tables?: unknown } | null)?.tables;
      if (!Array.isArray(items)) return [];
      return items.filter(isRecent).slice(0, MAX_RECENT);
    } catch {
      return [];
    }
  }

  remember(entry: RecentTable): Promise<RecentTable[]> {
    return this.update((list) => [entry, ...list.filter((t) => t.path !== entry.path)].slice(0, MAX_RECENT));
  }

  forget(path: string): Promise<RecentTable[]> {
    return this.update((list) => list.filter((t) => t.path !== path));
  }

  private update(f: (list: RecentTable[]) => RecentTable[]): Promise<RecentTable[]> {
    const next = this.chain.then(async () => {
      const list = f(await this.list());
      writeOutput(this.file, JSON.stringify({ tables: list }, null, 2) + '\n', { what: 'the recent tables list' });
      return list;
    });
    this.chain = next.catch(() => undefined);
    return next;
  }
}

function isRecent(v: unknown): v is RecentTable {
  const o = v as Partial<RecentTable> | null;
  return typeof o === 'object' && o !== null && typeof o.path === 'string' && typeof o.name === 'string'
    && typeof o.openedAt === 'number';
}
