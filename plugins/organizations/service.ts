/**
 * The `organizations` service: organizations, their members and org roles, and the checks every
 * org-scoped operation makes. Other plugins (domains, SCIM, SSO connections) keep records per
 * organization and reach them through this service; a deletion removes theirs in the same
 * transaction through the `organization.deleting` hook (index.ts).
 */
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { Principal } from '../../core/context.js';
import { ServiceError, invalidArgument, notFound } from '../../core/errors.js';
import type { HookBus } from '../../core/hooks.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { OrgMemberEntity, OrganizationEntity, type OrgMemberRow, type OrganizationRow } from './entities.js';
import { checkDisplayName, checkRoles, checkSlug } from './validation.js';

/** The membership role that administers an organization. */
export const ORG_ADMIN_ROLE = 'service:org_admin';
/** Roles of a member added without any. */
export const DEFAULT_MEMBER_ROLES = ['member'];

export interface Organization {
  id: string;
  /** The unique slug. */
  name: string;
  displayName: string | null;
  enabled: boolean;
  /** Unix milliseconds. */
  createdAt: number;
  updatedAt: number;
}

export interface OrgMembership {
  id: string;
  orgId: string;
  userId: string;
  roles: string[];
  createdAt: number;
}

export interface OrganizationPatch {
  name?: string;
  display_name?: string;
  enabled?: boolean;
}

export interface OrganizationsService {
  create(input: { name: string; display_name?: string }): Promise<Organization>;
  update(id: string, patch: OrganizationPatch): Promise<Organization>;
  /**
   * Deletes the organization, its memberships and, through the `organization.deleting` hook run
   * inside the same transaction, every record other plugins keep for it. `not_found` when absent.
   */
  remove(id: string): Promise<void>;
  get(id: string): Promise<Organization | null>;
  /** By slug (`Organization.name`). */
  getByName(name: string): Promise<Organization | null>;
  list(page: number, limit: number): Promise<{ organizations: Organization[]; total: number }>;
  /** Adds the user, or sets the roles of an existing member; `created` tells which. */
  addMember(
    orgId: string,
    userId: string,
    roles?: readonly string[],
  ): Promise<{ membership: OrgMembership; created: boolean }>;
  /** False when the user was not a member. */
  removeMember(orgId: string, userId: string): Promise<boolean>;
  membership(orgId: string, userId: string): Promise<OrgMembership | null>;
  isMember(orgId: string, userId: string): Promise<boolean>;
  members(orgId: string, page: number, limit: number): Promise<{ members: OrgMembership[]; total: number }>;
  userOrganizations(userId: string): Promise<{ organization: Organization; roles: string[] }[]>;
  /** Enabled organizations in which the user holds `service:org_admin`. */
  adminOrgIds(userId: string): Promise<string[]>;
  /** Whether the caller may run org-scoped operations on the organization (super-admin, or its org admin). */
  administers(principal: Principal | undefined, orgId: string): boolean;
  /**
   * The organization for an org-scoped operation: the same `not_found` for an organization the
   * caller does not administer as for one that does not exist, so a refusal tells nothing.
   */
  requireAdministered(principal: Principal | undefined, orgId: string): Promise<Organization>;
  /**
   * A record kept one per organization (an SSO connection) for an org-scoped operation, by its own
   * `id` or its organization's `orgId` (exactly one, else `invalid_argument`): a record of an
   * organization the caller does not administer is refused as a missing one is (`notFound()`).
   */
  administeredRecord<T extends { orgId: string }>(
    principal: Principal | undefined,
    by: { id?: string | undefined; orgId?: string | undefined },
    records: OrgScopedRecords<T>,
    notFound: () => ServiceError,
  ): Promise<T>;
}

/** Records kept one per organization, as `administeredRecord` looks them up. */
export interface OrgScopedRecords<T> {
  get(id: string): Promise<T | null>;
  byOrg(orgId: string): Promise<T | null>;
}

declare module '../../core/services.js' {
  interface Services {
    organizations: OrganizationsService;
  }
}

export const organizationNotFound = (): ServiceError => notFound('organization not found');

/** Ids are at most 64 characters (the column); anything longer names nothing. */
const fits = (id: string): boolean => id.length > 0 && id.length <= 64;

function toOrganization(r: OrganizationRow): Organization {
  return {
    id: r.id,
    name: r.name,
    displayName: r.displayName ?? null,
    enabled: Boolean(r.enabled),
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

function toMembership(r: OrgMemberRow): OrgMembership {
  return {
    id: r.id,
    orgId: r.orgId,
    userId: r.userId,
    roles: [...(r.roles ?? [])],
    createdAt: Number(r.createdAt),
  };
}

const nameTaken = () => new ServiceError('already_exists', 'organization with given name already exists');

export function createOrganizationsService(storage: Storage, hooks: HookBus): OrganizationsService {
  const em = (): EntityManager => storage.em();

  async function row(id: string, manager: EntityManager = em()): Promise<OrganizationRow | null> {
    if (!fits(id)) return null;
    return (await manager.findOne(OrganizationEntity, { id })) as OrganizationRow | null;
  }

  const service: OrganizationsService = {
    async create(input) {
      const name = checkSlug(input.name);
      const displayName = input.display_name !== undefined ? checkDisplayName(input.display_name) : null;
      const manager = em();
      if (await manager.findOne(OrganizationEntity, { name })) throw nameTaken();
      const now = Date.now();
      const r: OrganizationRow = { id: newId(), name, displayName, enabled: true, createdAt: now, updatedAt: now };
      try {
        await manager.insert(OrganizationEntity, r as never);
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw nameTaken();
        throw err;
      }
      return toOrganization(r);
    },

    async update(id, patch) {
      const name = patch.name !== undefined ? checkSlug(patch.name) : undefined;
      const displayName = patch.display_name !== undefined ? checkDisplayName(patch.display_name) : undefined;
      const manager = em();
      const found = await row(id, manager);
      if (!found) throw organizationNotFound();
      if (name !== undefined && name !== found.name) {
        if (await manager.findOne(OrganizationEntity, { name })) throw nameTaken();
        found.name = name;
      }
      if (displayName !== undefined) found.displayName = displayName;
      if (patch.enabled !== undefined) found.enabled = patch.enabled;
      found.updatedAt = Date.now();
      try {
        await manager.flush();
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw nameTaken();
        throw err;
      }
      return toOrganization(found);
    },

    async remove(id) {
      const found = await row(id);
      if (!found) throw organizationNotFound();
      const organization = toOrganization(found);
      await em().transactional(async (tx) => {
        // Other plugins first: their rows name the organization (domains, SCIM, SSO connections).
        await hooks.run('organization.deleting', { organization, em: tx });
        await tx.nativeDelete(OrgMemberEntity, { orgId: id });
        const deleted = await tx.nativeDelete(OrganizationEntity, { id });
        // The loser of two concurrent deletions reports what a missing organization does.
        if (deleted === 0) throw organizationNotFound();
      });
    },

    async get(id) {
      const found = await row(id);
      return found ? toOrganization(found) : null;
    },

    async getByName(name) {
      if (name.length === 0 || name.length > 64) return null;
      const found = (await em().findOne(OrganizationEntity, { name })) as OrganizationRow | null;
      return found ? toOrganization(found) : null;
    },

    async list(page, limit) {
      const [rows, total] = await em().findAndCount(
        OrganizationEntity,
        {},
        { orderBy: { createdAt: 'asc', id: 'asc' }, limit, offset: (page - 1) * limit },
      );
      return { organizations: (rows as OrganizationRow[]).map(toOrganization), total };
    },

    async addMember(orgId, userId, roles) {
      const wanted = roles !== undefined ? checkRoles(roles) : undefined;
      const manager = em();
      const existing = (await manager.findOne(OrgMemberEntity, { orgId, userId })) as OrgMemberRow | null;
      if (existing) {
        if (wanted !== undefined) {
          existing.roles = wanted;
          await manager.flush();
        }
        return { membership: toMembership(existing), created: false };
      }
      const r: OrgMemberRow = {
        id: newId(),
        orgId,
        userId,
        roles: wanted ?? [...DEFAULT_MEMBER_ROLES],
        createdAt: Date.now(),
      };
      try {
        await manager.insert(OrgMemberEntity, r as never);
      } catch (err) {
        // A concurrent add of the same member won: the membership exists, as asked.
        if (!(err instanceof UniqueConstraintViolationException)) throw err;
        const now = (await em().findOne(OrgMemberEntity, { orgId, userId })) as OrgMemberRow | null;
        if (!now) throw err;
        return { membership: toMembership(now), created: false };
      }
      return { membership: toMembership(r), created: true };
    },

    async removeMember(orgId, userId) {
      if (!fits(orgId) || !fits(userId)) return false;
      return (await em().nativeDelete(OrgMemberEntity, { orgId, userId })) > 0;
    },

    async membership(orgId, userId) {
      if (!fits(orgId) || !fits(userId)) return null;
      const found = (await em().findOne(OrgMemberEntity, { orgId, userId })) as OrgMemberRow | null;
      return found ? toMembership(found) : null;
    },

    async isMember(orgId, userId) {
      return (await service.membership(orgId, userId)) !== null;
    },

    async members(orgId, page, limit) {
      const [rows, total] = await em().findAndCount(
        OrgMemberEntity,
        { orgId },
        { orderBy: { createdAt: 'asc', id: 'asc' }, limit, offset: (page - 1) * limit },
      );
      return { members: (rows as OrgMemberRow[]).map(toMembership), total };
    },

    async userOrganizations(userId) {
      if (!fits(userId)) return [];
      const manager = em();
      const memberships = (await manager.find(
        OrgMemberEntity,
        { userId },
        { orderBy: { createdAt: 'asc', id: 'asc' } },
      )) as OrgMemberRow[];
      if (memberships.length === 0) return [];
      const orgs = (await manager.find(OrganizationEntity, {
        id: { $in: memberships.map((m) => m.orgId) },
      })) as OrganizationRow[];
      const byId = new Map(orgs.map((o) => [o.id, toOrganization(o)]));
      return memberships.flatMap((m) => {
        const organization = byId.get(m.orgId);
        return organization ? [{ organization, roles: [...m.roles] }] : [];
      });
    },

    async adminOrgIds(userId) {
      const orgs = await service.userOrganizations(userId);
      return orgs
        .filter((o) => o.organization.enabled && o.roles.includes(ORG_ADMIN_ROLE))
        .map((o) => o.organization.id);
    },

    administers(principal, orgId) {
      if (!principal) return false;
      if (principal.kind === 'admin') return true;
      return principal.kind === 'org-admin' && (principal.orgAdminOf ?? []).includes(orgId);
    },

    async requireAdministered(principal, orgId) {
      if (!service.administers(principal, orgId)) throw organizationNotFound();
      const found = await service.get(orgId);
      if (!found) throw organizationNotFound();
      return found;
    },

    async administeredRecord(principal, by, records, notFound) {
      if ((by.id === undefined) === (by.orgId === undefined))
        throw invalidArgument('give exactly one of id and org_id');
      if (by.id !== undefined) {
        const record = await records.get(by.id);
        if (!record || !service.administers(principal, record.orgId)) throw notFound();
        return record;
      }
      await service.requireAdministered(principal, by.orgId!);
      const record = await records.byOrg(by.orgId!);
      if (!record) throw notFound();
      return record;
    },
  };

  hooks.on('user.deleted', async ({ user }) => {
    await em().nativeDelete(OrgMemberEntity, { userId: user.id });
  });

  return service;
}
