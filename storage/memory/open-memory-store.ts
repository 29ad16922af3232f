/**
 * Chooses the memory store: Redis when `--redis-url` is set (shared by every
 * node), otherwise `--memory-store`: `database` (the default; durable, shared through the main
 * database) or `process` (in-process; tests and single-node speed).
 */
import type { Config } from '../../core/config.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { MemoryStoreOpener, Storage } from '../../core/storage.js';
import { DatabaseMemoryStore } from './database.js';
import { MongoMemoryStore } from './mongo.js';
import { ProcessMemoryStore } from './process.js';
import { RedisMemoryStore } from './redis.js';

export const MEMORY_STORE_KINDS = ['database', 'process'] as const;

export const openMemoryStore: MemoryStoreOpener = async (config: Config, storage: Storage): Promise<MemoryStore> => {
  const redisUrl = config.string('redis-url', '').trim();
  if (redisUrl) return RedisMemoryStore.open(redisUrl);
  const kind = config.string('memory-store', 'database').trim().toLowerCase();
  switch (kind) {
    case 'process':
      return new ProcessMemoryStore();
    case 'database':
      return storage.isSql ? new DatabaseMemoryStore(storage) : new MongoMemoryStore(storage);
    default:
      throw new Error(`unsupported --memory-store "${kind}": expected one of ${MEMORY_STORE_KINDS.join(', ')}`);
  }
};
