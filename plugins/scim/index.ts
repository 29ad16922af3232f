/**
 * The scim plugin: inbound SCIM 2.0 provisioning per organization (RFC 7643/7644, a bearer
 * token per SCIM endpoint): the admin operations of SCIM endpoints and the `/scim/v2` routes,
 * where the organization is the one the bearer token belongs to.
 */
import type { AuditEventDeclaration } from '../../core/audit.js';
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import { definePlugin } from '../../core/plugin.js';
import { createScimEndpoints, type ScimEndpoints } from './endpoints.js';
import { ScimEndpointEntity, ScimGroupEntity, ScimUserEntity, type ScimGroupRow } from './entities.js';
import { createGroups, type Groups } from './groups.js';
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
export type { Groups, ProvisionedGroup } from './groups.js';
export { USER_PROVISIONED, USER_DEPROVISIONED, USER_SCIM_UPDATED } from './provisioning.js';

export interface ScimService {
  readonly endpoints: ScimEndpoints;
  readonly provisioning: Provisioning;
  /** Provisioned groups, their members as FGA tuples. */
  readonly groups: Groups;
}

declare module '../../core/services.js' {
  interface Services {
    scim: ScimService;
  }
}

const scim = (ctx: RequestContext) => ctx.kernel.service('scim');

/** The audit record of a provisioning event: the user acted on, by which organization's token. */
const scimAudit = (action: string): AuditEventDeclaration => ({
  action,
  resourceType: 'user',
  resourceId: (p) => String((p.user as { id?: unknown } | undefined)?.id ?? ''),
  metadata: (p) => ({ org_id: p.org_id }),
});

export const scimPlugin = definePlugin<ScimService>({
  name: 'scim',
  description: 'Inbound SCIM 2.0 provisioning per organization at /scim/v2 (bearer token per organization).',
  dependsOn: ['organizations', 'users', 'sessions', 'sign-in'],
  entities: [ScimEndpointEntity, ScimUserEntity, ScimGroupEntity],
  operations: scimOperations,
  events: [USER_PROVISIONED, USER_DEPROVISIONED, USER_SCIM_UPDATED],
  // SCIM changes are security events performed by raw routes, not operations (docs/audit.md).
  auditEvents: {
    [USER_PROVISIONED]: scimAudit('user.scim_provision'),
    [USER_DEPROVISIONED]: scimAudit('user.scim_deprovision'),
    [USER_SCIM_UPDATED]: scimAudit('user.scim_update'),
  },
  routes: scimRoutes({
    provisioning: (ctx) => scim(ctx).provisioning,
    groups: (ctx) => scim(ctx).groups,
    // A disabled organization provisions nothing: its token is refused like an unknown one.
    authenticate: async (ctx, token) => {
      const endpoint = await scim(ctx).endpoints.authenticate(token);
      const org = endpoint ? await ctx.kernel.service('organizations').get(endpoint.orgId) : null;
      return endpoint && org?.enabled ? endpoint : null;
    },
    baseUrl: (ctx) => (ctx.kernel.config.string('url') ?? '').replace(/\/+$/, ''),
  }),
  setup(ctx) {
    const endpoints = createScimEndpoints(ctx.storage);
    const provisioning = createProvisioning({
      storage: ctx.storage,
      events: ctx.events,
      logger: ctx.logger,
      users: ctx.service('users'),
      sessions: ctx.service('sessions'),
      organizations: ctx.service('organizations'),
      domains: () => ctx.optionalService('org-domains'),
    });
    const groups = createGroups(ctx.storage, () => ctx.optionalService('fga'));
    // The organization's endpoint, SCIM attributes and groups go with it, in its deletion's
    // transaction. The groups' tuples live in the FGA store, outside that transaction (on SQLite
    // the same file, whose one writer the transaction holds): they are removed once the
    // deletion has committed, on its `organization.deleted` event.
    const deletedGroups = new Map<string, string[]>();
    ctx.hooks.on('organization.deleting', async ({ organization, em }) => {
      const rows = (await em.find(ScimGroupEntity, { orgId: organization.id })) as ScimGroupRow[];
      if (rows.length > 0)
        deletedGroups.set(
          organization.id,
          rows.map((r) => r.id),
        );
      await em.nativeDelete(ScimGroupEntity, { orgId: organization.id });
      await em.nativeDelete(ScimEndpointEntity, { orgId: organization.id });
      await em.nativeDelete(ScimUserEntity, { orgId: organization.id });
    });
    ctx.events.on('organization.deleted', async (event) => {
      const orgId = String(event.payload.organization_id);
      const ids = deletedGroups.get(orgId);
      deletedGroups.delete(orgId);
      if (ids) await groups.forgetMembers(ids);
    });
    // A deprovisioned user, or one provisioned inactive, never gets a token: every login path ends
    // in the sign-in service, and this gate refuses a revoked user there, whichever path it took
    // (organization SSO included). It reads the record the login path read, at no extra cost.
    ctx.service('sign-in').addGate(async (_ctx, attempt) => {
      if (attempt.user.revokedTimestamp !== null) {
        throw new ServiceError('permission_denied', 'user access has been revoked');
      }
      return undefined;
    });
    ctx.hooks.on('user.deleted', async ({ user }) => {
      await ctx.storage.em().nativeDelete(ScimUserEntity, { userId: user.id });
    });
    return { endpoints, provisioning, groups };
  },
});
