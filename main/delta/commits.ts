// One commit's actions parsed: JSON lines into a ParsedCommit (adds in a columnar batch, fastadd.ts),
// and numRecords read from an add's stats without parsing them all. Pure logic, no disk.
import { LakerecError } from '../../shared/errors';
import type {
  Action, AddFile, CommitInfo, DomainMetadata, Metadata, Protocol, RemoveFile, Sidecar, TransactionId,
} from '../../shared/delta';
import { AddBatch, checkActionLine, LazyAddFile, scanAdd } from './fastadd';

/** A checkpoint add may carry typed `stats_parsed` instead of the JSON `stats` string. */
export type LogAddFile = AddFile & { stats_parsed?: Record<string, unknown> | null };

export interface ParsedCommit {
  version: number;
  adds: LogAddFile[];
  removes: RemoveFile[];
  protocol: Protocol | null;
  metaData: Metadata | null;
  commitInfo: CommitInfo | null;
  txns: TransactionId[];
  domainMetadata: DomainMetadata[];
  sidecars: Sidecar[];
  hasCheckpointMetadata: boolean;
}

export function emptyCommit(version: number): ParsedCommit {
  return { version, adds: [], removes: [], protocol: null, metaData: null, commitInfo: null, txns: [], domainMetadata: [], sidecars: [], hasCheckpointMetadata: false };
}

/** Adds one action to a parsed commit (unknown action kinds are ignored, per protocol). */
export function addAction(c: ParsedCommit, a: Action): void {
  if (a.add) c.adds.push(a.add as LogAddFile);
  else if (a.remove) c.removes.push(a.remove);
  else if (a.commitInfo) c.commitInfo = a.commitInfo;
  else if (a.metaData) c.metaData = a.metaData;
  else if (a.protocol) c.protocol = a.protocol;
  else if (a.txn) c.txns.push(a.txn);
  else if (a.domainMetadata) c.domainMetadata.push(a.domainMetadata);
  else if (a.sidecar) c.sidecars.push(a.sidecar);
  else if (a.checkpointMetadata) c.hasCheckpointMetadata = true;
}

/** Parses a newline-delimited JSON commit (or JSON checkpoint / compaction file). */
export function parseCommitText(text: string, version: number, fileName: string): ParsedCommit {
  // A plain object (adds as an array): callers copy it with Object.assign or spread.
  const b = parseCommitBytes(Buffer.from(text, 'utf8'), version, fileName) as BatchedCommit;
  return {
    version, adds: b.adds, removes: b.removes, protocol: b.protocol, metaData: b.metaData, commitInfo: b.commitInfo,
    txns: b.txns, domainMetadata: b.domainMetadata, sidecars: b.sidecars, hasCheckpointMetadata: b.hasCheckpointMetadata,
  };
}

/**
 * The same from the file's bytes: lines are found with indexOf on the Buffer; plain add lines
 * take the fast path (fastadd.ts) and only the other lines are decoded and JSON-parsed.
 */
export function parseCommitBytes(buf: Buffer, version: number, fileName: string): ParsedCommit {
  const c = new BatchedCommit(new AddBatch(buf, version));
  const batch = c.batch;
  const n = buf.length;
  let start = 0;
  let lineNo = 0;
  while (start < n) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = n;
    lineNo++;
    if (scanAdd(buf, start, end, batch)) {
      start = end + 1;
      continue;
    }
    const line = buf.toString('utf8', start, end);
    start = end + 1;
    if (line.length === 0 || (line.charCodeAt(0) <= 32 && line.trim() === '')) continue;
    let a: Action;
    try {
      a = JSON.parse(line) as Action;
    } catch (e) {
      throw new LakerecError('log_corrupt', `${fileName} line ${lineNo} is not valid JSON (${(e as Error).message})`, { file: fileName, line: lineNo });
    }
    checkActionLine(a, fileName, lineNo, (why) => new LakerecError('log_corrupt', `commit at version ${version}: ${why}`, { file: fileName, line: lineNo, version }));
    if (a.add) batch.pushObject(a.add as LogAddFile);
    else addAction(c, a);
  }
  return c;
}

/** How many adds a parsed commit holds (without making objects of a batch's adds). */
export function addCount(c: ParsedCommit): number {
  return c instanceof BatchedCommit ? c.batch.n : c.adds.length;
}

/**
 * A commit read from JSON: its adds live in a columnar batch (fastadd.ts) and become objects only
 * when `adds` is read (the timeline, forensics); replay reads the batch directly.
 */
export class BatchedCommit implements ParsedCommit {
  removes: RemoveFile[] = [];
  protocol: Protocol | null = null;
  metaData: Metadata | null = null;
  commitInfo: CommitInfo | null = null;
  txns: TransactionId[] = [];
  domainMetadata: DomainMetadata[] = [];
  sidecars: Sidecar[] = [];
  hasCheckpointMetadata = false;
  private list: LogAddFile[] | undefined;
  readonly version: number;
  constructor(readonly batch: AddBatch) {
    this.version = batch.version;
  }
  get adds(): LogAddFile[] {
    if (!this.list) this.list = this.batch.all();
    return this.list;
  }
  set adds(v: LogAddFile[]) { this.list = v; }
  /** The batch still says what `adds` says (nobody replaced or grew the list). */
  get batchCurrent(): boolean {
    return this.list === undefined || this.list.length === this.batch.n;
  }
}

const numRecordsRe = /"numRecords"\s*:\s*(\d+)/;

/** numRecords from a stats JSON string without parsing the whole (possibly 100-column) object. */
export function numRecordsFromStats(stats: string | null | undefined): number | null {
  if (!stats) return null;
  const m = numRecordsRe.exec(stats);
  // An escape or a second numRecords: what JSON.parse reads (the last duplicate) is the answer.
  if (stats.indexOf('\\') >= 0 || (m && stats.indexOf('"numRecords"', m.index + 1) >= 0)) {
    try {
      const n = (JSON.parse(stats) as { numRecords?: unknown }).numRecords;
      return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : null;
    } catch {
      return null;
    }
  }
  return m ? Number(m[1]) : null;
}

/** numRecords of an add from its stats (or checkpoint stats_parsed), without parsing all of its stats. */
export function numRecordsOfAdd(add: AddFile): number | null {
  return addNumRecords(add as LogAddFile);
}

export function addNumRecords(add: LogAddFile): number | null {
  if (add instanceof LazyAddFile) return add.numRecordsHint;
  const n = numRecordsFromStats(add.stats);
  if (n !== null) return n;
  const p = add.stats_parsed?.numRecords;
  return typeof p === 'number' ? p : null;
}
