/**
 * The MFA gate's states over REST, GraphQL and gRPC: none (MFA not asked for), offer (turned on,
 * nothing set up) ending in `skip_mfa_setup`, skipped (later logins pass), enroll (`--enforce-mfa`:
 * no skip, a factor first), verify (a factor exists) ending in `lock_mfa`, and the admin's
 * `reset_mfa` that clears every factor. Withheld answers carry no token and set the `mfa` cookie.
 */
import { generate } from 'otplib';
import t from 'tap';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';
import { TRANSPORTS, TransportClient } from './transports.js';

const server = await startTestServer();
const enforced = await startTestServer({ flags: { 'enforce-mfa': true } });
t.teardown(async () => {
  await server.close();
  await enforced.close();
});
const PASSWORD = 'Gate-pass-1';

interface Auth {
  message: string;
  access_token?: string;
  should_show_totp_screen?: boolean;
  should_offer_webauthn_mfa_setup?: boolean;
  authenticator_secret?: string;
  user?: { id: string; enrolled_mfa_methods: string[]; has_skipped_mfa_setup_at?: number; mfa_locked_at?: number };
}

for (const kind of TRANSPORTS) {
  t.test(`gate states over ${kind}`, async (t) => {
    const c = new TransportClient(kind, server);
    const admin = new TransportClient(kind, server, { 'x-service-admin-secret': TEST_ADMIN_SECRET });
    t.teardown(() => {
      c.close();
      admin.close();
    });
    const email = `gate-${kind}@example.com`;

    // none: MFA not asked for.
    const plain = await c.ok<Auth>('signup', { email, password: PASSWORD, confirm_password: PASSWORD });
    t.ok(plain.access_token, 'none: tokens at once');
    t.notOk(c.cookie('mfa'), 'none: no mfa cookie');
    const bearer = new TransportClient(kind, server, { authorization: `Bearer ${plain.access_token}` });
    t.teardown(() => bearer.close());
    await bearer.ok('update_profile', { is_multi_factor_auth_enabled: true });

    // offer, then skipped.
    c.jar.clear();
    const offered = await c.ok<Auth>('login', { email, password: PASSWORD });
    t.notOk(offered.access_token, 'offer: no token');
    t.ok(c.cookie('mfa'), 'offer: the mfa cookie');
    t.equal(offered.should_offer_webauthn_mfa_setup, true, 'offer: a passkey is offered');
    const noCookie = new TransportClient(kind, server);
    t.teardown(() => noCookie.close());
    t.match(
      await noCookie.call('skip_mfa_setup', {}),
      { ok: false, code: 'unauthenticated' },
      'no skip without the cookie',
    );
    const skipped = await c.ok<Auth>('skip_mfa_setup', {});
    t.ok(skipped.access_token, 'skip_mfa_setup issues the withheld token');
    t.type(skipped.user?.has_skipped_mfa_setup_at, 'number', 'and records the skip');
    t.match(await c.call('skip_mfa_setup', {}), { ok: false, code: 'unauthenticated' }, 'the mfa cookie is spent');
    c.jar.clear();
    t.ok((await c.ok<Auth>('login', { email, password: PASSWORD })).access_token, 'skipped: later logins pass');

    // verify, then lock_mfa.
    const setup = await bearer.ok<Auth>('totp_mfa_setup', {});
    const secret = setup.authenticator_secret!;
    await bearer.ok('verify_otp', { otp: await generate({ secret }), is_totp: true });
    c.jar.clear();
    const asked = await c.ok<Auth>('login', { email, password: PASSWORD });
    t.equal(asked.should_show_totp_screen, true, 'verify: the TOTP screen');
    t.notOk(asked.access_token, 'verify: no token');
    t.match(await c.call('skip_mfa_setup', {}), { ok: false, code: 'permission_denied' }, 'verify cannot be skipped');
    const lock = await c.ok('lock_mfa', {});
    t.match(lock, { message: /locked/ }, 'lock_mfa answers a message');
    t.notOk((lock as { access_token?: string }).access_token, 'and issues nothing');
    c.jar.clear();
    t.match(
      await c.call('login', { email, password: PASSWORD }),
      { ok: false, code: 'permission_denied' },
      'a locked account cannot sign in',
    );

    // The admin's reset clears every factor and the lock; the user is offered MFA again.
    const found = await admin.ok<{ id: string }>('_user', { email });
    const reset = await admin.ok<Auth['user']>('_update_user', { id: found.id, reset_mfa: true });
    t.same(reset?.enrolled_mfa_methods, [], 'reset_mfa: no enrolled factor left');
    t.notOk(reset?.mfa_locked_at, 'reset_mfa: the lock is lifted');
    const again = await c.ok<Auth>('login', { email, password: PASSWORD });
    t.notOk(again.access_token, 'MFA is still on: offered again');
    t.equal(again.should_show_totp_screen, undefined, 'but no TOTP is asked for');
  });

  t.test(`enroll under --enforce-mfa over ${kind}`, async (t) => {
    const c = new TransportClient(kind, enforced);
    t.teardown(() => c.close());
    const email = `enroll-${kind}@example.com`;
    const events: { name: string; user?: { email?: string } }[] = [];
    const off = enforced.kernel.events.on('*', (e) => {
      const user = (e.payload as { user?: { email?: string } }).user;
      if (user?.email === email || user === undefined) events.push({ name: e.name, ...(user ? { user } : {}) });
    });
    t.teardown(off);
    const first = await c.ok<Auth>('signup', { email, password: PASSWORD, confirm_password: PASSWORD });
    t.notOk(first.access_token, 'enroll: no token, even at signup');
    t.ok(c.cookie('mfa'), 'enroll: the mfa cookie');
    t.equal(first.should_offer_webauthn_mfa_setup, true, 'enroll: factors to set up are named');
    t.match(await c.call('skip_mfa_setup', {}), { ok: false, code: 'failed_precondition' }, 'no skip when enforced');
    const setup = await c.ok<Auth>('totp_mfa_setup', {});
    const done = await c.ok<Auth>('verify_otp', {
      otp: await generate({ secret: setup.authenticator_secret! }),
      is_totp: true,
    });
    t.ok(done.access_token, 'a verified factor issues the withheld token');
    t.same(done.user?.enrolled_mfa_methods, ['totp']);
    await enforced.kernel.events.drain();
    const named = events.filter((e) => ['user.created', 'user.signup', 'user.login'].includes(e.name));
    t.same(
      named.map((e) => [e.name, e.user?.email]),
      [
        ['user.created', email],
        ['user.signup', email],
        ['user.login', email],
      ],
      'the withheld signup names its user; the one login event comes when the sign-in completes',
    );
  });
}
