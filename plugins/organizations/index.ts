/**
 * The organizations plugin: organizations, members and org roles, the
 * org admin caller (`service:org_admin` members), and the
 * `organizations` service other organization plugins build on.
 *
 * Deleting an organization runs the `organization.deleting` hook inside the deletion's
 * transaction: a plugin that keeps records per organization (domains, SCIM endpoints, SSO
 * connections) deletes them there with the `em` it is given, so the whole cascade commits or
 * none of it does.
 */
import type { EntityManager } from '@mikro-orm/core';
import { definePlugin } from '../../core/plugin.js';
import { orgAdminAuthenticator } from './org-admin.js';
import { OrgMemberEntity, OrganizationEntity } from './entities.js';
import { organizationOperations } from './operations.js';
import { createOrganizationsService, type Organization, type OrganizationsService } from './service.js';

export type {
  Organization,
  OrgMembership,
  OrganizationsService,
  OrganizationPatch,
  OrgScopedRecords,
  WithinChange,
} from './service.js';
export { ORG_ADMIN_ROLE, organizationNotFound } from './service.js';
export { organizationView } from './views.js';

declare module '../../core/hooks.js' {
  interface HookPayloads {
    /**
     * Inside the transaction that deletes an organization: delete the records kept for it with
     * `em` (the transaction's). A throw rolls the whole deletion back.
     */
    'organization.deleting': { organization: Organization; em: EntityManager };
  }
}

export const ORGANIZATION_EVENTS = [
  'organization.created',
  'organization.updated',
  'organization.deleted',
  'organization.member_added',
  'organization.member_updated',
  'organization.member_removed',
];

export const organizationsPlugin = definePlugin<OrganizationsService>({
  name: 'organizations',
  description: 'Organizations, members and org roles; org admins (service:org_admin) manage their own organization.',
  dependsOn: ['users'],
  entities: [OrganizationEntity, OrgMemberEntity],
  operations: organizationOperations,
  events: ORGANIZATION_EVENTS,
  setup(ctx) {
    const service = createOrganizationsService(ctx.storage, ctx.hooks, ctx.logger);
    ctx.authenticate('org-admin', orgAdminAuthenticator(service));
    return service;
  },
});
