/**
 * The tokens plugin: JWT access, ID and refresh tokens (`tokens` service) and the 'session'
 * authenticator every `access: 'session'` operation relies on.
 */
import { silentLogger } from '../../core/logger.js';
import { definePlugin } from '../../core/plugin.js';
import { sessionAuthenticator } from './authenticator.js';
import { compileCustomizer, roleClaimProblem } from './custom-claims.js';
import { createTokensService } from './service.js';
import type { TokensService } from './types.js';

export type { TokensService, IssuedTokens, VerifiedToken } from './types.js';
export { MAX_TOKEN_LENGTH, ScopeExceedsGrantError, mcpAudience } from './service.js';
export { verifierOf } from './key-verifier.js';
export { AGENT_PREFIX, delegatedPrincipal } from './delegation.js';

export const tokensPlugin = definePlugin<TokensService>({
  name: 'tokens',
  description: 'Access, ID and refresh tokens (stateful, rotated) and the session authenticator.',
  dependsOn: ['keys', 'users', 'sessions'],
  flags: [
    { name: 'jwt-role-claim', type: 'string', default: 'role', description: 'Claim that carries the roles.' },
    {
      name: 'refresh-reuse-grace-seconds',
      type: 'number',
      default: 10,
      description:
        'A refresh token presented again by the same client within this many seconds of its rotation (the answer was lost) rotates anew and revokes the successor it was never given, unless that successor was used; later it is reuse and ends the family. 0 disables.',
    },
    {
      name: 'custom-access-token-script',
      type: 'string',
      description:
        'JavaScript function (user, tokenPayload) returning extra access-token claims; runs isolated with a time limit; reserved claims are ignored.',
    },
  ],
  validateConfig: (config) => {
    const roleClaim = roleClaimProblem(config.string('jwt-role-claim', 'role') || 'role');
    if (roleClaim) return roleClaim;
    try {
      compileCustomizer(
        config.string('custom-access-token-script'),
        config.string('jwt-role-claim', 'role'),
        silentLogger,
      );
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  },
  async setup(ctx) {
    const sessions = ctx.service('sessions');
    const tokens = await createTokensService({
      config: ctx.config,
      memory: ctx.memory,
      keys: ctx.service('keys'),
      sessions,
      users: ctx.service('users'),
      logger: ctx.logger,
    });
    ctx.authenticate('session', sessionAuthenticator(tokens, sessions));
    // A deleted user's refresh tokens must not outlive them (their sessions go with the sessions plugin).
    ctx.hooks.on('user.deleted', ({ user }) => tokens.forgetUser(user.id));
    return tokens;
  },
});
