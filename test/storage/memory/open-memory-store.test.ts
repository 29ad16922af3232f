import t from 'tap';
import { Config } from '../../../core/config.js';
import { openMemoryStore, openStorage } from '../../../storage/index.js';
import { freshRedisUrl, redisAvailable, sqliteTarget } from '../../helpers/databases.js';

const target = await sqliteTarget();
const storage = await openStorage(new Config(target.flags), []);
t.teardown(async () => {
  await storage.close();
  await target.dispose();
});

t.test('database is the default, process on request, redis whenever its URL is set', async (t) => {
  const def = await openMemoryStore(new Config({}), storage);
  t.equal(def.backend, 'database');
  await def.close();
  const proc = await openMemoryStore(new Config({ 'memory-store': 'process' }), storage);
  t.equal(proc.backend, 'process');
  await proc.close();
  if (await redisAvailable()) {
    const redis = await openMemoryStore(
      new Config({ 'memory-store': 'process', 'redis-url': freshRedisUrl() }),
      storage,
    );
    t.equal(redis.backend, 'redis');
    await redis.close();
  }
});

t.test('an unknown memory store is refused clearly', async (t) => {
  await t.rejects(openMemoryStore(new Config({ 'memory-store': 'memcached' }), storage), {
    message: 'unsupported --memory-store "memcached": expected one of database, process',
  });
});
