/**
 * Passkeys over REST, GraphQL and gRPC, with responses made by Chromium's virtual authenticator:
 * registration by a signed-in user (access_token null), passwordless sign-in with an email and
 * usernameless, the passkey as the second factor of a password login, listing and deleting one's
 * own passkeys. Forged, wrong-origin, wrong-challenge and replayed responses are refused and
 * change nothing in the database.
 */
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import { WebauthnCredentialEntity } from '../../../plugins/webauthn/entities.js';
import { databaseText } from '../../helpers/database-text.js';
import { startTestServer } from '../../helpers/server.js';
import { TRANSPORTS, TransportClient } from '../mfa/transports.js';
import { chromiumMissing } from '../../helpers/chromium.js';
import {
  withClientData,
  withForgedSignature,
  withVirtualAuthenticator,
  type VirtualAuthenticator,
} from './virtual-authenticator.js';

interface Auth {
  message: string;
  access_token?: string;
  should_offer_webauthn_mfa_verify?: boolean;
  user?: { id: string; enrolled_mfa_methods: string[] };
}
interface Info {
  id: string;
  name: string;
  transports: string[];
  created_at: number;
  last_used_at?: number;
}

t.test('passkey ceremonies', { skip: chromiumMissing }, async (t) => {
  const server = await startTestServer({ flags: { 'enable-login-page': true } });
  t.teardown(() => server.close());
  const va: VirtualAuthenticator = await withVirtualAuthenticator(`${server.url}/app`);
  t.teardown(() => va.close());
  const PASSWORD = 'Pass-key-1';

  /** A refused call leaves every table as it was. */
  async function refusedUnchanged(t: Test, what: string, call: () => Promise<{ ok: boolean; code?: string }>) {
    const before = await databaseText(server.kernel);
    const r = await call();
    t.equal(r.ok, false, `${what}: refused`);
    t.ok(r.code === 'unauthenticated' || r.code === 'invalid_argument', `${what}: a 4xx code (${r.code})`);
    t.equal(await databaseText(server.kernel), before, `${what}: nothing changed`);
  }

  for (const kind of TRANSPORTS) {
    await t.test(kind, async (t) => {
      // A fresh authenticator per scenario: with several discoverable credentials for one RP
      // the browser may answer a usernameless request with any of them.
      await va.cdp.send('WebAuthn.clearCredentials', { authenticatorId: va.authenticatorId });
      const email = `passkey-${kind}@example.com`;
      const anon = new TransportClient(kind, server);
      t.teardown(() => anon.close());
      const signedUp = await anon.ok<Auth>('signup', { email, password: PASSWORD, confirm_password: PASSWORD });
      const me = new TransportClient(kind, server, { authorization: `Bearer ${signedUp.access_token}` });
      t.teardown(() => me.close());

      // Registration.
      const regOptions = await me.ok<{ options: string }>('webauthn_registration_options', {});
      const options = JSON.parse(regOptions.options) as { rp: { id: string }; challenge: string };
      t.equal(options.rp.id, 'localhost', 'the RP ID is the host of --url');
      const created = await va.create(regOptions.options);
      await refusedUnchanged(t, 'registration from another origin', () =>
        me.call('webauthn_registration_verify', {
          credential: withClientData(created, { origin: 'http://evil.localhost' }),
        }),
      );
      await refusedUnchanged(t, 'registration for another challenge', () =>
        me.call('webauthn_registration_verify', {
          credential: withClientData(created, { challenge: randomBytes(32).toString('base64url') }),
        }),
      );
      await refusedUnchanged(t, 'registration that is not JSON', () =>
        me.call('webauthn_registration_verify', { credential: '{"id": ' }),
      );
      const registered = await me.ok<Auth>('webauthn_registration_verify', { credential: created, name: 'Laptop' });
      t.notOk(registered.access_token, 'the ordinary path answers no access token');
      t.same(registered.user?.enrolled_mfa_methods, ['webauthn'], 'webauthn is enrolled');
      await refusedUnchanged(t, 'the same registration again', () =>
        me.call('webauthn_registration_verify', { credential: created }),
      );
      const list = await me.ok<Info[]>('webauthn_credentials');
      t.equal(list.length, 1, 'one passkey listed');
      t.equal(list[0].name, 'Laptop');

      // Passwordless sign-in with an email.
      const byEmail = await anon.ok<{ options: string }>('webauthn_login_options', { email });
      const allow = (JSON.parse(byEmail.options) as { allowCredentials?: unknown[] }).allowCredentials;
      t.equal(allow?.length, 1, 'the email names its passkey');
      t.equal(
        (JSON.parse(byEmail.options) as { userVerification?: string }).userVerification,
        'required',
        'a passkey that is the whole sign-in must verify the user',
      );
      const asserted = await va.get(byEmail.options);
      await refusedUnchanged(t, 'a forged signature', () =>
        anon.call('webauthn_login_verify', { credential: withForgedSignature(asserted) }),
      );
      await refusedUnchanged(t, 'an assertion from another origin', () =>
        anon.call('webauthn_login_verify', {
          credential: withClientData(asserted, { origin: 'http://evil.localhost' }),
        }),
      );
      await refusedUnchanged(t, 'an assertion for another challenge', () =>
        anon.call('webauthn_login_verify', {
          credential: withClientData(asserted, { challenge: randomBytes(32).toString('base64url') }),
        }),
      );
      const signedIn = await anon.ok<Auth>('webauthn_login_verify', { credential: asserted });
      t.ok(signedIn.access_token, 'a passkey signs in without a password');
      await refusedUnchanged(t, 'a replayed assertion', () =>
        anon.call('webauthn_login_verify', { credential: asserted }),
      );

      // A signature counter that does not move forward (a cloned authenticator, WebAuthn §6.1.1).
      const [stored] = await va.credentials();
      const em = server.kernel.storage.em();
      await em.nativeUpdate(
        WebauthnCredentialEntity,
        { userId: signedUp.user!.id } as never,
        {
          counter: stored.signCount + 1000,
        } as never,
      );
      const cloned = await va.get((await anon.ok<{ options: string }>('webauthn_login_options', { email })).options);
      await refusedUnchanged(t, 'a counter behind the stored one', () =>
        anon.call('webauthn_login_verify', { credential: cloned }),
      );
      await em.nativeUpdate(
        WebauthnCredentialEntity,
        { userId: signedUp.user!.id } as never,
        {
          counter: stored.signCount,
        } as never,
      );

      // Usernameless: no email, the discoverable credential names its user.
      const open = await anon.ok<{ options: string }>('webauthn_login_options', {});
      t.notOk(
        (JSON.parse(open.options) as { allowCredentials?: unknown[] }).allowCredentials?.length,
        'no credentials named',
      );
      const usernameless = await anon.ok<Auth>('webauthn_login_verify', { credential: await va.get(open.options) });
      t.equal(usernameless.user?.id, signedUp.user?.id, 'usernameless: the passkey’s own user');

      // The passkey as the second factor of a password login.
      const withPassword = new TransportClient(kind, server);
      t.teardown(() => withPassword.close());
      const asked = await withPassword.ok<Auth>('login', { email, password: PASSWORD });
      t.notOk(asked.access_token, 'verify: no token from the password alone');
      t.equal(asked.should_offer_webauthn_mfa_verify, true, 'verify: the passkey is offered');
      const second = await withPassword.ok<{ options: string }>('webauthn_login_options', {});
      t.equal(
        (JSON.parse(second.options) as { allowCredentials?: unknown[] }).allowCredentials?.length,
        1,
        'the pending sign-in names its user’s passkeys',
      );
      t.equal(
        (JSON.parse(second.options) as { userVerification?: string }).userVerification,
        'preferred',
        'as a second factor, user verification is preferred',
      );
      const secondAssertion = await va.get(second.options);
      await refusedUnchanged(t, 'a second-factor assertion without its pending sign-in', () =>
        anon.call('webauthn_login_verify', { credential: secondAssertion }),
      );
      const finished = await withPassword.ok<Auth>('webauthn_login_verify', { credential: secondAssertion });
      t.ok(finished.access_token, 'the passkey finishes the password login');
      t.notOk(withPassword.cookie('mfa'), 'the mfa cookie is cleared');
      const counters = await va.credentials();
      t.ok(
        counters.every((c) => c.isResidentCredential),
        'the credentials are discoverable',
      );

      // Deleting: only one's own.
      const other = await anon.ok<Auth>('signup', {
        email: `other-${kind}@example.com`,
        password: PASSWORD,
        confirm_password: PASSWORD,
      });
      const stranger = new TransportClient(kind, server, { authorization: `Bearer ${other.access_token}` });
      t.teardown(() => stranger.close());
      t.match(await stranger.call('webauthn_delete_credential', { id: list[0].id }), { ok: false, code: 'not_found' });
      t.equal((await me.ok<Info[]>('webauthn_credentials')).length, 1, 'another user cannot delete it');
      t.match(await me.ok('webauthn_delete_credential', { id: list[0].id }), { message: /deleted/ });
      t.same(await me.ok<Info[]>('webauthn_credentials'), [], 'deleted');
      t.same(
        (await me.ok<{ enrolled_mfa_methods: string[] }>('profile')).enrolled_mfa_methods,
        [],
        'not enrolled any more',
      );
      const afterDelete = await anon.ok<{ options: string }>('webauthn_login_options', {});
      const stale = await va.get(afterDelete.options);
      await refusedUnchanged(t, 'a deleted passkey', () => anon.call('webauthn_login_verify', { credential: stale }));

      // The MFA-cookie path: a first-time offer answered with a passkey issues the withheld tokens.
      const offered = new TransportClient(kind, server);
      t.teardown(() => offered.close());
      const first = await offered.ok<Auth>('signup', {
        email: `offered-${kind}@example.com`,
        password: PASSWORD,
        confirm_password: PASSWORD,
        is_multi_factor_auth_enabled: true,
      });
      t.notOk(first.access_token, 'offer: tokens withheld');
      const offerOptions = await offered.ok<{ options: string }>('webauthn_registration_options', {});
      const viaCookie = await offered.ok<Auth>('webauthn_registration_verify', {
        credential: await va.create(offerOptions.options),
      });
      t.ok(viaCookie.access_token, 'the passkey set up on the MFA-cookie path issues the withheld token');
      t.same(viaCookie.user?.enrolled_mfa_methods, ['webauthn']);
      t.notOk(offered.cookie('mfa'), 'the mfa cookie is cleared');
    });
  }
});
