import t from 'tap';
import { RedisMemoryStore, parseRedisUrl } from '../../../storage/memory/redis.js';
import { freshRedisUrl, redisAvailable } from '../../helpers/databases.js';
import { memoryStoreSuite } from './shared-suite.js';

const skip = (await redisAvailable()) ? false : 'Redis is not reachable';

t.test('the URL prefix parameter sets the namespace', async (t) => {
  t.same(parseRedisUrl('redis://127.0.0.1:6379/2?prefix=tenant-a:'), {
    url: 'redis://127.0.0.1:6379/2',
    namespace: 'tenant-a:',
  });
  t.equal(parseRedisUrl('redis://127.0.0.1:6379').namespace, 'latchkey:');
  t.throws(() => parseRedisUrl('http://127.0.0.1:6379'), /redis:\/\//);
});

t.test('redis memory store', { skip }, async (t) => {
  const url = freshRedisUrl();
  memoryStoreSuite(t, { open: () => RedisMemoryStore.open(url), openPeer: () => RedisMemoryStore.open(url) });
});

t.test('namespaces keep stores apart', { skip }, async (t) => {
  const a = await RedisMemoryStore.open(freshRedisUrl());
  const b = await RedisMemoryStore.open(freshRedisUrl());
  t.teardown(async () => {
    await a.deletePrefix('');
    await a.close();
    await b.close();
  });
  await a.set('k', 'v', 60_000);
  t.equal(await b.get('k'), null);
  t.same(await b.keys(''), []);
  t.equal(await b.deletePrefix(''), 0);
  t.equal(await a.get('k'), 'v');
});

t.test('an unreachable Redis is a clear boot error', async (t) => {
  await t.rejects(RedisMemoryStore.open('redis://127.0.0.1:1/0'), /could not reach Redis at redis:\/\/127\.0\.0\.1:1/);
});
