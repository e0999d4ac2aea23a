// Recent tables, persisted as one small JSON file in the user's app-data folder. A damaged file
// never stops the window from opening: it reads as an empty list (one line says why) and is
// rewritten on next open (main/engine/json-list.ts).
import { join } from 'node:path';
import { JsonListFile } from '../engine/json-list';
import type { RecentTable } from '../../shared/api';

export const RECENT_FILE = 'recent-tables.json';
const MAX_RECENT = 12;

export class RecentTables {
  private readonly store: JsonListFile<RecentTable>;
  /** Serialises writes so two quick opens cannot interleave read-modify-write. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(dir: string, warn?: (line: string) => void) {
    this.store = new JsonListFile<RecentTable>({
      file: join(dir, RECENT_FILE), what: 'the recent tables list', key: 'tables', max: MAX_RECENT, keep: 'first', isEntry: isRecent,
      ...(warn ? { warn } : {}),
    });
  }

  async list(): Promise<RecentTable[]> {
    return this.store.read();
  }

  remember(entry: RecentTable): Promise<RecentTable[]> {
    return this.update((list) => [entry, ...list.filter((t) => t.path !== entry.path)]);
  }

  forget(path: string): Promise<RecentTable[]> {
    return this.update((list) => list.filter((t) => t.path !== path));
  }

  private update(f: (list: RecentTable[]) => RecentTable[]): Promise<RecentTable[]> {
    const next = this.chain.then(() => this.store.update(f));
    this.chain = next.catch(() => undefined);
    return next;
  }
}

function isRecent(v: unknown): v is RecentTable {
  const o = v as Partial<RecentTable> | null;
  return typeof o === 'object' && o !== null && typeof o.path === 'string' && typeof o.name === 'string'
    && typeof o.openedAt === 'number';
}
