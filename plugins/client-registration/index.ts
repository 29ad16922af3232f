/**
 * The `client-registration` plugin (`--enable-dynamic-client-registration`): RFC 7591
 * registration of public clients at POST /oauth/register, advertised in discovery as
 * `registration_endpoint`. Self-registered clients use the code flow with PKCE S256 and meet the
 * consent screen before any code (the oauth-server's authorize step).
 */
import { definePlugin } from '../../core/plugin.js';
import { registerRoute } from './register.js';

export { MAX_SELF_REGISTERED } from './register.js';

export const clientRegistrationPlugin = definePlugin({
  name: 'client-registration',
  description: 'RFC 7591 dynamic registration of public clients at POST /oauth/register (consent and PKCE required).',
  dependsOn: ['client-registry', 'oauth-server'],
  enabled: (config) => config.bool('enable-dynamic-client-registration'),
  flags: [
    {
      name: 'enable-dynamic-client-registration',
      type: 'boolean',
      default: false,
      description:
        'Serve POST /oauth/register (RFC 7591): public clients register themselves; consent and PKCE S256 are required.',
    },
  ],
  routes: [registerRoute],
});
