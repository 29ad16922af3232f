/**
 * The guards of phone verification: a number no text can reach is refused before an account
 * exists; five wrong codes lock the proof for 15 minutes; a code is stored sealed, never as the
 * code or its digest; a text the gateway refuses does not fail the login, counts in
 * `latchkey_sms_delivery_failures_total`, and arrives by a retry of the outbox; email signups are not
 * held; the verified sign-in keeps only the roles the user still holds; startup refuses the flag
 * without the SMS gateway.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { admin, rest } from '../email/helpers.js';
import { metricsText, otherThan, startPhoneServer } from './helpers.js';

const { server, gateway, nextCode, close } = await startPhoneServer({
  'enable-phone-verification': true,
  roles: ['user', 'editor'],
});
t.teardown(close);
const PASSWORD = 'Phone-pass-2';
const signup = (phone_number: string, extra: Record<string, unknown> = {}) =>
  rest(server, 'signup', { phone_number, password: PASSWORD, confirm_password: PASSWORD, ...extra });

t.test('a number no text can reach is refused before the account is written', async (t) => {
  const refused = await signup('5551234567');
  t.equal(refused.status, 400);
  t.match(refused.body, { code: 'invalid_argument', message: /E\.164/ });
  const login = await rest(server, 'login', { phone_number: '5551234567', password: PASSWORD });
  t.equal(login.status, 401, 'no account was written');
});

t.test('five wrong codes lock the proof for 15 minutes', async (t) => {
  const phone = '+15558100001';
  t.equal((await signup(phone)).status, 200);
  const code = await nextCode(phone);
  for (let i = 1; i <= 4; i++) {
    const wrong = await rest(server, 'verify_otp', { phone_number: phone, otp: otherThan(code) });
    t.match(wrong, { status: 401, body: { code: 'unauthenticated' } }, `wrong code ${i}`);
  }
  const fifth = await rest(server, 'verify_otp', { phone_number: phone, otp: otherThan(code) });
  t.match(fifth, { status: 429, body: { code: 'resource_exhausted' } }, 'the fifth wrong code locks');
  const right = await rest(server, 'verify_otp', { phone_number: phone, otp: code });
  t.match(right, { status: 429, body: { code: 'resource_exhausted' } }, 'the right code no longer helps');
  const login = await rest(server, 'login', { phone_number: phone, password: PASSWORD });
  t.match(login, { status: 429 }, 'a login sends no new code while locked');
});

t.test('the code is stored sealed', async (t) => {
  const phone = '+15558100002';
  const signed = await signup(phone);
  t.equal(signed.status, 200);
  const code = await nextCode(phone);
  const user = await server.kernel.service('users').findByPhone(phone);
  const key = `sms-code:phone-verification:${createHash('sha256').update(user!.id).digest('base64url')}`;
  const stored = await server.kernel.memory.get(key);
  t.ok(stored, 'a code is live under its key');
  const digest = createHash('sha256').update(code).digest('base64url');
  t.notOk(stored!.includes(code), 'not the code');
  t.notOk(stored!.includes(digest), 'not its digest');
  t.notOk(stored!.includes('openid'), 'not the held sign-in either');
});

t.test('a refused text does not fail the login: it is counted and arrives by a retry', async (t) => {
  const phone = '+15558100003';
  t.equal((await signup(phone)).status, 200);
  await nextCode(phone);
  const before = /latchkey_sms_delivery_failures_total\{reason="refused"\} (\d+)/.exec(await metricsText(server));
  gateway.failNext(1, 500);
  const login = await rest(server, 'login', { phone_number: phone, password: PASSWORD });
  t.match(login, { status: 200, body: { should_show_mobile_otp_screen: true } });
  const code = await nextCode(phone);
  const after = await metricsText(server);
  t.match(after, /# TYPE latchkey_sms_delivery_failures_total counter/);
  t.equal(
    Number(/latchkey_sms_delivery_failures_total\{reason="refused"\} (\d+)/.exec(after)?.[1]),
    Number(before?.[1] ?? 0) + 1,
    'one more refused attempt',
  );
  const verified = await rest(server, 'verify_otp', { phone_number: phone, otp: code });
  t.equal(verified.status, 200);
  t.ok(verified.body.access_token);
});

t.test('an email signup with a phone number is not held', async (t) => {
  const signed = await signup('+15558100004', { email: 'phone-and-mail@example.com' });
  t.equal(signed.status, 200);
  t.ok(signed.body.access_token);
  t.equal(gateway.texts.filter((m) => m.to === '+15558100004').length, 0, 'nothing texted');
});

t.test('resend_otp for a number that waits for nothing is the MFA codes’ business', async (t) => {
  const unknown = await rest(server, 'resend_otp', { phone_number: '+15558199999' });
  t.equal(unknown.status, 401);
  t.equal(gateway.texts.filter((m) => m.to === '+15558199999').length, 0, 'nothing texted');
});

t.test('the verified sign-in keeps only the roles the user still holds', async (t) => {
  const phone = '+15558100007';
  const signed = await signup(phone, { roles: ['user', 'editor'] });
  t.equal(signed.status, 200);
  const code = await nextCode(phone);
  const user = await server.kernel.service('users').findByPhone(phone);
  t.same(user?.roles, ['user', 'editor']);
  t.equal((await rest(server, 'admin/update_user', { id: user!.id, roles: ['user'] }, admin)).status, 200);
  const verified = await rest<{ access_token: string }>(server, 'verify_otp', { phone_number: phone, otp: code });
  t.equal(verified.status, 200);
  const claims = JSON.parse(Buffer.from(verified.body.access_token.split('.')[1]!, 'base64url').toString()) as {
    role?: string[];
  };
  t.same(claims.role, ['user'], 'the role taken away meanwhile is not in the token');
});

t.test('startup refuses phone verification without the SMS gateway', async (t) => {
  await t.rejects(
    startTestServer({ flags: { 'enable-phone-verification': true } }),
    /--enable-phone-verification texts codes and needs the SMS gateway/,
  );
});
