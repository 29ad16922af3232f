/** One of Node's tick objects is kept for the life of the process, caught once, with nothing left hooked. */
import t from 'tap';
import { keepTickObjectShape, keptTickObject, resourcesSeen } from '../../../transports/http/keep-tick-shape.js';

t.test('a tick object is caught and kept, the same one on every call', async (t) => {
  t.equal(keptTickObject(), undefined, 'nothing kept before the first call');
  keepTickObjectShape();
  const kept = keptTickObject();
  t.ok(kept, 'a tick object was caught');
  const keys = Reflect.ownKeys(kept as object);
  t.ok(
    keys.includes('callback') && keys.includes('args'),
    `the object nextTick queues (keys: ${keys.map(String).join(', ')})`,
  );
  t.equal(keys.filter((k) => typeof k === 'symbol').length, 2, 'with its two async id symbols');
  keepTickObjectShape();
  t.equal(keptTickObject(), kept, 'a second call keeps the first object and catches nothing new');
});

t.test('the hook is off again: later ticks, promises and timers are not seen', async (t) => {
  keepTickObjectShape();
  const seenAtStart = resourcesSeen();
  t.ok(seenAtStart >= 1, 'the startup tick was seen');
  await new Promise<void>((resolve) => process.nextTick(resolve));
  await Promise.resolve().then(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 1));
  t.equal(resourcesSeen(), seenAtStart, 'no resource reached the hook after the call');
});
