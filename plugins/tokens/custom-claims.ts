/**
 * `--custom-access-token-script` (SPEC.md flags): an operator-written JavaScript function
 * `function (user, tokenPayload) { return { ...extra claims } }` whose result is merged into
 * access tokens. It runs in a V8 context of its own for each token (no `require`, `process` or
 * host objects, and nothing left over from another user's token: a context kept between calls
 * let a script stash one user's data in a global and add it to the next user's token), gets
 * JSON copies of its arguments, and is stopped after a time limit; a failing or slow script
 * never fails the login, it only contributes nothing. Everything the script can run, a thrown
 * value's getters included, runs inside that limit: its errors are caught in its own context and
 * never read by host code. Reserved claims cannot be overridden. A fresh context costs ~0.5 ms
 * more per token than a reused one (measured 0.66 against 0.15 ms); only servers with the flag
 * set pay it.
 * node:vm is isolation from accidents, not a sandbox against a hostile operator, who controls
 * the flags anyway.
 */
import { Script, createContext, type Context } from 'node:vm';
import type { Logger } from '../../core/logger.js';

export const SCRIPT_TIMEOUT_MS = 50;
/**
 * The most JSON text of custom claims kept, in characters. A token travels in an HTTP header,
 * where proxies commonly stop at 8-16 KB; and a larger result, parsed by host code outside the
 * time limit, blocked the event loop for every login (review finding: a 256 MB result took 1.4 s).
 * A script can still block inside a single long built-in call (`'x'.repeat(2 ** 28)`), which V8
 * cannot interrupt: the operator's script is trusted code, kept from accidents, not from malice.
 */
export const MAX_CLAIMS_TEXT = 16_384;
/** What the wrapper returns when the script throws (see compileCustomizer). */
const FAILED = '\u0000failed';
/** What the wrapper returns when the result's JSON text is over MAX_CLAIMS_TEXT. */
const TOO_LARGE = '\u0000too-large';

export const RESERVED_CLAIMS = new Set([
  'iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sid', 'scope', 'token_type', 'nonce', 'auth_time',
  'amr', 'acr', 'at_hash', 'c_hash', 'azp', 'act', 'client_id', 'cnf', 'roles', 'allowed_roles', 'login_method',
]);

/** The user's claims in ID tokens (service.ts profileClaims). */
export const PROFILE_CLAIMS = new Set([
  'email', 'email_verified', 'phone_number', 'phone_number_verified', 'given_name', 'family_name', 'middle_name',
  'nickname', 'preferred_username', 'gender', 'birthdate', 'picture', 'signup_methods', 'created_at', 'updated_at',
]);

/**
 * Why `--jwt-role-claim` cannot be `name`, or undefined when it can. The roles are assigned under
 * that name after the other claims (service.ts), so a reserved or profile claim would be replaced
 * by the roles (`sub` or `sid`: every token then fails its own checks), and `__proto__` would
 * replace the payload's prototype. `roles` and `allowed_roles` carry roles anyway.
 */
export function roleClaimProblem(name: string): string | undefined {
  if (name === '__proto__') return '--jwt-role-claim cannot be __proto__.';
  if ((RESERVED_CLAIMS.has(name) && name !== 'roles' && name !== 'allowed_roles') || PROFILE_CLAIMS.has(name)) {
    return `--jwt-role-claim cannot be ${name}: the tokens already carry that claim.`;
  }
  return undefined;
}

export type ClaimsCustomizer = (user: Record<string, unknown>, payload: Record<string, unknown>) => Record<string, unknown>;

export function compileCustomizer(source: string | undefined, roleClaim: string, logger: Logger): ClaimsCustomizer | null {
  if (!source || source.trim() === '') return null;
  // The try/catch is the script's own: a thrown value (say an object whose \`message\` getter
  // loops) is never touched outside the time limit. FAILED is no JSON text, so it cannot collide.
  const code = `(function () { try { const fn = (${source}); const out = fn(JSON.parse(__user), JSON.parse(__payload)); const text = JSON.stringify(out === undefined ? null : out); return typeof text === 'string' && text.length > ${MAX_CLAIMS_TEXT} ? ${JSON.stringify(TOO_LARGE)} : text; } catch (e) { return ${JSON.stringify(FAILED)}; } })()`;
  let script: Script;
  try {
    script = new Script(code, { filename: 'custom-access-token-script.js' });
  } catch (err) {
    throw new Error(`--custom-access-token-script does not compile: ${(err as Error).message}`);
  }
  return (user, payload) => {
    const context: Context = createContext(Object.create(null) as object, { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
    try {
      context.__user = JSON.stringify(user);
      context.__payload = JSON.stringify(payload);
      const text = script.runInContext(context, { timeout: SCRIPT_TIMEOUT_MS, displayErrors: false }) as unknown;
      if (text === FAILED) {
        logger.warn('custom access token script threw; no custom claims added');
        return {};
      }
      if (text === TOO_LARGE) {
        logger.warn({ max: MAX_CLAIMS_TEXT }, 'custom access token script returned too much; no custom claims added');
        return {};
      }
      const out = typeof text === 'string' ? (JSON.parse(text) as unknown) : null;
      if (out === null || typeof out !== 'object' || Array.isArray(out)) return {};
      const claims: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(out as Record<string, unknown>)) {
        if (!RESERVED_CLAIMS.has(k) && k !== roleClaim) claims[k] = v;
      }
      return claims;
    } catch (err) {
      // Only host errors get here (the time limit, a JSON text that does not parse); a value from
      // the script's context is not read, since its getters would run outside the limit.
      const message = err instanceof Error ? err.message : 'failed';
      logger.warn({ err: message }, 'custom access token script failed; no custom claims added');
      return {};
    }
  };
}
