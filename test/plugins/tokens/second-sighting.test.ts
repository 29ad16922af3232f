import t from 'tap';
import { SecondSighting } from '../../../plugins/tokens/second-sighting.js';

// Varies in the four characters before the last one, which the fingerprint reads.
const token = (i: number) => `header.payload.${i.toString(36).padStart(6, 'x')}Q`;

t.test('a token is "seen before" from its second sighting on', async (t) => {
  const s = new SecondSighting(100);
  t.equal(s.seenBefore(token(1)), false, 'first sighting');
  t.equal(s.seenBefore(token(1)), true, 'second');
  t.equal(s.seenBefore(token(1)), true, 'and after');
  t.equal(s.seenBefore(token(2)), false, 'another token is new');
});

t.test('only the last `size` new tokens are remembered', async (t) => {
  const s = new SecondSighting(3);
  for (const i of [1, 2, 3]) s.seenBefore(token(i));
  s.seenBefore(token(4));
  t.equal(s.seenBefore(token(1)), false, 'the oldest was forgotten (and is remembered anew)');
  t.equal(s.seenBefore(token(3)), true, 'a recent one is still known');
});

t.test('the fingerprint is the four characters before the last one', async (t) => {
  const s = new SecondSighting(10);
  t.equal(s.seenBefore('aaaa.bbbb.cccc1234A'), false);
  t.equal(s.seenBefore('zzzz.yyyy.wwww1234B'), true, 'other text elsewhere, same four: a harmless early admission');
  t.equal(s.seenBefore('aaaa.bbbb.cccc1235A'), false, 'one of the four differs: new');
});
