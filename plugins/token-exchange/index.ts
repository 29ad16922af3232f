/**
 * The `token-exchange` plugin: RFC 8693 delegation for agents on POST /oauth/token
 * (grant.ts), registered through the oauth-server's grant API like any third-party grant, and the
 * recognition of delegated tokens as agent callers, whose FGA checks intersect agent and user.
 */
import { definePlugin } from '../../core/plugin.js';
import { TOKEN_EXCHANGE, tokenExchangeGrant } from './grant.js';

export { ACCESS_TOKEN_TYPE, DELEGATED_TTL_SECONDS, TOKEN_EXCHANGE } from './grant.js';

export const tokenExchangePlugin = definePlugin({
  name: 'token-exchange',
  description: 'RFC 8693 token exchange: delegated five-minute tokens for agents acting for a user.',
  dependsOn: ['oauth-server', 'tokens'],
  setup(ctx) {
    ctx.service('oauth-server').registerGrant(TOKEN_EXCHANGE, tokenExchangeGrant);
  },
});
