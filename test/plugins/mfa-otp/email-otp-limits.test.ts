/**
 * Email codes expire and lock: a code five minutes old is refused, and five wrong codes lock the
 * email factor for 15 minutes, a right code included, until the window passes. The process clock
 * is moved forward by the test (the server runs in this process).
 */
import t from 'tap';
import { startMailServer } from '../email/helpers.js';
import { TransportClient } from '../mfa/transports.js';

const realNow = Date.now;
let skewMs = 0;
Date.now = () => realNow() + skewMs;
t.teardown(() => {
  Date.now = realNow;
});
const mail = await startMailServer();
t.teardown(() => mail.close());
const { server, sink } = mail;
const PASSWORD = 'Limit-pass-1';
const nextCode = async (to: string) => (await sink.next(to)).text.match(/\b(\d{6})\b/)![1];
const otherThan = (code: string) => (code === '000000' ? '111111' : '000000');

t.test('an expired code, then five wrong codes lock the email factor', async (t) => {
  const email = 'limits@example.com';
  const c = new TransportClient('rest', server);
  t.teardown(() => c.close());
  const signedUp = await c.ok<{ access_token: string }>('signup', {
    email,
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  const me = new TransportClient('rest', server, { authorization: `Bearer ${signedUp.access_token}` });
  t.teardown(() => me.close());
  await me.ok('email_otp_mfa_setup', {});
  await me.ok('verify_otp', { otp: await nextCode(email) });

  c.jar.clear();
  await c.ok('login', { email, password: PASSWORD });
  const late = await nextCode(email);
  skewMs += 5 * 60_000 + 1000;
  t.match(await c.call('verify_otp', { otp: late }), { ok: false, code: 'unauthenticated' }, 'a five-minute-old code');

  c.jar.clear();
  await c.ok('login', { email, password: PASSWORD });
  const live = await nextCode(email);
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push(await c.call('verify_otp', { otp: otherThan(live) }));
  t.match(answers.slice(0, 3), [{ code: 'unauthenticated' }, { code: 'unauthenticated' }, { code: 'unauthenticated' }]);
  t.match(answers[4], { ok: false, code: 'resource_exhausted' }, 'the fifth wrong code locks email codes');
  t.match(await c.call('verify_otp', { otp: live }), { ok: false, code: 'resource_exhausted' }, 'a right code too');
  skewMs += 15 * 60_000 + 1000;
  c.jar.clear();
  await c.ok('login', { email, password: PASSWORD });
  const after = await nextCode(email);
  t.ok((await c.ok<{ access_token?: string }>('verify_otp', { otp: after })).access_token, 'after 15 minutes it works');
});
