/** The tokens plugin's start-up checks: a role claim that would be set on the payload's prototype, and a script that does not compile, are refused with a message. */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { tokensPlugin } from '../../../plugins/tokens/index.js';
import { PROFILE_CLAIMS } from '../../../plugins/tokens/custom-claims.js';
import { profileClaims } from '../../../plugins/tokens/service.js';
import type { UserRecord } from '../../../plugins/users/types.js';

const check = (flags: Record<string, string>) => tokensPlugin.validateConfig?.(new Config(flags));

t.test('--jwt-role-claim', async (t) => {
  t.equal(check({}), undefined, 'the default (role) is accepted');
  t.equal(check({ 'jwt-role-claim': 'https://example.com/roles' }), undefined, 'a URI claim name is accepted');
  t.equal(check({ 'jwt-role-claim': '__proto__' }), '--jwt-role-claim cannot be __proto__.');
  for (const name of ['sub', 'sid', 'iss', 'exp', 'aud', 'scope', 'token_type', 'nonce', 'email', 'given_name']) {
    t.equal(
      check({ 'jwt-role-claim': name }),
      `--jwt-role-claim cannot be ${name}: the tokens already carry that claim.`,
      name,
    );
  }
  t.equal(check({ 'jwt-role-claim': 'roles' }), undefined, 'roles is accepted');
});

t.test('--custom-access-token-script that does not compile', async (t) => {
  t.match(check({ 'custom-access-token-script': '(user) => {' }), /^--custom-access-token-script does not compile/);
});

t.test(
  'PROFILE_CLAIMS names every claim profileClaims puts in ID tokens (the role claim may be none of them)',
  async (t) => {
    const full: UserRecord = {
      id: 'u1',
      email: 'a@example.com',
      emailVerifiedAt: 1,
      phoneNumber: '+1555',
      phoneNumberVerifiedAt: 1,
      password: null,
      signupMethods: ['basic_auth'],
      givenName: 'A',
      familyName: 'B',
      middleName: 'C',
      nickname: 'D',
      preferredUsername: 'E',
      gender: 'F',
      birthdate: '2000-01-01',
      picture: 'https://example.com/p.png',
      roles: ['user'],
      createdAt: 1,
      updatedAt: 2,
      revokedTimestamp: null,
      isMultiFactorAuthEnabled: null,
      hasSkippedMfaSetupAt: null,
      mfaLockedAt: null,
      appData: null,
    };
    const claims = Object.keys(profileClaims(full));
    t.ok(claims.length >= 15, `${claims.length} claims with every field set`);
    t.same(
      claims.filter((c) => !PROFILE_CLAIMS.has(c)),
      [],
      'none missing from PROFILE_CLAIMS',
    );
    for (const c of claims) t.match(check({ 'jwt-role-claim': c }), /the tokens already carry that claim/, c);
  },
);
