/**
 * Where FGA data lives: with `--fga-store` a store of its own
 * (`memory`, or a SQL database at `--fga-store-url` opened through storage/); otherwise the main
 * database when it is SQLite, PostgreSQL, MySQL or MariaDB; otherwise nowhere (FGA is off).
 */
import type { Config } from '../../core/config.js';
import type { Logger } from '../../core/logger.js';
import type { Storage } from '../../core/storage.js';
import { openStorage } from '../../storage/index.js';
import { MemoryFgaStore } from './store/memory-store.js';
import { fgaEntities } from './store/sql-entities.js';
import { SqlFgaStore } from './store/sql-store.js';
import type { FgaStore } from './store/types.js';

/** The largest --fga-check-cache-size accepted. */
export const MAX_CHECK_CACHE_SIZE = 10_000_000;

export const FGA_STORES = ['sqlite', 'postgres', 'mysql', 'memory'] as const;
const MAIN_SQL = new Set(['sqlite', 'postgres', 'mysql', 'mariadb']);

export function fgaConfigProblem(config: Config): string | undefined {
  const store = config.string('fga-store', '').trim();
  const url = config.string('fga-store-url', '').trim();
  if (store && !(FGA_STORES as readonly string[]).includes(store))
    return `--fga-store must be one of ${FGA_STORES.join(', ')} (not a URI)`;
  if (url && !store) return '--fga-store-url needs --fga-store (sqlite, postgres or mysql)';
  if (store && store !== 'memory' && !url) return `--fga-store ${store} needs --fga-store-url`;
  const cacheSize = config.number('fga-check-cache-size', 0);
  if (!Number.isInteger(cacheSize) || cacheSize < 0)
    return '--fga-check-cache-size must be a whole number, 0 or more (0 turns the cache off)';
  // The cache allocates its table at start (check-cache.ts): a size past this would fail there
  // with a bare RangeError, or take gigabytes; 10 million answers is ~0.5 GB of slots.
  if (cacheSize > MAX_CHECK_CACHE_SIZE) return `--fga-check-cache-size must be at most ${MAX_CHECK_CACHE_SIZE}`;
  return undefined;
}

export async function openFgaStore(config: Config, main: Storage, logger?: Logger): Promise<FgaStore | null> {
  const store = config.string('fga-store', '').trim();
  if (store === 'memory') return new MemoryFgaStore();
  if (store) {
    let own: Storage;
    try {
      own = await openStorage(
        config.with({ 'database-type': store, 'database-url': config.string('fga-store-url', '') }),
        fgaEntities,
      );
    } catch (err) {
      // storage/ names the main database's flags; here the URL came from --fga-store-url.
      if (err instanceof Error)
        err.message = err.message
          .replaceAll('--database-url', '--fga-store-url')
          .replaceAll('--database-type', '--fga-store');
      throw err;
    }
    return SqlFgaStore.open(own, true);
  }
  if (MAIN_SQL.has(main.type)) return SqlFgaStore.open(main, false, logger ? { logger } : {});
  return null;
}
