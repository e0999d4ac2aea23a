// The Delta protocol's own vocabulary (PROTOCOL.md in delta-io/delta), as plain types usable
// anywhere. Field names follow the JSON in _delta_log exactly.

export interface Protocol {
  minReaderVersion: number;
  minWriterVersion: number;
  readerFeatures?: string[];
  writerFeatures?: string[];
}

export interface Format {
  provider: string;
  options?: Record<string, string>;
}

export interface Metadata {
  id: string;
  name?: string | null;
  description?: string | null;
  format: Format;
  schemaString: string;
  partitionColumns: string[];
  configuration?: Record<string, string>;
  createdTime?: number | null;
}

/** Deletion vector descriptor: storageType 'u' (relative UUID path), 'i' (inline), 'p' (absolute path). */
export interface DeletionVectorDescriptor {
  storageType: 'u' | 'i' | 'p';
  pathOrInlineDv: string;
  offset?: number;
  sizeInBytes: number;
  cardinality: number;
}

export interface AddFile {
  path: string;
  partitionValues: Record<string, string | null>;
  size: number;
  modificationTime: number;
  dataChange: boolean;
  stats?: string | null;
  tags?: Record<string, string> | null;
  deletionVector?: DeletionVectorDescriptor | null;
  baseRowId?: number | null;
  defaultRowCommitVersion?: number | null;
  clusteringProvider?: string | null;
}

export interface RemoveFile {
  path: string;
  deletionTimestamp?: number | null;
  dataChange: boolean;
  extendedFileMetadata?: boolean | null;
  partitionValues?: Record<string, string | null> | null;
  size?: number | null;
  stats?: string | null;
  tags?: Record<string, string> | null;
  deletionVector?: DeletionVectorDescriptor | null;
  baseRowId?: number | null;
  defaultRowCommitVersion?: number | null;
}

export interface CommitInfo {
  timestamp?: number;
  inCommitTimestamp?: number;
  operation?: string;
  operationParameters?: Record<string, unknown>;
  operationMetrics?: Record<string, unknown>;
  engineInfo?: string;
  isolationLevel?: string;
  isBlindAppend?: boolean;
  readVersion?: number;
  txnId?: string;
  [key: string]: unknown;
}

export interface TransactionId {
  appId: string;
  version: number;
  lastUpdated?: number | null;
}

export interface DomainMetadata {
  domain: string;
  configuration: string;
  removed: boolean;
}

export interface CheckpointMetadata {
  version: number;
  tags?: Record<string, string> | null;
}

export interface Sidecar {
  path: string;
  sizeInBytes: number;
  modificationTime: number;
  tags?: Record<string, string> | null;
}

export interface CdcFile {
  path: string;
  partitionValues: Record<string, string | null>;
  size: number;
  dataChange: boolean;
  tags?: Record<string, string> | null;
}

/** One line of a commit file. */
export interface Action {
  protocol?: Protocol;
  metaData?: Metadata;
  add?: AddFile;
  remove?: RemoveFile;
  commitInfo?: CommitInfo;
  txn?: TransactionId;
  domainMetadata?: DomainMetadata;
  checkpointMetadata?: CheckpointMetadata;
  sidecar?: Sidecar;
  cdc?: CdcFile;
}

/** Parsed `stats` of an add action. Values are JSON as written (numbers, strings, nested objects). */
export interface FileStats {
  numRecords?: number;
  minValues?: Record<string, unknown>;
  maxValues?: Record<string, unknown>;
  nullCount?: Record<string, unknown>;
  tightBounds?: boolean;
}

// ---- Schema (schemaString) ----

export type PrimitiveTypeName =
  | 'string' | 'long' | 'integer' | 'short' | 'byte' | 'float' | 'double' | 'boolean'
  | 'binary' | 'date' | 'timestamp' | 'timestamp_ntz' | 'variant'
  | `decimal(${number},${number})` | `decimal(${number}, ${number})`;

export interface StructField {
  name: string;
  type: DataType;
  nullable: boolean;
  metadata: Record<string, unknown>;
}

export interface StructType {
  type: 'struct';
  fields: StructField[];
}

export interface ArrayType {
  type: 'array';
  elementType: DataType;
  containsNull: boolean;
}

export interface MapType {
  type: 'map';
  keyType: DataType;
  valueType: DataType;
  valueContainsNull: boolean;
}

export type DataType = string | StructType | ArrayType | MapType;

export type ColumnMappingMode = 'none' | 'name' | 'id';
