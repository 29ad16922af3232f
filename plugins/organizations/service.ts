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
import type { Logger } from '../../core/logger.js';
import { openUnitOfWork, type UnitOfWork } from '../../core/unit-of-work.js';
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

/**
 * Runs inside the unit of work of a change, before its commit (core/unit-of-work.ts): events
 * emitted with `events.emitWithin(unit, ...)` are stored by the same commit as the change, and a
 * throw stores neither.
 */
export type WithinChange<T> = (unit: UnitOfWork, result: T) => Promise<void>;

export interface OrganizationsService {
  create(
    input: { name: string; display_name?: string },
    options?: { within?: WithinChange<Organization> },
  ): Promise<Organization>;
  update(
    id: string,
    patch: OrganizationPatch,
    options?: { within?: WithinChange<Organization> },
  ): Promise<Organization>;
  /**
   * Deletes the organization, its memberships and, through the `organization.deleting` hook run
   * inside the same transaction, every record other plugins keep for it. `not_found` when absent.
   */
  remove(id: string, options?: { within?: WithinChange<Organization> }): Promise<void>;
  get(id: string): Promise<Organization | null>;
  /** By slug (`Organization.name`). */
  getByName(name: string): Promise<Organization | null>;
  list(page: number, limit: number): Promise<{ organizations: Organization[]; total: number }>;
  /** Adds the user, or sets the roles of an existing member; `created` tells which. */
  addMember(
    orgId: string,
    userId: string,
    roles?: readonly string[],
    options?: { within?: WithinChange<{ membership: OrgMembership; created: boolean }> },
  ): Promise<{ membership: OrgMembership; created: boolean }>;
  /**
   * Adds a new member's row to `unit`, the unit of work of a change another plugin commits (a
   * user created with its membership): that one commit stores both, or neither. Nothing is read
   * (the user may exist only in `unit`); a membership that exists already fails the commit (the
   * unique index on organization and user).
   */
  addMemberWithin(unit: UnitOfWork, orgId: string, userId: string, roles?: readonly string[]): OrgMembership;
  /** False when the user was not a member (`within` then stores nothing). */
  removeMember(orgId: string, userId: string, options?: { within?: WithinChange<void> }): Promise<boolean>;
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
  /**
   * The active record kept for the enabled organization named `slug` (its SSO connection), or
   * null: an unknown slug, a disabled organization and an inactive record look alike.
   */
  activeRecordOf<T extends { isActive: boolean }>(
    slug: string,
    records: Pick<OrgScopedRecords<T>, 'byOrg'>,
  ): Promise<T | null>;
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

export function createOrganizationsService(storage: Storage, hooks: HookBus, logger: Logger): OrganizationsService {
  const em = (): EntityManager => storage.em();
  const unitOf = (manager: EntityManager) =>
    openUnitOfWork(manager, (err) => logger.error({ err }, 'after-commit step failed'));
  /** Commits a unit whose change is `statements`; false when they found nothing to change (`missing`). */
  async function commitStatements(
    manager: EntityManager,
    within: ((unit: UnitOfWork) => Promise<void>) | undefined,
    statements: (tx: EntityManager) => Promise<number>,
  ): Promise<boolean> {
    const unit = unitOf(manager);
    await within?.(unit);
    const missing = new Error('nothing to change');
    return unit
      .commit(async (tx) => {
        if ((await statements(tx)) === 0) throw missing;
      })
      .then(
        () => true,
        (err: unknown) => {
          if (err === missing) return false;
          throw err;
        },
      );
  }

  async function row(id: string, manager: EntityManager = em()): Promise<OrganizationRow | null> {
    if (!fits(id)) return null;
    return (await manager.findOne(OrganizationEntity, { id })) as OrganizationRow | null;
  }

  const service: OrganizationsService = {
    async create(input, options = {}) {
      const name = checkSlug(input.name);
      const displayName = input.display_name !== undefined ? checkDisplayName(input.display_name) : null;
      const manager = em();
      if (await manager.findOne(OrganizationEntity, { name })) throw nameTaken();
      const now = Date.now();
      const r: OrganizationRow = { id: newId(), name, displayName, enabled: true, createdAt: now, updatedAt: now };
      // The organization and its event's outbox rows are stored by one commit.
      manager.create(OrganizationEntity, r as never);
      const unit = unitOf(manager);
      await options.within?.(unit, toOrganization(r));
      try {
        await unit.commit();
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw nameTaken();
        throw err;
      }
      return toOrganization(r);
    },

    async update(id, patch, options = {}) {
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
      const unit = unitOf(manager);
      await options.within?.(unit, toOrganization(found));
      try {
        await unit.commit();
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw nameTaken();
        throw err;
      }
      return toOrganization(found);
    },

    async remove(id, options = {}) {
      const found = await row(id);
      if (!found) throw organizationNotFound();
      const organization = toOrganization(found);
      const within = options.within;
      const deleted = await commitStatements(em(), within && ((unit) => within(unit, organization)), async (tx) => {
        // Other plugins first: their rows name the organization (domains, SCIM, SSO connections).
        await hooks.run('organization.deleting', { organization, em: tx });
        await tx.nativeDelete(OrgMemberEntity, { orgId: id });
        return tx.nativeDelete(OrganizationEntity, { id });
      });
      // The loser of two concurrent deletions reports what a missing organization does.
      if (!deleted) throw organizationNotFound();
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

    async addMember(orgId, userId, roles, options = {}) {
      const wanted = roles !== undefined ? checkRoles(roles) : undefined;
      const manager = em();
      /** Commits the unit of `manager` with the membership's event rows. */
      const stored = async (result: { membership: OrgMembership; created: boolean }, on = manager) => {
        const unit = unitOf(on);
        await options.within?.(unit, result);
        await unit.commit();
        return result;
      };
      const existing = (await manager.findOne(OrgMemberEntity, { orgId, userId })) as OrgMemberRow | null;
      if (existing) {
        if (wanted !== undefined) existing.roles = wanted;
        return stored({ membership: toMembership(existing), created: false });
      }
      const r: OrgMemberRow = {
        id: newId(),
        orgId,
        userId,
        roles: wanted ?? [...DEFAULT_MEMBER_ROLES],
        createdAt: Date.now(),
      };
      manager.create(OrgMemberEntity, r as never);
      try {
        return await stored({ membership: toMembership(r), created: true });
      } catch (err) {
        // A concurrent add of the same member won: the membership exists, as asked.
        if (!(err instanceof UniqueConstraintViolationException)) throw err;
        const fresh = em();
        const now = (await fresh.findOne(OrgMemberEntity, { orgId, userId })) as OrgMemberRow | null;
        if (!now) throw err;
        return stored({ membership: toMembership(now), created: false }, fresh);
      }
    },

    addMemberWithin(unit, orgId, userId, roles) {
      const r: OrgMemberRow = {
        id: newId(),
        orgId,
        userId,
        roles: roles !== undefined ? checkRoles(roles) : [...DEFAULT_MEMBER_ROLES],
        createdAt: Date.now(),
      };
      unit.em.create(OrgMemberEntity, r as never);
      return toMembership(r);
    },

    async removeMember(orgId, userId, options = {}) {
      if (!fits(orgId) || !fits(userId)) return false;
      const within = options.within;
      return commitStatements(em(), within && ((unit) => within(unit)), (tx) =>
        tx.nativeDelete(OrgMemberEntity, { orgId, userId }),
      );
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

    async activeRecordOf(slug, records) {
      const org = slug ? await service.getByName(slug) : null;
      if (!org || !org.enabled) return null;
      const record = await records.byOrg(org.id);
      return record && record.isActive ? record : null;
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
