/**
 * The org-discovery plugin: home realm discovery, on with
 * `--enable-org-discovery`, and Meta's `is_org_discovery_enabled`. The hosted login page asks the
 * `org-discovery` service for the email-first step.
 */
import { definePlugin } from '../../core/plugin.js';
import { DEFAULT_DISCOVERY_LIMIT_PER_MINUTE } from './rate-limit.js';
import { discoveryRoutes } from './routes.js';
import { createOrgDiscoveryService, type OrgDiscoveryService } from './service.js';

export type { OrgDiscoveryService } from './service.js';
export type { DiscoveredConnection, OrgSsoConnectionSource } from './connections.js';
export { MALFORMED_EMAIL } from './service.js';

export interface OrgDiscoveryOptions {
  /** Discovery requests per client IP and minute (default 30). */
  limitPerMinute?: number;
}

export function createOrgDiscoveryPlugin(options: OrgDiscoveryOptions = {}) {
  return definePlugin<OrgDiscoveryService>({
    name: 'org-discovery',
    description: "Home realm discovery: an email domain to its organization's SSO connection.",
    dependsOn: ['organizations', 'org-domains'],
    flags: [
      {
        name: 'enable-org-discovery',
        type: 'boolean',
        default: false,
        description: 'Home realm discovery at /api/v1/org-discovery.',
      },
    ],
    enabled: (config) => config.bool('enable-org-discovery'),
    meta: (config) => ({ is_org_discovery_enabled: config.bool('enable-org-discovery') }),
    routes: discoveryRoutes(options.limitPerMinute ?? DEFAULT_DISCOVERY_LIMIT_PER_MINUTE),
    setup: (ctx) =>
      createOrgDiscoveryService(
        ctx.service('org-domains'),
        ctx.service('organizations'),
        () => ctx.optionalService('org-sso'),
        { memory: ctx.memory, perMinute: options.limitPerMinute ?? DEFAULT_DISCOVERY_LIMIT_PER_MINUTE },
      ),
  });
}

export const orgDiscoveryPlugin = createOrgDiscoveryPlugin();
