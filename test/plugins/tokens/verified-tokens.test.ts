import t from 'tap';
import { VerifiedTokens } from '../../../plugins/tokens/verified-tokens.js';

const TAIL = 'S'.repeat(32);
// Two tokens with one tail: a slot holds one of them, and only that exact text hits.
const mine = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtaW5lIn0.${TAIL}`;
const forged = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.${TAIL}`;

t.test('a kept token is found by its whole text until its deadline', async (t) => {
  const c = new VerifiedTokens<string>(10);
  c.set(mine, 'payload of mine', 100);
  t.equal(c.get(mine, 99), 'payload of mine');
  t.equal(
    c.get(mine.split('').join(''), 99),
    'payload of mine',
    'an equal string made anew (as each request parses one) hits',
  );
  t.equal(c.get(mine, 100), undefined, 'not at its deadline');
  t.equal(c.get(mine, 50), undefined, 'an expired entry is dropped, not kept for an earlier clock');
});

t.test("a token sharing a kept token's tail is a miss, never the other token's value", async (t) => {
  const c = new VerifiedTokens<string>(10);
  c.set(mine, 'payload of mine', 100);
  t.equal(c.get(forged, 1), undefined, 'same tail, other header and payload: verified afresh by the caller');
  t.equal(c.get(mine, 1), 'payload of mine', 'the kept token is untouched by the lookup');
  c.set(forged, 'payload of forged', 100);
  t.equal(c.get(forged, 1), 'payload of forged', 'stored later (after it verified), it takes the slot');
  t.equal(c.get(mine, 1), undefined, 'and the other is only a miss');
});

t.test('short texts are their own key; the bound is kept', async (t) => {
  const c = new VerifiedTokens<number>(2);
  c.set('a.b.c', 1, 10);
  c.set('d.e.f', 2, 10);
  t.equal(c.get('a.b.c', 0), 1);
  c.set('g.h.i', 3, 10);
  t.equal(c.size, 2);
  t.equal(c.get('a.b.c', 0), undefined, 'the oldest went first');
  t.equal(c.get('g.h.i', 0), 3);
});
