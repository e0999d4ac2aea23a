// Where a row came from: the data file, the row inside it, the commit that added the file. Used by
// reconcile's example rows and the trust checks alike, so it belongs to neither.

/** The commit that added a data file: the rows it holds were written by it. */
export interface CommitRef {
  version: number;
  /** ms since epoch (null when the commit is known only from a checkpoint). */
  timestamp: number | null;
  operation: string | null;
  /** commitInfo.engineInfo (the writer), else null. */
  writer: string | null;
  /** True when the commit file is gone (log cleanup): only the version is known. */
  fromCheckpoint: boolean;
}

/** Where a target row lives: its data file, its row inside it, the commit that added the file. */
export interface RowProvenance {
  file: string;
  row: number | null;
  commit: CommitRef | null;
}
