// One small interface per engine: write an Arrow table as a Delta table (its own Parquet, our
// log), and read a Delta table back into Arrow (our reader for the log, its own Parquet reader).
// More engines (Spark, delta-rs) can be added later behind the same interface.
import type * as A from 'apache-arrow';
import type { Protocol, StructType } from '../../../shared/delta';
import type { JobContext } from '../../../shared/jobs';

export interface EngineWrite {
  version: number;
  files: number;
  rows: number;
  /** The Delta schema the engine committed (its own types; nullability and tags as given). */
  schema: StructType;
}

export interface EngineRead {
  /** The rows as the engine read them: its own column types; nullability and tags from the log. */
  table: A.Table;
  /** The Delta schema in the log. */
  schema: StructType;
  /** The protocol the engine read, and the reader features it checked it supports. */
  protocol: Protocol;
  featuresChecked: string[];
  /** The snapshot version read. */
  version: number;
  /**
   * What the engine changed on the way in, one line per column, each naming the column (e.g. a
   * map Polars read as a list of key/value structs, restored to the log's map type). Shown as
   * evidence of `schema_match`; empty or absent when nothing was changed.
   */
  adjustments?: string[];
}

export interface Engine {
  /** Short name used on the command line: duckdb, arrow. */
  name: string;
  /** One line for the window: which Parquet implementation, which log. */
  description: string;
  /** commitInfo.engineInfo of this engine's commits starts with this: `lakerec-<name>/`. */
  engineInfoPrefix: string;
  /** Reader table features this engine can read. */
  readerFeatures: ReadonlySet<string>;
  /** Test doubles are not offered to users. */
  testOnly?: boolean;
  /** Whether the engine can run here (a native module that loads, a program on PATH); absent: always. */
  availability?(): { available: true } | { available: false; reason: string };
  write(root: string, table: A.Table, ctx?: JobContext): Promise<EngineWrite>;
  read(root: string, ctx?: JobContext): Promise<EngineRead>;
}
