/**
 * The texted-code store of the sms service, against a started server's memory store and keys:
 * a code expires, works once, dies when a new one is issued, is taken by one of two concurrent
 * redemptions only, cannot be moved to another subject, and five wrong codes lock the subject.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';

const server = await startTestServer();
t.teardown(() => server.close());
const codes = server.kernel.service('sms').codes;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const keyOf = (purpose: string, subject: string) =>
  `sms-code:${purpose}:${createHash('sha256').update(subject).digest('base64url')}`;

t.test('a code expires', async (t) => {
  const code = await codes.issue('test', 'expiring', 200, 'kept');
  t.same(await codes.pending('test', 'expiring'), { data: 'kept' });
  await sleep(400);
  t.equal(await codes.pending('test', 'expiring'), null);
  t.equal(await codes.redeem('test', 'expiring', code), null);
});

t.test('a code works once and answers its data', async (t) => {
  const code = await codes.issue('test', 'once', 60_000, 'user-1');
  t.same(await codes.redeem('test', 'once', ` ${code} `), { data: 'user-1' }, 'surrounding blanks are ignored');
  t.equal(await codes.redeem('test', 'once', code), null);
});

t.test('a new code replaces the previous one', async (t) => {
  const first = await codes.issue('test', 'replaced', 60_000);
  let second = await codes.issue('test', 'replaced', 60_000);
  while (second === first) second = await codes.issue('test', 'replaced', 60_000);
  t.equal(await codes.redeem('test', 'replaced', first), null);
  t.ok(await codes.redeem('test', 'replaced', second));
});

t.test('of two concurrent redemptions one wins', async (t) => {
  const code = await codes.issue('test', 'raced', 60_000);
  const results = await Promise.all([codes.redeem('test', 'raced', code), codes.redeem('test', 'raced', code)]);
  t.equal(results.filter((r) => r !== null).length, 1);
});

t.test('a sealed code moved to another subject opens for nobody', async (t) => {
  const code = await codes.issue('test', 'alice', 60_000, 'alice');
  await codes.issue('test', 'mallory', 60_000, 'mallory');
  const sealed = await server.kernel.memory.get(keyOf('test', 'alice'));
  await server.kernel.memory.set(keyOf('test', 'mallory'), sealed!, 60_000);
  t.equal(await codes.redeem('test', 'mallory', code), null);
});

t.test('five wrong codes lock the subject and drop its code', async (t) => {
  const code = await codes.issue('test', 'guessed', 60_000);
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  for (let i = 1; i <= 4; i++) t.equal(await codes.redeem('test', 'guessed', wrong), null, `wrong ${i}`);
  await t.rejects(codes.redeem('test', 'guessed', wrong), { code: 'resource_exhausted' });
  t.equal(await codes.pending('test', 'guessed'), null, 'the live code is dropped');
  await t.rejects(codes.redeem('test', 'guessed', code), { code: 'resource_exhausted' });
  await t.rejects(codes.checkNotLocked('test', 'guessed'), { code: 'resource_exhausted' });
  await t.resolves(codes.checkNotLocked('test', 'someone-else'));
});
