// The Delta writer's public surface.
export {
  DeltaWriter, WRITER_ENGINE_INFO, versionFileName, deltaTypeOfDuck, protocolFor,
  type RowSource, type WriterOptions, type CreateTableOptions, type WriterState, type CommitResult,
  type WriteOptions, type OverwriteOptions, type MergeOptions, type VacuumOptions, type VacuumResult,
} from './writer';
export { commitVersion, commitText, tableStorage } from './commit';
export { duckType, partitionDirName, logPath } from './schema';
export { CORRUPTIONS, EXPECTED_MODE, injectCorruption, type Corruption, type CorruptionTarget, type Injection } from './corrupt';
