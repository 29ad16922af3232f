/**
 * Organization operations (group Organizations, with the wire contract's
 * names). Super-admin only: create, delete, list. Org-scoped (super-admin, or that
 * organization's `service:org_admin` member): update, get, and the member operations. A caller
 * who does not administer the organization named gets the same `not_found` as for one that does
 * not exist (service.ts requireAdministered).
 */
import type { RequestContext } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse, pageOf, paginationOf } from '../../core/schema.js';
import {
  AddOrgMemberRequest,
  CreateOrganizationRequest,
  ListOrgMembersRequest,
  ListOrganizationsRequest,
  OrgMember,
  OrgMembers,
  Organization,
  OrganizationRequest,
  Organizations,
  RemoveOrgMemberRequest,
  UpdateOrganizationRequest,
  UserOrganizations,
  UserOrganizationsRequest,
} from './schemas.js';
import { memberView, organizationView } from './views.js';

const orgs = (ctx: RequestContext) => ctx.kernel.service('organizations');
const users = (ctx: RequestContext) => ctx.kernel.service('users');
const userNotFound = () => notFound('user not found');
const memberNotFound = () => notFound('member not found');

/** Who acted, for the events (never a secret). */
const actorOf = (ctx: RequestContext) => ({
  actor: ctx.principal?.subject ?? 'unknown',
  actor_kind: ctx.principal?.kind ?? 'unknown',
  ip: ctx.ip,
});

export const organizationOperations: AnyOperation[] = [
  defineOperation({
    name: '_create_organization',
    kind: 'mutation',
    access: 'admin',
    description: 'Creates an organization (super-admin only); `name` is its unique slug.',
    input: CreateOrganizationRequest,
    output: Organization,
    audit: { action: 'organization.create', resourceType: 'organization', resourceId: ({ output }) => output?.id },
    handler: async (ctx, input) => {
      const created = await orgs(ctx).create(input, {
        within: (unit, organization) =>
          ctx.kernel.events.emitWithin(unit, 'organization.created', {
            ...actorOf(ctx),
            organization: organizationView(organization),
          }),
      });
      return organizationView(created);
    },
  }),
  defineOperation({
    name: '_update_organization',
    kind: 'mutation',
    access: 'org-admin',
    description: "Changes an organization's name (slug), display name or enabled state.",
    input: UpdateOrganizationRequest,
    output: Organization,
    audit: { action: 'organization.update', resourceType: 'organization', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      await orgs(ctx).requireAdministered(ctx.principal, input.id);
      const updated = await orgs(ctx).update(input.id, input, {
        within: (unit, organization) =>
          ctx.kernel.events.emitWithin(unit, 'organization.updated', {
            ...actorOf(ctx),
            organization: organizationView(organization),
          }),
      });
      return organizationView(updated);
    },
  }),
  defineOperation({
    name: '_delete_organization',
    kind: 'mutation',
    access: 'admin',
    description:
      'Deletes an organization with its members, domains, SSO connections and SCIM endpoint, in one transaction (super-admin only).',
    input: OrganizationRequest,
    output: MessageResponse,
    audit: { action: 'organization.delete', resourceType: 'organization', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => {
      await orgs(ctx).remove(input.id, {
        within: (unit) =>
          ctx.kernel.events.emitWithin(unit, 'organization.deleted', { ...actorOf(ctx), organization_id: input.id }),
      });
      return { message: 'organization deleted successfully' };
    },
  }),
  defineOperation({
    name: '_organization',
    kind: 'query',
    access: 'org-admin',
    description: 'One organization.',
    input: OrganizationRequest,
    output: Organization,
    audit: { action: 'organization.read', resourceType: 'organization', resourceId: ({ input }) => input.id },
    handler: async (ctx, input) => organizationView(await orgs(ctx).requireAdministered(ctx.principal, input.id)),
  }),
  defineOperation({
    name: '_organizations',
    kind: 'query',
    access: 'admin',
    description: 'Organizations, a page at a time (super-admin only).',
    input: ListOrganizationsRequest,
    output: Organizations,
    audit: { action: 'organization.list', resourceType: 'organization' },
    graphql: { required: false },
    rest: { method: 'POST' },
    handler: async (ctx, input) => {
      const page = pageOf(input?.pagination);
      const { organizations, total } = await orgs(ctx).list(page.page, page.limit);
      return { pagination: paginationOf(page, total), organizations: organizations.map(organizationView) };
    },
  }),
  defineOperation({
    name: '_add_org_member',
    kind: 'mutation',
    access: 'org-admin',
    description: 'Adds a user to an organization with org roles, or sets the roles of a member.',
    input: AddOrgMemberRequest,
    output: OrgMember,
    audit: {
      action: 'org_member.add',
      resourceType: 'organization',
      resourceId: ({ input }) => input.org_id,
      metadata: ({ input }) => ({ user_id: input.user_id }),
    },
    handler: async (ctx, input) => {
      await orgs(ctx).requireAdministered(ctx.principal, input.org_id);
      const user = input.user_id.length <= 64 ? await users(ctx).findById(input.user_id) : null;
      if (!user) throw userNotFound();
      const { membership } = await orgs(ctx).addMember(input.org_id, user.id, input.roles, {
        within: (unit, { membership, created }) =>
          ctx.kernel.events.emitWithin(unit, created ? 'organization.member_added' : 'organization.member_updated', {
            ...actorOf(ctx),
            org_id: input.org_id,
            user_id: user.id,
            roles: membership.roles,
          }),
      });
      return memberView(membership, user);
    },
  }),
  defineOperation({
    name: '_remove_org_member',
    kind: 'mutation',
    access: 'org-admin',
    description: 'Removes a user from an organization (the user account stays).',
    input: RemoveOrgMemberRequest,
    output: MessageResponse,
    audit: {
      action: 'org_member.remove',
      resourceType: 'organization',
      resourceId: ({ input }) => input.org_id,
      metadata: ({ input }) => ({ user_id: input.user_id }),
    },
    handler: async (ctx, input) => {
      await orgs(ctx).requireAdministered(ctx.principal, input.org_id);
      const removed = await orgs(ctx).removeMember(input.org_id, input.user_id, {
        within: (unit) =>
          ctx.kernel.events.emitWithin(unit, 'organization.member_removed', {
            ...actorOf(ctx),
            org_id: input.org_id,
            user_id: input.user_id,
          }),
      });
      if (!removed) throw memberNotFound();
      return { message: 'member removed successfully' };
    },
  }),
  defineOperation({
    name: '_org_members',
    kind: 'query',
    access: 'org-admin',
    description: 'Members of an organization with their org roles, a page at a time.',
    input: ListOrgMembersRequest,
    output: OrgMembers,
    audit: { action: 'org_member.list', resourceType: 'organization', resourceId: ({ input }) => input.org_id },
    rest: { method: 'POST' },
    handler: async (ctx, input) => {
      await orgs(ctx).requireAdministered(ctx.principal, input.org_id);
      const page = pageOf(input.pagination);
      const { members, total } = await orgs(ctx).members(input.org_id, page.page, page.limit);
      const views = await Promise.all(members.map(async (m) => memberView(m, await users(ctx).findById(m.userId))));
      return { pagination: paginationOf(page, total), org_members: views };
    },
  }),
  defineOperation({
    name: '_user_organizations',
    kind: 'query',
    access: 'org-admin',
    description:
      "A user's organizations with their org roles; an org admin sees only the organizations it administers.",
    input: UserOrganizationsRequest,
    output: UserOrganizations,
    audit: { action: 'organization.list_of_user', resourceType: 'user', resourceId: ({ input }) => input.user_id },
    rest: { method: 'POST' },
    handler: async (ctx, input) => {
      const service = orgs(ctx);
      const user = input.user_id.length <= 64 ? await users(ctx).findById(input.user_id) : null;
      const all = user ? await service.userOrganizations(user.id) : [];
      const seen = all.filter((o) => service.administers(ctx.principal, o.organization.id));
      // An org admin learns nothing of a user outside its organizations, not even that it exists.
      if (!user || (ctx.principal?.kind !== 'admin' && seen.length === 0)) throw userNotFound();
      return {
        user_organizations: seen.map((o) => ({ organization: organizationView(o.organization), roles: o.roles })),
      };
    },
  }),
];
