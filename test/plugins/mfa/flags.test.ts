/**
 * The MFA flags: every factor is on by default, each
 * `--disable-*` turns its own off, `--disable-mfa` all of them, and Meta says so; a factor turned
 * off takes its operations with it and the gate no longer asks for it.
 */
import t from 'tap';
import { accountPlugins, basePlugins } from '../../../plugins/default.js';
import { mfaPlugins } from '../../../plugins/mfa/plugins.js';
import { bootTestKernel, testContext } from '../../helpers/kernel.js';

const FLAGS = {
  url: 'https://auth.example.com',
  'admin-secret': 'admin-secret',
  'client-id': 'client-1',
  'client-secret': 'client-secret',
  'jwt-type': 'HS256',
  'jwt-secret': 'a-test-jwt-secret-of-enough-length-0123456789',
};
const MFA_META = [
  'is_multi_factor_auth_enabled',
  'is_totp_mfa_enabled',
  'is_email_otp_mfa_enabled',
  'is_sms_otp_mfa_enabled',
  'is_webauthn_enabled',
  'is_mfa_enforced',
] as const;

const cases: [string, Record<string, boolean>, Record<(typeof MFA_META)[number], boolean>, string[]][] = [
  [
    'defaults',
    {},
    {
      is_multi_factor_auth_enabled: true,
      is_totp_mfa_enabled: true,
      is_email_otp_mfa_enabled: true,
      is_sms_otp_mfa_enabled: true,
      is_webauthn_enabled: true,
      is_mfa_enforced: false,
    },
    ['totp_mfa_setup', 'email_otp_mfa_setup', 'webauthn_login_options', 'verify_otp'],
  ],
  [
    '--enforce-mfa',
    { 'enforce-mfa': true },
    {
      is_multi_factor_auth_enabled: true,
      is_totp_mfa_enabled: true,
      is_email_otp_mfa_enabled: true,
      is_sms_otp_mfa_enabled: true,
      is_webauthn_enabled: true,
      is_mfa_enforced: true,
    },
    ['totp_mfa_setup'],
  ],
  [
    '--disable-totp-login and --disable-webauthn-mfa',
    { 'disable-totp-login': true, 'disable-webauthn-mfa': true },
    {
      is_multi_factor_auth_enabled: true,
      is_totp_mfa_enabled: false,
      is_email_otp_mfa_enabled: true,
      is_sms_otp_mfa_enabled: true,
      is_webauthn_enabled: false,
      is_mfa_enforced: false,
    },
    ['email_otp_mfa_setup', '!totp_mfa_setup', '!webauthn_login_options'],
  ],
  [
    '--disable-email-otp and --disable-sms-otp',
    { 'disable-email-otp': true, 'disable-sms-otp': true },
    {
      is_multi_factor_auth_enabled: true,
      is_totp_mfa_enabled: true,
      is_email_otp_mfa_enabled: false,
      is_sms_otp_mfa_enabled: false,
      is_webauthn_enabled: true,
      is_mfa_enforced: false,
    },
    ['totp_mfa_setup', '!email_otp_mfa_setup', '!resend_otp'],
  ],
  [
    '--disable-mfa (with --enforce-mfa)',
    { 'disable-mfa': true, 'enforce-mfa': true },
    {
      is_multi_factor_auth_enabled: false,
      is_totp_mfa_enabled: false,
      is_email_otp_mfa_enabled: false,
      is_sms_otp_mfa_enabled: false,
      is_webauthn_enabled: false,
      is_mfa_enforced: false,
    },
    ['!totp_mfa_setup', '!email_otp_mfa_setup', '!webauthn_login_options'],
  ],
];

for (const [name, flags, meta, ops] of cases) {
  t.test(name, async (t) => {
    const booted = await bootTestKernel({
      plugins: [...basePlugins, ...accountPlugins, ...mfaPlugins],
      flags: { ...FLAGS, ...flags },
    });
    t.teardown(() => booted.close());
    const { kernel } = booted;
    const got = (await kernel.invoke('meta', testContext(kernel), undefined)) as Record<string, unknown>;
    for (const k of MFA_META) t.equal(got[k], meta[k], k);
    for (const op of ops) {
      const absent = op.startsWith('!');
      t.equal(
        kernel.operations.has(op.replace('!', '')),
        !absent,
        `${op.replace('!', '')} ${absent ? 'absent' : 'present'}`,
      );
    }
    // A user who turned MFA on is offered a factor it can set up: TOTP or a passkey here (this
    // build has no email or SMS service to deliver codes, so those factors are not offered).
    const ctx = testContext(kernel);
    const signup = (await kernel.invoke('signup', ctx, {
      email: 'flags@example.com',
      password: 'Flags-pass-1',
      confirm_password: 'Flags-pass-1',
      is_multi_factor_auth_enabled: true,
    })) as { access_token?: string };
    if (meta.is_totp_mfa_enabled || meta.is_webauthn_enabled)
      t.notOk(signup.access_token, 'a factor to offer: the offer withholds the token');
    else t.ok(signup.access_token, 'nothing to offer: tokens at once');
  });
}

t.test('a custom build without the passkey plugin', async (t) => {
  const booted = await bootTestKernel({
    plugins: [...basePlugins, ...accountPlugins, ...mfaPlugins.filter((p) => p.name !== 'webauthn')],
    flags: FLAGS,
  });
  t.teardown(() => booted.close());
  const { kernel } = booted;
  const meta = (await kernel.invoke('meta', testContext(kernel), undefined)) as Record<string, unknown>;
  t.equal(meta.is_webauthn_enabled, false, 'Meta: no passkeys');
  t.equal(meta.is_totp_mfa_enabled, true, 'Meta: TOTP still on');
  t.notOk(kernel.operations.has('webauthn_login_options'), 'no passkey operations');
  const offered = (await kernel.invoke('signup', testContext(kernel), {
    email: 'custom@example.com',
    password: 'Custom-pass-1',
    confirm_password: 'Custom-pass-1',
    is_multi_factor_auth_enabled: true,
  })) as { access_token?: string; should_offer_webauthn_mfa_setup?: boolean };
  t.notOk(offered.access_token, 'the gate still offers TOTP');
  t.notOk(offered.should_offer_webauthn_mfa_setup, 'but no passkey');
});
