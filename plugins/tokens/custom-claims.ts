/**
 * `--custom-access-token-script`: an operator-written JavaScript function
 * `function (user, tokenPayload) { return { ...extra claims } }` whose result is merged into
 * access tokens. It runs in a V8 context of its own for each token (no `require`, `process` or
 * host objects, and nothing left over from another user's token: a context kept between calls
 * let a script stash one user's data in a global and add it to the next user's token), gets
 * JSON copies of its arguments, and is stopped after a time limit; a failing or slow script
 * never fails the login, it only contributes nothing. Everything the script can run, a thrown
 * value's getters included, runs inside that limit: its errors are caught in its own context and
 * never read by host code, and nothing it leaves behind can run later. Reserved claims cannot be overridden. A fresh context costs ~0.5 ms
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
 * time limit, would block the event loop for every login (a 256 MB result takes 1.4 s).
 * A script can still block inside a single long built-in call (`'x'.repeat(2 ** 28)`), which V8
 * cannot interrupt: the operator's script is trusted code, kept from accidents, not from malice.
 */
export const MAX_CLAIMS_TEXT = 16_384;
/**
 * The deepest nesting of custom claims kept. The host parses the script's text (V8's JSON.parse
 * accepts any depth) and later signs the token with JSON.stringify, which recurses: ~5,000
 * levels, well within MAX_CLAIMS_TEXT, throw RangeError there, so issue() would fail and every
 * login with it (the text is whatever the script's own JSON.stringify, which it may
 * replace, returned).
 */
export const MAX_CLAIMS_DEPTH = 64;
/** Whether `value` (parsed JSON) nests at most `depth` more levels; stops at the bound. */
function nestsWithin(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth === 0) return false;
  for (const v of Object.values(value)) if (!nestsWithin(v, depth - 1)) return false;
  return true;
}
/** What the wrapper returns when the script throws (see compileCustomizer). */
const FAILED = '\u0000failed';
/** What the wrapper returns when the result's JSON text is over MAX_CLAIMS_TEXT. */
const TOO_LARGE = '\u0000too-large';

export const RESERVED_CLAIMS = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'sid',
  'scope',
  'token_type',
  'nonce',
  'auth_time',
  'amr',
  'acr',
  'at_hash',
  'c_hash',
  'azp',
  'act',
  'client_id',
  'cnf',
  'roles',
  'allowed_roles',
  'login_method',
]);

/** The user's claims in ID tokens (service.ts profileClaims). */
export const PROFILE_CLAIMS = new Set([
  'email',
  'email_verified',
  'phone_number',
  'phone_number_verified',
  'given_name',
  'family_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'gender',
  'birthdate',
  'picture',
  'signup_methods',
  'created_at',
  'updated_at',
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

export type ClaimsCustomizer = (
  user: Record<string, unknown>,
  payload: Record<string, unknown>,
) => Record<string, unknown>;

/**
 * Globals taken from the script's context before it runs: each lets it leave a callback that V8
 * calls later on the main thread, outside the time limit (a FinalizationRegistry's cleanup runs
 * after a garbage collection and could hang the server for good; a WeakRef only
 * makes sense with it; `Atomics.waitAsync` schedules a callback too).
 */
const SETUP = new Script(
  'delete globalThis.FinalizationRegistry; delete globalThis.WeakRef; delete globalThis.Atomics;' +
    // The names the host writes into the context after the source has run: plain data properties
    // it cannot redefine, so no setter of the script's runs in host code (an accessor on `__fn`
    // would run outside the limit).
    "for (const name of ['__fn', '__user', '__payload']) Object.defineProperty(globalThis, name, { value: undefined, writable: true, configurable: false });",
  { filename: 'custom-access-token-setup.js' },
);

/**
 * The script's source and the code that calls it are two compilations. Spliced into one text,
 * a source such as `0); } catch (e) {} throw x; try { (0` would close the wrapper's try block
 * and throw past it. Here the source is evaluated on its own, giving the function
 * (anything else it does runs inside the same limit), and the fixed wrapper calls it inside its
 * own try/catch: a thrown value (say an object whose `message` getter loops) is never touched
 * outside the time limit. FAILED is no JSON text, so it cannot collide.
 */
const CALL = new Script(
  `(function () { try { const out = __fn(JSON.parse(__user), JSON.parse(__payload)); const text = JSON.stringify(out === undefined ? null : out); return typeof text === 'string' && text.length > ${MAX_CLAIMS_TEXT} ? ${JSON.stringify(TOO_LARGE)} : text; } catch (e) { return ${JSON.stringify(FAILED)}; } })()`,
  { filename: 'custom-access-token-call.js' },
);

export function compileCustomizer(
  source: string | undefined,
  roleClaim: string,
  logger: Logger,
): ClaimsCustomizer | null {
  if (!source || source.trim() === '') return null;
  let script: Script;
  try {
    // The newline ends a trailing line comment in the source.
    script = new Script(`(${source}\n)`, { filename: 'custom-access-token-script.js' });
  } catch (err) {
    throw new Error(`--custom-access-token-script does not compile: ${(err as Error).message}`);
  }
  return (user, payload) => {
    const context: Context = createContext(Object.create(null) as object, {
      codeGeneration: { strings: false, wasm: false },
      microtaskMode: 'afterEvaluate',
    });
    const started = performance.now();
    try {
      SETUP.runInContext(context);
      context.__user = JSON.stringify(user);
      context.__payload = JSON.stringify(payload);
      // Both runs share one budget: the source's own top-level code counts against the limit.
      context.__fn = script.runInContext(context, { timeout: SCRIPT_TIMEOUT_MS, displayErrors: false }) as unknown;
      const left = Math.max(1, Math.ceil(SCRIPT_TIMEOUT_MS - (performance.now() - started)));
      const text = CALL.runInContext(context, { timeout: left, displayErrors: false }) as unknown;
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
      if (!nestsWithin(out, MAX_CLAIMS_DEPTH)) {
        logger.warn(
          { max: MAX_CLAIMS_DEPTH },
          'custom access token script returned claims nested too deep; no custom claims added',
        );
        return {};
      }
      const claims: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(out as Record<string, unknown>)) {
        if (!RESERVED_CLAIMS.has(k) && k !== roleClaim) claims[k] = v;
      }
      return claims;
    } catch {
      // Nothing thrown here is read: it may be the script's own value (thrown by the source's
      // top-level code, or a Proxy whose traps would run here, outside the limit). The time
      // limit is told apart by the clock instead.
      const timedOut = performance.now() - started >= SCRIPT_TIMEOUT_MS;
      logger.warn(
        { reason: timedOut ? 'time limit' : 'error' },
        'custom access token script failed; no custom claims added',
      );
      return {};
    }
  };
}
