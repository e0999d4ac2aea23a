// The reader's storage seam (ADR 0008): one interface, a local folder and an in-memory store.
export type { EngineFile, FileMeta, ReadCap, Storage } from './storage';
export { bindStorage, storageOf, watchStorage, type StorageAccess } from './storage';
export { LocalStorage, fileKind, type LocalStorageOptions } from './local';
export { MemoryStorage } from './memory';
export { LIMIT_KNOBS, readLimits, type ReadLimits } from './limits';
export { ObjectStorage, footerEngineFile, type ObjectClient, type ObjectMeta, type RemoteLocation, type TransferStats } from './object';
export { BlobCache, CACHE_KNOB, DEFAULT_CACHE_MB, cacheCapBytes, sharedCache } from './cache';
export { storageFor, type StorageOptions } from './open';
export { storeEnv, storeSettings, withStoreSettings, type StoreSettings } from './settings';
export { FOOTER_SUFFIX_BYTES, footerOnlyFile, readParquetFooter, type ParquetFooter } from './footer';
