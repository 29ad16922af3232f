import t from 'tap';
import { createIdGenerator, isId, newId } from '../../storage/ids.js';

t.test('newId makes UUIDv7 strings that sort by creation', async (t) => {
  const ids = Array.from({ length: 5000 }, () => newId());
  t.ok(ids.every(isId), 'all are canonical UUIDv7');
  t.equal(new Set(ids).size, ids.length, 'no repeats');
  t.same([...ids].sort(), ids, 'already in order, even within one millisecond');
});

t.test('the timestamp is the creation time, and ordering survives a stuck clock', async (t) => {
  const gen = createIdGenerator(() => 1_700_000_000_000);
  const ids = Array.from({ length: 10_000 }, () => gen());
  t.equal(Number.parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16), 1_700_000_000_000);
  t.same([...ids].sort(), ids, 'the counter rolls into the next millisecond instead of repeating');
  t.equal(new Set(ids).size, ids.length);
});
