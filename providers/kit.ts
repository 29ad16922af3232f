/**
 * The provider kit: `defineProvider` turns a descriptor (an OpenID Connect issuer or plain OAuth
 * 2.0 endpoints, scopes, capabilities) and a profile mapping into a plugin like any other. The
 * plugin contributes its flags (kit-flags.ts), its Meta field `is_<name>_login_enabled` (true when
 * the client id and secret are set), and the routes /oauth_login/<name> and /oauth_callback/<name>
 * (kit-routes.ts). The protocol runs on openid-client (discovery, PKCE, nonce, ID token checks
 * against the issuer's JWKS and `iss`); provider APIs that are not OpenID Connect are read with
 * undici (fetch-json.ts). What happens to the account is the `social` plugin's.
 */
import type { Config } from '../core/config.js';
import { definePlugin, type PluginDefinition } from '../core/plugin.js';
import { Bool } from '../core/schema.js';
import '../plugins/social/index.js';
import { providerClients, type ProviderClient } from './kit-client.js';
import { checkProviderConfig, providerConfigured, providerFlags } from './kit-flags.js';
import { providerRoutes } from './kit-routes.js';
import type { ProviderDescriptor } from './kit-types.js';

export type { ProfileInput, ProviderDescriptor, SocialProfile, JsonObject } from './kit-types.js';
export { ProviderError } from './errors.js';
export { asObject, asObjectList, claimTrue, optionalString, requireId } from './fetch-json.js';

const labelOf = (d: ProviderDescriptor, config: Config): string =>
  typeof d.label === 'string' ? d.label : d.label(config);

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** The Meta field of a provider: `is_<name>_login_enabled`, kebab-case turned to snake_case. */
export const metaFieldOf = (name: string): string => `is_${name.replace(/-/g, '_')}_login_enabled`;

export function defineProvider(d: ProviderDescriptor): PluginDefinition<void> {
  if (!NAME.test(d.name)) throw new Error(`provider name "${d.name}" must be kebab-case`);
  if (d.issuer === undefined && (!d.endpoints?.authorization || !d.endpoints.token))
    throw new Error(`provider ${d.name}: give an issuer, or authorization and token endpoints`);
  const field = metaFieldOf(d.name);
  // One client per kernel: two kernels in one process (embedding) keep their own configuration.
  const clients = new WeakMap<Config, () => Promise<ProviderClient>>();
  const clientOf = (config: Config): Promise<ProviderClient> => {
    let get = clients.get(config);
    if (!get) clients.set(config, (get = providerClients(d, config)));
    return get();
  };
  return definePlugin<void>({
    name: d.name,
    description: `${d.title ?? (typeof d.label === 'string' ? d.label : d.name)} sign-in: /oauth_login/${d.name} and /oauth_callback/${d.name}; on when the client id and secret are set.`,
    dependsOn: ['social'],
    flags: providerFlags(d),
    enabled: (config) => providerConfigured(d, config),
    validateConfig: (config) => checkProviderConfig(d, config),
    meta: (config) => ({ [field]: providerConfigured(d, config) }),
    metaFields: { [field]: Bool() },
    routes: providerRoutes(d, clientOf),
    setup: (ctx) => {
      ctx.service('social').register({ name: d.name, label: labelOf(d, ctx.config) });
    },
  });
}
