/**
 * `--custom-access-token-script` (SPEC.md flags): an operator-written JavaScript function
 * `function (user, tokenPayload) { return { ...extra claims } }` whose result is merged into
 * access tokens. It runs in its own V8 context (no `require`, `process` or host objects), gets
 * JSON copies of its arguments, and is stopped after a time limit; a failing or slow script
 * never fails the login, it only contributes nothing. Reserved claims cannot be overridden.
 * node:vm is isolation from accidents, not a sandbox against a hostile operator, who controls
 * the flags anyway.
 */
import { Script, createContext, type Context } from 'node:vm';
import type { Logger } from '../../core/logger.js';

export const SCRIPT_TIMEOUT_MS = 50;

export const RESERVED_CLAIMS = new Set([
  'iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'sid', 'scope', 'token_type', 'nonce', 'auth_time',
  'amr', 'acr', 'at_hash', 'c_hash', 'azp', 'act', 'client_id', 'cnf', 'roles', 'allowed_roles', 'login_method',
]);

export type ClaimsCustomizer = (user: Record<string, unknown>, payload: Record<string, unknown>) => Record<string, unknown>;

export function compileCustomizer(source: string | undefined, roleClaim: string, logger: Logger): ClaimsCustomizer | null {
  if (!source || source.trim() === '') return null;
  const code = `(function () { const fn = (${source}); const out = fn(JSON.parse(__user), JSON.parse(__payload)); return JSON.stringify(out === undefined ? null : out); })()`;
  let script: Script;
  try {
    script = new Script(code, { filename: 'custom-access-token-script.js' });
  } catch (err) {
    throw new Error(`--custom-access-token-script does not compile: ${(err as Error).message}`);
  }
  let context: Context | null = null;
  return (user, payload) => {
    // One context reused for speed; a fresh one after any failure (a script may have left junk).
    context ??= createContext(Object.create(null) as object, { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
    try {
      context.__user = JSON.stringify(user);
      context.__payload = JSON.stringify(payload);
      const text = script.runInContext(context, { timeout: SCRIPT_TIMEOUT_MS, displayErrors: false }) as unknown;
      const out = typeof text === 'string' ? (JSON.parse(text) as unknown) : null;
      if (out === null || typeof out !== 'object' || Array.isArray(out)) return {};
      const claims: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(out as Record<string, unknown>)) {
        if (!RESERVED_CLAIMS.has(k) && k !== roleClaim) claims[k] = v;
      }
      return claims;
    } catch (err) {
      context = null;
      logger.warn({ err: (err as Error).message }, 'custom access token script failed; no custom claims added');
      return {};
    }
  };
}
