/**
 * The SCIM Group resource (RFC 7643 §4.2): displayName, externalId and members, each member
 * `{ value: <user id>, $ref }`. Reading a Group document (POST, PUT, a PATCH's result) keeps the
 * member ids; other attributes are accepted and not kept.
 */
import type { ProvisionedGroup } from '../groups.js';
import { badRequest } from './scim-error.js';
import { attribute } from './user-input.js';
import type { GroupFields } from '../groups.js';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function toScimGroup(group: ProvisionedGroup, baseUrl: string) {
  return {
    schemas: [GROUP_SCHEMA],
    id: group.row.id,
    ...(group.row.externalId !== null ? { externalId: group.row.externalId } : {}),
    displayName: group.row.displayName,
    members: group.members.map((id) => ({ value: id, $ref: `${baseUrl}/scim/v2/Users/${id}` })),
    meta: {
      resourceType: 'Group',
      created: new Date(Number(group.row.createdAt)).toISOString(),
      lastModified: new Date(Number(group.row.updatedAt)).toISOString(),
      location: `${baseUrl}/scim/v2/Groups/${group.row.id}`,
    },
  };
}

function text(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw badRequest('invalidValue', `${field} must be a string`);
  const v = value.trim();
  if (v.length > 256 || /[\u0000-\u001f\u007f]/.test(v))
    throw badRequest('invalidValue', `${field} is not a valid name`);
  return v === '' ? null : v;
}

export function readScimGroup(body: unknown): GroupFields {
  if (!isObject(body)) throw badRequest('invalidSyntax', 'the body must be a SCIM Group object');
  const members = attribute(body, 'members');
  if (members !== undefined && members !== null && !Array.isArray(members)) {
    throw badRequest('invalidValue', 'members must be an array');
  }
  return {
    displayName: text(attribute(body, 'displayName'), 'displayName') ?? undefined,
    externalId: text(attribute(body, 'externalId'), 'externalId'),
    members: (members ?? []).map((m, i) => {
      const value = isObject(m) ? attribute(m, 'value') : undefined;
      if (typeof value !== 'string' || value.length === 0)
        throw badRequest('invalidValue', `members[${i}].value must be a user id`);
      return value;
    }),
  };
}
