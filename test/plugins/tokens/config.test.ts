/** The tokens plugin's start-up checks: a role claim that would be set on the payload's prototype, and a script that does not compile, are refused with a message. */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { tokensPlugin } from '../../../plugins/tokens/index.js';

const check = (flags: Record<string, string>) => tokensPlugin.validateConfig?.(new Config(flags));

t.test('--jwt-role-claim', async (t) => {
  t.equal(check({}), undefined, 'the default (role) is accepted');
  t.equal(check({ 'jwt-role-claim': 'https://example.com/roles' }), undefined, 'a URI claim name is accepted');
  t.equal(check({ 'jwt-role-claim': '__proto__' }), '--jwt-role-claim cannot be __proto__.');
  for (const name of ['sub', 'sid', 'iss', 'exp', 'aud', 'scope', 'token_type', 'nonce', 'email', 'given_name']) {
    t.equal(check({ 'jwt-role-claim': name }), `--jwt-role-claim cannot be ${name}: the tokens already carry that claim.`, name);
  }
  t.equal(check({ 'jwt-role-claim': 'roles' }), undefined, 'roles is accepted');
});

t.test('--custom-access-token-script that does not compile', async (t) => {
  t.match(check({ 'custom-access-token-script': '(user) => {' }), /^--custom-access-token-script does not compile/);
});
