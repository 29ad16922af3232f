/**
 * The social plugin: what every social provider shares past the provider's own protocol. Provider
 * plugins (providers/kit.ts) run OAuth 2.0 / OpenID Connect with their provider and hand the
 * proven profile to this plugin's service, which finds, links or creates the account, ends
 * through the sign-in service (so the sign-in gates apply) and redirects back to the application.
 */
import { definePlugin } from '../../core/plugin.js';
import { SocialIdentityEntity } from './entities.js';
import { socialIdentities } from './identities.js';
import { createSocialService } from './service.js';
import type { SocialService } from './types.js';

export type { CompleteOptions, LoginRequest, SocialProfile, SocialProviderInfo, SocialService } from './types.js';

export const socialPlugin = definePlugin<SocialService>({
  name: 'social',
  description: 'Social login: accounts for provider identities (link, signup) behind the provider plugins.',
  dependsOn: ['users', 'sign-in'],
  entities: [SocialIdentityEntity],
  setup: (ctx) => {
    const ids = socialIdentities(ctx.storage);
    ctx.hooks.on('user.deleted', ({ user }) => ids.removeUser(user.id));
    return createSocialService(ids);
  },
});
export { SocialLoginFailure } from './responses.js';
