/**
 * The MFA records on every reachable SQL database (SQLite, PostgreSQL, MariaDB): a TOTP factor's
 * one-step-only conditional write, single-use recovery codes, a passkey's counter written only
 * from the value read, `enrolled_mfa_methods` on the user row, and the admin's reset clearing all.
 */
import { generate } from 'otplib';
import t, { type Test } from 'tap';
import type { Kernel } from '../../../core/kernel.js';
import { accountPlugins, basePlugins } from '../../../plugins/default.js';
import { mfaPlugins } from '../../../plugins/mfa/plugins.js';
import { databaseTargets, redisAvailable } from '../../helpers/databases.js';
import { bootTestKernel, testContext, type TestMemoryBackend } from '../../helpers/kernel.js';
import { BASE_FLAGS, call, signup } from '../accounts/helpers.js';

interface Setup {
  authenticator_secret: string;
  authenticator_recovery_codes: string[];
}

async function scenario(t: Test, kernel: Kernel): Promise<void> {
  const a = await signup(kernel, 'mfa-db@example.com');
  const bearer = a.access_token;
  const setup = await call<Setup>(kernel, 'totp_mfa_setup', {}, { bearer });
  const epoch = Math.floor(Date.now() / 1000);
  const code = await generate({ secret: setup.authenticator_secret, epoch });
  const both = await Promise.allSettled([
    call(kernel, 'verify_otp', { otp: code, is_totp: true }, { bearer }),
    call(kernel, 'verify_otp', { otp: code, is_totp: true }, { bearer }),
  ]);
  t.equal(both.filter((r) => r.status === 'fulfilled').length, 1, 'one of two concurrent uses of a code wins');
  const recovery = setup.authenticator_recovery_codes[3];
  t.ok(await call(kernel, 'verify_otp', { otp: recovery, is_totp: true }, { bearer }), 'a recovery code once');
  await t.rejects(call(kernel, 'verify_otp', { otp: recovery, is_totp: true }, { bearer }), {
    code: 'unauthenticated',
  });

  const { credentials } = kernel.service('webauthn');
  const added = await credentials.add({
    credentialId: 'cred-one',
    userId: a.user.id,
    name: 'Key',
    publicKey: new Uint8Array([1, 2, 3]),
    counter: 5,
    transports: ['internal', 'hybrid'],
  });
  const [read] = await credentials.list(a.user.id);
  t.same([...read.publicKey], [1, 2, 3], 'the public key reads back');
  t.same(read.transports, ['internal', 'hybrid']);
  t.equal(await credentials.recordUse(added, 6), true, 'a use from the counter read');
  t.equal(await credentials.recordUse(added, 7), false, 'a second use from the same stale read is refused');
  t.equal((await credentials.byCredentialId('cred-one'))?.counter, 6);
  const user = await kernel.service('mfa').refreshEnrolled(a.user.id);
  t.same(user?.enrolledMfaMethods, ['totp', 'webauthn'], 'enrolled_mfa_methods on the row');

  const reset = await call<{ enrolled_mfa_methods: string[] }>(
    kernel,
    '_update_user',
    { id: a.user.id, reset_mfa: true },
    { admin: true },
  );
  t.same(reset.enrolled_mfa_methods, [], 'reset_mfa: nothing enrolled');
  t.same(await credentials.list(a.user.id), [], 'reset_mfa: no passkey');
  t.equal(await kernel.service('mfa').factors.find(a.user.id, 'totp'), null, 'reset_mfa: no TOTP factor');
}

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));
for (const target of targets) {
  t.test(target.name, async (t) => {
    const booted = await bootTestKernel({
      plugins: [...basePlugins, ...accountPlugins, ...mfaPlugins],
      flags: BASE_FLAGS,
      database: target,
    });
    t.teardown(() => booted.close());
    await scenario(t, booted.kernel);
  });
}

/** A pending sign-in lives in the memory store: the database and Redis stores keep it as the process one does. */
const memories: TestMemoryBackend[] = ['database', ...((await redisAvailable()) ? (['redis'] as const) : [])];
for (const memory of memories) {
  t.test(`a pending sign-in in the ${memory} memory store`, async (t) => {
    const booted = await bootTestKernel({
      plugins: [...basePlugins, ...accountPlugins, ...mfaPlugins],
      flags: BASE_FLAGS,
      memory,
    });
    t.teardown(() => booted.close());
    const { kernel } = booted;
    const first = testContext(kernel);
    const withheld = (await kernel.invoke('signup', first, {
      email: `pending-${memory}@example.com`,
      password: 'Pending-pass-1',
      confirm_password: 'Pending-pass-1',
      is_multi_factor_auth_enabled: true,
    })) as { access_token?: string };
    t.notOk(withheld.access_token, 'withheld');
    const mfa = first.setCookies.find((c) => c.name === 'mfa')?.value;
    t.ok(mfa, 'the mfa cookie');
    const next = () => testContext(kernel, { cookies: { mfa: mfa! } });
    const setup = (await kernel.invoke('totp_mfa_setup', next(), {})) as Setup;
    const done = (await kernel.invoke('verify_otp', next(), {
      otp: await generate({ secret: setup.authenticator_secret }),
      is_totp: true,
    })) as { access_token?: string };
    t.ok(done.access_token, 'finished from the stored attempt');
    await t.rejects(kernel.invoke('skip_mfa_setup', next(), {}), { code: 'unauthenticated' }, 'and it is spent');
  });
}
