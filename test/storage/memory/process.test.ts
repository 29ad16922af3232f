import t from 'tap';
import { ProcessMemoryStore } from '../../../storage/memory/process.js';
import { memoryStoreSuite } from './shared-suite.js';

t.test('process memory store', async (t) => {
  memoryStoreSuite(t, { open: async () => new ProcessMemoryStore() });
});

t.test('the sweep removes entries nobody touches again', async (t) => {
  let now = 1_000;
  const store = new ProcessMemoryStore({ now: () => now, sweepIntervalMs: 60_000 });
  t.teardown(() => store.close());
  await store.set('a', '1', 100);
  await store.set('b', '2', 10_000);
  now += 500;
  t.equal(store.sweep(), 1, 'one expired entry swept');
  t.equal(await store.get('b'), '2');
});

t.test('two process stores share nothing', async (t) => {
  const a = new ProcessMemoryStore();
  const b = new ProcessMemoryStore();
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  await a.set('k', 'v', 60_000);
  t.equal(await b.get('k'), null);
});
