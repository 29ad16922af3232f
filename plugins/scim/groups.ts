/**
 * Provisioned groups (an addition to the API's SCIM Users): each group of an organization is a row, and its members
 * are the FGA tuples `user:<user id> member group:<group id>`, so an authorization model that
 * grants a relation to `group:<id>#member` follows the identity provider's group membership.
 * The model must declare `type group` with `define member: [user]`; FGA refuses the tuples
 * otherwise (a SCIM 400 naming the problem). Members must be users provisioned in the same
 * organization. Everything is checked before the first write.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { ServiceError, invalidArgument } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import type { FgaApi } from '../fga/index.js';
import { ScimGroupEntity, ScimUserEntity, type ScimGroupRow, type ScimUserRow } from './entities.js';

export interface GroupFields {
  displayName: string | undefined;
  externalId: string | null;
  /** User ids. */
  members: string[];
}

export interface ProvisionedGroup {
  row: ScimGroupRow;
  members: string[];
}

export interface Groups {
  create(orgId: string, fields: GroupFields): Promise<ProvisionedGroup>;
  find(orgId: string, id: string): Promise<ProvisionedGroup | null>;
  list(orgId: string, displayName?: string): Promise<ProvisionedGroup[]>;
  replace(current: ProvisionedGroup, fields: GroupFields): Promise<ProvisionedGroup>;
  remove(current: ProvisionedGroup): Promise<void>;
  /** Removes the member tuples of the given groups (their organization was deleted). */
  forgetMembers(groupIds: readonly string[]): Promise<void>;
}

export const MEMBER = 'member';
const MAX_LISTED = 100;
const nameTaken = () => new ServiceError('already_exists', 'displayName is already in use in this organization');
const tupleOf = (groupId: string, userId: string) => ({
  user: `user:${userId}`,
  relation: MEMBER,
  object: `group:${groupId}`,
});

export function createGroups(storage: Storage, fga: () => FgaApi | undefined): Groups {
  const em = () => storage.em();
  const requireFga = (): FgaApi => {
    const api = fga();
    if (!api || !api.enabled) throw new ServiceError('failed_precondition', 'groups need FGA, which is not enabled');
    return api;
  };

  async function membersOf(groupId: string): Promise<string[]> {
    const api = requireFga();
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await api.readTuples({ relation: MEMBER, object: `group:${groupId}` }, 100, token);
      for (const t of page.tuples) if (t.user.startsWith('user:')) out.push(t.user.slice('user:'.length));
      token = page.continuationToken || undefined;
    } while (token);
    return out;
  }

  /** The members, each a user provisioned in the organization; duplicates dropped. */
  async function checkMembers(orgId: string, members: string[]): Promise<string[]> {
    const unique = [...new Set(members)];
    if (unique.length > 1000) throw invalidArgument('a group holds at most 1000 members per request');
    if (unique.length === 0) return [];
    if (unique.some((id) => id.length === 0 || id.length > 64)) throw invalidArgument('members: unknown user');
    const links = (await em().find(ScimUserEntity, { orgId, userId: { $in: unique } })) as ScimUserRow[];
    const known = new Set(links.map((l) => l.userId));
    const stranger = unique.find((id) => !known.has(id));
    if (stranger !== undefined)
      throw invalidArgument(`members: ${stranger.slice(0, 64)} is not a user of this organization`);
    return unique;
  }

  async function checkName(orgId: string, name: string | undefined, self: string | null): Promise<string> {
    if (!name) throw invalidArgument('displayName is required');
    const other = (await em().findOne(ScimGroupEntity, {
      orgId,
      displayNameKey: name.toLowerCase(),
    })) as ScimGroupRow | null;
    if (other && other.id !== self) throw nameTaken();
    return name;
  }

  async function setMembers(groupId: string, before: string[], after: string[]): Promise<void> {
    const api = requireFga();
    const was = new Set(before);
    const will = new Set(after);
    const added = after.filter((id) => !was.has(id)).map((id) => tupleOf(groupId, id));
    const removed = before.filter((id) => !will.has(id)).map((id) => tupleOf(groupId, id));
    if (added.length > 0) await api.writeTuples(added);
    if (removed.length > 0) await api.deleteTuples(removed);
  }

  const groups: Groups = {
    async create(orgId, fields) {
      requireFga();
      const displayName = await checkName(orgId, fields.displayName, null);
      const members = await checkMembers(orgId, fields.members);
      const now = Date.now();
      const row: ScimGroupRow = {
        id: newId(),
        orgId,
        displayName,
        displayNameKey: displayName.toLowerCase(),
        externalId: fields.externalId,
        createdAt: now,
        updatedAt: now,
      };
      // The tuples first: a model without `type group` refuses them, and then no row is left behind.
      await setMembers(row.id, [], members);
      try {
        await em().insert(ScimGroupEntity, row as never);
      } catch (err) {
        await setMembers(row.id, members, []).catch(() => {});
        if (err instanceof UniqueConstraintViolationException) throw nameTaken();
        throw err;
      }
      return { row, members };
    },

    async find(orgId, id) {
      if (id.length === 0 || id.length > 64) return null;
      const row = (await em().findOne(ScimGroupEntity, { id, orgId })) as ScimGroupRow | null;
      return row ? { row, members: await membersOf(row.id) } : null;
    },

    async list(orgId, displayName) {
      const where = displayName === undefined ? { orgId } : { orgId, displayNameKey: displayName.toLowerCase() };
      const rows = (await em().find(ScimGroupEntity, where, {
        orderBy: { createdAt: 'asc', id: 'asc' },
        limit: MAX_LISTED,
      })) as ScimGroupRow[];
      return Promise.all(rows.map(async (row) => ({ row, members: await membersOf(row.id) })));
    },

    async replace(current, fields) {
      const { row } = current;
      const displayName = await checkName(row.orgId, fields.displayName ?? row.displayName, row.id);
      const members = await checkMembers(row.orgId, fields.members);
      await setMembers(row.id, current.members, members);
      const manager = em();
      const stored = (await manager.findOne(ScimGroupEntity, { id: row.id })) as ScimGroupRow | null;
      if (!stored) throw new ServiceError('not_found', 'group not found');
      stored.displayName = displayName;
      stored.displayNameKey = displayName.toLowerCase();
      stored.externalId = fields.externalId;
      stored.updatedAt = Date.now();
      try {
        await manager.flush();
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw nameTaken();
        throw err;
      }
      return { row: stored, members };
    },

    async remove(current) {
      await setMembers(current.row.id, current.members, []);
      await em().nativeDelete(ScimGroupEntity, { id: current.row.id });
    },

    async forgetMembers(groupIds) {
      const api = fga();
      if (!api || !api.enabled) return;
      for (const id of groupIds) await setMembers(id, await membersOf(id), []);
    },
  };
  return groups;
}
