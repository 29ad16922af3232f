/**
 * The storage layer: `openStorage` and `openMemoryStore` are what the kernel is
 * booted with; `newId` and `dropStaleUniqueConstraints` are shared helpers for plugins.
 */
export { openStorage } from './open-storage.js';
export { resolveDatabaseSettings, StorageConfigError, type DatabaseSettings } from './settings.js';
export { newId, createIdGenerator, isId } from './ids.js';
export { openMemoryStore, MEMORY_STORE_KINDS } from './memory/open-memory-store.js';
export { ProcessMemoryStore } from './memory/process.js';
export { DatabaseMemoryStore } from './memory/database.js';
export { RedisMemoryStore, parseRedisUrl } from './memory/redis.js';
export { dropStaleUniqueConstraints, uniqueRules, type UniqueRule } from './schema/drop-unique.js';
export { syncSchema, pendingSchemaSql } from './schema/sync.js';
export { claimRows, updateLeased, type ClaimOptions, type LeasedRow } from './claim-rows.js';
export { rowAppender, type AppendRows } from './row-appends.js';
export { rowReader, type ReadRow } from './row-reads.js';
