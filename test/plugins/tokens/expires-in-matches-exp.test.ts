/**
 * AuthResponse and POST /oauth/token: `expires_in` is the Unix timestamp at which
 * the access token expires, so it must be the token's own `exp`. `issue` took the time once for
 * `expires_in` and again when signing (after the custom-claims script, up to 50 ms, and the
 * ID token's turn): across a second boundary the response named a second before the real expiry.
 */
import t from 'tap';
import type { TokensService } from '../../../plugins/tokens/types.js';
import type { UsersService } from '../../../plugins/users/types.js';
import { bootAccounts, call, PASSWORD, signup, type Auth } from '../accounts/helpers.js';

const tk = await bootAccounts();
const { kernel } = tk;
t.teardown(() => tk.close());
const tokens = kernel.service('tokens') as TokensService;
const users = kernel.service('users') as UsersService;

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

t.test('expires_in is the access token exp even when the clock ticks during issue', async (t) => {
  await signup(kernel, 'tick@example.com');
  const auth = await call<Auth>(kernel, 'login', { email: 'tick@example.com', password: PASSWORD });
  const verified = await tokens.verifyAccessToken(auth.access_token!);
  t.ok(verified);
  const user = await users.findById(verified!.userId);
  // Each reading of the clock during this issue is a second later than the one before.
  const realNow = Date.now;
  let ticks = 0;
  Date.now = () => realNow() + 1000 * ticks++;
  let issued;
  try {
    issued = await tokens.issue({
      user: user!,
      session: verified!.session,
      scopes: ['openid'],
      roles: verified!.session.roles,
    });
  } finally {
    Date.now = realNow;
  }
  t.equal(issued.expires_in, claimsOf(issued.access_token).exp, 'expires_in equals the signed exp');
});
