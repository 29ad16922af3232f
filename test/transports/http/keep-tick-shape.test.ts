/** One of Node's tick objects is kept for the life of the process, caught once, with nothing left hooked. */
import { executionAsyncId } from 'node:async_hooks';
import t from 'tap';
import { keepTickObjectShape, keptTickObject } from '../../../transports/http/keep-tick-shape.js';

t.test('a tick object is caught and kept, the same one on every call', async (t) => {
  t.equal(keptTickObject(), undefined, 'nothing kept before the first call');
  keepTickObjectShape();
  const kept = keptTickObject();
  t.ok(kept, 'a tick object was caught');
  const keys = Reflect.ownKeys(kept as object);
  t.ok(keys.includes('callback') && keys.includes('args'), `the object nextTick queues (keys: ${keys.map(String).join(', ')})`);
  t.equal(keys.filter((k) => typeof k === 'symbol').length, 2, 'with its two async id symbols');
  keepTickObjectShape();
  t.equal(keptTickObject(), kept, 'a second call keeps the first object and catches nothing new');
});

t.test('the hook is off again: later ticks and promises run as before', async (t) => {
  keepTickObjectShape();
  const kept = keptTickObject();
  const order: string[] = [];
  await new Promise<void>((resolve) => process.nextTick(() => (order.push('tick'), resolve())));
  await Promise.resolve().then(() => order.push('promise'));
  t.same(order, ['tick', 'promise']);
  t.equal(keptTickObject(), kept, 'ticks after it are not caught');
  t.type(executionAsyncId(), 'number');
});
