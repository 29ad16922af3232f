/**
 * `--custom-access-token-script` within MAX_CLAIMS_TEXT must not make the server issue an access
 * token it refuses itself. Verification takes tokens of at most 8192 characters (service.ts
 * verifyJwt, the validate_jwt_token `token` field's max), while the script may add up to 16,384
 * characters of JSON (base64url: ~21,800): a login succeeded and handed out an access token that
 * failed on every call, silently. A script that makes the token too long now contributes nothing,
 * as a failing script does (custom-claims.ts).
 */
import t from 'tap';
import { MAX_CLAIMS_TEXT } from '../../../plugins/tokens/custom-claims.js';
import { bootAccounts, call, PASSWORD, signup, type Auth } from '../accounts/helpers.js';

const BLOB = 8000;
t.ok(BLOB + 20 < MAX_CLAIMS_TEXT, 'the script result is within MAX_CLAIMS_TEXT');
const tk = await bootAccounts({
  'custom-access-token-script': `function () { return { blob: "x".repeat(${BLOB}), plan: "pro" }; }`,
});
const { kernel } = tk;
t.teardown(() => tk.close());

t.test(
  'an access token the script would make too long to verify is issued without its custom claims, and works',
  async (t) => {
    await signup(kernel, 'big@example.com');
    const auth = await call<Auth>(kernel, 'login', { email: 'big@example.com', password: PASSWORD });
    t.ok(auth.access_token, 'a token is issued');
    t.ok(
      auth.access_token!.length <= 8192,
      `the token is within the verification bound (${auth.access_token!.length} characters)`,
    );
    const profile = await call<Record<string, unknown>>(kernel, 'profile', undefined, { bearer: auth.access_token! });
    t.equal(profile.email, 'big@example.com', 'the issued token authenticates');
    const payload = JSON.parse(Buffer.from(auth.access_token!.split('.')[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    t.notOk('blob' in payload, 'the custom claims are left out');
  },
);
