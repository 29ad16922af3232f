/**
 * Provisioning (SCIM 2.0; `active: false` revokes the user's access), transport-free: users of
 * one organization created, read, replaced and deactivated. Everything an update needs is checked
 * before the first write (userName and email uniqueness, the values themselves), so a refused
 * request changes nothing.
 *
 * `active` transitions: active -> inactive revokes access and ends every session at once (an
 * access token fails on its next use, a refresh token cannot be redeemed: both need the
 * session, and refresh also refuses a revoked user); inactive -> active restores access; a user
 * created inactive is revoked from birth and can never be issued a token.
 */
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { ServiceError } from '../../core/errors.js';
import type { EventBus } from '../../core/events.js';
import type { Logger } from '../../core/logger.js';
import type { Storage } from '../../core/storage.js';
import { openUnitOfWork, type UnitOfWork } from '../../core/unit-of-work.js';
import type { OrganizationsService } from '../organizations/index.js';
import type { OrgDomainsService } from '../org-domains/index.js';
import type { SessionsService } from '../sessions/index.js';
import type { UserRecord, UsersService, WithinUserWrite } from '../users/index.js';
import { ScimUserEntity, type ScimUserRow } from './entities.js';
import { primaryEmail, type ScimUserFields } from './http/user-input.js';
import { badRequest } from './http/scim-error.js';

export const USER_PROVISIONED = 'user.provisioned';
export const USER_DEPROVISIONED = 'user.deprovisioned';
export const USER_SCIM_UPDATED = 'user.scim_updated';

/** Where a provisioning request came from, for the events (and so the audit log). */
export interface RequestSource {
  ip: string;
  userAgent?: string;
}

export interface ProvisionedUser {
  user: UserRecord;
  link: ScimUserRow;
}

export interface Provisioning {
  create(orgId: string, fields: ScimUserFields, from?: RequestSource): Promise<ProvisionedUser>;
  /** The organization's user, or null (another organization's user is null too). */
  find(orgId: string, userId: string): Promise<ProvisionedUser | null>;
  findByUserName(orgId: string, userName: string): Promise<ProvisionedUser | null>;
  /** Sets every kept attribute to `fields` (PUT, and a PATCH's result). */
  replace(current: ProvisionedUser, fields: ScimUserFields, from?: RequestSource): Promise<ProvisionedUser>;
  deactivate(current: ProvisionedUser, from?: RequestSource): Promise<ProvisionedUser>;
}

export interface ProvisioningDeps {
  storage: Storage;
  events: EventBus;
  logger: Logger;
  users: UsersService;
  sessions: SessionsService;
  organizations: OrganizationsService;
  domains: () => OrgDomainsService | undefined;
}

const userNameTaken = () => new ServiceError('already_exists', 'userName is already in use in this organization');
const emailTaken = () => new ServiceError('already_exists', 'user with given email already exists');

export function createProvisioning(deps: ProvisioningDeps): Provisioning {
  const { storage, users, sessions, organizations, events, logger } = deps;
  const em = () => storage.em();
  const unitOf = (manager: EntityManager) =>
    openUnitOfWork(manager, (err) => logger.error({ err }, 'after-commit step failed'));
  const linkOf = async (where: Record<string, unknown>) =>
    (await em().findOne(ScimUserEntity, where)) as ScimUserRow | null;

  /** The normalized primary address, refusing one held by another user. */
  async function emailFor(fields: ScimUserFields, self: string | null): Promise<string> {
    const given = primaryEmail(fields);
    if (!given) throw badRequest('invalidValue', 'an email address is required (emails, or a userName that is one)');
    const email = users.normalizeEmail(given);
    const holder = await users.findByEmail(email);
    if (holder && holder.id !== self) throw emailTaken();
    return email;
  }

  /** An address is taken as verified when its domain is one the organization has verified. */
  async function domainVerified(orgId: string, email: string): Promise<boolean> {
    const domains = deps.domains();
    const domain = domains?.normalize(email.slice(email.lastIndexOf('@') + 1));
    if (!domains || !domain) return false;
    return (await domains.get(domain))?.orgId === orgId;
  }

  /** Sets the user's access; `within` runs in the change's unit of work when there is one. */
  async function setActive(
    user: UserRecord,
    active: boolean,
    within?: WithinUserWrite,
  ): Promise<{ user: UserRecord; changed: boolean }> {
    if (active === (user.revokedTimestamp === null)) return { user, changed: false };
    const result = await users.setAccess(user.id, active ? null : Math.floor(Date.now() / 1000), {
      ...(within ? { within } : {}),
    });
    // Deactivation ends every session now; so the session's access and refresh tokens end too.
    if (!active) await sessions.revokeAll(user.id);
    return result;
  }

  /** Stores a provisioning event in the unit of work of its change (core/unit-of-work.ts). */
  const emitWithin = (
    unit: UnitOfWork,
    name: string,
    orgId: string,
    user: UserRecord,
    from: RequestSource | undefined,
  ) =>
    events.emitWithin(unit, name, {
      org_id: orgId,
      actor: `scim:${orgId}`,
      actor_kind: 'scim',
      ...(from ? { ip: from.ip, user_agent: from.userAgent ?? '' } : {}),
      user: users.toUserDto(user),
    });

  const provisioning: Provisioning = {
    async create(orgId, fields, from) {
      const email = await emailFor(fields, null);
      const userName = fields.userName ?? email;
      if (await linkOf({ orgId, userNameKey: userName.toLowerCase() })) throw userNameTaken();
      const now = Date.now();
      const newLink = (userId: string): ScimUserRow => ({
        userId,
        orgId,
        userName,
        userNameKey: userName.toLowerCase(),
        externalId: fields.externalId,
        emails: fields.emails,
        createdAt: now,
        updatedAt: now,
      });
      let user: UserRecord;
      try {
        // The user, its SCIM link, its membership of the organization and its event (the webhook
        // outbox rows and the audit record) are stored by one commit: a failure anywhere, a
        // concurrent create of the same userName, or a database that cannot be reached, stores
        // none of them, so no half-provisioned user is left for the client's retry to collide with.
        user = await users.create(
          {
            email,
            email_verified: await domainVerified(orgId, email),
            signup_method: 'scim',
            roles: [...users.roles.defaults],
            ...(fields.givenName ? { given_name: fields.givenName } : {}),
            ...(fields.familyName ? { family_name: fields.familyName } : {}),
            revoked: !fields.active,
          },
          {
            within: async (unit, created) => {
              unit.em.create(ScimUserEntity, newLink(created.id) as never);
              organizations.addMemberWithin(unit, orgId, created.id);
              await emitWithin(unit, USER_PROVISIONED, orgId, created, from);
            },
          },
        );
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw userNameTaken();
        throw err;
      }
      return { user, link: newLink(user.id) };
    },

    async find(orgId, userId) {
      if (userId.length === 0 || userId.length > 64) return null;
      const link = await linkOf({ userId, orgId });
      if (!link) return null;
      const user = await users.findById(userId, { fresh: true });
      return user ? { user, link } : null;
    },

    async findByUserName(orgId, userName) {
      if (userName.length > 256) return null;
      const link = await linkOf({ orgId, userNameKey: userName.toLowerCase() });
      return link ? provisioning.find(orgId, link.userId) : null;
    },

    async replace(current, fields, from) {
      const { user, link } = current;
      const email = await emailFor(fields, user.id);
      const userName = fields.userName ?? link.userName;
      const key = userName.toLowerCase();
      if (key !== link.userNameKey) {
        const other = await linkOf({ orgId: link.orgId, userNameKey: key });
        if (other && other.userId !== user.id) throw userNameTaken();
      }
      const { after } = await users.update(user.id, {
        ...(email !== user.email ? { email, email_verified: await domainVerified(link.orgId, email) } : {}),
        given_name: fields.givenName ?? '',
        family_name: fields.familyName ?? '',
      });
      const manager = em();
      const row = (await manager.findOne(ScimUserEntity, { userId: user.id })) as ScimUserRow | null;
      if (!row) throw new ServiceError('not_found', 'resource not found');
      row.userName = userName;
      row.userNameKey = key;
      row.externalId = fields.externalId;
      row.emails = fields.emails;
      row.updatedAt = Date.now();
      // The event is stored with the last write of the change: the access change when there is
      // one, else the SCIM attributes.
      const changesAccess = fields.active !== (after.revokedTimestamp === null);
      const unit = unitOf(manager);
      if (!changesAccess) await emitWithin(unit, USER_SCIM_UPDATED, link.orgId, after, from);
      try {
        await unit.commit();
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw userNameTaken();
        throw err;
      }
      const { user: final, changed } = await setActive(after, fields.active, (accessUnit, stored) =>
        emitWithin(accessUnit, fields.active ? USER_SCIM_UPDATED : USER_DEPROVISIONED, link.orgId, stored, from),
      );
      if (changesAccess && !changed) {
        // Another request changed the access first: this update's event is stored on its own.
        const own = unitOf(em());
        await emitWithin(own, USER_SCIM_UPDATED, link.orgId, final, from);
        await own.commit();
      }
      return { user: final, link: row };
    },

    async deactivate(current, from) {
      const { user } = await setActive(current.user, false, (unit, stored) =>
        emitWithin(unit, USER_DEPROVISIONED, current.link.orgId, stored, from),
      );
      return { user, link: current.link };
    },
  };
  return provisioning;
}
