// The reader (main/delta/table.ts) adapted to what the replay needs. Loaded lazily so the pure
// replay and heuristics do not pull the reader (and its Parquet checkpoint code) into every import.
import type { HistorySource } from './history';

export async function openHistorySource(root: string, opts: { allowOutsidePaths?: boolean } = {}): Promise<HistorySource> {
  const { DeltaTable } = await import('../delta/table');
  const table = await DeltaTable.open(root, { allowOutsidePaths: opts.allowOutsidePaths ?? false });
  return {
    root: table.root,
    versions: async () => await table.versions(),
    changes: async () => await table.changes(),
    snapshotAt: async (version: number) => {
      const s = await table.snapshot({ version });
      return { files: s.files, protocol: s.protocol, metadata: s.metadata, timestamp: s.timestamp };
    },
  };
}
