/**
 * The scim plugin: inbound SCIM 2.0 provisioning per organization (SPEC.md "SCIM 2.0",
 * "Authentication/SCIM"): the admin operations of SCIM endpoints and the `/scim/v2` routes,
 * where the organization is the one the bearer token belongs to.
 */
import type { RequestContext } from '../../core/context.js';
import { definePlugin } from '../../core/plugin.js';
import { createScimEndpoints, type ScimEndpoints } from './endpoints.js';
import { ScimEndpointEntity, ScimUserEntity } from './entities.js';
import { scimRoutes } from './http/routes.js';
import { scimOperations } from './operations.js';
import {
  USER_DEPROVISIONED,
  USER_PROVISIONED,
  USER_SCIM_UPDATED,
  createProvisioning,
  type Provisioning,
} from './provisioning.js';

export type { ScimEndpoints, ScimEndpoint } from './endpoints.js';
export type { Provisioning, ProvisionedUser } from './provisioning.js';
export { USER_PROVISIONED, USER_DEPROVISIONED, USER_SCIM_UPDATED } from './provisioning.js';

export interface ScimService {
  readonly endpoints: ScimEndpoints;
  readonly provisioning: Provisioning;
}

declare module '../../core/services.js' {
  interface Services {
    scim: ScimService;
  }
}

const scim = (ctx: RequestContext) => ctx.kernel.service('scim');

export const scimPlugin = definePlugin<ScimService>({
  name: 'scim',
  description: 'Inbound SCIM 2.0 provisioning per organization at /scim/v2 (bearer token per organization).',
  dependsOn: ['organizations', 'users', 'sessions'],
  entities: [ScimEndpointEntity, ScimUserEntity],
  operations: scimOperations,
  events: [USER_PROVISIONED, USER_DEPROVISIONED, USER_SCIM_UPDATED],
  routes: scimRoutes({
    provisioning: (ctx) => scim(ctx).provisioning,
    authenticate: (ctx, token) => scim(ctx).endpoints.authenticate(token),
    baseUrl: (ctx) => (ctx.kernel.config.string('url') ?? '').replace(/\/+$/, ''),
  }),
  setup(ctx) {
    const endpoints = createScimEndpoints(ctx.storage);
    const provisioning = createProvisioning({
      storage: ctx.storage,
      events: ctx.events,
      users: ctx.service('users'),
      sessions: ctx.service('sessions'),
      organizations: ctx.service('organizations'),
      domains: () => ctx.optionalService('org-domains'),
    });
    // The organization's endpoint and SCIM attributes go with it, in its deletion's transaction.
    ctx.hooks.on('organization.deleting', async ({ organization, em }) => {
      await em.nativeDelete(ScimEndpointEntity, { orgId: organization.id });
      await em.nativeDelete(ScimUserEntity, { orgId: organization.id });
    });
    ctx.hooks.on('user.deleted', async ({ user }) => {
      await ctx.storage.em().nativeDelete(ScimUserEntity, { userId: user.id });
    });
    return { endpoints, provisioning };
  },
});
